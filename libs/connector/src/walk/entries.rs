//! Reading one open directory's names with `getdents64`: std's `read_dir` goes through
//! the C library's `opendir`, which also `fstat`s every directory (one system call in
//! five of a small directory's reading), and allocates a string per name. The names
//! land in one buffer per thread, and a directory holding more entries than the walk
//! may take is refused whole.

use std::cell::RefCell;
use std::ffi::CStr;
use std::mem::MaybeUninit;

use rustix::fd::OwnedFd;
use rustix::fs::{FileType, RawDir};

/// One name read from a directory.
pub(crate) struct DirEntry<'a> {
    /// In the thread's [`NAMES`].
    pub(crate) name: &'a CStr,
    /// The type getdents gave (`Unknown` on a filesystem that gives none).
    pub(crate) file_type: FileType,
}

/// Why a directory's entries were not had.
pub(crate) enum ReadError {
    Io(std::io::Error),
    /// It holds more entries than the walk's entry limit.
    TooMany,
}

impl From<std::io::Error> for ReadError {
    fn from(error: std::io::Error) -> Self {
        ReadError::Io(error)
    }
}

/// Bytes of directory entries one `getdents64` call may return (the C library's
/// `opendir` buffer size).
const ENTRY_BUFFER: usize = 32 * 1024;

/// The position ext4 (and so overlayfs over it) gives the last entry of a directory
/// read by hash, the largest file offset: after it nothing is left to read, so the
/// `getdents64` that would only confirm the end (one call in four of a directory of
/// two files) is not made. Any other position reads on to the empty answer.
const END_OF_DIRECTORY: u64 = i64::MAX as u64;

thread_local! {
    /// Each walking thread reuses one entry buffer.
    static BUFFER: RefCell<Vec<MaybeUninit<u8>>> =
        RefCell::new(vec![MaybeUninit::uninit(); ENTRY_BUFFER]);
    /// And one buffer for the names of the directory it scans, each with its NUL: one
    /// string per name was an allocation and a free per file.
    pub(crate) static NAMES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The entries of the open directory `fd` but `.` and `..`, their names copied into
/// `names`, in name order when `sorted`; [`ReadError::TooMany`] past `max` entries.
/// Refused whole rather than cut: which entries would make a cut depends on the order
/// the filesystem gives them, and a listing must not. An agent that fills a directory
/// with millions of names then costs the walk `max` names' memory, not millions.
pub(crate) fn entries_of<'a>(
    fd: &OwnedFd,
    sorted: bool,
    names: &'a mut Vec<u8>,
    max: usize,
) -> Result<Vec<DirEntry<'a>>, ReadError> {
    names.clear();
    let types = BUFFER.with_borrow_mut(|buffer| read_names(fd, buffer, names, max))?;
    let mut entries = Vec::with_capacity(types.len());
    let mut rest: &[u8] = names;
    for file_type in types {
        let name = CStr::from_bytes_until_nul(rest).map_err(std::io::Error::other)?;
        rest = &rest[name.to_bytes_with_nul().len()..];
        entries.push(DirEntry { name, file_type });
    }
    if sorted {
        entries.sort_by(|a, b| a.name.cmp(b.name));
    }
    Ok(entries)
}

/// Reads the names of the open directory `fd` into `names` (each with its NUL, `.` and
/// `..` left out), and returns their types in the same order; at most `max`.
fn read_names(
    fd: &OwnedFd,
    buffer: &mut [MaybeUninit<u8>],
    names: &mut Vec<u8>,
    max: usize,
) -> Result<Vec<FileType>, ReadError> {
    let mut types = Vec::new();
    let mut dir = RawDir::new(fd, buffer);
    while let Some(entry) = dir.next() {
        let entry = match entry {
            Ok(entry) => entry,
            // A directory removed while being read ends there, as the C library (and
            // so std) has it.
            Err(rustix::io::Errno::NOENT) => break,
            Err(error) => return Err(std::io::Error::from(error).into()),
        };
        let name = entry.file_name();
        let at_end = entry.next_entry_cookie() == END_OF_DIRECTORY;
        if !matches!(name.to_bytes(), b"." | b"..") {
            if types.len() == max {
                return Err(ReadError::TooMany);
            }
            names.extend_from_slice(name.to_bytes_with_nul());
            types.push(entry.file_type());
        }
        if at_end && dir.is_buffer_empty() {
            break;
        }
    }
    Ok(types)
}
