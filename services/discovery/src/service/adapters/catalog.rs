//! The installed-package catalog as discovery sees it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use neuralis_assembly::DataArea;
use neuralis_catalog::{Candidate, Catalog, Claimant, InstallClass, Outcome, Roots, package};
use neuralis_connector::{ConnectorLimits, LocalConnector};
use neuralis_layout::Trust;
use neuralis_manifest::data_layout::{DataLayout, zone_root, zone_slug};

use crate::base::error::DiscoveryError;
use crate::base::ports::{
    ContestedTool, InstalledCatalog, InstalledPackage, PackageValidation, ToolEntry, ToolGate,
};

/// A catalog loaded from the configured roots at start.
pub struct LoadedCatalog {
    catalog: Catalog,
    packages: Vec<InstalledPackage>,
    /// Per package id: the real path of every file its listing reached through an
    /// in-root link (reads go there, never through the link).
    real_paths: HashMap<String, HashMap<String, String>>,
}

impl LoadedCatalog {
    /// Wraps a built catalog; `roots` locate each package's directory for reads.
    pub fn new(catalog: Catalog, roots: &Roots) -> Self {
        let mut real_paths = HashMap::new();
        let packages = catalog
            .packages()
            .iter()
            .map(|p| {
                let dir = package_dir(roots, p.class, &p.root);
                let (sizes, linked) = listed(&dir);
                real_paths.insert(p.id.clone(), linked);
                let skill = bare_skill_content(&dir, &sizes);
                InstalledPackage {
                    package_id: p.id.clone(),
                    identity: neuralis_catalog::LogicalIdentity::of_installed(p, skill),
                    trust: p.trust,
                    sizes,
                    dir,
                    access_feature: p.manifest.requires.access_feature.clone(),
                    package: p.contributions.clone(),
                    tools: p
                        .tools
                        .iter()
                        .map(|tool| ToolGate {
                            name: tool.name.clone(),
                            features: tool.features.clone(),
                        })
                        .collect(),
                    data_area: data_area(&p.id, p.trust, &p.manifest.data_layout),
                }
            })
            .collect();
        for line in catalog.collision_report() {
            tracing::info!(report = %line, "contested tool name");
        }
        Self {
            catalog,
            packages,
            real_paths,
        }
    }

    /// An empty catalog.
    pub fn empty() -> Self {
        Self::new(
            Catalog::build(Vec::new(), &Default::default()),
            &Roots::default(),
        )
    }
}

/// A package's declared data layout under its zone root (seed 002, "dataLayout").
fn data_area(id: &str, trust: Trust, layout: &DataLayout) -> DataArea {
    DataArea {
        zone_root: zone_root(&zone_slug(id), trust),
        directories: layout.directories.clone(),
        agent_directories: layout.agent_directories.clone(),
    }
}

/// Where the catalog's `root` label points on disk, by install class.
fn package_dir(roots: &Roots, class: InstallClass, root: &str) -> PathBuf {
    match class {
        InstallClass::Builtin => roots
            .dependency_tree
            .as_deref()
            .unwrap_or(Path::new("."))
            .join(root),
        InstallClass::Project => {
            let zone = roots.drop_zone.as_deref().unwrap_or(Path::new("."));
            let name = root.rsplit('/').next().unwrap_or(root);
            zone.join(name)
        }
        InstallClass::Trusted => PathBuf::from(root),
    }
}

/// The fingerprint of a bare skill folder's `SKILL.md` (no `package.json`): what tells
/// the folder from another one of the same name in a source (no double loading).
fn bare_skill_content(dir: &Path, sizes: &HashMap<String, u64>) -> Option<u64> {
    if sizes.contains_key("package.json") || !sizes.contains_key("SKILL.md") {
        return None;
    }
    let connector = LocalConnector::new(dir, ConnectorLimits::default()).ok()?;
    let bytes = connector.read_beneath("SKILL.md").ok()?;
    Some(neuralis_connector::fingerprint(&bytes))
}

