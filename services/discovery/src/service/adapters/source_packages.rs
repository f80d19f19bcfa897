//! Package sources among the synced sources (seed 000, "What is deliberately not
//! loaded"): "a local source flagged recognizesPackages: true ALSO becomes a
//! runtime-WASM package source, at any scope — its directory is scanned and hot-reloaded
//! like the _packages/ drop-zone ... a built-in dedup stops the same package from
//! appearing on both axes."
//!
//! The scan reads the source's directory on this host like the drop zone (one package
//! per subdirectory holding a package.json, untrusted). A package already installed
//! (the same logical identity) is left out, so it appears once; a recognized package,
//! once taken among the installed packages, hides the source's markdown package of the
//! same directory through the double-loading rule (`lies_in_installed`). Each package
//! carries its source ([`PackageSource`]): its scope decides who it reaches (and, for
//! one id in two sources, which one a caller gets: `decision/scope.rs`), and its files
//! are read as the source's rows, through the index's decided read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use neuralis_catalog::{Catalog, Extras, LogicalIdentity, ReadLimits, Roots};
use neuralis_layout::Trust;

use super::LoadedCatalog;
use crate::base::error::DiscoveryError;
use crate::base::ports::{
    ContestedTool, InstalledCatalog, InstalledPackage, PackageSource, PackageValidation,
    SourceInfo, ToolEntry,
};

/// The packages `source` recognizes in its directory `root` (as the root gate resolved
/// it), without those `installed` already holds, each carrying its source. Nothing for
/// a source not flagged.
pub fn recognized_packages(
    source: &SourceInfo,
    root: &Path,
    installed: &[InstalledPackage],
) -> Vec<InstalledPackage> {
    if !source.recognizes_packages {
        return Vec::new();
    }
    let root = &root.to_path_buf();
    let roots = Roots {
        dependency_tree: None,
        drop_zone: Some(root.clone()),
        trusted_dirs: Vec::new(),
    };
    // Read only as the path the gate resolved: a link swapped in since is not followed.
    let catalog = match Catalog::load_resolved_zone(root, ReadLimits::default(), &Extras::default())
    {
        Ok(catalog) => catalog,
        Err(error) => {
            tracing::warn!(source = %source.id, %error, "package source unreadable");
            return Vec::new();
        }
    };
    let known: HashSet<&LogicalIdentity> =
        installed.iter().map(|package| &package.identity).collect();
    let tools: HashMap<String, Vec<ToolEntry>> = catalog
        .packages()
        .iter()
        .map(|p| (p.id.clone(), tool_entries(p)))
        .collect();
    LoadedCatalog::of_resolved_zone(catalog, &roots)
        .packages()
        .iter()
        .filter(|package| !known.contains(&package.identity))
        .map(|package| {
            let mut package = package.clone();
            let tools = tools.get(&package.package_id).cloned().unwrap_or_default();
            package.source = Some(package_source(source, root, &package.dir, tools));
            package
        })
        .collect()
}

/// A loaded package's tools as `ListTools` answers them.
fn tool_entries(package: &neuralis_catalog::InstalledPackage) -> Vec<ToolEntry> {
    package
        .tools
        .iter()
        .map(|tool| ToolEntry {
            name: tool.name.clone(),
            package_id: package.id.clone(),
            description: tool.description.clone(),
            input_schema_json: tool.input_schema.to_string(),
        })
        .collect()
}

/// Where in `source` (rooted at `root` on this host) the package directory `dir` is.
fn package_source(
    source: &SourceInfo,
    root: &Path,
    dir: &Path,
    tools: Vec<ToolEntry>,
) -> PackageSource {
    let relative = dir.strip_prefix(root).unwrap_or(dir);
    let parts: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    PackageSource {
        source_id: source.id.clone(),
        slug: source.slug.clone(),
        root_uri: source.root_uri.clone(),
        scope: source.scope.clone(),
        prefix: parts.join("/"),
        tools,
    }
}

