//! Embedders turn chunk text into vectors for search. None is configured by default:
//! search is then full text over the chunk rows.

mod openai;

pub use openai::OpenAiCompatibleEmbedder;

use crate::SyncError;

/// Turns texts into vectors, one per text, in order.
#[async_trait::async_trait]
pub trait Embedder: Send + Sync + 'static {
    /// Embeds `texts`; the answer has exactly one vector per text.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, SyncError>;
}
