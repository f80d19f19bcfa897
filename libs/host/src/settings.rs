//! Layered configuration: defaults < file < environment.
//!
//! The environment wins over the file, so an operator can override one key of a
//! mounted file from the pod spec. Variables are `NEURALIS__SECTION__KEY` (double
//! underscore nests, so snake_case keys stay reachable). The environment is handed in
//! as a map so tests never touch the process environment.
//!
//! Variables are taken as text, never guessed into numbers or booleans: a secret or a
//! schema name made of digits stays text. Where a setting is a number or a switch, the
//! deserializer reads it from text. A setting whose default is a list takes a
//! comma-separated value (`NEURALIS__TARGETS=sync,policy`).
//!
//! Every error names the key it is about (`sync.index: unknown field ...`).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use config::{Config, File, FileFormat, Value, ValueKind};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The prefix of every configuration variable.
pub const ENV_PREFIX: &str = "NEURALIS";

/// Why configuration could not be loaded; the message names the key or file.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("configuration file {path}: {message}")]
    File { path: String, message: String },
    #[error("configuration: {key}: {message}")]
    Key { key: String, message: String },
    #[error("configuration: {0}")]
    Invalid(String),
}

impl SettingsError {
    /// The key an error is about, when it names one.
    pub fn key(&self) -> Option<&str> {
        match self {
            SettingsError::Key { key, .. } => Some(key),
            _ => None,
        }
    }
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
    T: DeserializeOwned + Serialize + Default,
{
    let mut builder = Config::builder();
    if let Some(path) = file {
        builder = builder.add_source(file_source(path)?);
    }
    let lists = list_keys(&T::default());
    for (key, value) in environment(env, &lists) {
        builder = builder
            .set_override(key.as_str(), value)
            .map_err(|e| SettingsError::Key {
                key: variable_name(&key),
                message: e.to_string(),
            })?;
    }
    let built = builder.build().map_err(|e| match path_of(file) {
        Some(path) => SettingsError::File {
            path,
            message: e.to_string(),
        },
        None => SettingsError::Invalid(e.to_string()),
    })?;
    serde_path_to_error::deserialize(built).map_err(|error| {
        let key = error.path().to_string();
        let message = error.into_inner().to_string();
        if key == "." || key.is_empty() {
            SettingsError::Invalid(message)
        } else {
            SettingsError::Key { key, message }
        }
    })
}

/// The `NEURALIS__*` entries of `env` as (dotted key, value) overrides.
fn environment(env: &HashMap<String, String>, lists: &BTreeSet<String>) -> Vec<(String, Value)> {
    let prefix = format!("{ENV_PREFIX}__");
    let mut found: Vec<(String, Value)> = env
        .iter()
        .filter_map(|(name, value)| {
            let rest = name.strip_prefix(&prefix)?;
            let key = rest.to_lowercase().replace("__", ".");
            let kind = if lists.contains(&key) {
                ValueKind::Array(
                    value
                        .split(',')
                        .map(str::trim)
                        .filter(|item| !item.is_empty())
                        .map(|item| Value::new(None, ValueKind::String(item.to_owned())))
                        .collect(),
                )
            } else {
                ValueKind::String(value.clone())
            };
            Some((key, Value::new(None, kind)))
        })
        .collect();
    // A fixed order: a variable naming a section and one naming a key inside it
    // apply the same way every time.
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// Dotted paths whose default value is a list.
fn list_keys<T: Serialize>(defaults: &T) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    if let Ok(value) = serde_json::to_value(defaults) {
        collect_lists(&value, String::new(), &mut keys);
    }
    keys
}

fn collect_lists(value: &serde_json::Value, at: String, keys: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Array(_) => {
            keys.insert(at);
        }
        serde_json::Value::Object(map) => {
            for (name, inner) in map {
                let path = if at.is_empty() {
                    name.clone()
                } else {
                    format!("{at}.{name}")
                };
                collect_lists(inner, path, keys);
            }
        }
        _ => {}
    }
}

