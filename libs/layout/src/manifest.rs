//! Manifests as package-anchor candidates (seed 000: "Four manifest filenames are
//! recognized"): which path is one, which directory it anchors, and whether it is usable.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::vocabulary::{PLUGIN_DIRS, split_parent};

/// A recognized manifest filename.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ManifestKind {
    /// `package.json`: usable only with a `neuralis` block.
    PackageJson,
    /// `neuralis.package.json`.
    NeuralisPackageJson,
    /// `gemini-extension.json`.
    GeminiExtension,
    /// `plugin.json` directly inside `.claude-plugin/`, `.cursor-plugin/` or `.codex-plugin/`.
    Plugin,
}

/// Manifests larger than this are not read (real ones are a few KiB).
pub const MAX_MANIFEST_BYTES: usize = 1024 * 1024;

/// What capture records about a manifest: its kind, the usability flag, and the name
/// and id it declares (used to name a rule-1 package), and the npm version (with the
/// id, the package's logical identity: how discovery tells an installed package's
/// directory inside a source without comparing host paths).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFacts {
    pub kind: ManifestKind,
    pub usable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The manifest kind of a path, by name and place alone.
pub fn manifest_kind(path: &str) -> Option<ManifestKind> {
    let (parent, base) = split_parent(path);
    match base {
        "package.json" => Some(ManifestKind::PackageJson),
        "neuralis.package.json" => Some(ManifestKind::NeuralisPackageJson),
        "gemini-extension.json" => Some(ManifestKind::GeminiExtension),
        "plugin.json" if PLUGIN_DIRS.contains(&split_parent(parent).1) => {
            Some(ManifestKind::Plugin)
        }
        _ => None,
    }
}

/// The directory a manifest anchors: its own directory, or for `plugin.json` the
/// folder that holds the plugin directory.
pub fn anchored_dir(path: &str, kind: ManifestKind) -> &str {
    let parent = split_parent(path).0;
    match kind {
        ManifestKind::Plugin => split_parent(parent).0,
        _ => parent,
    }
}

/// Reads a manifest's facts from its bytes. Never fails: unreadable JSON gives an
/// unusable manifest and a diagnostic.
pub fn read_manifest(kind: ManifestKind, content: &[u8]) -> (ManifestFacts, Vec<Diagnostic>) {
    let unusable = ManifestFacts {
        kind,
        usable: false,
        name: None,
        id: None,
        version: None,
    };
    if content.len() > MAX_MANIFEST_BYTES {
        let message = format!("manifest exceeds {MAX_MANIFEST_BYTES} bytes; not read");
        return (unusable, vec![Diagnostic::error(None, message)]);
    }
    let document: Value = match serde_json::from_slice(content) {
        Ok(document) => document,
        Err(error) => {
            let line = u32::try_from(error.line()).ok().filter(|line| *line > 0);
            let message = format!("manifest is not valid JSON ({error}); it anchors nothing");
            return (unusable, vec![Diagnostic::error(line, message)]);
        }
    };
    let Value::Object(document) = document else {
        let message = "manifest is not a JSON object; it anchors nothing";
        return (unusable, vec![Diagnostic::error(None, message)]);
    };
    (facts_of(kind, &document), Vec::new())
}

