//! `requires` (seed 002 "requires — features, role grants, dependencies"): package
//! dependencies, the features a package provides, default role grants, and the one
//! feature that gates the whole package.

use crate::identity::is_package_id;
use crate::issue::Pointer;
use crate::shape::Cx;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A capability the package introduces, with optional admin-facing metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Feature {
    pub id: String,
    pub title: Option<String>,
    pub description: Option<String>,
}

/// The validated `requires` block.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Requires {
    /// Package ids this package depends on.
    pub packages: Vec<String>,
    #[serde(rename = "providesFeatures")]
    pub provides_features: Vec<Feature>,
    /// Role name to the feature ids it receives by default.
    #[serde(rename = "defaultRoleGrants")]
    pub default_role_grants: BTreeMap<String, Vec<String>>,
    /// The feature that gates the whole package, if any.
    #[serde(rename = "accessFeature")]
    pub access_feature: Option<String>,
}

/// Whether `id` is a feature id: a letter or digit, then letters, digits, `.`, `_`,
/// `:`, `-`, at most 128 characters (`my-pkg.read`).
pub fn is_feature_id(id: &str) -> bool {
    id.len() <= 128
        && id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'))
}

const FEATURE_RULE: &str = "a feature id is a letter or digit then letters, digits, '.', '_', ':', '-', at most 128 characters";

/// One feature id at `at`, or an error saying what a feature id is.
pub(crate) fn feature_id(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<String> {
    let id = cx.string(value, at)?;
    if !is_feature_id(id) {
        cx.error(at, format!("{id:?} is not a feature id: {FEATURE_RULE}"));
        return None;
    }
    Some(id.to_owned())
}

/// A list of feature ids (`requires.features` of surfaces and events).
pub(crate) fn feature_list(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<String> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, v)| feature_id(cx, v, &at.index(i)))
        .collect()
}

/// The `requires: {features: [...]}` block of a surface or an event.
pub(crate) fn gate(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<String> {
    let Some(map) = cx.object(value, at) else {
        return Vec::new();
    };
    cx.closed(map, at, &["features"]);
    map.get("features")
        .map(|f| feature_list(cx, f, &at.key("features")))
        .unwrap_or_default()
}

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Requires {
    let mut requires = Requires::default();
    let Some(map) = cx.object(value, at) else {
        return requires;
    };
    cx.closed(
        map,
        at,
        &[
            "packages",
            "providesFeatures",
            "defaultRoleGrants",
            "accessFeature",
        ],
    );
    if let Some(v) = map.get("packages") {
        requires.packages = packages(cx, v, &at.key("packages"));
    }
    if let Some(v) = map.get("providesFeatures") {
        requires.provides_features = provided_features(cx, v, &at.key("providesFeatures"));
    }
    if let Some(v) = map.get("defaultRoleGrants") {
        requires.default_role_grants = role_grants(cx, v, &at.key("defaultRoleGrants"));
    }
    if let Some(v) = map.get("accessFeature") {
        requires.access_feature = feature_id(cx, v, &at.key("accessFeature"));
    }
    requires
}

fn packages(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<String> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(id) = cx.string(item, &item_at) else {
            continue;
        };
        if !is_package_id(id) {
            cx.error(
                &item_at,
                format!("{id:?} is not a package id (an npm name, optionally @scope/name)"),
            );
        } else if ids.iter().any(|seen| seen == id) {
            cx.error(&item_at, format!("package {id:?} is listed twice"));
        } else {
            ids.push(id.to_owned());
        }
    }
    ids
}

fn provided_features(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<Feature> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut features: Vec<Feature> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(feature) = provided_feature(cx, item, &item_at) else {
            continue;
        };
        if features.iter().any(|f| f.id == feature.id) {
            cx.error(&item_at, format!("duplicate feature id {:?}", feature.id));
            continue;
        }
        features.push(feature);
    }
    features
}

/// A bare id string or `{id, title?, description?}`.
fn provided_feature(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<Feature> {
    if value.is_string() {
        let id = feature_id(cx, value, at)?;
        return Some(Feature {
            id,
            title: None,
            description: None,
        });
    }
    let Value::Object(map) = value else {
        cx.error(
            at,
            "must be a feature id string or an object {id, title?, description?}",
        );
        return None;
    };
    cx.closed(map, at, &["id", "title", "description"]);
    let title = cx.optional_text(map, at, "title").map(str::to_owned);
    let description = cx.optional_text(map, at, "description").map(str::to_owned);
    let (id_value, id_at) = cx.required(map, at, "id")?;
    let id = feature_id(cx, id_value, &id_at)?;
    Some(Feature {
        id,
        title,
        description,
    })
}

fn role_grants(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> BTreeMap<String, Vec<String>> {
    let Some(map) = cx.object(value, at) else {
        return BTreeMap::new();
    };
    map.iter()
        .filter_map(|(role, grants)| role_grant(cx, role, grants, at))
        .collect()
}

fn role_grant(
    cx: &mut Cx<'_>,
    role: &str,
    grants: &Value,
    at: &Pointer,
) -> Option<(String, Vec<String>)> {
    let role_at = at.key(role);
    if role.trim().is_empty() {
        cx.error(&role_at, "a role name must not be empty");
        return None;
    }
    Some((role.to_owned(), feature_list(cx, grants, &role_at)))
}
