//! The layout core's rules as the sync uses them: which files to read, what payload to
//! store, who a private file belongs to, and whether a write can move a package.
//!
//! Every rule is the layout core's (`neuralis-layout`); this seam only adapts it to
//! index rows, and lets a test run the sync as if the payload schema had grown.

use neuralis_index::FileRow;
use neuralis_layout::{FilePayload, GroupOptions, IndexedFile, PackageRoots};
use serde::Deserialize;

/// What capture decides for one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Captured {
    /// The file's classification, stored in its row.
    pub classification: String,
    /// The captured payload, stored as JSON.
    pub payload: serde_json::Value,
    /// For a manifest: whether it can anchor a package.
    pub usable_manifest: bool,
}

/// The rules the sync applies.
pub trait LayoutRules: Send + Sync + 'static {
    /// The payload schema version; rows captured with another are refreshed.
    fn payload_version(&self) -> u32;
    /// Whether capture needs the file's bytes (otherwise the path decides).
    fn needs_content(&self, path: &str) -> bool;
    /// Captures one file; `content` is `None` when it was not read.
    fn capture(&self, path: &str, content: Option<&[u8]>) -> Captured;
    /// The agent a path is private to under `patterns`.
    fn privacy_owner(&self, path: &str, patterns: &[String]) -> Option<String>;
    /// Whether a file's text is markdown (chunked at its headings).
    fn is_markdown(&self, path: &str) -> bool;
    /// The package roots the given files of one source group into.
    fn package_roots(&self, source: &str, files: &[IndexedFile]) -> PackageRoots;
}

/// The layout core itself.
#[derive(Debug, Default, Clone, Copy)]
pub struct LayoutCore;

impl LayoutRules for LayoutCore {
    fn payload_version(&self) -> u32 {
        neuralis_layout::PAYLOAD_VERSION
    }

    fn needs_content(&self, path: &str) -> bool {
        neuralis_layout::needs_content(path)
    }

    fn capture(&self, path: &str, content: Option<&[u8]>) -> Captured {
        if !neuralis_layout::needs_content(path) {
            // Most files of a source: classified by path, with the default payload.
            return plain_file().clone();
        }
        let payload = neuralis_layout::capture(path, content);
        let classification = classify(path, &payload);
        let usable_manifest = payload.manifest.as_ref().is_some_and(|facts| facts.usable);
        Captured {
            classification,
            // A payload of strings, numbers and maps always serializes.
            payload: serde_json::to_value(&payload).unwrap_or_default(),
            usable_manifest,
        }
    }

    fn privacy_owner(&self, path: &str, patterns: &[String]) -> Option<String> {
        neuralis_layout::privacy_owner(path, patterns)
    }

    fn is_markdown(&self, path: &str) -> bool {
        let basename = path.rsplit('/').next().unwrap_or(path);
        neuralis_layout::vocabulary::is_contribution_shaped(basename)
    }

    fn package_roots(&self, source: &str, files: &[IndexedFile]) -> PackageRoots {
        PackageRoots::of_files(files, &GroupOptions::synced(source))
    }
}

/// What capture gives every file it classifies by path alone, computed once.
fn plain_file() -> &'static Captured {
    static PLAIN: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    PLAIN.get_or_init(|| Captured {
        classification: neuralis_index::PLAIN_FILE.into(),
        payload: serde_json::to_value(FilePayload::default()).unwrap_or_default(),
        usable_manifest: false,
    })
}

/// The row's classification: a manifest (by kind), a file the layout reads as a
/// possible contribution, or a plain file classified by path alone.
fn classify(path: &str, payload: &FilePayload) -> String {
    match &payload.manifest {
        Some(facts) => {
            let kind = serde_json::to_value(facts.kind).unwrap_or_default();
            format!("manifest:{}", kind.as_str().unwrap_or("unknown"))
        }
        None if neuralis_layout::needs_content(path) => "contribution-candidate".into(),
        None => neuralis_index::PLAIN_FILE.into(),
    }
}

/// A row as the layout core groups it. A payload that no longer reads (an older
/// schema) groups by path alone until its payload-only refresh.
pub fn indexed_file(row: &FileRow) -> IndexedFile {
    indexed_file_of(&row.path, Some(&row.payload)).with_real_path(row.real_path.clone())
}

/// A file as the layout core groups it, from its path and stored payload (`None` for a
/// plain file, whose payload is the default).
pub fn indexed_file_of(path: &str, payload: Option<&serde_json::Value>) -> IndexedFile {
    match payload.map(FilePayload::deserialize) {
        Some(Ok(payload)) => IndexedFile::new(path, payload),
        _ => IndexedFile::path_only(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_classifies_manifests_candidates_and_plain_files() {
        let rules = LayoutCore;
        let manifest = rules.capture("pkg/package.json", Some(br#"{"neuralis": {}}"#));
        assert_eq!(manifest.classification, "manifest:package-json");
        assert!(manifest.usable_manifest);
        let plain_manifest = rules.capture("app/package.json", Some(br#"{"name": "x"}"#));
        assert!(!plain_manifest.usable_manifest);
        let skill = rules.capture("skills/a/SKILL.md", Some(b"---\nname: a\n---\nbody"));
        assert_eq!(skill.classification, "contribution-candidate");
        assert_eq!(skill.payload["frontmatter"]["name"], "a");
        assert_eq!(rules.capture("src/main.rs", None).classification, "file");
        assert_eq!(
            rules.capture("src/main.rs", None).payload,
            serde_json::to_value(neuralis_layout::capture("src/main.rs", None)).expect("json"),
            "the shortcut gives the payload capture gives"
        );
    }

    #[test]
    fn markdown_is_recognized_by_its_name() {
        let rules = LayoutCore;
        assert!(rules.is_markdown("docs/guide.md"));
        assert!(rules.is_markdown(".cursor/rules/x.mdc"));
        assert!(!rules.is_markdown("src/main.rs"));
    }
}
