//! The catalog across loaded packages (pure): load order, one package per id, one
//! owner per config key, the tool names with their claimants, the credentials
//! catalog. Built from candidates already read from disk; see [`crate::fs`] for that.

use crate::config_keys::{ConfigCatalog, KeyCollision};
use crate::contract::FileIssue;
use crate::credentials::CredentialCatalog;
use crate::package::{Candidate, InstalledPackage, Outcome, Rejection, load};
use crate::services::ServiceRegistry;
use crate::tool_names::{Claimant, Contest, ToolNames};
use neuralis_layout::{Category, Trust};
use neuralis_manifest::definitions::ToolDef;
use serde::Serialize;

/// What the catalog is built from besides package directories.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// The platform's own tools: `(package id, tool name)`, first-party claimants.
    pub platform_tools: Vec<(String, String)>,
    /// Tools offered by MCP servers: `(server id, tool name)`.
    pub mcp_tools: Vec<(String, String)>,
    /// Credential ids already stored by hand.
    pub stored_credentials: Vec<String>,
}

/// A directory that was not a package, or opted out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub root: String,
    pub reason: String,
}

/// The installed-package catalog.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Catalog {
    packages: Vec<InstalledPackage>,
    rejected: Vec<Rejection>,
    skipped: Vec<Skipped>,
    tools: ToolNames,
    config: ConfigCatalog,
    credentials: CredentialCatalog,
    services: ServiceRegistry,
}

impl Catalog {
    /// Loads every candidate in the fixed load order (builtins, then trusted, then
    /// project packages; by root within a class) and builds the catalogs. Nothing here
    /// fails: a bad package is rejected and reported, the rest load.
    pub fn build(mut candidates: Vec<Candidate>, extras: &Extras) -> Catalog {
        candidates.sort_by(|a, b| (a.class, &a.root).cmp(&(b.class, &b.root)));
        let mut catalog = Catalog::default();
        for candidate in &candidates {
            match load(candidate) {
                Outcome::Loaded(package) => catalog.admit(*package),
                Outcome::Rejected(rejection) => catalog.rejected.push(rejection),
                Outcome::Skipped { root, reason } => catalog.skipped.push(Skipped { root, reason }),
            }
        }
        catalog.index(extras);
        catalog
    }

    /// One package per id (the first in load order, so the higher install class), and
    /// one owner per config key; a later package breaking either is rejected whole.
    fn admit(&mut self, package: InstalledPackage) {
        if let Some(first) = self.packages.iter().find(|p| p.id == package.id) {
            let message = format!(
                "package id {:?} is already loaded from {}",
                package.id, first.root
            );
            return self.reject(
                &package,
                vec![FileIssue {
                    file: "package.json".into(),
                    pointer: "/neuralis/id".into(),
                    message,
                }],
            );
        }
        let service_conflicts = self
            .services
            .conflicts(&package.id, &package.manifest.provides);
        if !service_conflicts.is_empty() {
            let issues = service_conflicts.into_iter().map(provides_issue).collect();
            return self.reject(&package, issues);
        }
        if let Err(collisions) = self
            .config
            .register(&package.id, &package.manifest.config_settings)
        {
            let issues = collisions.iter().map(collision_issue).collect();
            return self.reject(&package, issues);
        }
        self.services
            .register(&package.id, &package.manifest.provides);
        self.packages.push(package);
    }

    fn reject(&mut self, package: &InstalledPackage, errors: Vec<FileIssue>) {
        self.rejected.push(Rejection {
            root: package.root.clone(),
            id: Some(package.id.clone()),
            errors,
            warnings: package.warnings.clone(),
        });
    }

    fn index(&mut self, extras: &Extras) {
        for (id, name) in &extras.platform_tools {
            self.tools.claim(
                name,
                Claimant::Package {
                    id: id.clone(),
                    trust: Trust::FirstParty,
                },
            );
        }
        for (server, name) in &extras.mcp_tools {
            self.tools
                .claim(name, Claimant::McpServer { id: server.clone() });
        }
        for package in &self.packages {
            for tool in &package.tools {
                self.tools.claim(
                    &tool.name,
                    Claimant::Package {
                        id: package.id.clone(),
                        trust: package.trust,
                    },
                );
            }
            index_credentials(&mut self.credentials, package);
        }
        self.credentials.stored(&extras.stored_credentials);
    }

