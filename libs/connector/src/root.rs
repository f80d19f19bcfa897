//! Opening a connector's root: its canonical path, walked from `/` one name at a time
//! without following a link anywhere (each name relative to the directory before it,
//! `O_NOFOLLOW`). A canonical path holds no link, so an honest root opens; a link
//! swapped in at any of its names after it was resolved makes the open fail instead of
//! leading elsewhere.

use std::path::{Component, Path};

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{Mode, OFlags};

/// Opens the directory at the canonical `path`, following no link on the way.
pub(crate) fn open_without_links(path: &Path) -> std::io::Result<OwnedFd> {
    // The names on the way are only passed through (`O_PATH`: search permission, not
    // read, as a path lookup needs); the last one is opened to be read.
    let through = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let last = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let names: Vec<&std::ffi::OsStr> = path
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(Ok(name)),
            Component::RootDir => None,
            _ => Some(Err(not_canonical())),
        })
        .collect::<std::io::Result<_>>()?;
    if !path.is_absolute() {
        return Err(not_canonical());
    }
    let Some((final_name, on_the_way)) = names.split_last() else {
        return Ok(rustix::fs::open("/", last, Mode::empty())?);
    };
    let mut directory = rustix::fs::open("/", through, Mode::empty())?;
    for name in on_the_way {
        directory = rustix::fs::openat(directory.as_fd(), *name, through, Mode::empty())?;
    }
    Ok(rustix::fs::openat(
        directory.as_fd(),
        *final_name,
        last,
        Mode::empty(),
    )?)
}

fn not_canonical() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a canonical path")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_canonical_directory_opens_and_a_link_anywhere_on_its_way_does_not() {
        let base = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(base.path()).unwrap();
        std::fs::create_dir_all(base.join("real/inner")).unwrap();
        std::fs::create_dir_all(base.join("elsewhere/inner")).unwrap();
        open_without_links(&base.join("real/inner")).unwrap();
        open_without_links(Path::new("/")).unwrap();
        // `real` swapped for a link after the path was resolved: the same names now
        // lead elsewhere, through a link in the middle of the path.
        std::fs::rename(base.join("real"), base.join("moved")).unwrap();
        std::os::unix::fs::symlink(base.join("elsewhere"), base.join("real")).unwrap();
        assert!(open_without_links(&base.join("real/inner")).is_err());
        // And at its last name.
        std::os::unix::fs::symlink(base.join("elsewhere"), base.join("last")).unwrap();
        assert!(open_without_links(&base.join("last")).is_err());
        assert!(open_without_links(Path::new("relative/path")).is_err());
        assert!(open_without_links(&base.join("moved/../moved")).is_err());
    }
}
