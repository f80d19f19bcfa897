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
        #[serde(
            default = "default_max_connections",
            deserialize_with = "count_from_number_or_text"
        )]
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

/// A count written as a number (a file) or as text (an environment variable: inside a
/// tagged section the value reaches serde as it was given, so text is not converted).
fn count_from_number_or_text<'de, D>(deserializer: D) -> Result<u32, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Count {
        Number(u32),
        Text(String),
    }
    match Count::deserialize(deserializer)? {
        Count::Number(count) => Ok(count),
        Count::Text(text) => text.trim().parse().map_err(|_| {
            serde::de::Error::custom(format!(
                "max_connections: expected a whole number, got {text:?}"
            ))
        }),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_size_is_read_from_a_number_or_from_text() {
        for given in [serde_json::json!(12), serde_json::json!("12")] {
            let config: StoreConfig = serde_json::from_value(serde_json::json!({
                "backend": "postgres", "url": "postgres://db", "max_connections": given
            }))
            .unwrap();
            assert!(matches!(
                config,
                StoreConfig::Postgres {
                    max_connections: 12,
                    ..
                }
            ));
        }
        let refused = serde_json::from_value::<StoreConfig>(serde_json::json!({
            "backend": "postgres", "url": "postgres://db", "max_connections": "many"
        }))
        .unwrap_err()
        .to_string();
        assert!(refused.contains("many"), "{refused}");
    }
}
