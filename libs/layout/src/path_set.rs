//! A set of folder paths hashed with a short keyed hash instead of SipHash.
//!
//! Why: grouping asks "is this folder a skill folder?" for most rows that may
//! contribute and for every folder that signals a root; with std's SipHash-1-3 the
//! hashing alone was about 8 % of a grouping's instructions (callgrind, `group`
//! bench). Paths are short, so a word-at-a-time multiply-rotate hash, finished with a
//! full avalanche, is several times cheaper.
//!
//! The seed is drawn per set from std's `RandomState`, so which paths share a bucket
//! is not predictable from the paths alone (a repository cannot be laid out to make
//! the set slow without knowing the seed); the hash is not cryptographic and is never
//! stored or compared across sets.

use std::collections::HashSet;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// A set of paths hashed by [`PathHashing`].
pub(crate) type PathSet<'a> = HashSet<&'a str, PathHashing>;

/// Builds [`PathHasher`]s sharing one random seed.
#[derive(Clone)]
pub(crate) struct PathHashing {
    seed: u64,
}

impl Default for PathHashing {
    fn default() -> Self {
        Self {
            seed: RandomState::new().hash_one(0x5eed_u64),
        }
    }
}

impl BuildHasher for PathHashing {
    type Hasher = PathHasher;

    fn build_hasher(&self) -> PathHasher {
        PathHasher { state: self.seed }
    }
}

/// Eight bytes a step: xor, multiply by an odd constant (a bijection), rotate.
pub(crate) struct PathHasher {
    state: u64,
}

const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

impl PathHasher {
    fn mix(&mut self, word: u64) {
        self.state = (self.state ^ word).wrapping_mul(MULTIPLIER).rotate_left(29);
    }
}

impl Hasher for PathHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let word: [u8; 8] = word.try_into().unwrap_or_default();
            self.mix(u64::from_le_bytes(word));
        }
        let rest = words.remainder();
        // The tail's length goes into its top byte, so "a" and "a\0" differ.
        let tail = rest
            .iter()
            .enumerate()
            .fold((rest.len() as u64) << 56, |tail, (at, byte)| {
                tail | u64::from(*byte) << (8 * at)
            });
        self.mix(tail);
    }

    fn write_u8(&mut self, byte: u8) {
        self.mix(u64::from(byte));
    }

    /// A full avalanche (MurmurHash3's finalizer), so every input bit reaches the low
    /// bits the table picks buckets by.
    fn finish(&self) -> u64 {
        let mut h = self.state;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The set holds exactly what std's set holds, whatever the paths (lengths around
    /// the eight-byte steps, NUL bytes, prefixes of each other).
    #[test]
    fn a_path_set_holds_what_a_std_set_holds() {
        let byte = prop::sample::select(vec![0u8, b'/', b'a', b'b']);
        let path = prop::collection::vec(byte, 0..20)
            .prop_map(|bytes| bytes.into_iter().map(char::from).collect::<String>());
        proptest!(|(held in prop::collection::vec(path.clone(), 0..40), asked in prop::collection::vec(path, 0..40))| {
            let set: PathSet<'_> = held.iter().map(String::as_str).collect();
            let expected: HashSet<&str> = held.iter().map(String::as_str).collect();
            prop_assert_eq!(set.len(), expected.len());
            for path in held.iter().chain(&asked) {
                prop_assert_eq!(set.contains(path.as_str()), expected.contains(path.as_str()));
            }
        });
    }

    /// Strings differing only past a zero-padded tail, or by a trailing NUL, hash apart
    /// (not required for correctness, but a hash that merged them would bucket badly).
    #[test]
    fn a_trailing_nul_changes_the_hash() {
        let hashing = PathHashing::default();
        for (a, b) in [("a", "a\0"), ("abcdefgh", "abcdefgh\0"), ("", "\0")] {
            assert_ne!(hashing.hash_one(a), hashing.hash_one(b), "{a:?} {b:?}");
        }
    }
}
