//! The statements, written once: both backends bind `$N` placeholders (SQLite accepts
//! them too). Where the dialects differ, each backend has its own constant here.

pub(crate) const SOURCE: &str = "SELECT enabled, policy FROM access_sources WHERE source_id = $1";

/// PostgreSQL: the sources of a batch, bound as a text array.
pub(crate) const SOURCES_PG: &str =
    "SELECT source_id, enabled, policy FROM access_sources WHERE source_id = ANY($1)";

/// SQLite: the sources of a batch, bound as a JSON array.
pub(crate) const SOURCES_SQLITE: &str = "SELECT source_id, enabled, policy FROM access_sources WHERE source_id IN (SELECT value FROM json_each($1))";

/// Creates the source row a policy is written to, so PostgreSQL can lock it.
pub(crate) const ENSURE_SOURCE: &str = "INSERT INTO access_sources (source_id, enabled, policy) VALUES ($1, TRUE, NULL) ON CONFLICT (source_id) DO NOTHING";

/// PostgreSQL: the policy to merge floors from, locked until the write commits.
pub(crate) const POLICY_FOR_UPDATE_PG: &str =
    "SELECT policy FROM access_sources WHERE source_id = $1 FOR UPDATE";

/// SQLite: the write transaction is `BEGIN IMMEDIATE`, which already excludes writers.
pub(crate) const POLICY_FOR_UPDATE_SQLITE: &str =
    "SELECT policy FROM access_sources WHERE source_id = $1";

pub(crate) const WRITE_POLICY: &str = "UPDATE access_sources SET policy = $2 WHERE source_id = $1";

pub(crate) const SET_SOURCE_ENABLED: &str = "INSERT INTO access_sources (source_id, enabled, policy) VALUES ($1, $2, NULL) \
     ON CONFLICT (source_id) DO UPDATE SET enabled = excluded.enabled";

/// Forgetting a source: its row, then everything stored under its package keys.
pub(crate) const FORGET_SOURCE: &str = "DELETE FROM access_sources WHERE source_id = $1";

/// The statements deleting every row whose package key starts with `$1` (the source id
/// and `/`). A prefix compared with `substr`, not `LIKE`, so `%` and `_` in an id are
/// plain characters on both backends.
pub(crate) const FORGET_SOURCE_KEYS: [&str; 3] = [
    "DELETE FROM access_package_states \
     WHERE substr(package_key, 1, length(CAST($1 AS TEXT))) = CAST($1 AS TEXT)",
    "DELETE FROM access_agent_overrides \
     WHERE substr(package_key, 1, length(CAST($1 AS TEXT))) = CAST($1 AS TEXT)",
    "DELETE FROM access_conversation_overrides \
     WHERE substr(package_key, 1, length(CAST($1 AS TEXT))) = CAST($1 AS TEXT)",
];

/// Marks source `$1` re-keyed; affects no row when it already was (then nothing moves).
pub(crate) const MARK_REKEYED: &str =
    "INSERT INTO access_package_rekeys (source_id) VALUES ($1) ON CONFLICT (source_id) DO NOTHING";

/// The statements moving every row stored under package key `$1` to `$2`: a row whose
/// target already exists (state set under the new key since the upgrade) keeps the
/// newer one, and the legacy row is then deleted so no later package named like the
/// legacy key inherits it.
pub(crate) const REKEY: [&str; 6] = [
    "UPDATE access_package_states SET package_key = $2 WHERE package_key = $1 \
     AND NOT EXISTS (SELECT 1 FROM access_package_states t \
                      WHERE t.project = access_package_states.project AND t.package_key = $2)",
    "DELETE FROM access_package_states WHERE package_key = $1",
    "UPDATE access_agent_overrides SET package_key = $2 WHERE package_key = $1 \
     AND NOT EXISTS (SELECT 1 FROM access_agent_overrides t \
                      WHERE t.agent = access_agent_overrides.agent AND t.package_key = $2 \
                        AND t.file_path = access_agent_overrides.file_path)",
    "DELETE FROM access_agent_overrides WHERE package_key = $1",
    "UPDATE access_conversation_overrides SET package_key = $2 WHERE package_key = $1 \
     AND NOT EXISTS (SELECT 1 FROM access_conversation_overrides t \
                      WHERE t.project = access_conversation_overrides.project \
                        AND t.conversation = access_conversation_overrides.conversation \
                        AND t.package_key = $2 \
                        AND t.file_path = access_conversation_overrides.file_path)",
    "DELETE FROM access_conversation_overrides WHERE package_key = $1",
];

/// The prefix of every package key stored under `source_id`.
pub(crate) fn source_key_prefix(source_id: &str) -> String {
    format!("{source_id}/")
}

