//! Loading one installed package from its files (pure): the manifest is validated
//! for the package's host-assigned trust, the directory contract is read, markdown
//! contributions are grouped and sanitized by the layout core, and file-based
//! entries override inline ones. One error anywhere rejects the whole package.

use crate::contract::{FileDeclarations, FileIssue, TeamMemberFiles, scan};
use crate::overrides::{merge, merge_inline_files};
use neuralis_layout::{GroupOptions, IndexedFile, Trust, capture, group};
use neuralis_manifest::definitions::{CommandDef, HookDef, ToolDef, WorkflowDef};
use neuralis_manifest::distribution::exports_problem;
use neuralis_manifest::{Manifest, Status, validate_package};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// How a package was installed; the host assigns trust by it, never the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum InstallClass {
    /// A dependency of the host (`node_modules/<id>/`): first-party.
    Builtin,
    /// A directory an administrator added: trusted.
    Trusted,
    /// A project package from the `_packages/` drop-zone: untrusted.
    Project,
}

impl InstallClass {
    /// "Dependency-sourced builtins are overwritten to first-party; project packages
    /// can never reach it."
    pub fn trust(self) -> Trust {
        match self {
            InstallClass::Builtin => Trust::FirstParty,
            InstallClass::Trusted => Trust::Trusted,
            InstallClass::Project => Trust::Untrusted,
        }
    }
}

/// One package directory to load: where it is, how it was installed, its files
/// (package-relative paths with `/`, and their bytes).
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The directory, for reports (e.g. `node_modules/@acme/reports`).
    pub root: String,
    pub class: InstallClass,
    pub files: BTreeMap<String, Vec<u8>>,
}

/// A package that loaded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstalledPackage {
    pub id: String,
    pub trust: Trust,
    pub class: InstallClass,
    pub root: String,
    pub manifest: Manifest,
    /// The markdown contributions, grouped and sanitized by the layout core (paths
    /// relative to the package root).
    pub contributions: neuralis_layout::Package,
    /// File-based tools over inline ones, by name.
    pub tools: Vec<ToolDef>,
    pub commands: Vec<CommandDef>,
    pub hooks: Vec<HookDef>,
    pub team: Vec<TeamMemberFiles>,
    pub workflows: Vec<WorkflowDef>,
    /// Warnings of the manifest (things dropped for trust, unknown keys, ...).
    pub warnings: Vec<FileIssue>,
}

/// A package that did not load, and every reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejection {
    pub root: String,
    pub id: Option<String>,
    pub errors: Vec<FileIssue>,
    /// The warnings found on the way, so an author sees everything at once.
    pub warnings: Vec<FileIssue>,
}

/// What loading one candidate gave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Outcome {
    Loaded(Box<InstalledPackage>),
    Rejected(Rejection),
    /// Not a package at all (no neuralis block) or `referenceOnly`: not loaded, no error.
    Skipped {
        root: String,
        reason: String,
    },
}

const PACKAGE_JSON: &str = "package.json";
const NEURALIS_PACKAGE_JSON: &str = "neuralis.package.json";
const BARE_SKILL: &str = "SKILL.md";

/// Loads one candidate.
pub fn load(candidate: &Candidate) -> Outcome {
    let (file, document) = match manifest_document(candidate) {
        Ok(Some(found)) => found,
        Ok(None) => return skipped(candidate, "no package.json with a neuralis block"),
        Err(issue) => return rejected(candidate, None, vec![issue], Vec::new()),
    };
    let names: BTreeSet<String> = candidate.files.keys().cloned().collect();
    let validation = validate_package(&document, candidate.class.trust(), Some(&names));
    let warnings: Vec<FileIssue> = validation
        .warnings
        .into_iter()
        .map(|w| FileIssue::new(file, w))
        .collect();
    let mut errors: Vec<FileIssue> = validation
        .errors
        .into_iter()
        .map(|e| FileIssue::new(file, e))
        .collect();
    if candidate.class == InstallClass::Builtin
        && let Some(problem) = exports_problem(&document)
    {
        errors.push(FileIssue {
            file: file.to_owned(),
            pointer: "/exports".into(),
            message: problem,
        });
    }
    if validation.status == Status::ReferenceOnly && errors.is_empty() {
        return skipped(
            candidate,
            "referenceOnly: sits in the tree without ever loading",
        );
    }
    let (declared, contract_errors) = scan(&candidate.files);
    errors.extend(contract_errors);
    match validation.manifest {
        Some(manifest) if errors.is_empty() => assemble(candidate, manifest, declared, warnings),
        manifest => rejected(candidate, manifest.map(|m| m.identity.id), errors, warnings),
    }
}

