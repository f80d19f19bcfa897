//! Manifests that disagree (issue 30 item 4): one package directory may carry several
//! manifests (`.claude-plugin/plugin.json`, `.cursor-plugin/plugin.json`,
//! `.codex-plugin/plugin.json`, `gemini-extension.json`, `package.json`,
//! `neuralis.package.json`), each naming the package for its own host. When they name
//! it differently the package reads differently depending on who loads it, so the
//! command line warns, naming each file and its value. A warning, never an error: every
//! manifest still means what it says.
//!
//! Only the four identity fields are compared (name, version, description, author), and
//! only between the manifests that declare one; an absent field agrees with anything.
//! Values are compared as an author would read them (see `docs/decisions/manifest.md`):
//! an npm scope (`@acme/`) is not part of the name, an author is compared by name only
//! (`"Ada <ada@x.org>"` and `{"name": "Ada"}` agree), text is trimmed.

use serde_json::Value;

/// The manifest files of one package directory compared, in the order warnings name
/// them (paths relative to the directory).
pub const MANIFEST_FILES: [&str; 6] = [
    ".claude-plugin/plugin.json",
    ".cursor-plugin/plugin.json",
    ".codex-plugin/plugin.json",
    "gemini-extension.json",
    "package.json",
    "neuralis.package.json",
];

/// A field the manifests of one directory should agree on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    Name,
    Version,
    Description,
    Author,
}

impl Field {
    const ALL: [Field; 4] = [
        Field::Name,
        Field::Version,
        Field::Description,
        Field::Author,
    ];

    /// The JSON key (and the word a warning uses).
    pub fn key(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Version => "version",
            Field::Description => "description",
            Field::Author => "author",
        }
    }
}

/// One field the manifests disagree on: every manifest that declares it, with the value
/// as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    pub field: Field,
    /// `(file, value)` in the order the manifests were given.
    pub values: Vec<(String, String)>,
}

impl Disagreement {
    /// `manifests disagree on version: package.json says "1.0.0", gemini-extension.json
    /// says "1.1.0"`.
    pub fn message(&self) -> String {
        let said: Vec<String> = self
            .values
            .iter()
            .map(|(file, value)| format!("{file} says {value:?}"))
            .collect();
        format!(
            "manifests disagree on {}: {}",
            self.field.key(),
            said.join(", ")
        )
    }
}

/// Where the manifests of one directory disagree, field by field. `manifests` are the
/// parsed documents with the file each came from; a document that is not an object
/// declares nothing. One manifest, or manifests that agree, give nothing.
pub fn disagreements(manifests: &[(&str, &Value)]) -> Vec<Disagreement> {
    Field::ALL
        .into_iter()
        .filter_map(|field| disagreement(field, manifests))
        .collect()
}

fn disagreement(field: Field, manifests: &[(&str, &Value)]) -> Option<Disagreement> {
    let declared: Vec<(&str, String, String)> = manifests
        .iter()
        .filter_map(|(file, document)| {
            let (written, compared) = declared(field, file, document)?;
            Some((*file, written, compared))
        })
        .collect();
    let first = &declared.first()?.2;
    if declared.iter().all(|(_, _, compared)| compared == first) {
        return None;
    }
    Some(Disagreement {
        field,
        values: declared
            .into_iter()
            .map(|(file, written, _)| (file.to_owned(), written))
            .collect(),
    })
}

/// A field's value as written and as compared; `None` when the manifest does not
/// declare it (absent, empty, or not text).
fn declared(field: Field, file: &str, document: &Value) -> Option<(String, String)> {
    let value = document.get(field.key())?;
    let written = match value {
        Value::String(text) => text.trim().to_owned(),
        // `author: {"name": ..., "email": ...}` (npm and plugin.json alike).
        Value::Object(person) if field == Field::Author => {
            person.get("name")?.as_str()?.trim().to_owned()
        }
        _ => return None,
    };
    if written.is_empty() {
        return None;
    }
    let compared = match field {
        Field::Name if file.ends_with("package.json") => unscoped(&written).to_owned(),
        Field::Author => person_name(&written).to_owned(),
        _ => written.clone(),
    };
    Some((written, compared))
}

/// An npm name without its scope: `@acme/review-kit` is `review-kit`.
fn unscoped(name: &str) -> &str {
    match name.strip_prefix('@').and_then(|rest| rest.split_once('/')) {
        Some((_, bare)) => bare,
        None => name,
    }
}

/// The name of an npm person string, `Name <email> (url)`.
fn person_name(person: &str) -> &str {
    person
        .split(['<', '('])
        .next()
        .map(str::trim)
        .unwrap_or(person)
}
