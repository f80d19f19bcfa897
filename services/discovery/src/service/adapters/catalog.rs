//! The installed-package catalog as discovery sees it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use neuralis_assembly::DataArea;
use neuralis_catalog::{
    Candidate, Catalog, Claimant, InstallClass, Outcome, ReadLimits, Roots, package,
};
use neuralis_connector::LocalConnector;
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
    /// Per package id: how its files are read, as the load found its directory.
    readers: HashMap<String, PackageReader>,
}

/// How one installed package's files are read: through the connector made at load,
/// whose root is the directory the load listed (its inode kept), so a directory
/// replaced since, by another or by a link to anywhere, reads nothing; and at the real
/// path of every file the load reached through an in-root link, never through the link.
struct PackageReader {
    connector: LocalConnector,
    real_paths: HashMap<String, String>,
}

impl LoadedCatalog {
    /// Wraps a built catalog; `roots` locate each package's directory for reads.
    pub fn new(catalog: Catalog, roots: &Roots) -> Self {
        let zone = roots
            .drop_zone
            .as_deref()
            .and_then(|zone| zone.canonicalize().ok());
        Self::wrap(catalog, roots, zone)
    }

    /// [`LoadedCatalog::new`] for a catalog of [`Catalog::load_resolved_zone`]: its drop
    /// zone is a path resolved already, taken as it is, never resolved again (a link
    /// swapped in for the zone since would be followed by a second resolution).
    pub fn of_resolved_zone(catalog: Catalog, roots: &Roots) -> Self {
        Self::wrap(catalog, roots, roots.drop_zone.clone())
    }

    /// A dropped package's folder is written by whoever may drop one: its connector must
    /// be that folder itself, `<zone>/<name>` of the canonical `zone`, as the load read it
    /// (`Catalog`'s `read_entry`).
    fn wrap(catalog: Catalog, roots: &Roots, zone: Option<PathBuf>) -> Self {
        let mut readers = HashMap::new();
        let packages = catalog
            .packages()
            .iter()
            .map(|p| {
                let dir = package_dir(roots, p.class, &p.root);
                let connector = package_connector(p.class, &dir, zone.as_deref());
                let (sizes, real_paths) = connector.as_ref().map(listed).unwrap_or_default();
                let skill = connector
                    .as_ref()
                    .and_then(|connector| bare_skill_content(connector, &sizes));
                if let Some(connector) = connector {
                    let reader = PackageReader {
                        connector,
                        real_paths,
                    };
                    readers.insert(p.id.clone(), reader);
                }
                InstalledPackage {
                    package_id: p.id.clone(),
                    identity: neuralis_catalog::LogicalIdentity::of_installed(p, skill),
                    trust: p.trust,
                    sizes,
                    dir,
                    source: None,
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
            readers,
        }
    }

    /// Every claimant of `name`, the installed ones and those `beside`, in the
    /// contested-name rule's precedence order.
    fn claimants_beside(&self, name: &str, beside: &[ToolEntry]) -> Vec<Claimant> {
        let mut claimants = self.catalog.claimants(name).to_vec();
        for tool in beside.iter().filter(|t| t.name == name) {
            let claimant = Claimant::Package {
                id: tool.package_id.clone(),
                trust: Trust::Untrusted,
            };
            if !claimants.contains(&claimant) {
                claimants.push(claimant);
            }
        }
        claimants.sort();
        claimants
    }

    /// The tool `name` as `owner` offers it: an installed package's definition, or
    /// one of `beside`; none for a claimant with no definition here (the platform's
    /// own tools, an MCP server).
    fn entry(&self, owner: &str, name: &str, beside: &[ToolEntry]) -> Option<ToolEntry> {
        if let Some(tool) = self.catalog.tool(owner, name) {
            return Some(ToolEntry {
                name: tool.name.clone(),
                package_id: owner.to_owned(),
                description: tool.description.clone(),
                input_schema_json: tool.input_schema.to_string(),
            });
        }
        beside
            .iter()
            .find(|t| t.package_id == owner && t.name == name)
            .cloned()
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

/// The connector a package's files are read through, listed within the load's own
/// bounds (a dropped package is untrusted). A dropped package is read only while its
/// folder is `<canonical zone>/<name>` itself: one swapped for a link since the load
/// (to another project's folder, say) gets no connector, so nothing of it is listed,
/// fingerprinted or read.
fn package_connector(
    class: InstallClass,
    dir: &Path,
    canonical_zone: Option<&Path>,
) -> Option<LocalConnector> {
    let limits = ReadLimits::default().connector();
    if class != InstallClass::Project {
        return LocalConnector::new(dir, limits).ok();
    }
    let expected = canonical_zone?.join(dir.file_name()?);
    let connector = LocalConnector::new(&expected, limits).ok()?;
    (connector.root() == expected).then_some(connector)
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
fn bare_skill_content(connector: &LocalConnector, sizes: &HashMap<String, u64>) -> Option<u64> {
    if sizes.contains_key("package.json") || !sizes.contains_key("SKILL.md") {
        return None;
    }
    let bytes = connector.read_beneath("SKILL.md").ok()?;
    Some(neuralis_connector::fingerprint(&bytes))
}

/// The sizes of a package directory's files, and the real path of each one reached
/// through an in-root link.
fn listed(connector: &LocalConnector) -> (HashMap<String, u64>, HashMap<String, String>) {
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
        // No link followed, as for a source's files: a link swapped in since the load
        // (the package directory itself included) reads nothing; one the load saw
        // inside the package is read at its real path.
        let reader = self
            .readers
            .get(package_id)
            .ok_or(DiscoveryError::NotFound)?;
        let at = reader.real_paths.get(path).map_or(path, String::as_str);
        reader
            .connector
            .read_beneath(at)
            .map_err(|_| DiscoveryError::NotFound)
    }

    fn tools(&self, usable: &dyn Fn(&str, &str) -> bool) -> (Vec<ToolEntry>, Vec<ContestedTool>) {
        self.tools_beside(&[], usable)
    }

    /// Seed 002, "Tool names are global": every name is decided once among all its
    /// claimants, the installed ones and those `beside` (untrusted packages).
    fn tools_beside(
        &self,
        beside: &[ToolEntry],
        usable: &dyn Fn(&str, &str) -> bool,
    ) -> (Vec<ToolEntry>, Vec<ContestedTool>) {
        let mut names: BTreeSet<&str> = self
            .catalog
            .packages()
            .iter()
            .flat_map(|p| p.tools.iter().map(|t| t.name.as_str()))
            .collect();
        names.extend(beside.iter().map(|t| t.name.as_str()));
        let (mut tools, mut contested) = (Vec::new(), Vec::new());
        for name in names {
            let claimants = self.claimants_beside(name, beside);
            // A claimant whose tool the caller may not use drops out of the contest.
            let usable_ids: Vec<String> = claimants
                .iter()
                .map(Claimant::id)
                .filter(|id| usable(id, name))
                .map(str::to_owned)
                .collect();
            if let Some(owner) = usable_ids.first() {
                tools.extend(self.entry(owner, name, beside));
            }
            if claimants.len() > 1 && usable_ids.len() > 1 {
                contested.push(ContestedTool {
                    name: name.to_owned(),
                    owner: usable_ids[0].clone(),
                    claimants: usable_ids,
                });
            }
        }
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
