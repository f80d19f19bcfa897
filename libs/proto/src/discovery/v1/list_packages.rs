//! `neuralis.discovery.v1.ListPackagesResponse`, written by hand rather than generated
//! (`build.rs` maps the proto type here), for one reason: a server can send packages it
//! encoded before the call (`encoded_packages`), where a generated message must be
//! built whole and encoded on every call. On the wire it is the same message; a
//! client decodes every package into `packages`.
//!
//! Discovery keeps each package's and file's bytes with its prepared answer and writes
//! a caller's answer from them (BENCHMARKS.md, issue 31 round 6: copying and encoding
//! the messages was a sixth of a warm call's server time).

use prost::bytes::{Buf, BufMut, Bytes, BytesMut};
use prost::encoding::{self, DecodeContext, WireType};
use prost::{DecodeError, Message};

use super::{Package, PackageFile};

/// The tag of `packages` (field 1, length-delimited): what each entry of
/// [`ListPackagesResponse::encoded_packages`] starts with.
pub const PACKAGES_TAG: u32 = 1;

/// `ListPackages` output.
#[derive(Clone, PartialEq, Default)]
pub struct ListPackagesResponse {
    /// Installed packages first, then source packages by source slug and root.
    pub packages: Vec<Package>,
    /// The token of the next page; empty on the last page.
    pub next_page_token: String,
    /// More packages, already encoded as entries of field 1 (each its key, its length
    /// and a `Package`), sent after `packages`. Only a server fills it: a decoded
    /// message holds every package in `packages` and leaves this empty.
    pub encoded_packages: Bytes,
}

impl std::fmt::Debug for ListPackagesResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListPackagesResponse")
            .field("packages", &self.packages)
            .field("next_page_token", &self.next_page_token)
            .field("encoded_packages", &self.encoded_packages.len())
            .finish()
    }
}

impl Message for ListPackagesResponse {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        for package in &self.packages {
            encoding::message::encode(PACKAGES_TAG, package, buf);
        }
        buf.put_slice(&self.encoded_packages);
        if !self.next_page_token.is_empty() {
            encoding::string::encode(2, &self.next_page_token, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            PACKAGES_TAG => {
                encoding::message::merge_repeated(wire_type, &mut self.packages, buf, ctx).map_err(
                    |mut error| {
                        error.push("ListPackagesResponse", "packages");
                        error
                    },
                )
            }
            2 => encoding::string::merge(wire_type, &mut self.next_page_token, buf, ctx).map_err(
                |mut error| {
                    error.push("ListPackagesResponse", "next_page_token");
                    error
                },
            ),
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        let token = if self.next_page_token.is_empty() {
            0
        } else {
            encoding::string::encoded_len(2, &self.next_page_token)
        };
        encoding::message::encoded_len_repeated(PACKAGES_TAG, &self.packages)
            + self.encoded_packages.len()
            + token
    }

    fn clear(&mut self) {
        self.packages.clear();
        self.next_page_token.clear();
        self.encoded_packages = Bytes::new();
    }
}

/// A `PackageFile` encoded once, without its `state` (field 6), which each caller's
/// answer sets: the fields before it, then the state, then the fields after it.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedFile {
    bytes: Bytes,
    /// Where the state goes: the length of the fields before it.
    at: usize,
}

impl EncodedFile {
    /// `message` encoded with its state left out.
    pub fn new(message: &PackageFile) -> Self {
        let before = PackageFile {
            path: message.path.clone(),
            category: message.category,
            id: message.id.clone(),
            title: message.title.clone(),
            description: message.description.clone(),
            ..PackageFile::default()
        };
        let without_state = PackageFile {
            state: 0,
            ..message.clone()
        };
        EncodedFile {
            bytes: without_state.encode_to_vec().into(),
            at: before.encoded_len(),
        }
    }

    /// The length of the entry [`EncodedFile::put`] writes.
    pub fn entry_len(&self, state: i32) -> usize {
        entry_len(FILES_TAG, self.bytes.len() + state_len(state))
    }

