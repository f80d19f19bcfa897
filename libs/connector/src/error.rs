//! Connector errors. A path that is missing, escapes the root, or is not a file is
//! `NotFound`, the same for all three, so a caller cannot probe outside the root.
//! Messages name the path: a service maps the variant to its status and never forwards
//! the message to a caller who may not see that name.

/// What went wrong with one connector call.
#[derive(Debug, thiserror::Error)]
pub enum ConnectorError {
    #[error("source root {path} cannot be used: {source}")]
    Root {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("file not found: {path}")]
    NotFound { path: String },
    /// A decided read found a plain file whose bytes are not the ones decided on (it
    /// was rewritten since its row). Callers answer it as `NotFound`; it is apart only
    /// so a service can count it and re-sync.
    #[error("file changed since it was indexed: {path}")]
    Changed { path: String },
    #[error("file {path} is {size} bytes, over the {limit}-byte limit")]
    TooLarge { path: String, size: u64, limit: u64 },
    #[error("reading {path} failed: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}
