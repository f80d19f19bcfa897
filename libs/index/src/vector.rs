//! Embedding vectors: their stored form, their similarity and the nearest few of many.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The stored form: little-endian `f32`s.
pub fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector
        .iter()
        .flat_map(|value| value.to_le_bytes())
        .collect()
}

/// Reads the stored form back; `None` when the length is not a multiple of 4.
pub fn from_bytes(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let values = bytes
        .chunks_exact(4)
        .map(|quad| f32::from_le_bytes([quad[0], quad[1], quad[2], quad[3]]))
        .collect();
    Some(values)
}

/// Cosine similarity; 0 for vectors of different lengths, of zero norm, or whose
/// similarity is not a finite number (a NaN would rank above every real score).
pub fn cosine(left: &[f32], right: &[f32]) -> f32 {
    if left.len() != right.len() {
        return 0.0;
    }
    let dot: f32 = left.iter().zip(right).map(|(a, b)| a * b).sum();
    similarity(dot, norm(left.iter().copied()), norm(right.iter().copied()))
}

/// [`cosine`] of `query` and a vector in its stored form, read in place (a search
/// scans every stored vector of a project and keeps none of them); `None` when the
/// stored length is not a multiple of 4.
pub fn cosine_stored(query: &[f32], stored: &[u8]) -> Option<f32> {
    if !stored.len().is_multiple_of(4) {
        return None;
    }
    let values = || {
        stored
            .chunks_exact(4)
            .map(|quad| f32::from_le_bytes([quad[0], quad[1], quad[2], quad[3]]))
    };
    if stored.len() / 4 != query.len() {
        return Some(0.0);
    }
    let dot: f32 = query.iter().zip(values()).map(|(a, b)| a * b).sum();
    Some(similarity(dot, norm(query.iter().copied()), norm(values())))
}

fn similarity(dot: f32, left_norm: f32, right_norm: f32) -> f32 {
    let norms = left_norm * right_norm;
    let score = if norms == 0.0 { 0.0 } else { dot / norms };
    if score.is_finite() { score } else { 0.0 }
}

fn norm(vector: impl Iterator<Item = f32>) -> f32 {
    vector.map(|value| value * value).sum::<f32>().sqrt()
}

/// The `limit` best of everything offered, in memory of `limit` entries whatever the
/// number offered: a higher score first, an equal score to the smaller key (so the
/// answer never depends on the order rows arrive in).
#[derive(Debug)]
pub struct Nearest<K, T> {
    limit: usize,
    /// The worst kept entry on top, the one a better offer replaces.
    kept: BinaryHeap<Entry<K, T>>,
}

#[derive(Debug)]
struct Entry<K, T> {
    score: f32,
    key: K,
    item: T,
}

impl<K: Ord, T> Ord for Entry<K, T> {
    /// Greater is worse: a lower score, then a greater key.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.key.cmp(&other.key))
    }
}

impl<K: Ord, T> PartialOrd for Entry<K, T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<K: Ord, T> PartialEq for Entry<K, T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<K: Ord, T> Eq for Entry<K, T> {}

