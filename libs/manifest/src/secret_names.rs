//! Names that look like they hold a secret. Config values are admin-visible
//! plaintext and connector config schemas are stored in plain config, so the
//! validator warns when a key or an environment name reads like a secret.

const MARKERS: &[&str] = &[
    "secret",
    "token",
    "password",
    "passwd",
    "apikey",
    "api_key",
    "privatekey",
    "private_key",
    "credential",
];

/// Whether `name` (camelCase, snake_case or SCREAMING_CASE) reads like a secret.
pub fn looks_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let compact: String = lower.chars().filter(|c| *c != '_' && *c != '-').collect();
    MARKERS
        .iter()
        .any(|m| lower.contains(m) || compact.contains(&m.replace('_', "")))
        || lower.ends_with("_key")
        || compact.ends_with("secretkey")
        || (name.ends_with("Key") && name.len() > 3)
}

#[cfg(test)]
mod tests {
    use super::looks_secret;

    #[test]
    fn secret_looking_names_are_recognized() {
        for name in [
            "apiKey",
            "OPENAI_API_KEY",
            "githubToken",
            "dbPassword",
            "clientSecret",
            "SIGNING_KEY",
            "privateKey",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in [
            "maxAgentSteps",
            "searchDebug",
            "MAX_AGENT_STEPS",
            "keyboardLayout",
            "monkey",
        ] {
            assert!(!looks_secret(name), "{name}");
        }
    }
}
