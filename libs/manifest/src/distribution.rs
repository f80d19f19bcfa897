//! Distribution (seed 002 "Distribution"): the host resolves a builtin package's root
//! via `require.resolve('<id>/package.json')`, "so the exports map (if any) must keep
//! "./package.json" resolvable".

use serde_json::Value;

/// Why the `exports` map of a package.json hides `./package.json`, or `None` when the
/// file stays resolvable (no exports map, or a subpath map that exports it).
pub fn exports_problem(document: &Value) -> Option<String> {
    let exports = document.get("exports")?;
    let hint = "the exports map must keep \"./package.json\" resolvable (add \"./package.json\": \"./package.json\")";
    match exports {
        Value::Object(map) if map.keys().all(|k| k.starts_with('.')) => {
            let exported = map
                .get("./package.json")
                .is_some_and(|target| !target.is_null())
                || map
                    .get("./*")
                    .is_some_and(|target| target.as_str().is_some_and(|t| t == "./*"));
            (!exported).then(|| hint.to_owned())
        }
        Value::Object(map) if map.keys().any(|k| k.starts_with('.')) => {
            Some("the exports map mixes subpaths and conditions, which Node refuses".to_owned())
        }
        Value::Null => None,
        // a string, an array or a conditions object exports "." alone
        _ => Some(hint.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::exports_problem;
    use serde_json::json;

    #[test]
    fn the_exports_map_must_keep_package_json_resolvable() {
        let resolvable = [
            json!({"name": "x"}),
            json!({"exports": {".": "./dist/index.js", "./package.json": "./package.json"}}),
            json!({"exports": {".": "./dist/index.js", "./*": "./*"}}),
        ];
        for doc in resolvable {
            assert_eq!(exports_problem(&doc), None, "{doc}");
        }
        let hidden = [
            json!({"exports": "./dist/index.js"}),
            json!({"exports": {".": "./dist/index.js"}}),
            json!({"exports": {"import": "./dist/index.js", "require": "./dist/index.cjs"}}),
            json!({"exports": {".": "./a.js", "./package.json": null}}),
            json!({"exports": {".": "./a.js", "import": "./b.js"}}),
        ];
        for doc in hidden {
            assert!(exports_problem(&doc).is_some(), "{doc}");
        }
    }
}