    /// The loaded packages, in load order.
    pub fn packages(&self) -> &[InstalledPackage] {
        &self.packages
    }

    /// The loaded package with this id.
    pub fn package(&self, id: &str) -> Option<&InstalledPackage> {
        self.packages.iter().find(|p| p.id == id)
    }

    /// Packages that did not load, with every error.
    pub fn rejected(&self) -> &[Rejection] {
        &self.rejected
    }

    /// Directories that were not packages or opted out (`referenceOnly`).
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// The claimants of a tool name, in precedence order.
    pub fn claimants(&self, name: &str) -> &[Claimant] {
        self.tools.claimants(name)
    }

    /// Who answers `name` for a caller; `usable` says whether the caller can use a
    /// package (or MCP server) by id: enabled, in scope, features held.
    pub fn resolve_tool(&self, name: &str, usable: impl Fn(&str) -> bool) -> Option<&Claimant> {
        self.tools.resolve(name, |c| usable(c.id()))
    }

    /// Every contested tool name with its claimants.
    pub fn contested(&self) -> Vec<Contest> {
        self.tools.contested()
    }

    /// The start-up report of contested names: owner and shadowed ids, one line each.
    pub fn collision_report(&self) -> Vec<String> {
        self.contested()
            .iter()
            .filter_map(|c| {
                let owner = c.owner()?.id();
                let shadowed: Vec<&str> = c.shadowed().iter().map(Claimant::id).collect();
                Some(format!(
                    "tool {} owned by {owner} shadows {}",
                    c.name,
                    shadowed.join(", ")
                ))
            })
            .collect()
    }

    /// A package's definition of a tool, for a caller's `usable` check that looks at
    /// the tool's required features.
    pub fn tool(&self, package: &str, name: &str) -> Option<&ToolDef> {
        self.package(package)?.tools.iter().find(|t| t.name == name)
    }

    /// The host service contracts and their providers (a missing required singleton
    /// is in `missing_required`).
    pub fn services(&self) -> &ServiceRegistry {
        &self.services
    }

    /// The platform config schema with one owner per key.
    pub fn config(&self) -> &ConfigCatalog {
        &self.config
    }

    /// The credentials catalog (package ∪ skill ∪ stored).
    pub fn credentials(&self) -> &CredentialCatalog {
        &self.credentials
    }
}

fn provides_issue(message: String) -> FileIssue {
    FileIssue {
        file: "package.json".into(),
        pointer: "/neuralis/provides".into(),
        message,
    }
}

fn collision_issue(c: &KeyCollision) -> FileIssue {
    FileIssue {
        file: "package.json".into(),
        pointer: "/neuralis/configSettings".into(),
        message: format!(
            "config key {:?} is already owned by {}; a key has exactly one owning declarer",
            c.key, c.owner
        ),
    }
}

/// A package's `credentials[]` and its skills' `credentials:` frontmatter (a string
/// or a list of strings, or objects with an `id`).
fn index_credentials(catalog: &mut CredentialCatalog, package: &InstalledPackage) {
    for credential in &package.manifest.credentials {
        catalog.declare(&package.id, credential);
    }
    let skills = package
        .contributions
        .files
        .iter()
        .filter(|c| c.category == Category::Skill);
    for skill in skills {
        for id in frontmatter_ids(skill.credentials.as_ref()) {
            catalog.mention(&package.id, &skill.id, &id);
        }
    }
}

fn frontmatter_ids(value: Option<&serde_json::Value>) -> Vec<String> {
    use serde_json::Value;
    let one = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) => m.get("id").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    };
    match value {
        Some(Value::Array(items)) => items.iter().filter_map(one).collect(),
        Some(other) => one(other).into_iter().collect(),
        None => Vec::new(),
    }
    .into_iter()
    .filter(|id| neuralis_manifest::credentials::is_credential_id(id))
    .collect()
}
