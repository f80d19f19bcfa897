//! Capture at sync time, one file at a time: which files the sync must read, and the
//! payload stored with each index row (seed 000: "Indexing also captures contribution
//! metadata at sync time"). Pure and infallible: bad input becomes diagnostics.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, cap_diagnostics};
use crate::frontmatter::{Frontmatter, FrontmatterStatus, parse_frontmatter};
use crate::manifest::{ManifestFacts, ManifestKind, manifest_kind, read_manifest};
use crate::vocabulary::{
    COPILOT_IDENTITY, IDENTITY_BASENAMES, ROOT_RULE_FILES, SKILL_FILE, category_folder,
    is_agent_md, is_contribution_shaped, is_markdown, is_mdc, is_never_contribution_dir, is_readme,
    split_parent,
};

/// The version of [`FilePayload`]'s content. Bumped whenever capture output changes,
/// so the sync refreshes stored payloads (payload-only, no re-chunking).
pub const PAYLOAD_VERSION: u32 = 2;

/// What the index stores with one file row: the whitelisted frontmatter, the manifest
/// facts, and what went wrong reading them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilePayload {
    /// [`PAYLOAD_VERSION`] at capture time.
    pub version: u32,
    /// The whitelisted frontmatter, when the file has a readable block. Behind a
    /// pointer, as is `manifest`: most rows have neither, and a row is held per indexed
    /// file (by the inventory, by inspect): inline they made every payload 300 bytes
    /// larger. Shared, not boxed: it never changes once captured, and a row is copied
    /// whole where a delta copies the relevant files of a source (profile of a write's
    /// catch-up, BENCHMARKS.md issue 31 round 14), so a copy is a count, not its text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<Arc<Frontmatter>>,
    /// How the frontmatter was read; `malformed` keeps a flat file out.
    #[serde(default)]
    pub frontmatter_status: FrontmatterStatus,
    /// The facts of a recognized manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<Box<ManifestFacts>>,
    /// Findings about the file (line, message), at most a bounded number.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
}

impl Default for FilePayload {
    fn default() -> Self {
        Self {
            version: PAYLOAD_VERSION,
            frontmatter: None,
            frontmatter_status: FrontmatterStatus::Absent,
            manifest: None,
            diagnostics: Vec::new(),
        }
    }
}

/// Whether the sync must read a file's bytes to capture it: markdown that could be a
/// contribution somewhere, and manifest candidates. Everything else is classified by
/// path alone.
pub fn needs_content(path: &str) -> bool {
    manifest_kind(path).is_some() || may_be_contribution(path)
}

fn may_be_contribution(path: &str) -> bool {
    let (parent, base) = split_parent(path);
    if !is_contribution_shaped(base) || is_readme(base) {
        return false;
    }
    if path.split('/').any(is_never_contribution_dir) {
        return false;
    }
    let parent_name = split_parent(parent).1;
    base == SKILL_FILE
        || IDENTITY_BASENAMES.contains(&base)
        || base == COPILOT_IDENTITY
        || ROOT_RULE_FILES.contains(&base)
        || is_agent_md(base)
        || (is_mdc(base) && parent_name == "rules")
        || (is_markdown(base) && category_folder(parent_name).is_some())
}

/// Captures one file. `content` is `None` when the sync did not (or could not) read
/// it. Never fails.
pub fn capture(path: &str, content: Option<&[u8]>) -> FilePayload {
    let mut payload = FilePayload::default();
    if let Some(kind) = manifest_kind(path) {
        capture_manifest(&mut payload, kind, content);
    } else if may_be_contribution(path) {
        capture_markdown(&mut payload, content);
    }
    payload.diagnostics = cap_diagnostics(std::mem::take(&mut payload.diagnostics));
    payload
}

fn capture_manifest(payload: &mut FilePayload, kind: ManifestKind, content: Option<&[u8]>) {
    let Some(content) = content else {
        payload.manifest = Some(Box::new(ManifestFacts {
            kind,
            usable: false,
            name: None,
            id: None,
            version: None,
        }));
        payload.diagnostics.push(not_read());
        return;
    };
    let (facts, diagnostics) = read_manifest(kind, content);
    payload.manifest = Some(Box::new(facts));
    payload.diagnostics = diagnostics;
}

fn capture_markdown(payload: &mut FilePayload, content: Option<&[u8]>) {
    let Some(content) = content else {
        payload.diagnostics.push(not_read());
        return;
    };
    let outcome = parse_frontmatter(content);
    payload.frontmatter = outcome.frontmatter.map(Arc::new);
    payload.frontmatter_status = outcome.status;
    payload.diagnostics = outcome.diagnostics;
}

fn not_read() -> Diagnostic {
    Diagnostic::warning(None, "content was not read; captured by path alone")
}

#[cfg(test)]
mod tests;
