-- Role grants per project (issue 9: a project administrator sets the grants of their
-- project). `project` is '' for grants that apply in every project, which is what every
-- grant stored before this migration was. Portable: SQLite cannot change a primary key,
-- so the table is rebuilt on both backends.

CREATE TABLE access_role_grants (
    project TEXT NOT NULL,
    grantor TEXT NOT NULL,
    role TEXT NOT NULL,
    feature TEXT NOT NULL,
    PRIMARY KEY (project, grantor, role, feature)
);

INSERT INTO access_role_grants (project, grantor, role, feature)
    SELECT '', grantor, role, feature FROM access_role_features;

DROP TABLE access_role_features;

CREATE INDEX access_role_grants_by_role ON access_role_grants (role, project);
