//! The bus error.

/// Why a publish or a subscribe failed.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// The bus backend could not be reached or refused the operation.
    #[error("invalidation bus unavailable: {0}")]
    Unavailable(String),
    /// The bus configuration is wrong (for example a malformed Redis URL).
    #[error("invalid bus configuration ({field}): {message}")]
    InvalidConfig {
        /// The configuration field at fault.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
}
