//! Line-based recovery for frontmatter that strict YAML refuses. Real repositories are
//! full of it: `globs: **/*` unquoted (`*` opens an alias in YAML), or `: ` inside an
//! unquoted description. Recovery reads flat `key: value` lines, `- item` lists and
//! `|`/`>` block scalars under a key, and a one-level map under `metadata`; anything
//! else is skipped and reported with its line.

use std::collections::BTreeMap;

use serde_json::Value;

use super::fields::WHITELIST;

/// What recovery found: the kept keys, and the lines it could not read (line within
/// the block, 1-based, and why).
pub(super) struct Recovered {
    pub keys: BTreeMap<String, Value>,
    pub skipped: Vec<(u32, String)>,
}

/// One top-level key being read, with the lines that belong to it.
struct Pending<'a> {
    key: &'a str,
    line: u32,
    inline: &'a str,
    body: Vec<&'a str>,
}

pub(super) fn recover(text: &str) -> Recovered {
    let mut recovered = Recovered {
        keys: BTreeMap::new(),
        skipped: Vec::new(),
    };
    let mut pending: Option<Pending<'_>> = None;
    for (index, line) in text.lines().enumerate() {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let trimmed = line.trim();
        if trimmed.is_empty() || (trimmed.starts_with('#') && !line.starts_with(' ')) {
            if let Some(pending) = pending.as_mut().filter(|_| trimmed.is_empty()) {
                pending.body.push("");
            }
            continue;
        }
        if line.starts_with([' ', '\t', '-']) {
            match pending.as_mut() {
                Some(pending) => pending.body.push(line),
                None => recovered.skipped.push((
                    number,
                    "an indented line with no key above it was skipped".into(),
                )),
            }
            continue;
        }
        if let Some(done) = pending.take() {
            finish(done, &mut recovered);
        }
        match split_key(line) {
            Some((key, inline)) => {
                pending = Some(Pending {
                    key,
                    line: number,
                    inline,
                    body: Vec::new(),
                })
            }
            None => recovered
                .skipped
                .push((number, "not a `key: value` line, skipped".into())),
        }
    }
    if let Some(done) = pending.take() {
        finish(done, &mut recovered);
    }
    recovered
}

/// `key: value` with a plain key (letters, digits, `_ - .`).
fn split_key(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let key = line[..colon].trim_end();
    let rest = &line[colon + 1..];
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    (plain && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some((key, rest.trim()))
}

fn finish(pending: Pending<'_>, recovered: &mut Recovered) {
    // Kept: the keys strict YAML reads (the whitelist, `role` included so that it can
    // be warned about).
    if !WHITELIST.contains(&pending.key) {
        return;
    }
    match value_of(&pending) {
        Ok(value) => {
            recovered.keys.insert(pending.key.to_owned(), value);
        }
        Err(why) => recovered.skipped.push((pending.line, why)),
    }
}

fn value_of(pending: &Pending<'_>) -> Result<Value, String> {
    let inline = pending.inline;
    if inline.starts_with(['|', '>']) {
        let folded = inline.starts_with('>');
        return Ok(Value::String(block_scalar(&pending.body, folded)));
    }
    if !inline.is_empty() {
        if pending.body.iter().any(|line| !line.is_empty()) {
            // A plain scalar continued on indented lines folds into one line.
            let mut text = scalar(inline);
            for line in pending.body.iter().filter(|line| !line.is_empty()) {
                text.push(' ');
                text.push_str(line.trim());
            }
            return Ok(Value::String(text));
        }
        return inline_value(inline, pending.key);
    }
    nested_value(pending)
}

fn nested_value(pending: &Pending<'_>) -> Result<Value, String> {
    let lines: Vec<&str> = pending
        .body
        .iter()
        .map(|line| line.trim())
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    if lines.is_empty() {
        return Ok(Value::Null);
    }
    if lines.iter().all(|line| line.starts_with('-')) {
        let items = lines
            .iter()
            .map(|line| Value::String(scalar(line[1..].trim())))
            .collect();
        return Ok(Value::Array(items));
    }
    let mut map = serde_json::Map::new();
    for line in &lines {
        let Some((key, value)) = split_key(line) else {
            return Err(format!(
                "`{}` holds nesting that recovery cannot read, skipped",
                pending.key
            ));
        };
        map.insert(key.to_owned(), Value::String(scalar(value)));
    }
    Ok(Value::Object(map))
}

fn inline_value(inline: &str, key: &str) -> Result<Value, String> {
    if let Some(inner) = inline.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        if inner.contains(['[', ']', '{', '}']) {
            return Err(format!(
                "`{key}` holds a nested flow list that recovery cannot read, skipped"
            ));
        }
        let items = inner
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| Value::String(scalar(item)))
            .collect();
        return Ok(Value::Array(items));
    }
    if inline.starts_with(['[', '{']) {
        return Err(format!(
            "`{key}` holds a flow collection that recovery cannot read, skipped"
        ));
    }
    Ok(match scalar(inline).as_str() {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" | "~" => Value::Null,
        text => Value::String(text.to_owned()),
    })
}

/// A scalar with its surrounding quotes removed (and `\"` / `''` unescaped).
fn scalar(text: &str) -> String {
    let text = text.trim();
    if text.len() >= 2 {
        if let Some(inner) = text.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            return inner.replace("\\\"", "\"").replace("\\\\", "\\");
        }
        if let Some(inner) = text.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
            return inner.replace("''", "'");
        }
    }
    text.to_owned()
}

fn block_scalar(body: &[&str], folded: bool) -> String {
    let indent = body
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = body
        .iter()
        .map(|line| line.get(indent..).unwrap_or("").trim_end())
        .collect();
    let joined = lines.join(if folded { " " } else { "\n" });
    joined.trim().to_owned()
}
