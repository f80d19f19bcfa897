//! Package data zones in an agent data tree (seed 002, "uriPolicies" and "dataLayout"):
//! a data source (the agent data tree) is the `data://` namespace, so a file at
//! `<zone>/<rest>` in it lies in scope `data://<zone>`, where `<zone>` is `<slug>` for a
//! first-party package and `_installed/<slug>` for every other install class. The
//! baseline a package attached under that scope decides the file beside the source's own
//! policy: both must let it be read, so a floor in either stays a floor.

use std::collections::{BTreeSet, HashMap};

use crate::{AccessSnapshot, CallerPolicy, EvaluationRequest, Origin, UriPolicy};

/// The URI scheme of package data zones.
pub const DATA_SCHEME: &str = "data://";

/// The folder of the data tree holding every non-first-party package's zone.
pub const INSTALLED_ZONES: &str = "_installed";

/// The zone slug of a package id: the id without its `@`, the scope joined by `-`
/// (`@acme/reports` is `acme-reports`), so a zone is always one folder of the tree.
pub fn zone_slug(package_id: &str) -> String {
    package_id.trim_start_matches('@').replace('/', "-")
}

/// The scope a data-tree path lies in and the path relative to it, as segments; `None`
/// for a path that lies in no zone (a file at the top, or directly in `_installed`).
pub fn zone_of<'p, 's>(path: &'p [&'s str]) -> Option<(ZoneKey<'s>, &'p [&'s str])> {
    match path {
        [first, slug, rest @ ..] if *first == INSTALLED_ZONES && !rest.is_empty() => {
            Some((ZoneKey::Installed(slug), rest))
        }
        [first, ..] if *first == INSTALLED_ZONES => None,
        [slug, rest @ ..] if !rest.is_empty() => Some((ZoneKey::FirstParty(slug), rest)),
        _ => None,
    }
}

/// The scope of a data-tree path given as text (`acme/cache/x` lies in `data://acme`):
/// what the policy service reads for a data source's files.
pub fn zone_scope_of_path(path: &str) -> Option<String> {
    let segments: Vec<&str> = path.split('/').collect();
    zone_of(&segments).map(|(key, _)| key.scope())
}

/// The zones the batch's data-source files (and their real paths) lie in, each once:
/// the scopes whose baselines the policy service reads like a source's policy.
pub fn zone_scopes(request: &EvaluationRequest) -> BTreeSet<String> {
    if request.data_sources.is_empty() {
        return BTreeSet::new();
    }
    let in_data_tree: Vec<bool> = request
        .packages
        .iter()
        .map(|package| match &package.origin {
            Origin::Source(id) => request.data_sources.contains(id),
            Origin::Installed => false,
        })
        .collect();
    request
        .files
        .iter()
        .filter(|file| in_data_tree.get(file.package).copied().unwrap_or(false))
        .flat_map(|file| std::iter::once(&file.path).chain(file.real_path.as_ref()))
        .filter_map(|path| zone_scope_of_path(path))
        .collect()
}

/// A zone's name: its slug and whether it is a first-party package's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZoneKey<'a> {
    /// `data://<slug>`.
    FirstParty(&'a str),
    /// `data://_installed/<slug>`.
    Installed(&'a str),
}

impl ZoneKey<'_> {
    /// The scope key its baseline is stored under.
    pub fn scope(&self) -> String {
        match self {
            ZoneKey::FirstParty(slug) => format!("{DATA_SCHEME}{slug}"),
            ZoneKey::Installed(slug) => format!("{DATA_SCHEME}{INSTALLED_ZONES}/{slug}"),
        }
    }
}

/// The zone policies one batch's data-source files meet, compiled for one caller.
/// A zone with nothing stored has no gate; a zone switched off, or whose policy no
/// longer validates, hides every file in it (fail closed, like an installed scope).
#[derive(Debug, Default)]
pub(crate) struct DataZones {
    by_scope: HashMap<String, Option<CallerPolicy>>,
}

impl DataZones {
    /// The zones among the snapshot's records, compiled with `compile`.
    pub(crate) fn new(
        snapshot: &AccessSnapshot,
        compile: impl Fn(&str, &UriPolicy) -> Option<CallerPolicy>,
    ) -> Self {
        let by_scope = snapshot
            .sources
            .iter()
            .filter(|(scope, _)| scope.starts_with(DATA_SCHEME))
            .filter_map(|(scope, record)| {
                let policy = match (record.enabled, &record.policy) {
                    (true, None) => return None,
                    (true, Some(policy)) => compile(scope, policy),
                    (false, _) => None,
                };
                Some((scope.clone(), policy))
            })
            .collect();
        DataZones { by_scope }
    }

    /// Whether the zone a data-tree path lies in lets it be read.
    pub(crate) fn readable(&self, path: &[&str]) -> bool {
        if self.by_scope.is_empty() {
            return true;
        }
        let Some((key, rest)) = zone_of(path) else {
            return true;
        };
        match self.by_scope.get(&key.scope()) {
            None => true,
            Some(None) => false,
            Some(Some(policy)) => policy.can_read(rest),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zone_slug_is_the_package_id_without_its_at_and_its_scope_joined_by_a_dash() {
        assert_eq!(zone_slug("@acme/reports"), "acme-reports");
        assert_eq!(zone_slug("notes"), "notes");
        assert_eq!(
            zone_slug("@acme/kit/x"),
            "acme-kit-x",
            "one folder, never nested"
        );
    }

    #[test]
    fn a_data_tree_path_lies_in_its_package_zone() {
        let zone = |path: &str| zone_scope_of_path(path);
        assert_eq!(zone("acme/secret/k.md").as_deref(), Some("data://acme"));
        assert_eq!(
            zone("_installed/acme/cache/x").as_deref(),
            Some("data://_installed/acme")
        );
        assert_eq!(zone("README.md"), None);
        assert_eq!(zone("_installed/acme"), None);
    }
}
