-- The access store (DESIGN.md section 1, policy: "the access store"). Portable SQL: the
-- same text runs on SQLite (embedded) and PostgreSQL.

-- Per source: the enabled switch and the persisted URI policy (JSON; NULL = none).
CREATE TABLE access_sources (
    source_id TEXT PRIMARY KEY,
    enabled BOOLEAN NOT NULL,
    policy TEXT
);

-- Role grants, one row per (grantor, role, feature); a grantor's rows are replaced whole.
CREATE TABLE access_role_features (
    grantor TEXT NOT NULL,
    role TEXT NOT NULL,
    feature TEXT NOT NULL,
    PRIMARY KEY (grantor, role, feature)
);
CREATE INDEX access_role_features_by_role ON access_role_features (role);

-- Package enable states per project; a package without a row is enabled.
CREATE TABLE access_package_states (
    project TEXT NOT NULL,
    package_key TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    PRIMARY KEY (project, package_key)
);

-- Agent-scope per-file overrides.
CREATE TABLE access_agent_overrides (
    agent TEXT NOT NULL,
    package_key TEXT NOT NULL,
    file_path TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    PRIMARY KEY (agent, package_key, file_path)
);

-- Conversation-scope per-file overrides.
CREATE TABLE access_conversation_overrides (
    conversation TEXT NOT NULL,
    package_key TEXT NOT NULL,
    file_path TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    PRIMARY KEY (conversation, package_key, file_path)
);

-- Conversation lineage: a delegate child run names its parent conversation. A parent
-- must be registered first and a lineage never changes, so the chain has no cycle.
CREATE TABLE access_conversations (
    conversation TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    parent TEXT REFERENCES access_conversations (conversation)
);
