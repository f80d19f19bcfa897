//! What `config print` hides: secrets and passwords, wherever they sit.
//!
//! The rule is by shape, not by a list of keys, so a section added later is covered:
//! a key named like a secret has its value replaced, and a URL carrying a password
//! keeps everything but the password.

use serde_json::Value;

/// The text shown instead of a secret.
pub const REDACTED: &str = "[redacted]";

/// Redacts `value` in place.
pub fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if is_secret_key(key) && !matches!(inner, Value::Null) {
                    *inner = Value::String(REDACTED.into());
                } else {
                    redact(inner);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        Value::String(text) => {
            if let Some(hidden) = without_password(text) {
                *text = hidden;
            }
        }
        _ => {}
    }
}

fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["secret", "password", "token", "api_key"]
        .iter()
        .any(|word| key.contains(word))
        && !key.ends_with("_env")
        && !key.ends_with("_file")
}

/// The URL with its password replaced, or `None` when it carries none.
fn without_password(text: &str) -> Option<String> {
    let mut url = url::Url::parse(text).ok()?;
    url.password()?;
    url.set_password(Some(REDACTED)).ok()?;
    Some(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_url_passwords_never_print() {
        let mut value = serde_json::json!({
            "identity": {"keys": {"kind": "hs256", "secret": "s3cr3t-s3cr3t"}},
            "service_identity": {"keys": {"secret": "other-secret"}},
            "sync": {
                "index": {"url": "postgres://neuralis:hunter2@db:5432/neuralis?sslmode=require"},
                "bus": {"url": "rediss://:hunter3@redis:6380"},
                "embedder": {"api_key_env": "NEURALIS_EMBEDDER_API_KEY"}
            },
            "peers": {"sync_url": "https://neuralis-sync:7400", "ca_file": "/etc/ca.pem"}
        });
        redact(&mut value);
        let text = value.to_string();
        for secret in ["s3cr3t", "other-secret", "hunter2", "hunter3"] {
            assert!(!text.contains(secret), "{secret} printed: {text}");
        }
        assert_eq!(
            value["sync"]["index"]["url"],
            "postgres://neuralis:%5Bredacted%5D@db:5432/neuralis?sslmode=require"
        );
        assert_eq!(
            value["sync"]["embedder"]["api_key_env"], "NEURALIS_EMBEDDER_API_KEY",
            "the name of a variable is not a secret"
        );
        assert_eq!(value["peers"]["sync_url"], "https://neuralis-sync:7400");
    }
}