fn variable_name(key: &str) -> String {
    format!("{ENV_PREFIX}__{}", key.to_uppercase().replace('.', "__"))
}

fn path_of(file: Option<&Path>) -> Option<String> {
    file.map(|path| path.display().to_string())
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
    #[serde(default, deny_unknown_fields)]
    struct Sample {
        listen_addr: String,
        inventory: Inventory,
        roles: Vec<String>,
        verbose: bool,
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(default, deny_unknown_fields)]
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
    #[serde(default, deny_unknown_fields)]
    struct WithStore {
        store: Store,
    }

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    enum Store {
        Embedded { path: String },
        Postgres { url: String },
        Hs256 { secret: String },
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

    #[test]
    fn an_all_digit_value_stays_text_inside_a_tagged_section() {
        let digits = "1234567890123456789012345678901234567890";
        let loaded: WithStore = load_settings(
            None,
            &env(&[
                ("NEURALIS__STORE__KIND", "hs256"),
                ("NEURALIS__STORE__SECRET", digits),
            ]),
        )
        .unwrap();
        assert_eq!(
            loaded.store,
            Store::Hs256 {
                secret: digits.into()
            }
        );
    }

    #[test]
    fn numbers_and_switches_are_read_from_text() {
        let loaded: Sample = load_settings(
            None,
            &env(&[
                ("NEURALIS__VERBOSE", "true"),
                ("NEURALIS__INVENTORY__MAX_PROJECTS", "12"),
                ("NEURALIS__LISTEN_ADDR", "8080"),
            ]),
        )
        .unwrap();
        assert!(loaded.verbose);
        assert_eq!(loaded.inventory.max_projects, 12);
        assert_eq!(
            loaded.listen_addr, "8080",
            "digits stay text for a text key"
        );
    }

    #[test]
    fn a_list_setting_takes_a_comma_separated_variable() {
        let loaded: Sample =
            load_settings(None, &env(&[("NEURALIS__ROLES", "owner, admin,")])).unwrap();
        assert_eq!(loaded.roles, ["owner", "admin"]);
    }

    #[test]
    fn unknown_keys_are_refused_in_every_section_and_named() {
        let cases: [(&str, &str); 4] = [
            ("NEURALIS__LISTEN", "listen"),
            ("NEURALIS__INVENTORY__MAX_PROJECT", "max_project"),
            ("NEURALIS__STORE__URLL", "urll"),
            ("NEURALIS__STOR__URL", "stor"),
        ];
        for (variable, named) in cases {
            let mut vars = env(&[(variable, "x")]);
            if variable.starts_with("NEURALIS__STORE__") {
                vars.insert("NEURALIS__STORE__KIND".into(), "postgres".into());
                vars.insert("NEURALIS__STORE__URL".into(), "postgres://db".into());
            }
            let sample = load_settings::<Sample>(None, &vars).map(|_| ());
            let store = load_settings::<WithStore>(None, &vars).map(|_| ());
            let refused = if variable.contains("STORE") || variable.contains("STOR__") {
                store.unwrap_err().to_string()
            } else {
                sample.unwrap_err().to_string()
            };
            assert!(refused.contains(named), "{variable}: {refused}");
        }
    }

    #[test]
    fn a_bad_nested_value_names_its_full_path() {
        let err = load_settings::<Sample>(
            None,
            &env(&[("NEURALIS__INVENTORY__RECOVERY_WINDOW_MS", "-3")]),
        )
        .unwrap_err();
        assert_eq!(err.key(), Some("inventory.recovery_window_ms"), "{err}");
    }

    #[test]
    fn an_unknown_key_in_the_file_is_refused() {
        let dir = tempfile_dir();
        let path = dir.join("neuralis.yaml");
        std::fs::write(&path, "inventory:\n  max_projects: 3\n  typo: 1\n").unwrap();
        let err = load_settings::<Sample>(Some(&path), &HashMap::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("typo") && err.contains("inventory"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "neuralis-settings-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
