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

    /// The catalog of one drop zone at `zone`, a path already resolved (canonical: no
    /// link on its way) by whoever decided it may be read. A package is read only while
    /// its folder is exactly `zone/<name>`: the zone or an entry swapped for a link
    /// since the decision is read as nothing, never as the link's target.
    pub fn load_resolved_zone(
        zone: &Path,
        limits: ReadLimits,
        extras: &Extras,
    ) -> Result<Catalog, ReadError> {
        let label = label_of(zone);
        Ok(Catalog::build(zone_entries(zone, &label, limits)?, extras))
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
        // The host's own tree (first-party), written by no caller.
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
    // Its entries are read as paths of the canonical zone, so an entry is itself exactly
    // when its connector's canonical root is that path (`read_entry`).
    let canonical = std::fs::canonicalize(zone).map_err(|source| ReadError::Io {
        path: zone.to_owned(),
        source,
    })?;
    zone_entries(&canonical, &label_of(zone), limits)
}

/// The zone's last name, which labels its packages (`<label>/<name>`).
fn label_of(zone: &Path) -> String {
    zone.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The packages of the canonical `zone`, one per directory entry.
fn zone_entries(zone: &Path, label: &str, limits: ReadLimits) -> Result<Vec<Candidate>, ReadError> {
    if !zone.exists() {
        return Ok(Vec::new());
    }
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
            match read_entry(&entry, root, InstallClass::Project, limits) {
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

/// Reads the package directory `entry`, found not a link when its folder was listed,
/// only if it is still that directory: swapped for a link since (to another project's
/// folder, say), its connector's canonical root is elsewhere, and nothing is read.
fn read_entry(
    entry: &Path,
    root: String,
    class: InstallClass,
    limits: ReadLimits,
) -> Result<Candidate, ReadError> {
    let connector = LocalConnector::new(entry, limits.connector())?;
    if connector.root() != entry {
        return Err(ReadError::Io {
            path: entry.to_owned(),
            source: std::io::Error::other("replaced by a link since its folder was listed"),
        });
    }
    read_with(&connector, root, class)
}

fn read_package(
    dir: &Path,
    root: String,
    class: InstallClass,
    limits: ReadLimits,
) -> Result<Candidate, ReadError> {
    let connector = LocalConnector::new(dir, limits.connector())?;
    read_with(&connector, root, class)
}

fn read_with(
    connector: &LocalConnector,
    root: String,
    class: InstallClass,
) -> Result<Candidate, ReadError> {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn package(dir: &Path, name: &str) {
        std::fs::create_dir_all(dir).unwrap();
        let manifest = format!(r#"{{"name": "{name}", "neuralis": {{}}}}"#);
        std::fs::write(dir.join("package.json"), manifest).unwrap();
    }

    /// The zone was listed with `pkg` a directory; before `pkg` is read, it becomes a
    /// link to another project's package. Read as a path, the link was followed and the
    /// other project's manifest taken for this zone's package.
    #[test]
    fn a_zone_entry_swapped_for_a_link_after_the_listing_is_not_read() {
        let base = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(base.path()).unwrap();
        let (zone, elsewhere) = (base.join("zone"), base.join("other-project/secret"));
        package(&zone.join("pkg"), "pkg");
        package(&elsewhere, "secret");
        let entry = zone.join("pkg");
        let honest = read_entry(
            &entry,
            "zone/pkg".into(),
            InstallClass::Project,
            ReadLimits::default(),
        );
        assert!(honest.unwrap().files.contains_key("package.json"));
        std::fs::remove_dir_all(&entry).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &entry).unwrap();
        let swapped = read_entry(
            &entry,
            "zone/pkg".into(),
            InstallClass::Project,
            ReadLimits::default(),
        );
        match swapped {
            Err(ReadError::Io { source, .. }) => assert!(source.to_string().contains("link")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_zone_reached_through_a_link_still_reads_its_packages() {
        let base = tempfile::tempdir().unwrap();
        let real = base.path().join("real-zone");
        package(&real.join("pkg"), "pkg");
        let linked = base.path().join("zone");
        std::os::unix::fs::symlink(&real, &linked).unwrap();
        let found = drop_zone(&linked, ReadLimits::default()).unwrap();
        assert_eq!(found.len(), 1);
        // Labelled by the zone as configured, as before.
        assert_eq!(found[0].root, "zone/pkg");
    }

    /// A zone decided on as a resolved path, then swapped for a link to another
    /// project's zone: listed through the link, every entry is refused.
    #[test]
    fn a_resolved_zone_swapped_for_a_link_reads_nothing() {
        let base = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(base.path()).unwrap();
        let (zone, other) = (base.join("zone"), base.join("other-zone"));
        package(&zone.join("pkg"), "pkg");
        package(&other.join("secret"), "secret");
        let extras = Extras::default();
        let honest = Catalog::load_resolved_zone(&zone, ReadLimits::default(), &extras).unwrap();
        assert_eq!(honest.packages().len(), 1);
        std::fs::remove_dir_all(&zone).unwrap();
        std::os::unix::fs::symlink(&other, &zone).unwrap();
        let swapped = Catalog::load_resolved_zone(&zone, ReadLimits::default(), &extras).unwrap();
        assert!(swapped.packages().is_empty());
        // Read as a configured zone (resolved now), the link is the zone.
        assert_eq!(drop_zone(&zone, ReadLimits::default()).unwrap().len(), 1);
    }
}
