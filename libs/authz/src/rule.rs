//! The rule of one RPC, as data: who may call it and which project it acts in.

/// Who may call an RPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    /// Verified callers of the project, any role.
    Callers,
    /// Verified callers holding an administrator role, of the project.
    Administrators,
    /// Services only: a service credential, never a caller token.
    Services,
    /// Verified callers of the project; any other call (no token, a bad one, a service
    /// credential) still reaches the handler, unverified, and gets the empty answer
    /// (DESIGN.md section 5: "never an error that reveals more").
    CallersOrEmpty,
}

impl Who {
    /// How the rule reads in documentation (SECURITY.md).
    pub fn describe(self) -> &'static str {
        match self {
            Who::Callers => "callers",
            Who::Administrators => "administrators",
            Who::Services => "services",
            Who::CallersOrEmpty => "callers (others: the empty answer)",
        }
    }
}

/// Which project a call acts in, and so which step of the [`crate::Permit`] its handler
/// takes: the permit refuses a step the rule does not name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// The project a request field names.
    Project(&'static str),
    /// The project a source id field starts with (`<project>/...`).
    SourceProject(&'static str),
    /// The project a request field names; left empty, every project (platform-wide
    /// credentials only).
    ProjectOrAll(&'static str),
    /// A per-file override: at agent scope every project (platform-wide administrators
    /// only: an agent's configuration is not per project); at conversation scope the
    /// project the conversation was registered in, and the token's conversation when it
    /// names one.
    FileOverride,
    /// Every project at once: platform-wide credentials only.
    Platform,
    /// No project: the call reads and changes nothing of any project.
    Unbound,
}

impl Binding {
    /// How the binding reads in documentation (SECURITY.md).
    pub fn describe(self) -> String {
        match self {
            Binding::Project(field) => format!("project `{field}`"),
            Binding::SourceProject(field) => format!("project of source id `{field}`"),
            Binding::ProjectOrAll(field) => {
                format!("project `{field}`; empty: every project (platform only)")
            }
            Binding::FileOverride => {
                "agent scope: platform only; conversation scope: the conversation's project"
                    .to_owned()
            }
            Binding::Platform => "every project (platform only)".to_owned(),
            Binding::Unbound => "none".to_owned(),
        }
    }
}

/// The rule of one RPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The gRPC path: `/<package>.<Service>/<Method>`.
    pub method: &'static str,
    /// Who may call it.
    pub who: Who,
    /// The project it acts in.
    pub binding: Binding,
}

impl Row {
    /// The method's short name (`CreateSource`).
    pub fn name(&self) -> &'static str {
        self.method.rsplit('/').next().unwrap_or(self.method)
    }

    /// The fully-qualified service name (`neuralis.sync.v1.SourceService`).
    pub fn service(&self) -> &'static str {
        let path = self.method.trim_start_matches('/');
        path.split('/').next().unwrap_or(path)
    }
}

/// The rules of one gRPC service: one row per RPC. A path without a row is refused.
#[derive(Debug)]
pub struct Table {
    /// The fully-qualified service name (`neuralis.sync.v1.SourceService`).
    pub service: &'static str,
    /// One row per RPC.
    pub rows: &'static [Row],
}

impl Table {
    /// The rule of `path`, if the table has one.
    pub fn row(&self, path: &str) -> Option<&'static Row> {
        self.rows.iter().find(|row| row.method == path)
    }
}
