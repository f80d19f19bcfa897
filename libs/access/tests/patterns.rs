//! The path-pattern language every allow, deny and floor rule goes through (DESIGN.md
//! section 4): `*` matches within one segment (any text, including none), `**` any depth
//! (including none), case-sensitively; patterns and paths are at most 4,096 bytes. The
//! matcher is checked against a naive recursive reading for any number and position of
//! stars, and must answer (never panic) for any pattern and path it accepts.

#![allow(clippy::unwrap_used)]

use neuralis_access::pattern::{MAX_PATH_LEN, split_path};
use neuralis_access::{AccessError, PathPattern};
use proptest::prelude::*;

fn matches(pattern: &str, path: &str) -> bool {
    let pattern = PathPattern::parse(pattern, "pattern").unwrap();
    pattern.matches(&split_path(path, "path").unwrap())
}

#[test]
fn a_star_matches_any_text_within_one_segment_including_none() {
    let cases = [
        // The leading piece must open the segment.
        ("public-*", "private-notes", false),
        ("public-*", "public-notes", true),
        ("public-*", "xpublic-notes", false),
        // The trailing piece must close it.
        ("*.md", "notes.mdx", false),
        ("*.md", "notes.md", true),
        // A star may match nothing, at the end, the start or between pieces.
        ("draft*", "draft", true),
        ("*draft", "draft", true),
        ("dr*aft", "draft", true),
        ("*", "x", true),
        // The opening and closing pieces may not overlap.
        ("a*a", "a", false),
        ("a*a", "aa", true),
        ("a*a", "aba", true),
        ("ab*ba", "aba", false),
        ("ab*ba", "abba", true),
        // Middle pieces appear in order, between the opening and closing pieces.
        ("*a*a*", "xa", false),
        ("*a*a*", "aa", true),
        ("*a*a*", "xaya", true),
        ("a*b*c", "acb", false),
        ("a*b*c", "abc", true),
        ("a*b*c", "ab", false),
        ("x*ab*ab*y", "xaby", false),
        ("x*ab*ab*y", "xababy", true),
        ("*b*", "ab", true),
        ("*b*", "ac", false),
        // Case-sensitive, within one segment only.
        ("Draft*", "draft", false),
        ("a*b", "a/b", false),
        // Multi-byte text is matched by characters, never split inside one.
        ("é*é", "é", false),
        ("é*é", "éé", true),
        ("*ü*", "aüb", true),
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
fn patterns_and_paths_are_accepted_up_to_4096_bytes_and_refused_beyond() {
    let long = |len: usize| {
        // `a/a/.../a`, the last segment lengthened to reach `len` exactly.
        let mut text = "a/".repeat((len - 1) / 2);
        text.push_str(&"a".repeat(len - text.len()));
        assert_eq!(text.len(), len);
        text
    };
    let at_limit = long(MAX_PATH_LEN);
    let beyond = long(MAX_PATH_LEN + 1);
    assert_eq!(MAX_PATH_LEN, 4096);

    assert_eq!(split_path(&at_limit, "path").unwrap().len(), 2048);
    let AccessError::InvalidArgument { field, message } =
        split_path(&beyond, "files[0].path").unwrap_err();
    assert_eq!(
        (field.as_str(), message.as_str()),
        ("files[0].path", "is too long")
    );

    let pattern = PathPattern::new(&at_limit).unwrap();
    assert!(pattern.matches(&split_path(&at_limit, "path").unwrap()));
    assert_eq!(PathPattern::new(&beyond).unwrap_err(), "is too long");
    let AccessError::InvalidArgument { field, .. } =
        PathPattern::parse(&beyond, "paths[0].pattern").unwrap_err();
    assert_eq!(field, "paths[0].pattern");
}

#[test]
fn a_pattern_keeps_its_text_and_names_the_literal_first_segment_every_match_starts_with() {
    let cases = [
        ("docs/**", Some("docs")),
        ("docs/*.md", Some("docs")),
        ("a/b/c", Some("a")),
        ("*.md", None),
        ("d*cs/x", None),
        ("**/SKILL.md", None),
        ("**", None),
    ];
    for (text, first) in cases {
        let pattern = PathPattern::new(text).unwrap();
        assert_eq!(pattern.as_str(), text);
        assert_eq!(pattern.first_literal(), first, "{text}");
    }
}

// === the reference: a naive recursive reading of the pattern language ===

fn naive_matches(pattern: &[&str], path: &[&str]) -> bool {
    match (pattern.split_first(), path.split_first()) {
        (None, None) => true,
        (Some((&"**", rest)), _) => {
            naive_matches(rest, path) || (!path.is_empty() && naive_matches(pattern, &path[1..]))
        }
        (Some((segment, rest)), Some((name, tail))) => {
            naive_segment(segment.as_bytes(), name.as_bytes()) && naive_matches(rest, tail)
        }
        _ => false,
    }
}

fn naive_segment(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len()).any(|skip| naive_segment(rest, &name[skip..])),
        Some((c, rest)) => name.first() == Some(c) && naive_segment(rest, &name[1..]),
    }
}

// === generators ===

