//! Builtin-class discovery of a dependency tree (seed 002 "Distribution", "Manifest
//! and distribution"): the host's own package.json names its dependencies, each
//! installed as a real directory at `node_modules/<id>/`. Which of them load is the
//! package loader's question (a `neuralis` block, not `referenceOnly`).

use neuralis_manifest::identity::is_package_id;
use serde_json::Value;

/// The `node_modules/<id>` directories of the host's dependencies
/// (`dependencies` and `optionalDependencies`), ordered and deduplicated. Names that
/// are not package ids are ignored: they could not be installed there.
pub fn dependency_dirs(host_manifest: &Value) -> Vec<String> {
    let mut ids: Vec<&str> = ["dependencies", "optionalDependencies"]
        .iter()
        .filter_map(|key| host_manifest.get(key).and_then(Value::as_object))
        .flat_map(|deps| deps.keys().map(String::as_str))
        .filter(|id| is_package_id(id))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter()
        .map(|id| format!("node_modules/{id}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::dependency_dirs;
    use serde_json::json;

    #[test]
    fn the_host_dependencies_name_the_builtin_directories() {
        let host = json!({"dependencies": {"@acme/reports": "1", "lodash": "4", "../evil": "1"}, "optionalDependencies": {"lodash": "4"}, "devDependencies": {"jest": "1"}});
        assert_eq!(
            dependency_dirs(&host),
            ["node_modules/@acme/reports", "node_modules/lodash"]
        );
        assert!(dependency_dirs(&json!({})).is_empty());
    }
}
