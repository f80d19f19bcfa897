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
//! same directory through the double-loading rule (`lies_in_installed`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use neuralis_access::SourceScope;
use neuralis_catalog::{Catalog, Extras, LogicalIdentity, ReadLimits, Roots};
use neuralis_connector::{ConnectorLimits, LocalConnector};
use neuralis_layout::Trust;

use super::LoadedCatalog;
use crate::base::error::DiscoveryError;
use crate::base::ports::{
    ContestedTool, InstalledCatalog, InstalledPackage, PackageValidation, SourceInfo, ToolEntry,
};

/// One package a flagged source holds, with its tools as `ListTools` answers them.
#[derive(Clone)]
pub struct Recognized {
    pub package: InstalledPackage,
    pub tools: Vec<ToolEntry>,
}

/// The packages `source` recognizes, without those `installed` already holds. Nothing
/// for a source not flagged, or whose directory is not on this host.
pub fn recognized_packages(source: &SourceInfo, installed: &[InstalledPackage]) -> Vec<Recognized> {
    let Some(root) = source
        .local_root
        .as_ref()
        .filter(|_| source.recognizes_packages)
    else {
        return Vec::new();
    };
    let roots = Roots {
        dependency_tree: None,
        drop_zone: Some(root.clone()),
        trusted_dirs: Vec::new(),
    };
    let catalog = match Catalog::load(&roots, ReadLimits::default(), &Extras::default()) {
        Ok(catalog) => catalog,
        Err(error) => {
            tracing::warn!(source = %source.id, %error, "package source unreadable");
            return Vec::new();
        }
    };
    let known: std::collections::HashSet<&LogicalIdentity> =
        installed.iter().map(|package| &package.identity).collect();
    let tools_of = |id: &str| -> Vec<ToolEntry> {
        let defs = catalog.package(id).map(|p| p.tools.as_slice());
        defs.unwrap_or_default()
            .iter()
            .map(|tool| ToolEntry {
                name: tool.name.clone(),
                package_id: id.to_owned(),
                description: tool.description.clone(),
                input_schema_json: tool.input_schema.to_string(),
            })
            .collect()
    };
    let tools: HashMap<String, Vec<ToolEntry>> = catalog
        .packages()
        .iter()
        .map(|p| (p.id.clone(), tools_of(&p.id)))
        .collect();
    LoadedCatalog::new(catalog, &roots)
        .packages()
        .iter()
        .filter(|package| !known.contains(&package.identity))
        .map(|package| Recognized {
            tools: tools.get(&package.package_id).cloned().unwrap_or_default(),
            package: package.clone(),
        })
        .collect()
}

/// The installed catalog with the packages of the synced sources flagged
/// `recognizesPackages` beside it: scanned when an answer is prepared (after each sync
/// of the project), kept for reading their files until the next scan.
pub struct WithSourcePackages {
    inner: Arc<dyn InstalledCatalog>,
    /// The packages scans found, by project and package id, with their source's scope.
    recognized: RwLock<HashMap<(String, String), (Recognized, SourceScope)>>,
    /// Whether a source's directory is on this host: only when sync runs in this
    /// process. Otherwise (split mode) nothing is scanned (see [`Self::split`]).
    local_scan: bool,
    /// The flagged sources already named in the split-mode log line.
    warned: Mutex<HashSet<String>>,
}

impl WithSourcePackages {
    /// `inner` with the packages of flagged sources beside it, their directories
    /// scanned on this host (sync runs in this process: all-in-one).
    pub fn new(inner: Arc<dyn InstalledCatalog>) -> Self {
        Self {
            inner,
            recognized: RwLock::new(HashMap::new()),
            local_scan: true,
            warned: Mutex::new(HashSet::new()),
        }
    }

