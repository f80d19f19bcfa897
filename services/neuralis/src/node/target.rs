//! Which services a process runs.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// One of the three services.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Sync,
    Discovery,
    Policy,
}

impl Target {
    /// Every service: the all-in-one default.
    pub const ALL: [Target; 3] = [Target::Sync, Target::Discovery, Target::Policy];

    /// The name used on the command line and in configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::Sync => "sync",
            Target::Discovery => "discovery",
            Target::Policy => "policy",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "sync" => Ok(Target::Sync),
            "discovery" => Ok(Target::Discovery),
            "policy" => Ok(Target::Policy),
            other => Err(format!(
                "unknown target {other:?}: expected sync, discovery or policy"
            )),
        }
    }
}

/// The services of one process. Empty means all three.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Targets(BTreeSet<Target>);

impl Targets {
    /// From the `--target` flags (or the `targets` setting); none means all.
    pub fn new(targets: impl IntoIterator<Item = Target>) -> Self {
        let set: BTreeSet<Target> = targets.into_iter().collect();
        if set.is_empty() {
            Self(Target::ALL.into_iter().collect())
        } else {
            Self(set)
        }
    }

    /// Whether `target` runs here.
    pub fn runs(&self, target: Target) -> bool {
        self.0.contains(&target)
    }

    /// All three in one process: embedded stores and the in-process bus are allowed.
    pub fn is_all_in_one(&self) -> bool {
        self.0.len() == Target::ALL.len()
    }

    /// The services, in a fixed order.
    pub fn iter(&self) -> impl Iterator<Item = Target> + '_ {
        self.0.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_case_insensitively_and_name_the_bad_value() {
        assert_eq!("Sync".parse::<Target>(), Ok(Target::Sync));
        assert_eq!(" policy ".parse::<Target>(), Ok(Target::Policy));
        let err = "search".parse::<Target>().unwrap_err();
        assert!(err.contains("search"), "{err}");
    }

    #[test]
    fn no_target_means_all_in_one() {
        let targets = Targets::new([]);
        assert!(targets.is_all_in_one());
        assert!(Target::ALL.iter().all(|t| targets.runs(*t)));
    }

    #[test]
    fn a_subset_runs_only_what_it_names() {
        let targets = Targets::new([Target::Policy, Target::Policy]);
        assert!(targets.runs(Target::Policy));
        assert!(!targets.runs(Target::Sync));
        assert!(!targets.is_all_in_one());
        assert_eq!(targets.iter().collect::<Vec<_>>(), [Target::Policy]);
    }
}