/// A grantor's grants in one project (`$1`; '' for every project).
pub(crate) const DELETE_GRANTS: &str =
    "DELETE FROM access_role_grants WHERE project = $1 AND grantor = $2";

/// The packages that granted something by default (at attach, in every project).
pub(crate) const ATTACHED_GRANTORS: &str = "SELECT DISTINCT grantor FROM access_role_grants \
     WHERE project = '' AND grantor LIKE 'package:%'";

pub(crate) const INSERT_GRANT: &str =
    "INSERT INTO access_role_grants (project, grantor, role, feature) VALUES ($1, $2, $3, $4)";

/// The features of role `$1` in project `$2`: the project's grants and those of every
/// project.
/// A package's default grant revoked (in the project or in every project) is left out;
/// the administrator's own grants never are.
pub(crate) const ROLE_FEATURES: &str = "SELECT DISTINCT g.feature FROM access_role_grants g \
     WHERE g.role = $1 AND (g.project = '' OR g.project = $2) \
     AND (g.grantor = 'admin' OR NOT EXISTS ( \
         SELECT 1 FROM access_grant_revocations r \
         WHERE r.role = g.role AND r.feature = g.feature AND (r.project = '' OR r.project = $2)))";

/// An administrator's revocations in one project ('' for every project), replaced whole.
pub(crate) const DELETE_REVOCATIONS: &str =
    "DELETE FROM access_grant_revocations WHERE project = $1";

pub(crate) const INSERT_REVOCATION: &str =
    "INSERT INTO access_grant_revocations (project, role, feature) VALUES ($1, $2, $3)";

/// The revocations of one project ('' for every project).
pub(crate) const REVOCATIONS: &str =
    "SELECT role, feature FROM access_grant_revocations WHERE project = $1";

/// The stored project of grants for every project.
pub(crate) const EVERY_PROJECT: &str = "";

pub(crate) const SET_PACKAGE: &str = "INSERT INTO access_package_states (project, package_key, enabled) VALUES ($1, $2, $3) \
     ON CONFLICT (project, package_key) DO UPDATE SET enabled = excluded.enabled";

/// A package without a state is on.
pub(crate) const CLEAR_PACKAGE: &str =
    "DELETE FROM access_package_states WHERE project = $1 AND package_key = $2";

pub(crate) const PACKAGE_STATE_HELD: &str =
    "SELECT COUNT(*) FROM access_package_states WHERE project = $1 AND package_key = $2";

pub(crate) const PACKAGE_STATES_HELD: &str =
    "SELECT COUNT(*) FROM access_package_states WHERE project = $1";

/// The (role, feature) rows a project's own grants and revocations hold.
pub(crate) const PROJECT_GRANT_ROWS: &str = "SELECT \
     (SELECT COUNT(*) FROM access_role_grants WHERE project = $1) + \
     (SELECT COUNT(*) FROM access_grant_revocations WHERE project = $1)";

pub(crate) const PACKAGES: &str =
    "SELECT package_key, enabled FROM access_package_states WHERE project = $1";

pub(crate) const SET_AGENT_OVERRIDE: &str = "INSERT INTO access_agent_overrides (agent, package_key, file_path, enabled) \
     VALUES ($1, $2, $3, $4) ON CONFLICT (agent, package_key, file_path) DO UPDATE SET enabled = excluded.enabled";

pub(crate) const CLEAR_AGENT_OVERRIDE: &str =
    "DELETE FROM access_agent_overrides WHERE agent = $1 AND package_key = $2 AND file_path = $3";

pub(crate) const AGENT_OVERRIDES: &str =
    "SELECT package_key, file_path, enabled FROM access_agent_overrides WHERE agent = $1";

pub(crate) const SET_CONVERSATION_OVERRIDE: &str = "INSERT INTO access_conversation_overrides \
     (project, conversation, package_key, file_path, enabled) VALUES ($1, $2, $3, $4, $5) \
     ON CONFLICT (project, conversation, package_key, file_path) DO UPDATE SET enabled = excluded.enabled";

pub(crate) const CLEAR_CONVERSATION_OVERRIDE: &str = "DELETE FROM access_conversation_overrides \
     WHERE project = $1 AND conversation = $2 AND package_key = $3 AND file_path = $4";

/// Whether conversation `$2` of project `$1` holds an override of file (`$3`, `$4`).
pub(crate) const CONVERSATION_OVERRIDE_HELD: &str = "SELECT COUNT(*) FROM access_conversation_overrides \
     WHERE project = $1 AND conversation = $2 AND package_key = $3 AND file_path = $4";

