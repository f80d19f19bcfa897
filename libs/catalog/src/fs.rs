//! The thin shell: reads package directories from disk into [`Candidate`]s through
//! the shared local connector (`neuralis-connector`: it never leaves a package's root,
//! symlinks included), with `node_modules/` and `.git/` inside a package left out and
//! files over the size limit skipped. Everything else is the pure catalog's.

use crate::catalog::{Catalog, Extras};
use crate::dependency_tree::dependency_dirs;
use crate::package::{Candidate, InstallClass};
use neuralis_connector::{ConnectorError, ConnectorLimits, LocalConnector};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where installed packages come from.
#[derive(Debug, Clone, Default)]
pub struct Roots {
    /// The host's directory: its package.json names the builtin dependencies under
    /// `node_modules/` (first-party).
    pub dependency_tree: Option<PathBuf>,
    /// The drop-zone folder of project packages, one package per subdirectory
    /// (untrusted).
    pub drop_zone: Option<PathBuf>,
    /// Package directories an administrator added (trusted).
    pub trusted_dirs: Vec<PathBuf>,
}

/// Bounds on what one package may make the host read.
#[derive(Debug, Clone, Copy)]
pub struct ReadLimits {
    pub max_file_bytes: u64,
    pub max_files: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_file_bytes: 1024 * 1024,
            max_files: 4096,
        }
    }
}

/// A directory that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Connector(#[from] ConnectorError),
}

impl ReadLimits {
    /// What a connector over one package directory may list and read: the load's own
    /// bounds, for every later listing of the package too.
    pub fn connector(self) -> ConnectorLimits {
        ConnectorLimits {
            max_file_size: self.max_file_bytes,
            max_files: self.max_files,
            // Directories and entries left out count too: room for a package's own
            // folders, none for a tree of empty ones.
            max_entries: self.max_files.saturating_mul(4),
            max_depth: 32,
            excluded_dirs: vec![".git".to_owned(), "node_modules".to_owned()],
        }
    }
}

impl Catalog {
    /// Reads every configured root and builds the catalog.
    pub fn load(roots: &Roots, limits: ReadLimits, extras: &Extras) -> Result<Catalog, ReadError> {
        Ok(Catalog::build(read_candidates(roots, limits)?, extras))
    }
}

/// Reads the package directories of every root. A root that does not exist holds no
/// packages; one that exists but cannot be read is an error.
pub fn read_candidates(roots: &Roots, limits: ReadLimits) -> Result<Vec<Candidate>, ReadError> {
    let mut out = Vec::new();
    if let Some(tree) = &roots.dependency_tree {
        out.extend(builtins(tree, limits)?);
    }
    if let Some(zone) = &roots.drop_zone {
        out.extend(drop_zone(zone, limits)?);
    }
    for dir in &roots.trusted_dirs {
        out.push(read_package(
            dir,
            dir.display().to_string(),
            InstallClass::Trusted,
            limits,
        )?);
    }
    Ok(out)
}

fn builtins(tree: &Path, limits: ReadLimits) -> Result<Vec<Candidate>, ReadError> {
    let host = tree.join("package.json");
    let Some(bytes) = read_optional(&host)? else {
        return Ok(Vec::new());
    };
    let Ok(document) = serde_json::from_slice(&bytes) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for rel in dependency_dirs(&document) {
        let dir = tree.join(&rel);
        if dir.is_dir() && !is_symlink(&dir) {
            out.push(read_package(&dir, rel, InstallClass::Builtin, limits)?);
        }
    }
    Ok(out)
}

fn drop_zone(zone: &Path, limits: ReadLimits) -> Result<Vec<Candidate>, ReadError> {
    if !zone.exists() {
        return Ok(Vec::new());
    }
    let label = zone
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = Vec::new();
    for entry in sorted_entries(zone, MAX_ZONE_ENTRIES)? {
        if entry.is_dir() && !is_symlink(&entry) {
            let name = entry
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let root = format!("{label}/{name}");
            // Anyone who can write in the zone can make a package unreadable (removed
            // while read, a name gone): it is left out, the others still load.
            match read_package(&entry, root, InstallClass::Project, limits) {
                Ok(candidate) => out.push(candidate),
                Err(error) => tracing::warn!(%error, "a dropped package was not read"),
            }
        }
    }
    Ok(out)
}

/// The most entries a drop zone is read with: it is written by whoever may drop a
/// package, and each of its folders is read as one. A zone holding more is refused.
pub const MAX_ZONE_ENTRIES: usize = 1_024;

fn read_package(
    dir: &Path,
    root: String,
    class: InstallClass,
    limits: ReadLimits,
) -> Result<Candidate, ReadError> {
    let connector = LocalConnector::new(dir, limits.connector())?;
    let mut files = BTreeMap::new();
    for listed in connector.list().files {
        // A file that vanished or grew past the limit since the listing is left out,
        // like every other entry the connector skips.
        if let Ok(bytes) = connector.read(&listed.path) {
            files.insert(listed.path, bytes);
        }
    }
    Ok(Candidate { root, class, files })
}

/// The entries of `dir`, sorted; refused past `max` (read no further).
fn sorted_entries(dir: &Path, max: usize) -> Result<Vec<PathBuf>, ReadError> {
    let read = std::fs::read_dir(dir).map_err(|source| ReadError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut entries: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .take(max.saturating_add(1))
        .collect();
    if entries.len() > max {
        return Err(ReadError::Io {
            path: dir.to_owned(),
            source: std::io::Error::other(format!("holds more than {max} entries")),
        });
    }
    entries.sort();
    Ok(entries)
}

fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, ReadError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ReadError::Io {
            path: path.to_owned(),
            source,
        }),
    }
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Reads one package directory as a candidate of the given class (for `neuralis validate`).
pub fn read_one(
    dir: &Path,
    class: InstallClass,
    limits: ReadLimits,
) -> Result<Candidate, ReadError> {
    read_package(dir, dir.display().to_string(), class, limits)
}
