//! One table per service: every RPC's rule, as data. The tests under `tests/` read the
//! served descriptor set and fail when an RPC has no row, or a row names no RPC.

use crate::rule::{Binding, Row, Table, Who};

/// Every table, for documentation and the coverage tests.
pub const ALL: [&Table; 4] = [
    &policy::TABLE,
    &sources::TABLE,
    &index_feed::TABLE,
    &discovery::TABLE,
];

macro_rules! paths {
    ($service:literal { $($name:ident = $method:literal),* $(,)? }) => {
        /// The fully-qualified service name.
        pub const SERVICE: &str = $service;
        $(
            #[doc = concat!("`/", $service, "/", $method, "`")]
            pub const $name: &str = concat!("/", $service, "/", $method);
        )*
    };
}

/// `neuralis.policy.v1.PolicyService`.
pub mod policy {
    use super::*;

    paths!("neuralis.policy.v1.PolicyService" {
        PUT_SOURCE_POLICY = "PutSourcePolicy",
        GET_SOURCE_POLICY = "GetSourcePolicy",
        SET_SOURCE_ENABLED = "SetSourceEnabled",
        PUT_ROLE_GRANTS = "PutRoleGrants",
        SET_PACKAGE_ENABLED = "SetPackageEnabled",
        SET_FILE_OVERRIDE = "SetFileOverride",
        REGISTER_CONVERSATION = "RegisterConversation",
        EVALUATE = "Evaluate",
        FORGET_SOURCE = "ForgetSource",
        REKEY_PACKAGES = "RekeyPackages",
        ATTACH_PACKAGES = "AttachPackages",
        EXPLAIN_ACCESS = "ExplainAccess",
    });

    /// The rules.
    pub static TABLE: Table = Table {
        service: SERVICE,
        rows: &[
            row(
                PUT_SOURCE_POLICY,
                Who::Administrators,
                Binding::SourceProject("source_id"),
            ),
            row(
                GET_SOURCE_POLICY,
                Who::Administrators,
                Binding::SourceProject("source_id"),
            ),
            row(
                SET_SOURCE_ENABLED,
                Who::Administrators,
                Binding::SourceProject("source_id"),
            ),
            row(
                PUT_ROLE_GRANTS,
                Who::Administrators,
                Binding::ProjectOrAll("project_id"),
            ),
            row(
                SET_PACKAGE_ENABLED,
                Who::Administrators,
                Binding::Project("project_id"),
            ),
            row(SET_FILE_OVERRIDE, Who::Callers, Binding::FileOverride),
            row(
                REGISTER_CONVERSATION,
                Who::Callers,
                Binding::Project("project_id"),
            ),
            row(EVALUATE, Who::Services, Binding::Project("project_id")),
            row(
                FORGET_SOURCE,
                Who::Services,
                Binding::SourceProject("source_id"),
            ),
            row(
                REKEY_PACKAGES,
                Who::Services,
                Binding::SourceProject("source_id"),
            ),
            row(ATTACH_PACKAGES, Who::Services, Binding::Platform),
            row(
                EXPLAIN_ACCESS,
                Who::Administrators,
                Binding::Project("project_id"),
            ),
        ],
    };
}

/// `neuralis.sync.v1.SourceService`: the administration of sources.
pub mod sources {
    use super::*;

    paths!("neuralis.sync.v1.SourceService" {
        CREATE_SOURCE = "CreateSource",
        GET_SOURCE = "GetSource",
        LIST_SOURCES = "ListSources",
        UPDATE_SOURCE = "UpdateSource",
        DELETE_SOURCE = "DeleteSource",
        SYNC_SOURCE = "SyncSource",
    });

    /// The rules.
    pub static TABLE: Table = Table {
        service: SERVICE,
        rows: &[
            row(
                CREATE_SOURCE,
                Who::Administrators,
                Binding::Project("source.project"),
            ),
            row(GET_SOURCE, Who::Administrators, Binding::Project("project")),
            row(
                LIST_SOURCES,
                Who::Administrators,
                Binding::ProjectOrAll("project"),
            ),
            row(
                UPDATE_SOURCE,
                Who::Administrators,
                Binding::Project("source.project"),
            ),
            row(
                DELETE_SOURCE,
                Who::Administrators,
                Binding::Project("project"),
            ),
            row(
                SYNC_SOURCE,
                Who::Administrators,
                Binding::Project("project"),
            ),
        ],
    };
}