/// A pattern segment with any number of stars in any position: literal pieces over a
/// two-letter alphabet (so pieces overlap and repeat) joined by single stars; the inner
/// pieces are non-empty, since `**` inside a segment is not a glob.
fn glob_segment() -> impl Strategy<Value = String> {
    let edge = "[ab]{0,3}";
    let inner = prop::collection::vec("[ab]{1,3}", 0..4);
    (edge, inner, edge, any::<bool>()).prop_map(|(first, inner, last, starred)| {
        if inner.is_empty() && !starred {
            // No star at all: a literal segment (made non-empty).
            return format!("{first}{last}a");
        }
        let mut pieces = vec![first];
        pieces.extend(inner);
        pieces.push(last);
        pieces.join("*")
    })
}

fn pattern_segment() -> impl Strategy<Value = String> {
    prop_oneof![6 => glob_segment(), 1 => Just("**".to_owned())]
}

fn glob_pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(pattern_segment(), 1..5).prop_map(|segments| segments.join("/"))
}

fn path_segments() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[ab]{1,6}", 0..6)
}

/// Any text over the characters that matter to the parser and the matcher, multi-byte
/// ones included.
fn any_text() -> impl Strategy<Value = String> {
    prop_oneof!["[ab*/.é😀]{0,16}", "\\PC{0,16}"]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn the_matcher_agrees_with_a_naive_reading_for_any_star_count_and_position(
        pattern in glob_pattern(), path in path_segments(),
    ) {
        let parsed = PathPattern::parse(&pattern, "pattern").unwrap();
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        let segments: Vec<&str> = pattern.split('/').collect();
        prop_assert_eq!(
            parsed.matches(&path),
            naive_matches(&segments, &path),
            "{} against {:?}", pattern, path
        );
    }

    #[test]
    fn a_path_built_from_a_pattern_is_matched_by_it(
        pattern in glob_pattern(), fill in prop::collection::vec("[ab]{0,2}", 16),
    ) {
        // Replace each star by some text and each `**` by nothing: a guaranteed match,
        // so the property above sees matches as often as misses.
        let mut fill = fill.into_iter().cycle();
        let path: Vec<String> = pattern
            .split('/')
            .filter(|segment| *segment != "**")
            .map(|segment| {
                segment
                    .split('*')
                    .collect::<Vec<_>>()
                    .join(&fill.next().unwrap_or_default())
            })
            .collect();
        prop_assume!(path.iter().all(|segment| !segment.is_empty()));
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        let parsed = PathPattern::parse(&pattern, "pattern").unwrap();
        prop_assert!(parsed.matches(&path), "{} against {:?}", pattern, path);
    }

    #[test]
    fn the_matcher_answers_for_any_pattern_and_path_without_panicking(
        pattern in any_text(), path in any_text(),
    ) {
        // Parsing either may refuse; whatever both accept, matching must answer, and
        // agree with the naive reading.
        if let (Ok(parsed), Ok(segments)) =
            (PathPattern::new(&pattern), split_path(&path, "path"))
        {
            let pattern_segments: Vec<&str> = pattern.split('/').collect();
            prop_assert_eq!(parsed.matches(&segments), naive_matches(&pattern_segments, &segments));
        }
    }

    /// A compiled policy matches only the rest of a pattern after its literal prefix,
    /// with shortcuts for `prefix/**`, `**/name/**` and `**/name`: on any path that
    /// starts with the prefix, that equals matching the whole pattern.
    #[test]
    fn matching_after_the_literal_prefix_equals_matching_the_whole_pattern(
        prefix in prop::collection::vec("[ab]{1,2}", 0..3),
        rest in prop_oneof![
            glob_pattern(),
            "[ab]{1,2}".prop_map(|name| format!("**/{name}/**")),
            "[ab]{1,2}".prop_map(|name| format!("**/{name}")),
        ],
        tail in path_segments(),
    ) {
        let pattern = prefix.iter().cloned().chain([rest]).collect::<Vec<_>>().join("/");
        let parsed = PathPattern::parse(&pattern, "pattern").unwrap();
        let path: Vec<&str> = prefix.iter().chain(&tail).map(String::as_str).collect();
        let known = parsed.prefix_len();
        let literal: Vec<&str> = pattern.split('/').take(known).collect();
        prop_assume!(path.starts_with(&literal));
        prop_assert_eq!(
            parsed.matches_after_prefix(&path[known..]),
            parsed.matches(&path),
            "{} against {:?}", pattern, path
        );
    }

    /// Paths are split in one pass into a batch's buffer: the same segments and the
    /// same refusals as splitting on every `/`.
    #[test]
    fn splitting_a_path_equals_splitting_on_every_slash(path in any_text()) {
        let naive: Vec<&str> = path.split('/').collect();
        let refused = path.starts_with('/')
            || naive.iter().any(|s| s.is_empty() || *s == "." || *s == "..");
        match split_path(&path, "path") {
            Ok(segments) if path.is_empty() => prop_assert!(segments.is_empty()),
            Ok(segments) => prop_assert_eq!(segments, naive),
            Err(_) => prop_assert!(refused && !path.is_empty()),
        }
    }
}
