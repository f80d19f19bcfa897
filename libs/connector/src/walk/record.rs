//! What a walk makes of each file it lists: a [`ListedFile`] with its status, or a
//! [`NamedFile`] of a walk that stats no plain file.

use crate::stat::FileStat;
use crate::{FileIdentity, Inode, ListedFile, NamedFile};

/// What a walk makes of each file it lists.
pub(crate) trait Record: Send + Sized {
    /// Whether every file is stat'ed in the walk; when not, only links are (their
    /// target's kind needs it), and a plain file arrives with no status.
    const STAT_FILES: bool;
    fn new(path: String, stat: Option<&FileStat>, real_path: Option<String>, root: Inode) -> Self;
    fn path(&self) -> &str;
}

impl Record for ListedFile {
    const STAT_FILES: bool = true;

    fn new(path: String, stat: Option<&FileStat>, real_path: Option<String>, root: Inode) -> Self {
        // Every file of this walk has its status (`STAT_FILES`); one without would
        // carry no identity, so it could only be read the careful way.
        let mut file = match stat {
            Some(stat) => ListedFile::from_stat(path, stat, root),
            None => ListedFile {
                path,
                size: 0,
                modified: None,
                changed: None,
                identity: None,
                real_path: None,
            },
        };
        file.real_path = real_path;
        file
    }

    fn path(&self) -> &str {
        &self.path
    }
}

impl Record for NamedFile {
    const STAT_FILES: bool = false;

    fn new(path: String, stat: Option<&FileStat>, real_path: Option<String>, root: Inode) -> Self {
        NamedFile {
            path,
            real_path,
            identity: stat.map(|stat| FileIdentity {
                root,
                file: stat.inode,
            }),
        }
    }

    fn path(&self) -> &str {
        &self.path
    }
}