/// `neuralis.sync.internal.v1.IndexFeedService`: the raw index, for services only.
pub mod index_feed {
    use super::*;

    paths!("neuralis.sync.internal.v1.IndexFeedService" {
        LIST_PROJECT_SOURCES = "ListProjectSources",
        LIST_ENTRIES = "ListEntries",
        GET_REVISION = "GetRevision",
        READ_DECIDED_FILE = "ReadDecidedFile",
        SEARCH_CHUNKS = "SearchChunks",
    });

    /// The rules.
    pub static TABLE: Table = Table {
        service: SERVICE,
        rows: &[
            row(
                LIST_PROJECT_SOURCES,
                Who::Services,
                Binding::Project("project"),
            ),
            row(LIST_ENTRIES, Who::Services, Binding::Project("project")),
            row(GET_REVISION, Who::Services, Binding::Project("project")),
            row(
                READ_DECIDED_FILE,
                Who::Services,
                Binding::Project("project"),
            ),
            row(SEARCH_CHUNKS, Who::Services, Binding::Project("project")),
        ],
    };
}

/// `neuralis.discovery.v1.DiscoveryService`: what a caller may use.
pub mod discovery {
    use super::*;

    paths!("neuralis.discovery.v1.DiscoveryService" {
        LIST_PACKAGES = "ListPackages",
        RENDER_OVERVIEW = "RenderOverview",
        ACTIVATE_SKILL = "ActivateSkill",
        HYDRATE = "Hydrate",
        LIST_TOOLS = "ListTools",
        VALIDATE_PACKAGE = "ValidatePackage",
        READ_FILE = "ReadFile",
        SEARCH = "Search",
        WATCH_PACKAGES = "WatchPackages",
    });

    /// The rules.
    pub static TABLE: Table = Table {
        service: SERVICE,
        rows: &[
            row(
                LIST_PACKAGES,
                Who::CallersOrEmpty,
                Binding::Project("scope.project_id"),
            ),
            row(
                RENDER_OVERVIEW,
                Who::CallersOrEmpty,
                Binding::Project("scope.project_id"),
            ),
            row(
                WATCH_PACKAGES,
                Who::CallersOrEmpty,
                Binding::Project("scope.project_id"),
            ),
            row(
                ACTIVATE_SKILL,
                Who::CallersOrEmpty,
                Binding::Project("scope.project_id"),
            ),
            row(
                HYDRATE,
                Who::CallersOrEmpty,
                Binding::Project("scope.project_id"),
            ),
            row(
                LIST_TOOLS,
                Who::CallersOrEmpty,
                Binding::Project("scope.project_id"),
            ),
            row(VALIDATE_PACKAGE, Who::Callers, Binding::Unbound),
            row(
                READ_FILE,
                Who::CallersOrEmpty,
                Binding::Project("scope.project_id"),
            ),
            row(
                SEARCH,
                Who::CallersOrEmpty,
                Binding::Project("scope.project_id"),
            ),
        ],
    };
}

/// Every table as markdown, one section per service (SECURITY.md holds this text; a
/// test keeps the two equal).
pub fn markdown() -> String {
    let mut text = String::new();
    for table in ALL {
        text.push_str(&format!("### `{}`\n\n", table.service));
        text.push_str("| RPC | who may call | project it acts in |\n| --- | --- | --- |\n");
        for row in table.rows {
            text.push_str(&format!(
                "| `{}` | {} | {} |\n",
                row.name(),
                row.who.describe(),
                row.binding.describe()
            ));
        }
        text.push('\n');
    }
    text
}

const fn row(method: &'static str, who: Who, binding: Binding) -> Row {
    Row {
        method,
        who,
        binding,
    }
}
