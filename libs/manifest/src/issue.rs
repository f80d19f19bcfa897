//! Findings of a validation: errors (the package is rejected) and warnings (the package
//! loads, something was ignored or dropped). Each names the JSON pointer of the value
//! it is about, so an author can find it the way a compiler error names a line.

use serde::Serialize;
use std::fmt;

/// An RFC 6901 JSON pointer into the manifest document (`/neuralis/credentials/0/id`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointer(String);

impl Pointer {
    /// The pointer to the whole document (the empty string).
    pub fn root() -> Self {
        Pointer(String::new())
    }

    /// The pointer to the member `key` of the object this pointer names; `~` and `/`
    /// are escaped as RFC 6901 requires.
    pub fn key(&self, key: &str) -> Self {
        let escaped = key.replace('~', "~0").replace('/', "~1");
        Pointer(format!("{}/{}", self.0, escaped))
    }

    /// The pointer to element `index` of the array this pointer names.
    pub fn index(&self, index: usize) -> Self {
        Pointer(format!("{}/{}", self.0, index))
    }

    /// The pointer as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One finding: where, and what is allowed there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// JSON pointer into the manifest document (empty for the whole document).
    pub pointer: String,
    /// Lowercase message that says what is allowed.
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}: {}", self.pointer, self.message)
    }
}

/// The collector every section check writes into; nothing stops at the first error.
#[derive(Debug, Default)]
pub(crate) struct Issues {
    pub(crate) errors: Vec<Issue>,
    pub(crate) warnings: Vec<Issue>,
}

impl Issues {
    pub(crate) fn error(&mut self, at: &Pointer, message: impl Into<String>) {
        self.errors.push(Issue {
            pointer: at.as_str().to_owned(),
            message: message.into(),
        });
    }

    pub(crate) fn warn(&mut self, at: &Pointer, message: impl Into<String>) {
        self.warnings.push(Issue {
            pointer: at.as_str().to_owned(),
            message: message.into(),
        });
    }
}