impl<K: Ord, T> Nearest<K, T> {
    /// Keeps at most `limit` entries.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            kept: BinaryHeap::with_capacity(limit.min(1_024)),
        }
    }

    /// Whether an entry of `score` could be kept: a caller builds its key and item
    /// (a copy of a chunk's text) only then.
    pub fn may_keep(&self, score: f32) -> bool {
        match self.kept.peek() {
            _ if self.limit == 0 => false,
            Some(worst) if self.kept.len() >= self.limit => score >= worst.score,
            _ => true,
        }
    }

    /// Offers an entry; it is kept when it is among the `limit` best so far.
    pub fn offer(&mut self, score: f32, key: K, item: T) {
        if self.limit == 0 {
            return;
        }
        let entry = Entry { score, key, item };
        if self.kept.len() < self.limit {
            self.kept.push(entry);
        } else if let Some(mut worst) = self.kept.peek_mut()
            && entry < *worst
        {
            *worst = entry;
        }
    }

    /// The kept entries, best first.
    pub fn into_best(self) -> Vec<(f32, K, T)> {
        self.kept
            .into_sorted_vec()
            .into_iter()
            .map(|entry| (entry.score, entry.key, entry.item))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_survive_their_stored_form() {
        let vector = vec![0.0, -1.5, f32::MAX, 1e-7];
        assert_eq!(from_bytes(&to_bytes(&vector)), Some(vector));
    }

    #[test]
    fn a_truncated_vector_is_refused() {
        assert_eq!(from_bytes(&[0, 0, 128]), None);
    }

    #[test]
    fn cosine_ranks_the_same_direction_first() {
        let query = [1.0, 0.0];
        assert!(cosine(&query, &[2.0, 0.0]) > cosine(&query, &[1.0, 1.0]));
        assert_eq!(cosine(&query, &[0.0, 0.0]), 0.0);
        assert_eq!(cosine(&query, &[1.0]), 0.0);
    }

    #[test]
    fn a_similarity_that_is_not_a_number_scores_zero() {
        assert_eq!(cosine(&[f32::NAN, 1.0], &[1.0, 1.0]), 0.0);
        assert_eq!(cosine(&[f32::MAX, f32::MAX], &[f32::MAX, 1.0]), 0.0);
        assert_eq!(
            cosine_stored(&[1.0, 0.0], &to_bytes(&[f32::INFINITY, 0.0])),
            Some(0.0)
        );
    }

    #[test]
    fn a_truncated_stored_vector_has_no_similarity() {
        assert_eq!(cosine_stored(&[1.0], &[0, 0, 128]), None);
        assert_eq!(cosine_stored(&[1.0], &to_bytes(&[1.0, 0.0])), Some(0.0));
    }

    #[test]
    fn the_same_direction_scores_one_and_the_opposite_minus_one() {
        assert_eq!(cosine(&[3.0, 4.0], &[3.0, 4.0]), 1.0);
        assert_eq!(cosine(&[3.0, 4.0], &[6.0, 8.0]), 1.0);
        assert_eq!(cosine(&[3.0, 4.0], &[-3.0, -4.0]), -1.0);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 2.0]), 0.0);
        assert_eq!(
            cosine_stored(&[3.0, 4.0], &to_bytes(&[6.0, 8.0])),
            Some(1.0)
        );
    }

    #[test]
    fn a_full_nearest_refuses_at_once_what_scores_below_its_worst() {
        let mut nearest = Nearest::new(2);
        nearest.offer(0.5, "a", ());
        assert!(nearest.may_keep(0.1), "room left");
        nearest.offer(0.9, "b", ());
        assert!(!nearest.may_keep(0.4), "below the worst kept");
        assert!(nearest.may_keep(0.5), "equal to the worst: its key decides");
    }

    #[test]
    fn entries_are_equal_exactly_when_they_rank_alike() {
        let entry = |score, key| Entry {
            score,
            key,
            item: (),
        };
        assert!(entry(0.5, 1) == entry(0.5, 1));
        assert!(entry(0.5, 1) != entry(0.5, 2));
        assert!(entry(0.5, 1) != entry(0.4, 1));
    }

    #[test]
    fn nothing_is_kept_under_a_limit_of_zero() {
        let mut nearest = Nearest::new(0);
        assert!(!nearest.may_keep(1.0));
        nearest.offer(1.0, 0, ());
        assert!(nearest.into_best().is_empty());
    }

    proptest::proptest! {
        #[test]
        fn the_stored_form_scores_as_the_vector_itself(
            query in proptest::collection::vec(-1e3f32..1e3, 0..6),
            stored in proptest::collection::vec(-1e3f32..1e3, 0..6),
        ) {
            let read = cosine_stored(&query, &to_bytes(&stored));
            proptest::prop_assert_eq!(read, Some(cosine(&query, &stored)));
        }

        #[test]
        fn the_nearest_are_the_first_of_everything_sorted_by_score_then_key(
            offers in proptest::collection::vec((0u8..6, 0u16..40), 0..80),
            limit in 0usize..12,
        ) {
            let ranked = |nearest: Nearest<u16, usize>| -> Vec<(f32, u16)> {
                nearest.into_best().into_iter().map(|(score, key, _)| (score, key)).collect()
            };
            // Offered everything, and offered only what `may_keep` lets through.
            let (mut all, mut gated) = (Nearest::new(limit), Nearest::new(limit));
            for (at, &(score, key)) in offers.iter().enumerate() {
                let score = f32::from(score) / 2.0;
                all.offer(score, key, at);
                if gated.may_keep(score) {
                    gated.offer(score, key, at);
                }
            }
            let mut everything: Vec<(f32, u16)> = offers
                .iter()
                .map(|&(score, key)| (f32::from(score) / 2.0, key))
                .collect();
            everything.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            everything.truncate(limit);
            proptest::prop_assert_eq!(ranked(all), everything.clone());
            proptest::prop_assert_eq!(ranked(gated), everything);
        }
    }
}
