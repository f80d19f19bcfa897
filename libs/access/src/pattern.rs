//! Path patterns of URI-policy rules (DESIGN.md section 4): `*` matches within one
//! segment, `**` any depth (including none), matched against paths relative to the source
//! root, segment by segment and case-sensitively.

use std::ops::Range;

use crate::AccessError;

/// The longest pattern or path accepted, in bytes.
pub const MAX_PATH_LEN: usize = 4096;

/// One segment of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// Matches exactly this text.
    Literal(String),
    /// `**`: zero or more whole segments.
    AnyDepth,
    /// A segment with `*` wildcards: the literal pieces between the stars, in order.
    Glob(Vec<String>),
}

impl Segment {
    fn parse(text: &str) -> Result<Self, &'static str> {
        match text {
            "" => Err("has an empty segment"),
            "." | ".." => Err("has a `.` or `..` segment"),
            "**" => Ok(Segment::AnyDepth),
            _ if text.contains("**") => Err("uses `**` inside a segment; it must stand alone"),
            _ if text.contains('*') => {
                Ok(Segment::Glob(text.split('*').map(String::from).collect()))
            }
            _ => Ok(Segment::Literal(text.to_owned())),
        }
    }

    /// Whether this single-segment matcher accepts `segment` (`**` is handled by the caller).
    fn matches(&self, segment: &str) -> bool {
        match self {
            Segment::Literal(text) => text == segment,
            Segment::AnyDepth => true,
            Segment::Glob(pieces) => glob_matches(pieces, segment),
        }
    }
}

/// `pieces` are the texts between the stars of one segment: the first must open the
/// segment, the last must close it, and the middle ones must appear in order between.
fn glob_matches(pieces: &[String], segment: &str) -> bool {
    let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
        return true;
    };
    if segment.len() < first.len() + last.len() || !segment.starts_with(first.as_str()) {
        return false;
    }
    if !segment.ends_with(last.as_str()) {
        return false;
    }
    let mut rest = &segment[first.len()..segment.len() - last.len()];
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece.as_str()) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// A parsed path pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    text: String,
    segments: Vec<Segment>,
    literal_segments: usize,
    /// How many segments open the pattern as literals: a compiled policy files the rule
    /// under that prefix and matches only the rest ([`PathPattern::matches_after_prefix`]).
    prefix_len: usize,
    /// What the rest after the prefix is, for the two shapes that need no matcher.
    rest: Rest,
}

/// The part of a pattern after its literal prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rest {
    /// Nothing: the path must end where the prefix does (`a/b`).
    End,
    /// `**` alone: any path at or below the prefix (`a/b/**`).
    AnyDepth,
    /// `**/name/**`: any path with a segment `name` (the literal at `at` of the pattern).
    Contains(usize),
    /// `**/name`: any path whose last segment is `name` (the literal at `at`).
    EndsWith(usize),
    /// Anything else: the segment matcher decides.
    Segments,
}

impl PathPattern {
    /// Parses `text`: a relative, `/`-separated pattern with no empty, `.` or `..` segment.
    /// The error names `field`.
    pub fn parse(text: &str, field: &str) -> Result<Self, AccessError> {
        PathPattern::new(text).map_err(|message| AccessError::invalid(field, message))
    }

