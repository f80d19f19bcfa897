//! Bounds on request fields (issue 25, "bounded work per call"): every field a caller
//! sends that reaches storage, a loop or an error message is checked here, before any
//! work, by every service. A refusal names the field and says what the bound is; it
//! never quotes the value (a refused value is the one that may be huge or hostile).
//!
//! Pure: no tonic, no I/O. Each service maps [`FieldError`] to its own
//! INVALID_ARGUMENT.

/// A project id keys rows and bus events.
pub const MAX_PROJECT_BYTES: usize = 128;
/// Ids, slugs, owners, agent ids, features, roles, package and skill ids: short names.
pub const MAX_ID_BYTES: usize = 256;
/// Roots, paths, path rules and patterns: Linux's `PATH_MAX`.
pub const MAX_PATH_BYTES: usize = 4096;
/// Short free text that is parsed (a trigger, a machine URI).
pub const MAX_SHORT_TEXT_BYTES: usize = 1024;
/// A page token this service issued is a position and a key, hex-encoded.
pub const MAX_PAGE_TOKEN_BYTES: usize = 2 * (20 + MAX_PATH_BYTES);
/// Entries of a repeated string field (patterns, rules, features, roles).
pub const MAX_REPEATED: usize = 256;
/// How much of a caller's value an error message may quote.
pub const MAX_QUOTED_BYTES: usize = 64;
/// The longest error message a status carries.
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// A request field out of bounds: the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The request field at fault (`source.root`, `scope.agent_id`, `rules[3].pattern`).
    pub field: String,
    /// What is wrong with it, without the value.
    pub message: String,
}

impl FieldError {
    fn new(field: &str, message: impl Into<String>) -> Self {
        FieldError {
            field: field.to_owned(),
            message: message.into(),
        }
    }
}

/// At most `max` bytes.
pub fn at_most(field: &str, value: &str, max: usize) -> Result<(), FieldError> {
    if value.len() > max {
        return Err(FieldError::new(
            field,
            format!("must be at most {max} bytes ({} given)", value.len()),
        ));
    }
    Ok(())
}

/// No control character: a NUL ends a C path early (`/etc\0` passes a prefix check and
/// names `/etc` to the kernel), a newline forges log lines and line-based formats.
pub fn printable(field: &str, value: &str) -> Result<(), FieldError> {
    match value.char_indices().find(|(_, c)| c.is_control()) {
        Some((at, c)) => Err(FieldError::new(
            field,
            format!(
                "must not contain control characters (U+{:04X} at byte {at})",
                u32::from(c)
            ),
        )),
        None => Ok(()),
    }
}

/// A project id: required, at most [`MAX_PROJECT_BYTES`] printable characters, no `/`
/// (a source id's project is its first segment).
pub fn project(field: &str, value: &str) -> Result<(), FieldError> {
    if value.is_empty() {
        return Err(FieldError::new(field, "is required"));
    }
    if value.len() > MAX_PROJECT_BYTES || value.contains('/') || value.chars().any(char::is_control)
    {
        return Err(FieldError::new(
            field,
            format!("must be at most {MAX_PROJECT_BYTES} printable characters without '/'"),
        ));
    }
    Ok(())
}

/// An id-like field: at most [`MAX_ID_BYTES`], printable. Empty passes (required-ness is
/// the caller's rule).
pub fn id(field: &str, value: &str) -> Result<(), FieldError> {
    at_most(field, value, MAX_ID_BYTES)?;
    printable(field, value)
}

/// A path-like field (root, path, path rule, pattern): at most [`MAX_PATH_BYTES`],
/// printable.
pub fn path(field: &str, value: &str) -> Result<(), FieldError> {
    at_most(field, value, MAX_PATH_BYTES)?;
    printable(field, value)
}

/// Short parsed text (a trigger, a machine URI): at most [`MAX_SHORT_TEXT_BYTES`],
/// printable.
pub fn short_text(field: &str, value: &str) -> Result<(), FieldError> {
    at_most(field, value, MAX_SHORT_TEXT_BYTES)?;
    printable(field, value)
}

/// A page token: at most [`MAX_PAGE_TOKEN_BYTES`] (its content is the pager's rule).
pub fn page_token(field: &str, value: &str) -> Result<(), FieldError> {
    at_most(field, value, MAX_PAGE_TOKEN_BYTES)
}

/// At most `max` entries in a repeated field.
pub fn count(field: &str, len: usize, max: usize) -> Result<(), FieldError> {
    if len > max {
        return Err(FieldError::new(
            field,
            format!("must have at most {max} entries ({len} given)"),
        ));
    }
    Ok(())
}

/// A repeated string field: at most [`MAX_REPEATED`] entries, each checked by `each`
/// under the name `field[i]`.
pub fn each(
    field: &str,
    values: &[String],
    check: fn(&str, &str) -> Result<(), FieldError>,
) -> Result<(), FieldError> {
    count(field, values.len(), MAX_REPEATED)?;
    for (at, value) in values.iter().enumerate() {
        check(&format!("{field}[{at}]"), value)?;
    }
    Ok(())
}

/// A proto enum value this build knows. prost's getters read an unknown number as the
/// default (`UNSPECIFIED`), which a service may take for its widest meaning; the raw
/// number is checked here instead.
pub fn known<E: TryFrom<i32>>(field: &str, value: i32) -> Result<E, FieldError> {
    E::try_from(value).map_err(|_| FieldError::new(field, format!("unknown value {value}")))
}

/// A caller's value for an error message: quoted, and when longer than
/// [`MAX_QUOTED_BYTES`] cut at a character boundary with its length named, e.g.
/// `"/aaaa…" (10000 bytes)`. Control characters are escaped by the quoting.
pub fn quote(value: &str) -> String {
    let mut shown = String::new();
    for c in value.chars() {
        let escaped: String = c.escape_debug().collect();
        if shown.len() + escaped.len() > MAX_QUOTED_BYTES {
            return format!("\"{shown}…\" ({} bytes)", value.len());
        }
        shown.push_str(&escaped);
    }
    format!("\"{shown}\"")
}

/// `message` cut to at most [`MAX_MESSAGE_BYTES`] at a character boundary, its length
/// named when cut: the last guard, so no status outgrows a client's metadata limit.
pub fn bounded_message(message: String) -> String {
    if message.len() <= MAX_MESSAGE_BYTES {
        return message;
    }
    let suffix = format!("… ({} bytes)", message.len());
    let keep = floor_char_boundary(&message, MAX_MESSAGE_BYTES - suffix.len());
    format!("{}{suffix}", &message[..keep])
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
