//! What grouping produces: packages of contributions, the files left unloaded and why,
//! and the diagnostics gathered on the way. These shapes are the contract other crates
//! (discovery, policy evaluation, the command line) build on.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::capture::FilePayload;
use crate::category::{Category, Invocation, Trust};
use crate::diagnostic::Severity;

/// One index row as grouping sees it: a path relative to the source root, `/`-separated,
/// the payload captured at sync time, and the file's real path when the walk reached it
/// through an in-root link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexedFile {
    pub path: String,
    pub payload: FilePayload,
    /// The real path (relative to the source root) of a file reached through an in-root
    /// link: the row is then an alias of that path, and loads at most once with it
    /// (issue 27, [`crate::group`]). `None` (or the path itself) for a real file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_path: Option<String>,
}

impl IndexedFile {
    /// A row for a file classified by path alone (no content read).
    pub fn path_only(path: impl Into<String>) -> Self {
        Self::new(path, FilePayload::default())
    }

    /// A row for a real file (not reached through a link).
    pub fn new(path: impl Into<String>, payload: FilePayload) -> Self {
        Self {
            path: path.into(),
            payload,
            real_path: None,
        }
    }

    /// The same row, reached through a link to `real_path` (`None`: a real file).
    #[must_use]
    pub fn with_real_path(mut self, real_path: Option<String>) -> Self {
        self.real_path = real_path;
        self
    }

    /// The real path this row is an alias of, when it is one.
    pub fn alias_of(&self) -> Option<&str> {
        self.real_path.as_deref().filter(|real| *real != self.path)
    }
}

/// What is being grouped: a synced source, or one installed package directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "form")]
pub enum SourceForm {
    /// A synced filesystem source: the five precedence rules apply.
    Synced,
    /// An installed package directory: one manifest package at its root, sanitized per
    /// its trust tier; root-level loose markdown is package-meta (seed 001).
    Installed { trust: Trust },
}

/// Options of one grouping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupOptions {
    /// The source's display name: names the rule-5 source-root package (and an
    /// installed package whose manifest declares no name).
    pub source_name: String,
    pub form: SourceForm,
}

impl GroupOptions {
    /// Options for a synced source with this display name.
    pub fn synced(source_name: impl Into<String>) -> Self {
        Self {
            source_name: source_name.into(),
            form: SourceForm::Synced,
        }
    }

    /// Options for an installed package directory of this trust tier.
    pub fn installed(package_name: impl Into<String>, trust: Trust) -> Self {
        Self {
            source_name: package_name.into(),
            form: SourceForm::Installed { trust },
        }
    }
}

/// The precedence rule that formed a package root (seed 000, "How files group into
/// packages"), strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RootRule {
    Manifest,
    Marker,
    Category,
    BareSkill,
    SourceRoot,
}

impl RootRule {
    /// The name used in every output.
    pub fn as_str(self) -> &'static str {
        match self {
            RootRule::Manifest => "manifest",
            RootRule::Marker => "marker",
            RootRule::Category => "category",
            RootRule::BareSkill => "bare-skill",
            RootRule::SourceRoot => "source-root",
        }
    }
}

/// A package formed by grouping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Package {
    /// The display name, per rule (manifest name, dot-dir, directory, source name).
    pub name: String,
    /// Unique within the layout, derived from this package's own root and name only
    /// ([`crate::naming::package_key`]): adding or removing another package never
    /// changes it. Used in `policy_key = <source_id>/<key>` and in collision ids
    /// `<id>.<sourceSlug>.<packageKey>`.
    pub key: String,
    pub rule: RootRule,
    /// The root folder relative to the source root; "" for the source root.
    pub root: String,
    /// The contributions, ordered by path.
    pub files: Vec<Contribution>,
}

/// One contribution of a package.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contribution {
    /// Path relative to the source root.
    pub path: String,
    pub category: Category,
    /// The activation id: frontmatter `id`, then `name`, then the skill's folder (or
    /// the file's stem).
    pub id: String,
    /// The display title: `title`, then `name`, then the id; never the literal `SKILL.md`.
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// An identity file (`AGENTS.md`, `CLAUDE.md`, ...): an instruction, opt-in.
    pub identity: bool,
    /// The server-pinned default; frontmatter cannot change it.
    pub default_enabled: bool,
    pub invocation: Invocation,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_features: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Map<String, Value>>,
    /// Skills only: the bundle `files[]`, relative to the skill's directory (which is
    /// always the directory of `path`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bundle: Vec<String>,
    /// `overwrite: true` as declared; sanitization clears it below first-party.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overwrite: bool,
    /// `activation.target` as declared, after sanitization (`prompt-context` becomes
    /// `workspace` below first-party).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activation_target: Option<String>,
    /// Set when sanitization changed the category (a non-first-party rule became docs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downgraded_from: Option<Category>,
}

