//! Which backend holds the access store.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The store backend: `embedded {path}` (the default) or `postgres {url, max_connections}`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "backend", rename_all = "snake_case", deny_unknown_fields)]
pub enum StoreConfig {
    /// A single SQLite file, created when missing.
    Embedded {
        /// The database file.
        #[serde(default = "default_path")]
        path: PathBuf,
    },
    /// A PostgreSQL database shared by every replica.
    Postgres {
        /// `postgres://user@host:port/database`.
        url: String,
        /// The pool size per replica.
        #[serde(default = "default_max_connections")]
        max_connections: u32,
        /// A schema to keep the tables in (created when missing); the default is the
        /// connection's search path.
        #[serde(default)]
        schema: Option<String>,
    },
}

fn default_path() -> PathBuf {
    PathBuf::from(".neuralis/policy.db")
}

fn default_max_connections() -> u32 {
    8
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig::Embedded {
            path: default_path(),
        }
    }
}

/// The URL may carry a password: it never prints.
impl std::fmt::Debug for StoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreConfig::Embedded { path } => {
                f.debug_struct("Embedded").field("path", path).finish()
            }
            StoreConfig::Postgres {
                max_connections,
                schema,
                ..
            } => f
                .debug_struct("Postgres")
                .field("url", &"[redacted]")
                .field("max_connections", max_connections)
                .field("schema", schema)
                .finish(),
        }
    }
}