/// package.json with a neuralis block, else neuralis.package.json (not for builtins:
/// "the host loads a dependency if and only if its package.json carries a neuralis block").
fn manifest_document(candidate: &Candidate) -> Result<Option<(&'static str, Value)>, FileIssue> {
    let mut names = vec![PACKAGE_JSON];
    if candidate.class != InstallClass::Builtin {
        names.push(NEURALIS_PACKAGE_JSON);
    }
    for name in names {
        let Some(bytes) = candidate.files.get(name) else {
            continue;
        };
        let document: Value = serde_json::from_slice(bytes).map_err(|error| FileIssue {
            file: name.to_owned(),
            pointer: String::new(),
            message: format!("is not valid JSON: {error}"),
        })?;
        if name == NEURALIS_PACKAGE_JSON || neuralis_manifest::has_neuralis_block(&document) {
            return Ok(Some((name, document)));
        }
    }
    Ok(bare_skill(candidate).map(|document| (BARE_SKILL, document)))
}

/// "<root>/SKILL.md — a bare single-skill folder with no package.json at all: the
/// package root is the skill" (seed 001). Not for builtins, which load only through a
/// neuralis block. The folder name is the package id, checked like any other id.
fn bare_skill(candidate: &Candidate) -> Option<Value> {
    let bare = candidate.class != InstallClass::Builtin
        && !candidate.files.contains_key(PACKAGE_JSON)
        && candidate.files.contains_key(BARE_SKILL);
    let folder = candidate.root.rsplit('/').next().unwrap_or(&candidate.root);
    bare.then(|| serde_json::json!({ "name": folder, "neuralis": {} }))
}

fn assemble(
    candidate: &Candidate,
    manifest: Manifest,
    declared: FileDeclarations,
    mut warnings: Vec<FileIssue>,
) -> Outcome {
    let (contributions, file_diagnostics) = contributions(candidate, &manifest);
    warnings.extend(file_diagnostics);
    let inline = manifest.inline.clone();
    let team_inline: Vec<TeamMemberFiles> = inline
        .team
        .into_iter()
        .map(|member| TeamMemberFiles {
            member,
            identity: Vec::new(),
            files: Vec::new(),
        })
        .collect();
    let package = InstalledPackage {
        id: manifest.identity.id.clone(),
        trust: candidate.class.trust(),
        class: candidate.class,
        root: candidate.root.clone(),
        contributions,
        tools: merge(inline.tools, declared.tools, |t| &t.name),
        commands: merge(inline.commands, declared.commands, |c| &c.id),
        hooks: merge(inline.hooks, declared.hooks, |h| &h.id),
        team: merge(team_inline, declared.team, |m| &m.member.slug),
        workflows: declared.workflows,
        warnings,
        manifest,
    };
    Outcome::Loaded(Box::new(package))
}

/// The markdown contributions, by the layout core's installed-package grouping (which
/// applies admission, bundles and the trust-tier sanitization).
/// The grouped contributions, and what reading each file's frontmatter had to say (a
/// budget breach, a recovery), named by file so an author, and a `ValidatePackage`
/// caller, sees which file it was.
fn contributions(
    candidate: &Candidate,
    manifest: &Manifest,
) -> (neuralis_layout::Package, Vec<FileIssue>) {
    let rows: Vec<IndexedFile> = candidate
        .files
        .iter()
        .map(|(path, bytes)| IndexedFile::new(path.clone(), capture(path, Some(bytes))))
        .collect();
    let diagnostics = rows
        .iter()
        .flat_map(|row| {
            row.payload.diagnostics.iter().map(|diagnostic| FileIssue {
                file: row.path.clone(),
                pointer: diagnostic
                    .line
                    .map(|line| format!("line {line}"))
                    .unwrap_or_default(),
                message: diagnostic.message.clone(),
            })
        })
        .collect();
    let name = manifest
        .identity
        .name
        .clone()
        .unwrap_or_else(|| manifest.identity.id.clone());
    let options = GroupOptions::installed(name.clone(), candidate.class.trust());
    let layout = group(&rows, &options);
    let mut package = layout
        .packages
        .into_iter()
        .find(|p| p.root.is_empty())
        .unwrap_or(neuralis_layout::Package {
            key: name.clone(),
            name,
            rule: neuralis_layout::RootRule::Manifest,
            root: String::new(),
            files: Vec::new(),
        });
    merge_inline_files(
        &mut package,
        &manifest.inline.files,
        candidate.class.trust(),
    );
    (package, diagnostics)
}

fn skipped(candidate: &Candidate, reason: &str) -> Outcome {
    Outcome::Skipped {
        root: candidate.root.clone(),
        reason: reason.to_owned(),
    }
}

fn rejected(
    candidate: &Candidate,
    id: Option<String>,
    errors: Vec<FileIssue>,
    warnings: Vec<FileIssue>,
) -> Outcome {
    Outcome::Rejected(Rejection {
        root: candidate.root.clone(),
        id,
        errors,
        warnings,
    })
}
