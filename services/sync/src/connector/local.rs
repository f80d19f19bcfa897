//! The connector of a directory on this host (`local`, `data` and `machine` sources).

use super::{Connector, ConnectorError, FileStat, Listing, SkipReason, Skipped};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A directory source, contained in its canonical root.
#[derive(Debug, Clone)]
pub struct LocalConnector {
    root: PathBuf,
    max_file_size: u64,
}

/// A directory still to walk.
struct Pending {
    /// Where it is on disk (through any symlinks on the way).
    path: PathBuf,
    /// Its canonical location, to recognize a link back to an ancestor.
    canonical: PathBuf,
    /// Its path relative to the root with a trailing `/` ("" for the root).
    prefix: String,
}

/// What one directory entry turned out to be.
enum Entry {
    File(FileStat),
    Dir(Pending),
    Skip(Skipped),
}

impl LocalConnector {
    /// A connector for `root`, which must be an existing directory.
    pub fn new(root: &Path, max_file_size: u64) -> Result<Self, ConnectorError> {
        let root = fs::canonicalize(root)
            .map_err(|err| ConnectorError::RootUnavailable(format!("{}: {err}", root.display())))?;
        if !root.is_dir() {
            return Err(ConnectorError::RootUnavailable(format!(
                "{} is not a directory",
                root.display()
            )));
        }
        Ok(Self {
            root,
            max_file_size,
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn walk_dir(&self, dir: &Pending, listing: &mut Listing, pending: &mut Vec<Pending>) {
        let entries = match fs::read_dir(&dir.path) {
            Ok(entries) => entries,
            Err(err) => {
                return listing
                    .skipped
                    .push(unreadable(dir.prefix.trim_end_matches('/'), err));
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    listing.skipped.push(unreadable(&dir.prefix, err));
                    continue;
                }
            };
            match self.examine(dir, &entry) {
                Entry::File(file) => listing.files.push(file),
                Entry::Dir(next) => pending.push(next),
                Entry::Skip(skipped) => listing.skipped.push(skipped),
            }
        }
    }

    fn examine(&self, dir: &Pending, entry: &fs::DirEntry) -> Entry {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            return Entry::Skip(Skipped {
                path: format!("{}{}", dir.prefix, name.to_string_lossy()),
                reason: SkipReason::NonUtf8Name,
                detail: "the name is not valid UTF-8".into(),
            });
        };
        let relative = format!("{}{name}", dir.prefix);
        let path = entry.path();
        let is_link = entry
            .file_type()
            .map(|kind| kind.is_symlink())
            .unwrap_or(false);
        let canonical = if is_link {
            match self.resolve_link(&path, &relative) {
                Ok(target) => target,
                Err(skipped) => return Entry::Skip(skipped),
            }
        } else {
            dir.canonical.join(name)
        };
        match fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => self.enter(dir, path, canonical, relative),
            Ok(meta) if meta.is_file() => self.file(relative, &meta),
            Ok(_) => Entry::Skip(Skipped {
                path: relative,
                reason: SkipReason::Unreadable,
                detail: "not a regular file or directory".into(),
            }),
            Err(err) => Entry::Skip(unreadable(&relative, err)),
        }
    }

    /// Resolves a link; it must stay inside the root.
    fn resolve_link(&self, path: &Path, relative: &str) -> Result<PathBuf, Skipped> {
        match fs::canonicalize(path) {
            Ok(target) if target.starts_with(&self.root) => Ok(target),
            Ok(target) => Err(Skipped {
                path: relative.to_owned(),
                reason: SkipReason::SymlinkEscape,
                detail: format!("resolves outside the source root to {}", target.display()),
            }),
            Err(err) if is_loop(&err) => Err(loop_skip(relative)),
            Err(err) => Err(unreadable(relative, err)),
        }
    }

    /// A directory is walked unless it is (a link to) one of its own ancestors.
    fn enter(&self, dir: &Pending, path: PathBuf, canonical: PathBuf, relative: String) -> Entry {
        if dir.canonical.starts_with(&canonical) {
            return Entry::Skip(loop_skip(&relative));
        }
        Entry::Dir(Pending {
            path,
            canonical,
            prefix: format!("{relative}/"),
        })
    }

