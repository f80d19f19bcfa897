//! Policy settings (the `policy` section of the configuration), serde with defaults.

use neuralis_access_store::StoreConfig;
use serde::{Deserialize, Serialize};

/// The store backend, who administers, and the message size limit. (Callers and
/// services are verified with the node's `identity` and `service_identity`.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// `embedded {path}` (the default) or `postgres {url, max_connections}`.
    pub store: StoreConfig,
    /// `apply` (the default): a PostgreSQL store's missing migrations are applied at
    /// start; `check`: never change the schema, and refuse to be ready until
    /// `neuralis migrate up` has applied them (the chart's hook Job does, once per
    /// release). The embedded store always applies its own.
    pub migrations: neuralis_schema::Mode,
    /// The roles that may make administrative calls, on every service.
    pub admin_roles: Vec<String>,
    /// The largest request or answer accepted over gRPC, in bytes (large batches).
    pub max_message_bytes: usize,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig {
            store: StoreConfig::default(),
            migrations: neuralis_schema::Mode::Apply,
            admin_roles: vec!["owner".into(), "admin".into()],
            max_message_bytes: 32 * 1024 * 1024,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_has_a_default_and_the_backend_is_chosen_by_name() {
        let config: PolicyConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(config, PolicyConfig::default());
        assert!(matches!(config.store, StoreConfig::Embedded { .. }));
        let config: PolicyConfig = serde_json::from_str(
            r#"{"store":{"backend":"postgres","url":"postgres://db/policy"}}"#,
        )
        .unwrap();
        assert!(matches!(
            config.store,
            StoreConfig::Postgres {
                max_connections: 8,
                ..
            }
        ));
        assert!(serde_json::from_str::<PolicyConfig>(r#"{"stor":{}}"#).is_err());
    }

    #[test]
    fn the_environment_chooses_the_backend_with_double_underscores() {
        let env: std::collections::HashMap<String, String> = [
            ("NEURALIS__STORE__BACKEND", "postgres"),
            ("NEURALIS__STORE__URL", "postgres://db/policy"),
            ("NEURALIS__STORE__MAX_CONNECTIONS", "4"),
            ("NEURALIS__MAX_MESSAGE_BYTES", "1024"),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();
        let config: PolicyConfig = neuralis_host::load_settings(None, &env).unwrap();
        assert_eq!(
            config.store,
            StoreConfig::Postgres {
                url: "postgres://db/policy".into(),
                max_connections: 4,
                schema: None
            }
        );
        assert_eq!(config.max_message_bytes, 1024);
        assert_eq!(config.admin_roles, PolicyConfig::default().admin_roles);
    }
}
