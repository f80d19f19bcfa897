-- Manifest access at attach (issue 10, seed 002 "requires"): a package's
-- `defaultRoleGrants` are stored as the grants of grantor `package:<id>` (every
-- project, '') and re-stored at every attach; an administrator withholds a default
-- from a role with a revocation, which masks package grants (never the administrator's
-- own) and outlives every re-attach. `project` is '' for a revocation in every project.
-- Portable: the same text on both backends.

CREATE TABLE access_grant_revocations (
    project TEXT NOT NULL,
    role TEXT NOT NULL,
    feature TEXT NOT NULL,
    PRIMARY KEY (project, role, feature)
);