    /// Parses `text`; the error says what is wrong, for the caller to name the field.
    pub fn new(text: &str) -> Result<Self, &'static str> {
        if text.is_empty() {
            return Err("is empty; use `**` for every path");
        }
        if text.len() > MAX_PATH_LEN {
            return Err("is too long");
        }
        if text.starts_with('/') {
            return Err("must be relative to the source root");
        }
        let segments = text
            .split('/')
            .map(Segment::parse)
            .collect::<Result<Vec<_>, _>>()?;
        let literal_segments = segments
            .iter()
            .filter(|segment| matches!(segment, Segment::Literal(_)))
            .count();
        let prefix_len = segments
            .iter()
            .take_while(|segment| matches!(segment, Segment::Literal(_)))
            .count();
        let rest = match &segments[prefix_len..] {
            [] => Rest::End,
            [Segment::AnyDepth] => Rest::AnyDepth,
            [Segment::AnyDepth, Segment::Literal(_), Segment::AnyDepth] => {
                Rest::Contains(prefix_len + 1)
            }
            [Segment::AnyDepth, Segment::Literal(_)] => Rest::EndsWith(prefix_len + 1),
            _ => Rest::Segments,
        };
        Ok(PathPattern {
            text: text.to_owned(),
            segments,
            literal_segments,
            prefix_len,
            rest,
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// How specific the pattern is: its number of literal segments (rules apply from
    /// least to most specific).
    pub fn specificity(&self) -> usize {
        self.literal_segments
    }

    /// The first segment when it is literal: a path must start with it to match, which
    /// lets a compiled policy skip the rule for every other path.
    pub fn first_literal(&self) -> Option<&str> {
        match self.segments.first() {
            Some(Segment::Literal(text)) => Some(text),
            _ => None,
        }
    }

    /// Whether the pattern matches a path given as its segments (see [`split_path`]).
    pub fn matches(&self, path: &[&str]) -> bool {
        match_segments(&self.segments, path)
    }

    /// How many segments open the pattern as literals (`a/b/*/c`: 2): a path matches
    /// only if it starts with them.
    pub fn prefix_len(&self) -> usize {
        self.prefix_len
    }

    /// Whether the pattern matches a path whose first [`PathPattern::prefix_len`]
    /// segments are known to equal the pattern's literal prefix, given the rest of the
    /// path (`tail`). The commonest shapes need no matcher: an exact path, `prefix/**`,
    /// and the `**/name/**` and `**/name` of rules that hold anywhere (tried on every
    /// path, so a scan for one name rather than the backtracking matcher).
    pub fn matches_after_prefix(&self, tail: &[&str]) -> bool {
        match self.rest {
            Rest::End => tail.is_empty(),
            Rest::AnyDepth => true,
            Rest::Contains(at) => tail.iter().any(|segment| self.is_literal(at, segment)),
            Rest::EndsWith(at) => tail.last().is_some_and(|last| self.is_literal(at, last)),
            Rest::Segments => match_segments(&self.segments[self.prefix_len..], tail),
        }
    }

    fn is_literal(&self, at: usize, segment: &str) -> bool {
        matches!(&self.segments[at], Segment::Literal(text) if text == segment)
    }
}

/// `**` is a star over whole segments, so the classic greedy matcher with one backtrack
/// point is exact here: every other segment matcher consumes one segment.
fn match_segments(pattern: &[Segment], path: &[&str]) -> bool {
    let (mut p, mut s) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while s < path.len() {
        if let Some(segment) = pattern.get(p) {
            if matches!(segment, Segment::AnyDepth) {
                backtrack = Some((p + 1, s));
                p += 1;
                continue;
            }
            if segment.matches(path[s]) {
                p += 1;
                s += 1;
                continue;
            }
        }
        match backtrack {
            Some((after_star, from)) => {
                backtrack = Some((after_star, from + 1));
                p = after_star;
                s = from + 1;
            }
            None => return false,
        }
    }
    pattern[p..]
        .iter()
        .all(|segment| matches!(segment, Segment::AnyDepth))
}

/// Splits a path relative to the source root into its segments; the source root itself
/// is the empty path. The error names `field` and never echoes the path.
pub fn split_path<'a>(path: &'a str, field: &str) -> Result<Vec<&'a str>, AccessError> {
    let mut segments = Vec::new();
    split_path_into(path, field, &mut segments)?;
    Ok(segments)
}

/// [`split_path`], appending the segments to `into` and returning where they lie in it:
/// a batch splits every path into one buffer, so a path costs no allocation of its own.
pub(crate) fn split_path_into<'a>(
    path: &'a str,
    field: &str,
    into: &mut Vec<&'a str>,
) -> Result<Range<usize>, AccessError> {
    let start = into.len();
    if path.is_empty() {
        return Ok(start..start);
    }
    if path.len() > MAX_PATH_LEN {
        return Err(AccessError::invalid(field, "is too long"));
    }
    if path.starts_with('/') {
        return Err(AccessError::invalid(
            field,
            "must be relative to the source root",
        ));
    }
    // `/` is ASCII, so every cut falls on a character boundary.
    let (mut from, mut malformed) = (0, false);
    let mut cut_at = |cut: usize| {
        let segment = &path[from..cut];
        malformed |= segment.is_empty() || segment == "." || segment == "..";
        into.push(segment);
        from = cut + 1;
    };
    for_each_slash(path.as_bytes(), &mut cut_at);
    cut_at(path.len());
    if malformed {
        into.truncate(start);
        return Err(AccessError::invalid(
            field,
            "has an empty, `.` or `..` segment",
        ));
    }
    Ok(start..into.len())
}