/// Why a contribution-shaped file did not load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnloadedReason {
    /// A flat contribution (agents/, rules/, instructions/, docs/, `*.agent.md`) whose
    /// frontmatter has no `id` or `name`.
    NoIdOrName,
    /// The frontmatter could not be read at all (DESIGN.md section 6).
    MalformedFrontmatter,
    /// `README*` files are never contributions.
    Readme,
    /// Under `template/`, `templates/` or `workflows/`.
    TemplateOrWorkflow,
    /// Inside a package root, but not at a contribution path (settings and notes in a
    /// marker directory, loose files, `.mdc` outside `.cursor/rules/`).
    NotAContributionPath,
    /// Root-level loose markdown of an installed package (seed 001: package-meta).
    PackageMeta,
    /// Docs never bind to the implicit source-root package.
    DocsAtSourceRoot,
    /// Claimed by no package root (nested stray files stay unloaded).
    Unclaimed,
    /// `.mcp.json`, `mcp.json`, `hooks.json`: connectors and hooks never come from a source.
    NeverLoadedFromSource,
}

impl UnloadedReason {
    /// A sentence for people.
    pub fn describe(self) -> &'static str {
        match self {
            UnloadedReason::NoIdOrName => "frontmatter has no id or name",
            UnloadedReason::MalformedFrontmatter => "frontmatter could not be read",
            UnloadedReason::Readme => "README files are never contributions",
            UnloadedReason::TemplateOrWorkflow => "under a template(s)/ or workflows/ directory",
            UnloadedReason::NotAContributionPath => "not at a contribution path of its package",
            UnloadedReason::PackageMeta => "package-root markdown is package-meta",
            UnloadedReason::DocsAtSourceRoot => "docs never bind to the source-root package",
            UnloadedReason::Unclaimed => "claimed by no package root",
            UnloadedReason::NeverLoadedFromSource => {
                "connectors and hooks never load from a source"
            }
        }
    }
}

/// A file that stays indexed but does not load.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Unloaded {
    pub path: String,
    pub reason: UnloadedReason,
}

/// A diagnostic tied to its file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileDiagnostic {
    pub path: String,
    pub severity: Severity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
}

/// A contribution-shaped file that loads nowhere because its real file already loads
/// once: at its real path, or at an earlier alias in path order (issue 27).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Alias {
    pub path: String,
    pub real_path: String,
    /// Where the real file loads instead.
    pub loads_at: String,
}

/// A detected package root, whether or not anything loaded in it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DetectedRoot {
    pub root: String,
    pub rule: RootRule,
}

/// The result of grouping: packages ordered by root, unloaded files and diagnostics
/// ordered by path. Equal inputs in any order give equal layouts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    pub packages: Vec<Package>,
    pub unloaded: Vec<Unloaded>,
    pub diagnostics: Vec<FileDiagnostic>,
    /// Every root detected, ordered by path, including roots in which nothing loaded
    /// (they still claim their files). The invalidation predicate needs them all.
    pub detected_roots: Vec<DetectedRoot>,
    /// Aliases that contribute nothing because their real file loads elsewhere, by path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<Alias>,
}

impl Layout {
    /// The roots of the packages that formed.
    pub fn package_roots(&self) -> Vec<&str> {
        self.packages.iter().map(|p| p.root.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_root_rule_has_one_name_in_every_output() {
        for (rule, name) in [
            (RootRule::Manifest, "manifest"),
            (RootRule::Marker, "marker"),
            (RootRule::Category, "category"),
            (RootRule::BareSkill, "bare-skill"),
            (RootRule::SourceRoot, "source-root"),
        ] {
            assert_eq!(rule.as_str(), name);
            assert_eq!(serde_json::to_value(rule).unwrap(), name, "serde");
        }
    }

    /// People are told why a file did not load: each reason has its own sentence.
    #[test]
    fn every_unloaded_reason_is_described_in_its_own_words() {
        let reasons = [
            (UnloadedReason::NoIdOrName, "no id or name"),
            (UnloadedReason::MalformedFrontmatter, "could not be read"),
            (UnloadedReason::Readme, "README"),
            (UnloadedReason::TemplateOrWorkflow, "workflows/"),
            (
                UnloadedReason::NotAContributionPath,
                "not at a contribution path",
            ),
            (UnloadedReason::PackageMeta, "package-meta"),
            (UnloadedReason::DocsAtSourceRoot, "source-root package"),
            (UnloadedReason::Unclaimed, "claimed by no package root"),
            (
                UnloadedReason::NeverLoadedFromSource,
                "never load from a source",
            ),
        ];
        for (reason, words) in reasons {
            assert!(reason.describe().contains(words), "{reason:?}");
        }
    }

    #[test]
    fn package_roots_are_the_roots_of_the_packages_in_order() {
        let package = |root: &str| Package {
            name: root.to_owned(),
            key: root.to_owned(),
            rule: RootRule::Marker,
            root: root.to_owned(),
            files: Vec::new(),
        };
        let layout = Layout {
            packages: vec![package(""), package(".claude"), package("packages/helper")],
            ..Layout::default()
        };
        assert_eq!(layout.package_roots(), ["", ".claude", "packages/helper"]);
        assert!(Layout::default().package_roots().is_empty());
    }
}