fn facts_of(kind: ManifestKind, document: &serde_json::Map<String, Value>) -> ManifestFacts {
    let block = document.get("neuralis").and_then(Value::as_object);
    let text = |map: Option<&serde_json::Map<String, Value>>, key: &str| {
        map.and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    match kind {
        // "a plain application package.json is not usable and binds nothing"; a
        // `referenceOnly` block opts out of loading (seed 002).
        ManifestKind::PackageJson => ManifestFacts {
            kind,
            usable: block.is_some_and(|b| b.get("referenceOnly") != Some(&Value::Bool(true))),
            name: text(Some(document), "name"),
            id: text(block, "id"),
            version: text(Some(document), "version"),
        },
        ManifestKind::NeuralisPackageJson => {
            let block = block.or(Some(document));
            ManifestFacts {
                kind,
                usable: block.is_some_and(|b| b.get("referenceOnly") != Some(&Value::Bool(true))),
                name: text(Some(document), "name").or_else(|| text(block, "name")),
                id: text(block, "id"),
                version: text(Some(document), "version"),
            }
        }
        ManifestKind::GeminiExtension | ManifestKind::Plugin => ManifestFacts {
            kind,
            usable: true,
            name: text(Some(document), "name"),
            id: None,
            version: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_manifest_filenames_are_recognized_and_plugin_json_only_in_a_plugin_dir() {
        let cases = [
            ("package.json", Some(ManifestKind::PackageJson)),
            ("a/b/package.json", Some(ManifestKind::PackageJson)),
            (
                "neuralis.package.json",
                Some(ManifestKind::NeuralisPackageJson),
            ),
            (
                "x/gemini-extension.json",
                Some(ManifestKind::GeminiExtension),
            ),
            ("p/.claude-plugin/plugin.json", Some(ManifestKind::Plugin)),
            ("p/.cursor-plugin/plugin.json", Some(ManifestKind::Plugin)),
            (".codex-plugin/plugin.json", Some(ManifestKind::Plugin)),
            ("p/plugin.json", None),
            ("p/.claude-plugin/x/plugin.json", None),
            ("p/.other-plugin/plugin.json", None),
            ("package.json5", None),
            ("Package.json", None),
        ];
        for (path, kind) in cases {
            assert_eq!(manifest_kind(path), kind, "{path}");
        }
    }

    #[test]
    fn plugin_json_anchors_the_folder_that_holds_the_plugin_dir() {
        assert_eq!(
            anchored_dir("plugins/a/.claude-plugin/plugin.json", ManifestKind::Plugin),
            "plugins/a"
        );
        assert_eq!(
            anchored_dir(".codex-plugin/plugin.json", ManifestKind::Plugin),
            ""
        );
        assert_eq!(
            anchored_dir("packages/helper/package.json", ManifestKind::PackageJson),
            "packages/helper"
        );
    }

    #[test]
    fn package_json_is_usable_only_with_a_neuralis_block() {
        let cases: [(&str, bool); 6] = [
            (r#"{"name": "app", "version": "1.0.0"}"#, false),
            (r#"{"name": "helper", "neuralis": {}}"#, true),
            (r#"{"name": "helper", "neuralis": {"id": "helper"}}"#, true),
            (r#"{"neuralis": {"referenceOnly": true}}"#, false),
            (r#"{"neuralis": "yes"}"#, false),
            (r#"[1, 2]"#, false),
        ];
        for (json, usable) in cases {
            let (facts, _) = read_manifest(ManifestKind::PackageJson, json.as_bytes());
            assert_eq!(facts.usable, usable, "{json}");
        }
    }

    #[test]
    fn manifests_declare_their_name_and_id() {
        let (facts, _) = read_manifest(
            ManifestKind::PackageJson,
            br#"{"name": "@acme/helper", "neuralis": {"id": "helper"}}"#,
        );
        assert_eq!(
            (facts.name.as_deref(), facts.id.as_deref()),
            (Some("@acme/helper"), Some("helper"))
        );
        let (facts, _) = read_manifest(
            ManifestKind::PackageJson,
            br#"{"name": "helper", "version": "1.2.0", "neuralis": {}}"#,
        );
        assert_eq!(facts.version.as_deref(), Some("1.2.0"));
        let (facts, _) = read_manifest(ManifestKind::Plugin, br#"{"name": "review-kit"}"#);
        assert!(facts.usable);
        assert_eq!(facts.name.as_deref(), Some("review-kit"));
    }

    #[test]
    fn broken_manifests_are_unusable_with_a_diagnostic_not_an_error() {
        for bytes in [&b"{not json"[..], b"", b"\xff\xfe", b"null"] {
            let (facts, diagnostics) = read_manifest(ManifestKind::GeminiExtension, bytes);
            assert!(!facts.usable);
            assert_eq!(diagnostics.len(), 1, "{bytes:?}");
        }
        let deep = "[".repeat(100_000);
        let (facts, diagnostics) = read_manifest(ManifestKind::PackageJson, deep.as_bytes());
        assert!(!facts.usable && !diagnostics.is_empty());
    }

    /// A manifest of `len` bytes: a JSON object padded with spaces.
    fn padded(len: usize) -> Vec<u8> {
        let json = br#"{"name": "helper", "neuralis": {}}"#;
        let mut bytes = json.to_vec();
        bytes.resize(len, b' ');
        bytes
    }

    #[test]
    fn manifests_up_to_one_mebibyte_are_read_and_larger_ones_are_not() {
        assert_eq!(MAX_MANIFEST_BYTES, 1 << 20);
        for (len, usable) in [
            (64 * 1024, true),
            (MAX_MANIFEST_BYTES, true),
            (MAX_MANIFEST_BYTES + 1, false),
        ] {
            let (facts, diagnostics) = read_manifest(ManifestKind::PackageJson, &padded(len));
            assert_eq!(facts.usable, usable, "{len} bytes");
            assert_eq!(
                diagnostics.is_empty(),
                usable,
                "{len} bytes: {diagnostics:?}"
            );
        }
    }

    #[test]
    fn a_broken_manifest_diagnostic_names_the_line_of_the_error() {
        for (json, line) in [
            (&b"{not json"[..], 1),
            (b"{\n  \"name\": \"helper\",\n  oops\n}", 3),
        ] {
            let (_, diagnostics) = read_manifest(ManifestKind::PackageJson, json);
            assert_eq!(diagnostics[0].line, Some(line), "{diagnostics:?}");
        }
    }
}