/// The sizes of a package directory's files, and the real path of each one reached
/// through an in-root link.
fn listed(dir: &Path) -> (HashMap<String, u64>, HashMap<String, String>) {
    let Ok(connector) = LocalConnector::new(dir, ConnectorLimits::default()) else {
        return (HashMap::new(), HashMap::new());
    };
    let files = connector.list().files;
    let linked = files
        .iter()
        .filter_map(|f| Some((f.path.clone(), f.real_path.clone()?)))
        .collect();
    let sizes = files.into_iter().map(|f| (f.path, f.size)).collect();
    (sizes, linked)
}

impl InstalledCatalog for LoadedCatalog {
    fn packages(&self) -> &[InstalledPackage] {
        &self.packages
    }

    fn read(&self, package_id: &str, path: &str) -> Result<Vec<u8>, DiscoveryError> {
        let package = self
            .packages
            .iter()
            .find(|p| p.package_id == package_id)
            .ok_or(DiscoveryError::NotFound)?;
        // No link followed, as for a source's files: a link swapped in since the load
        // reads nothing; one the load saw inside the package is read at its real path.
        let at = self
            .real_paths
            .get(package_id)
            .and_then(|linked| linked.get(path))
            .map_or(path, String::as_str);
        LocalConnector::new(&package.dir, ConnectorLimits::default())
            .and_then(|connector| connector.read_beneath(at))
            .map_err(|_| DiscoveryError::NotFound)
    }

    fn tools(&self, usable: &dyn Fn(&str, &str) -> bool) -> (Vec<ToolEntry>, Vec<ContestedTool>) {
        let mut tools = Vec::new();
        for package in self.catalog.packages() {
            for tool in &package.tools {
                // A claimant whose tool the caller may not use drops out of the contest.
                let owner = self
                    .catalog
                    .resolve_tool(&tool.name, |id| usable(id, &tool.name));
                if owner.is_some_and(|o| o.id() == package.id) {
                    tools.push(ToolEntry {
                        name: tool.name.clone(),
                        package_id: package.id.clone(),
                        description: tool.description.clone(),
                        input_schema_json: tool.input_schema.to_string(),
                    });
                }
            }
        }
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let contested = self
            .catalog
            .contested()
            .into_iter()
            .filter_map(|contest| {
                let claimants: Vec<String> = contest
                    .claimants
                    .iter()
                    .map(Claimant::id)
                    .filter(|id| usable(id, &contest.name))
                    .map(str::to_owned)
                    .collect();
                (claimants.len() > 1).then(|| ContestedTool {
                    name: contest.name.clone(),
                    owner: claimants[0].clone(),
                    claimants,
                })
            })
            .collect();
        (tools, contested)
    }

    fn validate(&self, files: &[(String, Vec<u8>)], trust: Trust) -> PackageValidation {
        let class = match trust {
            Trust::FirstParty => InstallClass::Builtin,
            Trust::Trusted => InstallClass::Trusted,
            Trust::Untrusted => InstallClass::Project,
        };
        let files: BTreeMap<String, Vec<u8>> = files.iter().cloned().collect();
        let candidate = Candidate {
            root: "package".into(),
            class,
            files,
        };
        let issue = |i: &neuralis_catalog::FileIssue| {
            (format!("{}#{}", i.file, i.pointer), i.message.clone())
        };
        match package::load(&candidate) {
            Outcome::Loaded(loaded) => PackageValidation {
                accepted: true,
                errors: Vec::new(),
                warnings: loaded.warnings.iter().map(issue).collect(),
            },
            Outcome::Rejected(rejection) => PackageValidation {
                accepted: false,
                errors: rejection.errors.iter().map(issue).collect(),
                warnings: Vec::new(),
            },
            Outcome::Skipped { reason, .. } => PackageValidation {
                accepted: false,
                errors: vec![("package.json".into(), reason)],
                warnings: Vec::new(),
            },
        }
    }
}
