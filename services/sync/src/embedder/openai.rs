//! An OpenAI-compatible `/embeddings` endpoint over HTTP.

use super::Embedder;
use crate::SyncError;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How long one embeddings request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Posts `{"model", "input": [...]}` to `<url>/embeddings` with a bearer key.
#[derive(Clone)]
pub struct OpenAiCompatibleEmbedder {
    client: reqwest::Client,
    endpoint: String,
    model: String,
    api_key: Option<String>,
}

impl std::fmt::Debug for OpenAiCompatibleEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is a secret: never printed.
        f.debug_struct("OpenAiCompatibleEmbedder")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct EmbeddingsRequest<'a> {
    model: &'a str,
    input: &'a [String],
}

#[derive(Deserialize)]
struct EmbeddingsResponse {
    data: Vec<Embedding>,
}

#[derive(Deserialize)]
struct Embedding {
    index: usize,
    embedding: Vec<f32>,
}

impl OpenAiCompatibleEmbedder {
    /// An embedder for the API at `base_url` (e.g. `https://api.example.com/v1`).
    pub fn new(base_url: &str, model: &str, api_key: Option<String>) -> Result<Self, SyncError> {
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(SyncError::invalid("embedder.url", "must be an http(s) URL"));
        }
        if model.is_empty() {
            return Err(SyncError::invalid("embedder.model", "is required"));
        }
        let client = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|err| SyncError::Internal(format!("http client: {err}")))?;
        Ok(Self {
            client,
            endpoint: format!("{}/embeddings", base_url.trim_end_matches('/')),
            model: model.to_owned(),
            api_key,
        })
    }
}

#[async_trait::async_trait]
impl Embedder for OpenAiCompatibleEmbedder {
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, SyncError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut request = self.client.post(&self.endpoint).json(&EmbeddingsRequest {
            model: &self.model,
            input: texts,
        });
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .await
            .map_err(|err| SyncError::Unavailable(format!("embedder: {}", err.without_url())))?;
        let status = response.status();
        if !status.is_success() {
            return Err(SyncError::Unavailable(format!(
                "embedder answered {status}"
            )));
        }
        let body: EmbeddingsResponse = response
            .json()
            .await
            .map_err(|err| SyncError::Unavailable(format!("embedder answer unreadable: {err}")))?;
        in_input_order(body.data, texts.len())
    }
}

/// The vectors ordered by their `index`; exactly one per input.
fn in_input_order(mut data: Vec<Embedding>, expected: usize) -> Result<Vec<Vec<f32>>, SyncError> {
    data.sort_by_key(|embedding| embedding.index);
    let in_order = data
        .iter()
        .enumerate()
        .all(|(at, embedding)| embedding.index == at);
    if data.len() != expected || !in_order {
        return Err(SyncError::Unavailable(format!(
            "embedder answered {} vectors for {expected} texts",
            data.len()
        )));
    }
    Ok(data
        .into_iter()
        .map(|embedding| embedding.embedding)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn embedding(index: usize, value: f32) -> Embedding {
        Embedding {
            index,
            embedding: vec![value],
        }
    }

    #[test]
    fn vectors_come_back_in_input_order() {
        let data = vec![embedding(1, 1.0), embedding(0, 0.0)];
        assert_eq!(
            in_input_order(data, 2).expect("ordered"),
            [vec![0.0], vec![1.0]]
        );
    }

    #[test]
    fn a_short_or_gapped_answer_is_refused() {
        assert!(in_input_order(vec![embedding(0, 0.0)], 2).is_err());
        assert!(in_input_order(vec![embedding(0, 0.0), embedding(2, 0.0)], 2).is_err());
    }

    #[test]
    fn a_bad_url_or_model_names_the_field() {
        let bad_url = OpenAiCompatibleEmbedder::new("ftp://x", "m", None).expect_err("refused");
        assert!(bad_url.to_string().starts_with("embedder.url"), "{bad_url}");
        let no_model = OpenAiCompatibleEmbedder::new("http://x/v1", "", None).expect_err("refused");
        assert!(
            no_model.to_string().starts_with("embedder.model"),
            "{no_model}"
        );
    }

    #[test]
    fn the_key_is_never_printed() {
        let embedder = OpenAiCompatibleEmbedder::new("http://x/v1", "m", Some("sk-secret".into()))
            .expect("built");
        assert!(!format!("{embedder:?}").contains("sk-secret"));
    }
}
