//! From the keys strict YAML or recovery found to the typed whitelist. Wrong shapes are
//! dropped with a warning naming the key; nothing here fails.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Frontmatter;
use crate::diagnostic::Diagnostic;

/// The whitelisted keys as they are spelled in the block. Strict YAML reads them in this
/// order (its `Raw` fields); recovery and the plain reader keep only these.
pub(super) const WHITELIST: [&str; 12] = [
    "id",
    "name",
    "title",
    "description",
    "requiredFeatures",
    "credentials",
    "metadata",
    "allowed-tools",
    "context",
    "activation",
    "overwrite",
    "role",
];

pub(super) fn whitelist(
    mut values: BTreeMap<String, Value>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Frontmatter {
    let declares_role = values.remove("role").is_some();
    let mut take = |key: &str| values.remove(key).filter(|value| !value.is_null());
    let mut frontmatter = Frontmatter {
        id: None,
        name: None,
        title: None,
        description: None,
        required_features: Vec::new(),
        credentials: take("credentials"),
        metadata: None,
        allowed_tools: Vec::new(),
        context: None,
        activation_target: None,
        overwrite: None,
    };
    let mut warn = |message: String| diagnostics.push(Diagnostic::warning(None, message));
    frontmatter.id = take("id").and_then(|v| text("id", v, &mut warn));
    frontmatter.name = take("name").and_then(|v| text("name", v, &mut warn));
    frontmatter.title = take("title").and_then(|v| text("title", v, &mut warn));
    frontmatter.description = take("description").and_then(|v| text("description", v, &mut warn));
    frontmatter.context = take("context").and_then(|v| text("context", v, &mut warn));
    frontmatter.required_features = take("requiredFeatures")
        .map(|v| list("requiredFeatures", v, &mut warn))
        .unwrap_or_default();
    frontmatter.allowed_tools = take("allowed-tools")
        .map(|v| tools(v, &mut warn))
        .unwrap_or_default();
    frontmatter.metadata = take("metadata").and_then(|v| match v {
        Value::Object(map) => Some(map),
        _ => {
            warn("`metadata` must be a map; ignored".into());
            None
        }
    });
    frontmatter.activation_target =
        take("activation").and_then(|v| activation_target(v, &mut warn));
    frontmatter.overwrite = take("overwrite").and_then(|v| match v {
        Value::Bool(flag) => Some(flag),
        _ => {
            warn("`overwrite` must be true or false; ignored".into());
            None
        }
    });
    if declares_role {
        warn("`role:` is ignored: the category comes from the folder, and role denotes the user rank".into());
    }
    frontmatter
}

/// A scalar as text: strings as they are, numbers and booleans spelled out. Empty
/// strings count as absent, so `name: ""` does not admit a file.
fn text(key: &str, value: Value, warn: &mut impl FnMut(String)) -> Option<String> {
    let text = match value {
        Value::String(s) => s,
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => {
            warn(format!("`{key}` must be a scalar; ignored"));
            return None;
        }
    };
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// A string or a list of scalars.
fn list(key: &str, value: Value, warn: &mut impl FnMut(String)) -> Vec<String> {
    match value {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|item| text(key, item, warn))
            .collect(),
        scalar => text(key, scalar, warn).into_iter().collect(),
    }
}

/// `allowed-tools`: a list, or one string of tools separated by commas or spaces
/// (agentskills.io writes `Read Grep`, Claude Code writes `Bash(git add:*), Read`);
/// a space inside parentheses belongs to the tool.
fn tools(value: Value, warn: &mut impl FnMut(String)) -> Vec<String> {
    match value {
        Value::String(s) => split_tools(&s),
        other => list("allowed-tools", other, warn),
    }
}

fn split_tools(text: &str) -> Vec<String> {
    let mut tools = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c == ',' || c.is_whitespace()) {
            if !current.is_empty() {
                tools.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        tools.push(current);
    }
    tools
}

fn activation_target(value: Value, warn: &mut impl FnMut(String)) -> Option<String> {
    match value {
        Value::Object(mut map) => map
            .remove("target")
            .filter(|v| !v.is_null())
            .and_then(|v| text("activation.target", v, warn)),
        _ => {
            warn("`activation` must be a map; ignored".into());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split_tools;

    #[test]
    fn allowed_tools_split_on_commas_and_spaces_outside_parentheses() {
        assert_eq!(split_tools("Read Grep"), ["Read", "Grep"]);
        assert_eq!(
            split_tools("Bash(git add:*), Bash(git status:*),Read"),
            ["Bash(git add:*)", "Bash(git status:*)", "Read"]
        );
        assert!(split_tools("  ").is_empty());
    }
}
