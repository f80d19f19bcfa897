//! Strict YAML through serde-saphyr, with a budget sized for frontmatter so alias
//! bombs, deep nesting and oversized documents are refused early instead of expanded.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::block::is_blank;
use super::fields::WHITELIST;
use crate::diagnostic::Diagnostic;

/// The whitelisted keys as strict YAML saw them, in the order of [`WHITELIST`]; every
/// other key is skipped unread.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Raw {
    id: Option<Value>,
    name: Option<Value>,
    title: Option<Value>,
    description: Option<Value>,
    #[serde(rename = "requiredFeatures")]
    required_features: Option<Value>,
    credentials: Option<Value>,
    metadata: Option<Value>,
    #[serde(rename = "allowed-tools")]
    allowed_tools: Option<Value>,
    context: Option<Value>,
    activation: Option<Value>,
    overwrite: Option<Value>,
    role: Option<Value>,
}

/// Why strict YAML refused the block.
pub(super) struct Failure {
    line: Option<u32>,
    message: String,
}

impl Failure {
    /// The recovery diagnostic: what strict YAML refused and how much was recovered.
    pub(super) fn into_diagnostic(self, first_line: u32, recovered: usize) -> Diagnostic {
        Diagnostic::warning(
            self.line.map(|line| first_line + line),
            format!(
                "frontmatter is not strict YAML ({}); recovered {recovered} key(s) line by line",
                self.message
            ),
        )
    }
}

/// The budget of every strict parse. Plain events are linear work and keep the room a
/// 64 KiB block needs (an anchored list of 3,500 items is real YAML); what multiplies
/// work is alias replay, held to a thousand events: at the former 10,000, one
/// 600-byte billion-laughs block cost 84 ms (debug build) before the budget refused it,
/// and 2,500 of them in one `ValidatePackage` held a server for tens of seconds.
fn options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = 32;
    budget.max_events = 20_000;
    budget.max_aliases = 32;
    budget.max_anchors = 64;
    budget.max_nodes = 10_000;
    budget.max_documents = 1;
    budget.max_total_scalar_bytes = 2 * super::MAX_FRONTMATTER_BYTES;
    budget.flow_nesting_limit = 32;
    budget.max_merge_keys = 32;
    budget.max_recorded_anchor_events = 10_000;
    budget.max_recorded_anchor_bytes = 2 * super::MAX_FRONTMATTER_BYTES;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = 1_000;
    options.alias_limits.max_replay_stack_depth = 16;
    options.alias_limits.max_alias_expansions_per_anchor = 32;
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    options.with_snippet = false;
    options
}

/// Parses the block as strict YAML and returns the whitelisted keys present.
pub(super) fn parse(text: &str) -> Result<BTreeMap<String, Value>, Failure> {
    if is_blank(text) {
        return Ok(BTreeMap::new());
    }
    let raw: Raw =
        serde_saphyr::from_str_with_options(text, options()).map_err(|error| Failure {
            line: error
                .location()
                .and_then(|location| u32::try_from(location.line()).ok()),
            message: first_line_of(&error.to_string()),
        })?;
    let fields = [
        raw.id,
        raw.name,
        raw.title,
        raw.description,
        raw.required_features,
        raw.credentials,
        raw.metadata,
        raw.allowed_tools,
        raw.context,
        raw.activation,
        raw.overwrite,
        raw.role,
    ];
    Ok(WHITELIST
        .into_iter()
        .zip(fields)
        .filter_map(|(key, value)| Some((key.to_owned(), value?)))
        .collect())
}

/// The parser's first line, without its own block-relative position (the diagnostic
/// carries the file line instead).
fn first_line_of(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default().trim();
    let line = match line.rfind(" at line ") {
        Some(at) => &line[..at],
        None => line,
    };
    line.to_owned()
}
