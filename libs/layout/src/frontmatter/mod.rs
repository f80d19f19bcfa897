//! Frontmatter capture: the `---` block at the top of a markdown file, reduced to the
//! whitelisted keys (seed 000: "a whitelisted frontmatter set"). Parsing is tolerant:
//! strict YAML first, under a budget, then a line-based recovery for flat `key: value`
//! lines, with a diagnostic for every recovery. Capture never fails.

mod block;
mod fields;
mod plain;
mod recovery;
mod strict;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, cap_diagnostics};

pub use block::MAX_FRONTMATTER_BYTES;

/// The whitelisted frontmatter of one file. `category:` is never read; `role:` is
/// ignored with a warning; everything else outside the whitelist is dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frontmatter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `requiredFeatures`: feature ids a caller must hold to see the file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_features: Vec<String>,
    /// `credentials`: recorded as declared (catalog metadata, never a grant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<serde_json::Value>,
    /// `metadata`: the vendor-extension map, recorded for compatibility, never enforced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// `allowed-tools`: advisory on a skill, enforced on an agent persona.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// `context`: `fork` turns a skill into an agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// `activation.target`: `prompt-context` is retargeted to `workspace` by sanitization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activation_target: Option<String>,
    /// `overwrite`: captured only so sanitization can strip it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overwrite: Option<bool>,
}

impl Frontmatter {
    /// Whether the file declares an identity (`id` or `name`), the admission condition
    /// for flat contributions.
    pub fn declares_identity(&self) -> bool {
        self.id.is_some() || self.name.is_some()
    }
}

/// How the frontmatter of a file was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrontmatterStatus {
    /// The file has no `---` block.
    #[default]
    Absent,
    /// Strict YAML accepted the block.
    Strict,
    /// Strict YAML rejected the block; flat `key: value` lines were recovered.
    Recovered,
    /// Nothing could be recovered (unclosed, oversized, or no key at all): the file
    /// is not admitted (DESIGN.md section 6).
    Malformed,
}

/// The result of reading one file's frontmatter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontmatterOutcome {
    pub frontmatter: Option<Frontmatter>,
    pub status: FrontmatterStatus,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads the frontmatter of a markdown file. Never fails; never reads past
/// [`MAX_FRONTMATTER_BYTES`] of the file.
pub fn parse_frontmatter(content: &[u8]) -> FrontmatterOutcome {
    let block = match block::locate(content) {
        block::Located::Absent => return FrontmatterOutcome::default(),
        block::Located::Malformed(diagnostic) => {
            return FrontmatterOutcome {
                frontmatter: None,
                status: FrontmatterStatus::Malformed,
                diagnostics: vec![diagnostic],
            };
        }
        block::Located::Block(block) => block,
    };
    let mut diagnostics = block.diagnostics;
    let read = plain::parse(&block.text).map_or_else(|| strict::parse(&block.text), Ok);
    let outcome = match read {
        Ok(values) => Some((values, FrontmatterStatus::Strict)),
        Err(failure) => {
            let recovered = recovery::recover(&block.text);
            diagnostics.push(failure.into_diagnostic(block.first_line, recovered.keys.len()));
            diagnostics.extend(recovered.skipped.into_iter().map(|(line, message)| {
                Diagnostic::warning(Some(block.first_line + line), message)
            }));
            if recovered.keys.is_empty() && !block::is_blank(&block.text) {
                None
            } else {
                Some((recovered.keys, FrontmatterStatus::Recovered))
            }
        }
    };
    let Some((values, status)) = outcome else {
        diagnostics.push(Diagnostic::error(
            Some(block.first_line),
            "frontmatter has no readable `key: value` line; the file is not admitted",
        ));
        return FrontmatterOutcome {
            frontmatter: None,
            status: FrontmatterStatus::Malformed,
            diagnostics: cap_diagnostics(diagnostics),
        };
    };
    let frontmatter = fields::whitelist(values, &mut diagnostics);
    FrontmatterOutcome {
        frontmatter: Some(frontmatter),
        status,
        diagnostics: cap_diagnostics(diagnostics),
    }
}

#[cfg(test)]
mod tests;
