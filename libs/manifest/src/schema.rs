//! Whether a value is a valid JSON Schema (tool `inputSchema`, event `dataSchema`,
//! connector `configSchema`): checked against its draft's meta-schema and compiled,
//! so a bad `pattern` or an unresolvable `$ref` is caught at load, not at first use.
//! Remote `$ref`s never resolve: the validator is built without network or file access.

use serde_json::Value;

const KNOWN_DRAFTS: &[&str] = &[
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
];

/// Why `schema` is not a valid JSON Schema object, or `None` when it is.
pub fn schema_problem(schema: &Value) -> Option<String> {
    let Value::Object(map) = schema else {
        return Some("must be a JSON Schema object".into());
    };
    if let Some(declared) = map.get("$schema") {
        let known = declared
            .as_str()
            .map(|uri| uri.trim_end_matches('#'))
            .is_some_and(|uri| KNOWN_DRAFTS.contains(&uri));
        if !known {
            return Some(
                "$schema must name a JSON Schema draft (04, 06, 07, 2019-09, 2020-12)".into(),
            );
        }
    }
    match jsonschema::validator_for(schema) {
        Ok(_) => None,
        Err(error) => Some(format!("is not a valid JSON Schema: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_must_be_a_valid_json_schema() {
        let valid = [
            json!({"type": "object", "properties": {"q": {"type": "string"}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
        ];
        for schema in valid {
            assert_eq!(schema_problem(&schema), None, "{schema}");
        }
        let invalid = [
            json!(true),
            json!({"type": "invalid_type"}),
            json!({"type": "string", "pattern": "(unclosed"}),
            json!({"$schema": "https://evil.example/meta"}),
            json!({"$ref": "https://evil.example/remote.json"}),
            json!({"properties": {"q": {"minLength": -1}}}),
        ];
        for schema in invalid {
            assert!(schema_problem(&schema).is_some(), "{schema}");
        }
    }
}