/// Where a flagged source's root (of a project) is on this host, when the root rules
/// allow it; `None` refuses it.
pub type RootGate = Arc<dyn Fn(&str, &Path) -> Option<PathBuf> + Send + Sync>;

/// The installed catalog with the packages of the synced sources flagged
/// `recognizesPackages` beside it, scanned when an answer is prepared (after each sync
/// of the project).
pub struct WithSourcePackages {
    inner: Arc<dyn InstalledCatalog>,
    /// Where a flagged source's directory is, when the root rules of the sync beside
    /// it allow it now (`None` in split mode).
    root_gate: Option<RootGate>,
    /// Whether a source's directory is on this host: only when sync runs in this
    /// process. Otherwise (split mode) nothing is scanned (see [`Self::split`]).
    local_scan: bool,
    /// The flagged sources already named in the split-mode log line.
    warned: Mutex<HashSet<String>>,
}

impl WithSourcePackages {
    /// `inner` with the packages of flagged sources beside it, their directories
    /// scanned on this host (sync runs in this process: all-in-one), each only when
    /// `root_gate` (the sync's own root rules) allows its root for its project now: a
    /// root sync refuses (outside the project's folder, over the server's directories)
    /// is not scanned either.
    pub fn new(inner: Arc<dyn InstalledCatalog>, root_gate: RootGate) -> Self {
        Self {
            inner,
            root_gate: Some(root_gate),
            local_scan: true,
            warned: Mutex::new(HashSet::new()),
        }
    }

    /// `inner` for a discovery without sync beside it (split mode): a source's path
    /// names a directory on sync's host, and this host's directory of that name may
    /// hold anything, so no flagged source is scanned (fail closed), each named once
    /// in the log. Finding the packages in sync's index is not built yet.
    pub fn split(inner: Arc<dyn InstalledCatalog>) -> Self {
        Self {
            inner,
            root_gate: None,
            local_scan: false,
            warned: Mutex::new(HashSet::new()),
        }
    }

    /// Logs, once per source, that a flagged source is not scanned in split mode.
    fn refuse_split(&self, sources: &[SourceInfo]) {
        let Ok(mut warned) = self.warned.lock() else {
            return;
        };
        for source in sources.iter().filter(|s| s.recognizes_packages) {
            if warned.insert(source.id.clone()) {
                tracing::warn!(
                    source = %source.id,
                    "recognizesPackages is not served in split mode: the source's \
                     directory is on sync's host, so its packages are not scanned (fail closed)"
                );
            }
        }
    }
}

impl InstalledCatalog for WithSourcePackages {
    fn packages(&self) -> &[InstalledPackage] {
        self.inner.packages()
    }

    /// An installed package's file: a recognized package's files are read as its
    /// source's rows (`ContentAt::Source`), never here.
    fn read(&self, package_id: &str, path: &str) -> Result<Vec<u8>, DiscoveryError> {
        self.inner.read(package_id, path)
    }

    fn tools(&self, usable: &dyn Fn(&str, &str) -> bool) -> (Vec<ToolEntry>, Vec<ContestedTool>) {
        self.inner.tools(usable)
    }

    fn tools_beside(
        &self,
        beside: &[ToolEntry],
        usable: &dyn Fn(&str, &str) -> bool,
    ) -> (Vec<ToolEntry>, Vec<ContestedTool>) {
        self.inner.tools_beside(beside, usable)
    }

    fn validate(&self, files: &[(String, Vec<u8>)], trust: Trust) -> PackageValidation {
        self.inner.validate(files, trust)
    }

