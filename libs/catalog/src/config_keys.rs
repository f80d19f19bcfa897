//! One owning declarer per config key (seed 002 "configSettings": "a key has exactly
//! ONE owning declarer; a collision with another package's key is rejected at load").
//! Packages are offered in load order; a package that declares a key someone already
//! owns is rejected whole, so none of its keys register.

use neuralis_manifest::config_settings::ConfigSetting;
use serde::Serialize;
use std::collections::BTreeMap;

/// A registered key and the package that owns it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnedSetting {
    pub owner: String,
    pub setting: ConfigSetting,
}

/// A package rejected because it declared a key another package owns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyCollision {
    pub key: String,
    pub owner: String,
    pub rejected: String,
}

/// The platform config schema: every declared key with its owner.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ConfigCatalog {
    keys: BTreeMap<String, OwnedSetting>,
}

impl ConfigCatalog {
    /// Registers every key of `package`, or none of them and the collisions when any
    /// key is already owned by another package.
    pub fn register(
        &mut self,
        package: &str,
        settings: &[ConfigSetting],
    ) -> Result<(), Vec<KeyCollision>> {
        let collisions: Vec<KeyCollision> = settings
            .iter()
            .filter_map(|s| {
                self.keys
                    .get(&s.key)
                    .filter(|o| o.owner != package)
                    .map(|o| (s, o))
            })
            .map(|(s, o)| KeyCollision {
                key: s.key.clone(),
                owner: o.owner.clone(),
                rejected: package.to_owned(),
            })
            .collect();
        if !collisions.is_empty() {
            return Err(collisions);
        }
        for setting in settings {
            let owned = OwnedSetting {
                owner: package.to_owned(),
                setting: setting.clone(),
            };
            self.keys.insert(setting.key.clone(), owned);
        }
        Ok(())
    }

    /// The key and its owner.
    pub fn get(&self, key: &str) -> Option<&OwnedSetting> {
        self.keys.get(key)
    }

    /// Every key, ordered.
    pub fn keys(&self) -> impl Iterator<Item = &OwnedSetting> {
        self.keys.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neuralis_manifest::config_settings::ConfigType;
    use serde_json::json;

    fn setting(key: &str) -> ConfigSetting {
        ConfigSetting {
            key: key.into(),
            label: key.into(),
            kind: ConfigType::Number,
            default: json!(1),
            env_fallback: None,
            editable: true,
            category: "runtime".into(),
            min: None,
            max: None,
        }
    }

    #[test]
    fn a_config_key_has_exactly_one_owning_declarer() {
        let mut catalog = ConfigCatalog::default();
        assert!(
            catalog
                .register(
                    "@neuralis/agent",
                    &[setting("maxAgentSteps"), setting("searchDebug")]
                )
                .is_ok()
        );
        assert!(
            catalog
                .register("@neuralis/other", &[setting("otherKey")])
                .is_ok()
        );
        assert_eq!(
            catalog.get("maxAgentSteps").map(|o| o.owner.as_str()),
            Some("@neuralis/agent")
        );
    }

    #[test]
    fn a_key_collision_rejects_the_later_package_whole() {
        let mut catalog = ConfigCatalog::default();
        catalog
            .register("a", &[setting("maxAgentSteps")])
            .expect("first owner");
        let collisions = catalog
            .register("b", &[setting("fresh"), setting("maxAgentSteps")])
            .expect_err("collision");
        assert_eq!(
            collisions,
            vec![KeyCollision {
                key: "maxAgentSteps".into(),
                owner: "a".into(),
                rejected: "b".into()
            }]
        );
        // none of the rejected package's keys registered
        assert!(catalog.get("fresh").is_none());
        assert_eq!(catalog.keys().count(), 1);
    }
}