/// Calls `each` with the position of every `/` in `bytes`, in order, looking at eight
/// bytes at a time: splitting is most of the cost of checking a file, and a path is a
/// few dozen bytes.
fn for_each_slash(bytes: &[u8], mut each: impl FnMut(usize)) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const SLASHES: u64 = 0x2f2f_2f2f_2f2f_2f2f;
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or_default());
        let x = word ^ SLASHES;
        // The high bit of each byte that is zero in `x` (a `/` in `word`), exactly:
        // adding 0x7f to the low seven bits carries into the high bit unless all are 0.
        let mut found = !(((x & LOW7) + LOW7) | x | LOW7);
        while found != 0 {
            each(base + found.trailing_zeros() as usize / 8);
            found &= found - 1;
        }
        base += 8;
    }
    for (at, byte) in chunks.remainder().iter().enumerate() {
        if *byte == b'/' {
            each(base + at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, path: &str) -> bool {
        let pattern = PathPattern::parse(pattern, "pattern").unwrap();
        pattern.matches(&split_path(path, "path").unwrap())
    }

    #[test]
    fn star_matches_one_segment_and_double_star_any_depth() {
        let cases = [
            ("docs/*", "docs/a.md", true),
            ("docs/*", "docs/a/b.md", false),
            ("docs/*", "docs", false),
            ("docs/**", "docs", true),
            ("docs/**", "docs/a/b/c.md", true),
            ("docs/**", "doc/a.md", false),
            ("**", "", true),
            ("**", "a/b", true),
            ("*", "", false),
            ("**/SKILL.md", "SKILL.md", true),
            ("**/SKILL.md", "skills/a/SKILL.md", true),
            ("**/SKILL.md", "skills/a/README.md", false),
            ("rules/*.md", "rules/style.md", true),
            ("rules/*.md", "rules/style.mdc", false),
            ("a/**/b/**/c", "a/x/b/y/z/c", true),
            ("a/**/b/**/c", "a/b/c", true),
            ("a/**/b/**/c", "a/c", false),
            ("*.agent.md", "x.agent.md", true),
            ("s*e*t", "secret", true),
            ("s*e*t", "set", true),
            ("s*e*t", "st", false),
            ("Docs/*", "docs/a", false),
        ];
        for (pattern, path, expected) in cases {
            assert_eq!(
                matches(pattern, path),
                expected,
                "{pattern} against {path:?}"
            );
        }
    }

    #[test]
    fn specificity_counts_literal_segments() {
        let cases = [
            ("**", 0),
            ("docs/**", 1),
            ("docs/*.md", 1),
            ("a/b/c", 3),
            ("a/**/c", 2),
        ];
        for (pattern, expected) in cases {
            let parsed = PathPattern::parse(pattern, "pattern").unwrap();
            assert_eq!(parsed.specificity(), expected, "{pattern}");
        }
    }

    #[test]
    fn malformed_patterns_are_rejected_naming_the_field() {
        for pattern in ["", "/abs", "a//b", "a/../b", "./a", "a/***", "a**/b", "a/"] {
            let error = PathPattern::parse(pattern, "paths[0].pattern").unwrap_err();
            let AccessError::InvalidArgument { field, .. } = error;
            assert_eq!(field, "paths[0].pattern", "{pattern:?}");
        }
    }

    #[test]
    fn malformed_paths_are_rejected_without_echoing_them() {
        for path in ["/secret", "a//secret", "secret/..", "secret/./x"] {
            let error = split_path(path, "files[0].path").unwrap_err();
            assert!(!error.to_string().contains("secret"), "{error}");
        }
    }
}