    /// `inner` for a discovery without sync beside it (split mode): a source's path
    /// names a directory on sync's host, and this host's directory of that name may
    /// hold anything, so no flagged source is scanned (fail closed), each named once
    /// in the log. Reading the packages from sync's index is not built yet.
    pub fn split(inner: Arc<dyn InstalledCatalog>) -> Self {
        Self {
            local_scan: false,
            ..Self::new(inner)
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

    /// A package found under the same id in two projects' sources (two directories)
    /// is read from neither: `read` names no project, and one project must never read
    /// another's files (fail closed).
    fn read(&self, package_id: &str, path: &str) -> Result<Vec<u8>, DiscoveryError> {
        let dirs: BTreeSet<PathBuf> = match self.recognized.read() {
            Ok(recognized) => recognized
                .iter()
                .filter(|((_, id), _)| id == package_id)
                .map(|(_, (found, _))| found.package.dir.clone())
                .collect(),
            Err(_) => return Err(DiscoveryError::NotFound),
        };
        let mut dirs = dirs.into_iter();
        match (dirs.next(), dirs.next()) {
            (None, _) => self.inner.read(package_id, path),
            // No link followed, as for every installed package's files.
            (Some(dir), None) => LocalConnector::new(&dir, ConnectorLimits::default())
                .and_then(|connector| connector.read_beneath(path))
                .map_err(|_| DiscoveryError::NotFound),
            (Some(_), Some(_)) => Err(DiscoveryError::NotFound),
        }
    }

    fn tools(&self, usable: &dyn Fn(&str, &str) -> bool) -> (Vec<ToolEntry>, Vec<ContestedTool>) {
        self.inner.tools(usable)
    }

    /// The installed packages' tools and those of the packages `project`'s flagged
    /// sources hold, under one contested-name rule; `usable` holds only the packages
    /// whose source's scope reaches the caller (`hide_beyond_source_scope`).
    fn project_tools(
        &self,
        project: &str,
        usable: &dyn Fn(&str, &str) -> bool,
    ) -> (Vec<ToolEntry>, Vec<ContestedTool>) {
        let beside: Vec<ToolEntry> = match self.recognized.read() {
            Ok(recognized) => recognized
                .iter()
                .filter(|((at, _), _)| at == project)
                .flat_map(|(_, (found, _))| found.tools.iter().cloned())
                .collect(),
            Err(_) => Vec::new(),
        };
        self.inner.tools_beside(&beside, usable)
    }

    fn validate(&self, files: &[(String, Vec<u8>)], trust: Trust) -> PackageValidation {
        self.inner.validate(files, trust)
    }

    /// An id already installed, or found twice, appears once (the first wins).
    fn source_packages(&self, project: &str, sources: &[SourceInfo]) -> Vec<InstalledPackage> {
        if !self.local_scan {
            self.refuse_split(sources);
            return Vec::new();
        }
        let mut found: Vec<(Recognized, SourceScope)> = Vec::new();
        for source in sources {
            for recognized in recognized_packages(source, self.inner.packages()) {
                let id = &recognized.package.package_id;
                let taken = self.inner.packages().iter().any(|p| &p.package_id == id)
                    || found.iter().any(|(f, _)| &f.package.package_id == id);
                if !taken {
                    found.push((recognized, source.scope.clone()));
                }
            }
        }
        if let Ok(mut recognized) = self.recognized.write() {
            let scanned = found.iter().map(|(f, s)| {
                (
                    (project.to_owned(), f.package.package_id.clone()),
                    (f.clone(), s.clone()),
                )
            });
            recognized.extend(scanned);
        }
        found.into_iter().map(|(f, _)| f.package).collect()
    }

    fn source_scope(&self, project: &str, package_id: &str) -> Option<SourceScope> {
        let recognized = self.recognized.read().ok()?;
        let key = (project.to_owned(), package_id.to_owned());
        recognized.get(&key).map(|(_, scope)| scope.clone())
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

    fn ids(packages: &[Recognized]) -> Vec<&str> {
        packages
            .iter()
            .map(|p| p.package.package_id.as_str())
            .collect()
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
        let found = recognized_packages(&source(dir.path(), true), &[]);
        assert_eq!(ids(&found), ["wasm-pkg"]);
        assert!(recognized_packages(&source(dir.path(), false), &[]).is_empty());
    }

    /// Split mode: the source's path is sync's host's, not this one's; nothing on
    /// this host under that path is taken for the source's packages.
    #[test]
    fn a_split_discovery_scans_no_local_directory() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "wasm-pkg/package.json",
            r#"{"name": "wasm-pkg", "neuralis": {}}"#,
        );
        let sources = [source(dir.path(), true)];
        let inner = || -> Arc<dyn InstalledCatalog> { Arc::new(LoadedCatalog::empty()) };
        let here = WithSourcePackages::new(inner());
        assert_eq!(here.source_packages("p1", &sources).len(), 1);
        let split = WithSourcePackages::split(inner());
        assert!(split.source_packages("p1", &sources).is_empty());
        assert!(split.source_scope("p1", "wasm-pkg").is_none());
    }

    #[test]
    fn a_package_already_installed_appears_once() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "wasm-pkg/package.json",
            r#"{"name": "wasm-pkg", "neuralis": {}}"#,
        );
        let installed: Vec<InstalledPackage> = recognized_packages(&source(dir.path(), true), &[])
            .into_iter()
            .map(|r| r.package)
            .collect();
        assert!(recognized_packages(&source(dir.path(), true), &installed).is_empty());
    }
}