    fn file(&self, relative: String, meta: &fs::Metadata) -> Entry {
        if meta.len() > self.max_file_size {
            return Entry::Skip(Skipped {
                path: relative,
                reason: SkipReason::TooLarge,
                detail: format!(
                    "{} bytes, over the limit of {}",
                    meta.len(),
                    self.max_file_size
                ),
            });
        }
        Entry::File(FileStat {
            path: relative,
            size: meta.len(),
            modified: modified_millis(meta),
        })
    }

    /// The on-disk path of `relative`, only when it stays inside the root.
    fn contained(&self, relative: &str) -> Result<PathBuf, ConnectorError> {
        let plain = !relative.is_empty()
            && !relative.starts_with('/')
            && !relative.contains('\0')
            && relative
                .split('/')
                .all(|segment| !matches!(segment, "" | "." | ".."));
        if !plain {
            return Err(ConnectorError::NotFound);
        }
        let resolved =
            fs::canonicalize(self.root.join(relative)).map_err(|_| ConnectorError::NotFound)?;
        if resolved.starts_with(&self.root) {
            Ok(resolved)
        } else {
            Err(ConnectorError::NotFound)
        }
    }
}

impl Connector for LocalConnector {
    fn list(&self) -> Result<Listing, ConnectorError> {
        if !self.root.is_dir() {
            return Err(ConnectorError::RootUnavailable(
                self.root.display().to_string(),
            ));
        }
        let mut listing = Listing::default();
        let mut pending = vec![Pending {
            path: self.root.clone(),
            canonical: self.root.clone(),
            prefix: String::new(),
        }];
        while let Some(dir) = pending.pop() {
            self.walk_dir(&dir, &mut listing, &mut pending);
        }
        listing
            .files
            .sort_by(|left, right| left.path.cmp(&right.path));
        listing
            .skipped
            .sort_by(|left, right| left.path.cmp(&right.path));
        Ok(listing)
    }

    fn stat(&self, path: &str) -> Result<FileStat, ConnectorError> {
        let resolved = self.contained(path)?;
        let meta = fs::metadata(resolved).map_err(|_| ConnectorError::NotFound)?;
        if !meta.is_file() || meta.len() > self.max_file_size {
            return Err(ConnectorError::NotFound);
        }
        Ok(FileStat {
            path: path.to_owned(),
            size: meta.len(),
            modified: modified_millis(&meta),
        })
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, ConnectorError> {
        let resolved = self.contained(path)?;
        let file = fs::File::open(resolved).map_err(|_| ConnectorError::NotFound)?;
        if !file.metadata().map(|meta| meta.is_file()).unwrap_or(false) {
            return Err(ConnectorError::NotFound);
        }
        // Read one byte past the limit: a file that grew since it was listed is
        // refused instead of read without bound.
        let mut content = Vec::new();
        file.take(self.max_file_size.saturating_add(1))
            .read_to_end(&mut content)
            .map_err(|_| ConnectorError::NotFound)?;
        if content.len() as u64 > self.max_file_size {
            return Err(ConnectorError::NotFound);
        }
        Ok(content)
    }
}

/// ELOOP: "too many levels of symbolic links".
fn is_loop(err: &std::io::Error) -> bool {
    const ELOOP: i32 = 40;
    err.raw_os_error() == Some(ELOOP)
}

fn loop_skip(relative: &str) -> Skipped {
    Skipped {
        path: relative.to_owned(),
        reason: SkipReason::SymlinkLoop,
        detail: "a symbolic link loop".into(),
    }
}

fn unreadable(relative: &str, err: std::io::Error) -> Skipped {
    Skipped {
        path: relative.to_owned(),
        reason: SkipReason::Unreadable,
        detail: err.to_string(),
    }
}

fn modified_millis(meta: &fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |since| {
            i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
        })
}

#[cfg(test)]
mod tests;