/// How many file overrides conversation `$2` of project `$1` holds, and the bytes of
/// their package keys and paths (PostgreSQL).
pub(crate) const CONVERSATION_OVERRIDE_TOTALS_PG: &str = "SELECT COUNT(*), \
     CAST(COALESCE(SUM(octet_length(package_key) + octet_length(file_path)), 0) AS BIGINT) \
     FROM access_conversation_overrides WHERE project = $1 AND conversation = $2";

/// [`CONVERSATION_OVERRIDE_TOTALS_PG`] on SQLite (`length` of a text counts characters;
/// of a blob, bytes).
pub(crate) const CONVERSATION_OVERRIDE_TOTALS_SQLITE: &str = "SELECT COUNT(*), \
     COALESCE(SUM(length(CAST(package_key AS BLOB)) + length(CAST(file_path AS BLOB))), 0) \
     FROM access_conversation_overrides WHERE project = $1 AND conversation = $2";

/// PostgreSQL: keeps other writers of conversation `$2` of project `$1`'s overrides
/// waiting until the transaction ends, so two new overrides cannot both pass the count.
/// A lock by key, not a row: the store holds overrides of unregistered conversations.
/// Its key has a prefix of its own: conversation ids may hold `/`, and an unprefixed
/// key could meet another lock's (`grants/<project>/<grantor>`).
pub(crate) const CONVERSATION_OVERRIDES_LOCK_PG: &str = "SELECT pg_advisory_xact_lock(\
     hashtextextended('conversation/' || CAST($1 AS TEXT) || '/' || CAST($2 AS TEXT), 0))";

/// SQLite: the write transaction is `BEGIN IMMEDIATE`, which already excludes writers;
/// the statement only binds what the PostgreSQL one does.
pub(crate) const CONVERSATION_OVERRIDES_LOCK_SQLITE: &str =
    "SELECT CAST($1 AS TEXT), CAST($2 AS TEXT)";

/// PostgreSQL: keeps other writers of the grants of grantor `$2` in project `$1` (or of
/// its revocations) waiting until the transaction ends. A grant set is replaced by a
/// delete and inserts: under READ COMMITTED, a second replacement's delete does not see
/// the first's new rows, so two at once stored both sets, or failed on a duplicate key.
pub(crate) const GRANTS_LOCK_PG: &str = "SELECT pg_advisory_xact_lock(\
     hashtextextended('grants/' || CAST($1 AS TEXT) || '/' || CAST($2 AS TEXT), 0))";

/// SQLite: `BEGIN IMMEDIATE` already excludes writers; binds what PostgreSQL's does.
pub(crate) const GRANTS_LOCK_SQLITE: &str = "SELECT CAST($1 AS TEXT), CAST($2 AS TEXT)";

/// PostgreSQL: keeps other writers of one of project `$2`'s counted sets (`$1`:
/// `grants` or `package-states`) waiting until the transaction ends, so two writes at
/// once cannot both take the last room. Its key has a prefix of its own.
pub(crate) const PROJECT_LOCK_PG: &str = "SELECT pg_advisory_xact_lock(\
     hashtextextended('project/' || CAST($1 AS TEXT) || '/' || CAST($2 AS TEXT), 0))";

/// SQLite: `BEGIN IMMEDIATE` already excludes writers; binds what PostgreSQL's does.
pub(crate) const PROJECT_LOCK_SQLITE: &str = "SELECT CAST($1 AS TEXT), CAST($2 AS TEXT)";

/// A conversation of one project: conversation ids are per project.
pub(crate) const CONVERSATION: &str =
    "SELECT project, parent FROM access_conversations WHERE project = $1 AND conversation = $2";

pub(crate) const INSERT_CONVERSATION: &str = "INSERT INTO access_conversations (project, conversation, parent) \
     VALUES ($1, $2, $3) ON CONFLICT (project, conversation) DO NOTHING";

/// The overrides of a conversation of project `$3` and of its ancestors (in the same
/// project), with their distance from it (0 for the conversation itself), up to `$2`
/// generations.
pub(crate) const CHAIN_OVERRIDES: &str = "WITH RECURSIVE chain (conversation, depth) AS ( \
         SELECT CAST($1 AS TEXT), CAST(0 AS BIGINT) \
         UNION ALL \
         SELECT c.parent, chain.depth + 1 FROM access_conversations c \
         JOIN chain ON c.conversation = chain.conversation \
         WHERE c.project = $3 AND c.parent IS NOT NULL AND chain.depth < $2 \
     ) \
     SELECT chain.depth, o.package_key, o.file_path, o.enabled \
     FROM chain JOIN access_conversation_overrides o \
       ON o.conversation = chain.conversation AND o.project = $3";
