//! Layered configuration: defaults < file < environment.
//!
//! The environment wins over the file, so an operator can override one key of a
//! mounted file from the pod spec. Variables are `NEURALIS__SECTION__KEY` (double
//! underscore nests, so snake_case keys stay reachable). The environment is handed in
//! as a map so tests never touch the process environment.

use std::collections::HashMap;
use std::path::Path;

use config::{Config, Environment, File, FileFormat};
use serde::de::DeserializeOwned;

/// The prefix of every configuration variable.
pub const ENV_PREFIX: &str = "NEURALIS";

/// Why configuration could not be loaded; the message names the key or file.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("configuration file {path}: {message}")]
    File { path: String, message: String },
    #[error("configuration: {0}")]
    Invalid(String),
}

/// Loads `T` from `file` (TOML, YAML or JSON by extension), then the `NEURALIS__*`
/// entries of `env`; every key neither names keeps `T`'s serde default.
///
/// Defaults are applied by serde (`#[serde(default)]` on every settings struct), not
/// as a configuration layer: a layer of defaults would leave the default variant's
/// keys behind when a file or variable picks another variant of a tagged enum (an
/// embedded store's `path` beside a PostgreSQL `url`).
pub fn load_settings<T>(
    file: Option<&Path>,
    env: &HashMap<String, String>,
) -> Result<T, SettingsError>
where
    T: DeserializeOwned,
{
    let mut builder = Config::builder();
    if let Some(path) = file {
        builder = builder.add_source(file_source(path)?);
    }
    let environment = Environment::with_prefix(ENV_PREFIX)
        .prefix_separator("__")
        .separator("__")
        .try_parsing(true)
        .source(Some(env.clone().into_iter().collect()));
    let built = builder
        .add_source(environment)
        .build()
        .map_err(|e| SettingsError::Invalid(e.to_string()))?;
    built
        .try_deserialize()
        .map_err(|e| SettingsError::Invalid(e.to_string()))
}

fn file_source(path: &Path) -> Result<File<config::FileSourceFile, FileFormat>, SettingsError> {
    let format = match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => FileFormat::Toml,
        Some("yaml" | "yml") => FileFormat::Yaml,
        Some("json") => FileFormat::Json,
        _ => {
            return Err(SettingsError::File {
                path: path.display().to_string(),
                message: "unknown format: use .toml, .yaml or .json".into(),
            });
        }
    };
    if !path.is_file() {
        return Err(SettingsError::File {
            path: path.display().to_string(),
            message: "not found".into(),
        });
    }
    Ok(File::from(path).format(format).required(true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
    #[serde(default)]
    struct Sample {
        listen_addr: String,
        inventory: Inventory,
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(default)]
    struct Inventory {
        recovery_window_ms: u64,
        max_projects: u32,
    }

    impl Default for Inventory {
        fn default() -> Self {
            Self {
                recovery_window_ms: 5000,
                max_projects: 100,
            }
        }
    }

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_apply_when_nothing_is_set() {
        let loaded: Sample = load_settings(None, &HashMap::new()).unwrap();
        assert_eq!(loaded, Sample::default());
    }

    #[test]
    fn file_overrides_defaults_and_environment_overrides_file() {
        let dir = std::env::temp_dir().join(format!("neuralis-settings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("neuralis.toml");
        std::fs::write(
            &path,
            "listen_addr = \"0.0.0.0:1\"\n[inventory]\nrecovery_window_ms = 10\nmax_projects = 7\n",
        )
        .unwrap();
        let loaded: Sample = load_settings(
            Some(&path),
            &env(&[("NEURALIS__INVENTORY__RECOVERY_WINDOW_MS", "99")]),
        )
        .unwrap();
        assert_eq!(loaded.listen_addr, "0.0.0.0:1", "file beats defaults");
        assert_eq!(
            loaded.inventory.max_projects, 7,
            "file beats defaults when env is silent"
        );
        assert_eq!(
            loaded.inventory.recovery_window_ms, 99,
            "environment beats file"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn double_underscore_reaches_snake_case_keys() {
        let loaded: Sample =
            load_settings(None, &env(&[("NEURALIS__INVENTORY__MAX_PROJECTS", "3")])).unwrap();
        assert_eq!(loaded.inventory.max_projects, 3);
    }

    #[test]
    fn variables_without_the_prefix_are_ignored() {
        let loaded: Sample =
            load_settings(None, &env(&[("INVENTORY__MAX_PROJECTS", "3")])).unwrap();
        assert_eq!(loaded.inventory.max_projects, 100);
    }

    #[test]
    fn a_bad_value_names_the_key() {
        let err =
            load_settings::<Sample>(None, &env(&[("NEURALIS__INVENTORY__MAX_PROJECTS", "many")]))
                .unwrap_err()
                .to_string();
        assert!(err.contains("max_projects"), "{err}");
    }

    #[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
    #[serde(default)]
    struct WithStore {
        store: Store,
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    enum Store {
        Embedded { path: String },
        Postgres { url: String },
    }

    impl Default for Store {
        fn default() -> Self {
            Store::Embedded {
                path: "data.db".into(),
            }
        }
    }

    #[test]
    fn choosing_another_variant_leaves_no_default_keys_behind() {
        let loaded: WithStore = load_settings(
            None,
            &env(&[
                ("NEURALIS__STORE__KIND", "postgres"),
                ("NEURALIS__STORE__URL", "postgres://db"),
            ]),
        )
        .unwrap();
        assert_eq!(
            loaded.store,
            Store::Postgres {
                url: "postgres://db".into()
            }
        );
        let defaulted: WithStore = load_settings(None, &HashMap::new()).unwrap();
        assert_eq!(defaulted.store, Store::default());
    }

    #[test]
    fn a_missing_file_names_the_path() {
        let err = load_settings::<Sample>(
            Some(Path::new("/nonexistent/neuralis.toml")),
            &HashMap::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("/nonexistent/neuralis.toml"), "{err}");
    }
}
