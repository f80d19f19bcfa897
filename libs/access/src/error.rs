//! The one error of the pure core: bad input, naming the field.

/// Bad input to the access model. The message names the field (for example
/// `files[3].path`) and never echoes the value, so a rejected path cannot leak through
/// an error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// A field of a policy, a grant or an evaluation request is malformed.
    #[error("invalid {field}: {message}")]
    InvalidArgument {
        /// The path of the offending field, e.g. `paths[2].pattern`.
        field: String,
        /// What is wrong with it, without its value.
        message: String,
    },
}

impl AccessError {
    /// An [`AccessError::InvalidArgument`] for `field`.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        AccessError::InvalidArgument {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The same error with `prefix.` put before the field name, for nested records.
    pub fn within(self, prefix: &str) -> Self {
        match self {
            AccessError::InvalidArgument { field, message } => AccessError::InvalidArgument {
                field: format!("{prefix}.{field}"),
                message,
            },
        }
    }
}