    /// An id already installed appears once (the installed one). One id in two
    /// flagged sources is kept from both: which one a caller gets is decided per
    /// caller, by the sources' scopes (`decision/scope.rs`).
    fn source_packages(&self, project: &str, sources: &[SourceInfo]) -> Vec<InstalledPackage> {
        if !self.local_scan {
            self.refuse_split(sources);
            return Vec::new();
        }
        let installed = self.inner.packages();
        sources
            .iter()
            .flat_map(|source| {
                let root = source.local_root.as_deref().zip(self.root_gate.as_ref());
                root.and_then(|(root, gate)| gate(project, root))
                    .map(|root| recognized_packages(source, &root, installed))
                    .unwrap_or_default()
            })
            .filter(|found| !installed.iter().any(|p| p.package_id == found.package_id))
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::path::Path;

    fn write(root: &Path, path: &str, text: &str) {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }

    fn source(root: &Path, recognizes_packages: bool) -> SourceInfo {
        SourceInfo {
            local_root: Some(root.to_path_buf()),
            recognizes_packages,
            ..crate::base::fixtures::source(&[])
        }
    }

    fn ids(packages: &[InstalledPackage]) -> Vec<&str> {
        packages.iter().map(|p| p.package_id.as_str()).collect()
    }

    #[test]
    fn a_flagged_local_source_is_scanned_like_the_drop_zone() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "wasm-pkg/package.json",
            r#"{"name": "wasm-pkg", "neuralis": {}}"#,
        );
        write(
            dir.path(),
            "wasm-pkg/skills/s/SKILL.md",
            "---\nname: s\n---\n",
        );
        write(dir.path(), "notes/rules/r.md", "# not a package\n");
        let found = recognized_packages(&source(dir.path(), true), dir.path(), &[]);
        assert_eq!(ids(&found), ["wasm-pkg"]);
        assert!(recognized_packages(&source(dir.path(), false), dir.path(), &[]).is_empty());
    }

    /// Split mode: the source's path is sync's host's, not this one's; nothing on
    /// this host under that path is taken for the source's packages.
    #[test]
    fn a_split_discovery_scans_no_local_directory() {
        let dir = one_package();
        let sources = [source(dir.path(), true)];
        let inner = || -> Arc<dyn InstalledCatalog> { Arc::new(LoadedCatalog::empty()) };
        let here = WithSourcePackages::new(inner(), any_root());
        assert_eq!(here.source_packages("p1", &sources).len(), 1);
        let split = WithSourcePackages::split(inner());
        assert!(split.source_packages("p1", &sources).is_empty());
    }

    /// A root the sync beside refuses for the project (outside its folder, over the
    /// server's directories) is not scanned either: only what the gate answers is.
    #[test]
    fn a_root_the_gate_refuses_is_not_scanned() {
        let dir = one_package();
        let sources = [source(dir.path(), true)];
        let inner: Arc<dyn InstalledCatalog> = Arc::new(LoadedCatalog::empty());
        let asked = Arc::new(Mutex::new(Vec::new()));
        let refusing: RootGate = {
            let asked = Arc::clone(&asked);
            Arc::new(move |project: &str, _: &Path| {
                asked.lock().unwrap().push(project.to_owned());
                None
            })
        };
        let refused = WithSourcePackages::new(inner, refusing);
        assert!(refused.source_packages("p1", &sources).is_empty());
        assert_eq!(
            *asked.lock().unwrap(),
            ["p1"],
            "asked for the project's root"
        );
    }

    /// A flagged source's directory holding one package, `wasm-pkg`.
    fn one_package() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "wasm-pkg/package.json",
            r#"{"name": "wasm-pkg", "neuralis": {}}"#,
        );
        dir
    }

    /// A gate that allows every root as given.
    fn any_root() -> RootGate {
        Arc::new(|_: &str, root: &Path| Some(root.to_path_buf()))
    }

    #[test]
    fn a_package_already_installed_appears_once() {
        let dir = one_package();
        let installed = recognized_packages(&source(dir.path(), true), dir.path(), &[]);
        assert!(recognized_packages(&source(dir.path(), true), dir.path(), &installed).is_empty());
    }
}
