//! Diagnostics: what was wrong with one file, and where, recorded instead of failing.

use serde::{Deserialize, Serialize};

/// How serious a diagnostic is: a `warning` changed nothing about admission (an ignored
/// key, a recovered frontmatter), an `error` kept the file out (a malformed frontmatter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// One finding about one file. `line` is 1-based in the file, when known.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
}

/// Longest message kept: parser messages can quote hostile input at length.
const MAX_MESSAGE_CHARS: usize = 240;

/// The most diagnostics kept per file; the rest are counted in one closing entry.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 16;

impl Diagnostic {
    /// A warning, with its message cut to a bounded length.
    pub fn warning(line: Option<u32>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, line, message.into())
    }

    /// An error, with its message cut to a bounded length.
    pub fn error(line: Option<u32>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, line, message.into())
    }

    fn new(severity: Severity, line: Option<u32>, message: String) -> Self {
        let message = if message.chars().count() > MAX_MESSAGE_CHARS {
            let cut: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
            format!("{cut}…")
        } else {
            message
        };
        Self {
            severity,
            line,
            message,
        }
    }
}

/// Keeps at most [`MAX_DIAGNOSTICS_PER_FILE`] entries, replacing the overflow with a
/// count, so hostile input cannot grow a payload without bound.
pub fn cap_diagnostics(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    if diagnostics.len() > MAX_DIAGNOSTICS_PER_FILE {
        let dropped = diagnostics.len() - (MAX_DIAGNOSTICS_PER_FILE - 1);
        diagnostics.truncate(MAX_DIAGNOSTICS_PER_FILE - 1);
        diagnostics.push(Diagnostic::warning(
            None,
            format!("{dropped} more diagnostics not shown"),
        ));
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_so_hostile_input_is_not_echoed_at_length() {
        let d = Diagnostic::warning(Some(1), "x".repeat(10_000));
        assert!(d.message.chars().count() <= MAX_MESSAGE_CHARS + 1);
    }

    #[test]
    fn diagnostics_per_file_are_capped_with_a_count() {
        let many = (0..100)
            .map(|i| Diagnostic::warning(Some(i), "m"))
            .collect();
        let capped = cap_diagnostics(many);
        assert_eq!(capped.len(), MAX_DIAGNOSTICS_PER_FILE);
        assert!(
            capped[MAX_DIAGNOSTICS_PER_FILE - 1]
                .message
                .starts_with("85 more")
        );
    }

    #[test]
    fn the_cap_counts_only_what_it_drops() {
        let warnings = |n: u32| -> Vec<Diagnostic> {
            (0..n).map(|i| Diagnostic::warning(Some(i), "m")).collect()
        };
        let cap = MAX_DIAGNOSTICS_PER_FILE as u32;
        // exactly the cap: every diagnostic is kept, none is replaced by a count
        assert_eq!(cap_diagnostics(warnings(cap)), warnings(cap));
        let over = cap_diagnostics(warnings(cap + 1));
        assert_eq!(over.len(), MAX_DIAGNOSTICS_PER_FILE);
        assert_eq!(over[..MAX_DIAGNOSTICS_PER_FILE - 1], warnings(cap - 1)[..]);
        assert_eq!(
            over[MAX_DIAGNOSTICS_PER_FILE - 1].message,
            "2 more diagnostics not shown"
        );
    }
}