    /// Writes the file as one entry of `Package.files` with `state`: the bytes prost
    /// writes for the message with that state.
    pub fn put(&self, state: i32, buf: &mut BytesMut) {
        put_key_and_len(FILES_TAG, self.bytes.len() + state_len(state), buf);
        buf.put_slice(&self.bytes[..self.at]);
        if state != 0 {
            encoding::int32::encode(STATE_TAG, &state, buf);
        }
        buf.put_slice(&self.bytes[self.at..]);
    }

    /// The heap it holds.
    pub fn bytes(&self) -> usize {
        self.bytes.len()
    }
}

/// A file message made for one call (some of its bundle entries hidden), as an entry
/// of `Package.files`: its length, and the writer.
pub fn file_entry_len(message: &PackageFile) -> usize {
    entry_len(FILES_TAG, message.encoded_len())
}

/// Writes `message` as one entry of `Package.files`.
pub fn put_file_entry(message: &PackageFile, buf: &mut BytesMut) {
    encoding::message::encode(FILES_TAG, message, buf);
}

/// A `Package` without its files, encoded once without `enabled` (field 8) and
/// `files` (field 9), which each caller's answer sets.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedHead {
    bytes: Bytes,
    /// Where `enabled` and the files go: the length of the fields before them.
    at: usize,
}

impl EncodedHead {
    /// `head` encoded with `enabled` and its files left out.
    pub fn new(head: &Package) -> Self {
        let before = Package {
            name: head.name.clone(),
            key: head.key.clone(),
            origin: head.origin,
            source_slug: head.source_slug.clone(),
            root: head.root.clone(),
            rule: head.rule,
            package_id: head.package_id.clone(),
            ..Package::default()
        };
        let without = Package {
            enabled: false,
            files: Vec::new(),
            ..head.clone()
        };
        EncodedHead {
            bytes: without.encode_to_vec().into(),
            at: before.encoded_len(),
        }
    }

    /// The length of the entry [`EncodedHead::put`] writes, for files whose entries
    /// take `files` bytes.
    pub fn entry_len(&self, enabled: bool, files: usize) -> usize {
        entry_len(PACKAGES_TAG, self.body_len(enabled, files))
    }

    /// Writes the package as one entry of `ListPackagesResponse.packages`: the fields
    /// before `enabled`, `enabled`, the files `put_files` writes (exactly `files`
    /// bytes of `Package.files` entries), the fields after them.
    pub fn put(
        &self,
        enabled: bool,
        files: usize,
        buf: &mut BytesMut,
        put_files: impl FnOnce(&mut BytesMut),
    ) {
        put_key_and_len(PACKAGES_TAG, self.body_len(enabled, files), buf);
        buf.put_slice(&self.bytes[..self.at]);
        if enabled {
            encoding::bool::encode(ENABLED_TAG, &true, buf);
        }
        put_files(buf);
        buf.put_slice(&self.bytes[self.at..]);
    }

    /// The heap it holds.
    pub fn bytes(&self) -> usize {
        self.bytes.len()
    }

    fn body_len(&self, enabled: bool, files: usize) -> usize {
        let enabled = if enabled {
            encoding::bool::encoded_len(ENABLED_TAG, &true)
        } else {
            0
        };
        self.bytes.len() + enabled + files
    }
}

const STATE_TAG: u32 = 6;
const ENABLED_TAG: u32 = 8;
const FILES_TAG: u32 = 9;

fn state_len(state: i32) -> usize {
    if state == 0 {
        0
    } else {
        encoding::int32::encoded_len(STATE_TAG, &state)
    }
}

fn entry_len(tag: u32, body: usize) -> usize {
    encoding::key_len(tag) + encoding::encoded_len_varint(body as u64) + body
}

fn put_key_and_len(tag: u32, body: usize, buf: &mut BytesMut) {
    encoding::encode_key(tag, WireType::LengthDelimited, buf);
    encoding::encode_varint(body as u64, buf);
}

#[cfg(test)]
#[path = "list_packages_tests.rs"]
mod tests;
