//! The content hash a sync stores for every row, and the fingerprint a caller-facing
//! read checks against it. Written once here: the sync computes the hash with it and
//! [`LocalConnector::read_decided`](crate::LocalConnector::read_decided) recomputes it,
//! so the two can never disagree on what "the same bytes" means.

use sha2::{Digest, Sha256};

/// SHA-256 of `content`, lowercase hex: the row's `content_hash`.
pub fn content_hash(content: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(content);
    let mut text = String::with_capacity(digest.len() * 2);
    for byte in digest {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// The first 8 bytes of the SHA-256 of `content`, big-endian: what a reader names as
/// the content it decided on. Never 0 for a real file in practice, and 0 is refused by
/// every read, so "no decided row" cannot match anything.
pub fn fingerprint(content: &[u8]) -> u64 {
    let digest = Sha256::digest(content);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// The fingerprint of a stored `content_hash` (64 hex digits, as [`content_hash`]
/// writes them; upper case accepted); `None` for anything else.
pub fn fingerprint_of_hash(content_hash: &str) -> Option<u64> {
    if content_hash.len() != 64 || !content_hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(&content_hash[..16], 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_content_hash_is_lowercase_hex_sha256() {
        assert_eq!(
            content_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_fingerprint_is_the_first_eight_bytes_of_the_stored_hash() {
        for content in [&b"abc"[..], b"", b"x\0y", &[0xff; 5000]] {
            assert_eq!(
                fingerprint_of_hash(&content_hash(content)),
                Some(fingerprint(content))
            );
        }
        assert_eq!(fingerprint(b"abc"), 0xba78_16bf_8f01_cfea);
    }

    #[test]
    fn a_malformed_hash_has_no_fingerprint() {
        for bad in ["", "ba7816bf8f01cfea", &"g".repeat(64), &"a".repeat(65)] {
            assert_eq!(fingerprint_of_hash(bad), None, "{bad:?}");
        }
    }
}
