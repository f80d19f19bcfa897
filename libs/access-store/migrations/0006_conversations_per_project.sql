-- Conversation ids are per project (issue 25 item 4): the same id registered in two
-- projects names two conversations, and a project's overrides, lineage and checks never
-- read another project's. Both tables are rebuilt keyed by project first; overrides take
-- the project their conversation was registered in (an override of a conversation never
-- registered applied to no project's evaluation it could be set for, and is dropped).
-- The parent is checked inside the registering transaction, within the same project, so
-- the table carries no foreign key. Portable: the same text on both backends.

CREATE TABLE access_conversations_by_project (
    project TEXT NOT NULL,
    conversation TEXT NOT NULL,
    parent TEXT,
    PRIMARY KEY (project, conversation)
);

INSERT INTO access_conversations_by_project (project, conversation, parent)
SELECT project, conversation, parent FROM access_conversations;

CREATE TABLE access_conversation_overrides_by_project (
    project TEXT NOT NULL,
    conversation TEXT NOT NULL,
    package_key TEXT NOT NULL,
    file_path TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    PRIMARY KEY (project, conversation, package_key, file_path)
);

INSERT INTO access_conversation_overrides_by_project
    (project, conversation, package_key, file_path, enabled)
SELECT c.project, o.conversation, o.package_key, o.file_path, o.enabled
  FROM access_conversation_overrides o
  JOIN access_conversations c ON c.conversation = o.conversation;

DROP TABLE access_conversation_overrides;
DROP TABLE access_conversations;
ALTER TABLE access_conversations_by_project RENAME TO access_conversations;
ALTER TABLE access_conversation_overrides_by_project RENAME TO access_conversation_overrides;
