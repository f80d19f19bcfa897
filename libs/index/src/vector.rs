//! Embedding vectors: their stored form and their similarity.

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

/// Cosine similarity; 0 for vectors of different lengths or of zero norm.
pub fn cosine(left: &[f32], right: &[f32]) -> f32 {
    if left.len() != right.len() {
        return 0.0;
    }
    let dot: f32 = left.iter().zip(right).map(|(a, b)| a * b).sum();
    let norms = norm(left) * norm(right);
    if norms == 0.0 { 0.0 } else { dot / norms }
}

fn norm(vector: &[f32]) -> f32 {
    vector.iter().map(|value| value * value).sum::<f32>().sqrt()
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
}
