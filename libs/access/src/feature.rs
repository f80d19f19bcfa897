//! Features a caller holds, and the two gates they open (seed 002, "requires"; seed 000,
//! "Standard gates apply unchanged"): `requiredFeatures` on a file hides it entirely from
//! non-holders ("hidden entirely, never rendered as locked"), and a package's
//! `accessFeature` hides the whole package from a caller lacking it.

use std::collections::BTreeSet;

use crate::Caller;

/// The features one caller holds for one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureSet(BTreeSet<String>);

impl FeatureSet {
    /// The features granted to the caller's role (by packages and the administrator), plus
    /// the features carried by the caller's token.
    pub fn for_caller(caller: &Caller, granted_to_role: impl IntoIterator<Item = String>) -> Self {
        let mut features: BTreeSet<String> = granted_to_role.into_iter().collect();
        features.extend(caller.features.iter().cloned());
        FeatureSet(features)
    }

    /// Whether `feature` is held.
    pub fn holds(&self, feature: &str) -> bool {
        self.0.contains(feature)
    }

    /// `requiredFeatures`: every listed feature must be held; an empty list gates nothing.
    pub fn holds_all(&self, required: &[String]) -> bool {
        required.iter().all(|feature| self.holds(feature))
    }

    /// `accessFeature`: absent keeps the package visible to everyone.
    pub fn opens(&self, access_feature: Option<&str>) -> bool {
        access_feature.is_none_or(|feature| self.holds(feature))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_holds_role_grants_and_token_features() {
        let caller = Caller {
            features: ["token.f".to_owned()].into(),
            ..Caller::default()
        };
        let held = FeatureSet::for_caller(&caller, ["role.f".to_owned()]);
        assert!(held.holds("token.f") && held.holds("role.f") && !held.holds("other"));
    }

    #[test]
    fn required_features_need_every_listed_feature() {
        let held = FeatureSet::for_caller(&Caller::default(), ["a".to_owned(), "b".to_owned()]);
        let cases: [(&[&str], bool); 4] = [
            (&[], true),
            (&["a"], true),
            (&["a", "b"], true),
            (&["a", "c"], false),
        ];
        for (required, expected) in cases {
            let required: Vec<String> = required.iter().map(|s| s.to_string()).collect();
            assert_eq!(held.holds_all(&required), expected, "{required:?}");
        }
    }

    #[test]
    fn an_access_feature_gates_the_whole_package_and_its_absence_gates_nothing() {
        let held = FeatureSet::for_caller(&Caller::default(), ["pkg.access".to_owned()]);
        assert!(held.opens(None));
        assert!(held.opens(Some("pkg.access")));
        assert!(!FeatureSet::default().opens(Some("pkg.access")));
    }
}
