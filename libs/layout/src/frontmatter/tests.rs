//! Frontmatter capture: strict first, tolerant recovery after, bounded always.

use super::*;

fn parse(text: &str) -> FrontmatterOutcome {
    parse_frontmatter(text.as_bytes())
}

#[test]
fn a_file_without_a_fence_has_no_frontmatter() {
    for text in ["# Title\n", "", "--\nname: x\n--\n", " ---\nname: x\n---\n"] {
        let outcome = parse(text);
        assert_eq!(outcome.status, FrontmatterStatus::Absent, "{text:?}");
        assert!(outcome.frontmatter.is_none());
    }
}

#[test]
fn strict_yaml_captures_the_whitelisted_keys_only() {
    let outcome = parse(
        "---\nid: review\nname: Review\ntitle: Code review\ndescription: Reviews code\n\
         requiredFeatures: [a.read, a.write]\ncredentials: [acme.apiKey]\n\
         metadata: {vendor: x}\nallowed-tools: Read Grep\ncontext: fork\n\
         activation: {target: prompt-context}\noverwrite: true\ncategory: rule\nextra: 1\n---\nbody\n",
    );
    assert_eq!(outcome.status, FrontmatterStatus::Strict);
    assert!(outcome.diagnostics.is_empty(), "{:?}", outcome.diagnostics);
    let fm = outcome.frontmatter.unwrap();
    assert_eq!(fm.id.as_deref(), Some("review"));
    assert_eq!(fm.name.as_deref(), Some("Review"));
    assert_eq!(fm.title.as_deref(), Some("Code review"));
    assert_eq!(fm.description.as_deref(), Some("Reviews code"));
    assert_eq!(fm.required_features, ["a.read", "a.write"]);
    assert_eq!(fm.credentials, Some(serde_json::json!(["acme.apiKey"])));
    assert_eq!(fm.metadata.unwrap()["vendor"], "x");
    assert_eq!(fm.allowed_tools, ["Read", "Grep"]);
    assert_eq!(fm.context.as_deref(), Some("fork"));
    assert_eq!(fm.activation_target.as_deref(), Some("prompt-context"));
    assert_eq!(fm.overwrite, Some(true));
}

#[test]
fn the_category_key_is_never_read() {
    let fm = parse("---\ncategory: rule\n---\n").frontmatter.unwrap();
    assert_eq!(fm, Frontmatter::default());
}

#[test]
fn the_role_key_is_ignored_with_a_warning() {
    for text in [
        "---\nname: x\nrole: admin\n---\n",
        "---\nname: x\nglobs: **/*\nrole: admin\n---\n",
    ] {
        let outcome = parse(text);
        assert!(
            outcome
                .diagnostics
                .iter()
                .any(|d| d.message.contains("`role:` is ignored")),
            "{text:?}: {:?}",
            outcome.diagnostics
        );
        assert_eq!(outcome.frontmatter.unwrap().name.as_deref(), Some("x"));
    }
}

/// Cursor rules ship `globs: **/*` unquoted; strict YAML reads `*` as an alias.
#[test]
fn an_unquoted_glob_is_recovered_with_a_diagnostic() {
    let outcome =
        parse("---\ndescription: TypeScript rules\nglobs: **/*.ts\nalwaysApply: false\n---\n");
    assert_eq!(outcome.status, FrontmatterStatus::Recovered);
    assert_eq!(
        outcome.frontmatter.unwrap().description.as_deref(),
        Some("TypeScript rules")
    );
    let diagnostic = &outcome.diagnostics[0];
    assert!(
        diagnostic.message.contains("not strict YAML"),
        "{diagnostic:?}"
    );
    assert!(diagnostic.line.is_some());
}

#[test]
fn an_unquoted_colon_in_a_description_is_recovered() {
    let outcome = parse("---\nname: deploy\ndescription: Deploy: ships the build: fast\n---\n");
    assert_eq!(outcome.status, FrontmatterStatus::Recovered);
    let fm = outcome.frontmatter.unwrap();
    assert_eq!(fm.name.as_deref(), Some("deploy"));
    assert_eq!(
        fm.description.as_deref(),
        Some("Deploy: ships the build: fast")
    );
}

#[test]
fn recovery_reads_lists_block_scalars_quotes_and_a_flat_metadata_map() {
    let outcome = parse(
        "---\nname: 'it''s'\nglobs: **/*\nrequiredFeatures:\n  - a.read\n  - \"a.write\"\n\
         description: >\n  folded\n  text\nallowed-tools: [Read, Grep]\nmetadata:\n  vendor: acme\n---\n",
    );
    assert_eq!(outcome.status, FrontmatterStatus::Recovered);
    let fm = outcome.frontmatter.unwrap();
    assert_eq!(fm.name.as_deref(), Some("it's"));
    assert_eq!(fm.required_features, ["a.read", "a.write"]);
    assert_eq!(fm.description.as_deref(), Some("folded text"));
    assert_eq!(fm.allowed_tools, ["Read", "Grep"]);
    assert_eq!(fm.metadata.unwrap()["vendor"], "acme");
}

#[test]
fn recovery_reports_each_line_it_cannot_read() {
    let outcome = parse("---\nname: x\nglobs: **/*\nthis line has no colon\n---\n");
    assert_eq!(outcome.status, FrontmatterStatus::Recovered);
    assert!(
        outcome
            .diagnostics
            .iter()
            .any(|d| d.line == Some(4) && d.message.contains("not a `key: value` line")),
        "{:?}",
        outcome.diagnostics
    );
}

#[test]
fn frontmatter_with_no_readable_key_is_malformed() {
    let outcome = parse("---\n[[[ not yaml\n---\n");
    assert_eq!(outcome.status, FrontmatterStatus::Malformed);
    assert!(outcome.frontmatter.is_none());
    assert!(
        outcome
            .diagnostics
            .iter()
            .any(|d| d.severity == crate::Severity::Error)
    );
}

#[test]
fn an_unclosed_block_is_malformed() {
    let outcome = parse("---\nname: x\nbody without a closing fence\n");
    assert_eq!(outcome.status, FrontmatterStatus::Malformed);
    assert!(outcome.diagnostics[0].message.contains("not closed"));
}

#[test]
fn an_oversized_block_is_malformed_without_reading_it_all() {
    let mut text = String::from("---\n");
    while text.len() <= MAX_FRONTMATTER_BYTES + 10 {
        text.push_str("description: padding padding padding\n");
    }
    text.push_str("---\n");
    let outcome = parse(&text);
    assert_eq!(outcome.status, FrontmatterStatus::Malformed);
    assert!(outcome.diagnostics[0].message.contains("exceeds"));
}

#[test]
fn an_empty_block_is_an_empty_frontmatter() {
    for text in [
        "---\n---\n",
        "---\n# only a comment\n---\nbody",
        "---\r\n\r\n---\r\n",
    ] {
        let outcome = parse(text);
        assert_eq!(outcome.status, FrontmatterStatus::Strict, "{text:?}");
        assert_eq!(outcome.frontmatter, Some(Frontmatter::default()));
    }
}

#[test]
fn a_byte_order_mark_and_crlf_lines_are_accepted() {
    let outcome = parse("\u{feff}---\r\nname: x\r\n---\r\nbody");
    assert_eq!(outcome.frontmatter.unwrap().name.as_deref(), Some("x"));
}

#[test]
fn scalar_ids_are_text_and_empty_ones_are_absent() {
    let fm = parse("---\nid: 42\nname: \"\"\n---\n").frontmatter.unwrap();
    assert_eq!(fm.id.as_deref(), Some("42"));
    assert_eq!(fm.name, None);
    assert!(
        !parse("---\nname: ''\n---\n")
            .frontmatter
            .unwrap()
            .declares_identity()
    );
}

#[test]
fn wrong_shapes_are_dropped_with_a_warning_naming_the_key() {
    let outcome = parse("---\nname: [a, b]\nmetadata: 3\noverwrite: maybe\n---\n");
    let fm = outcome.frontmatter.unwrap();
    assert_eq!(fm.name, None);
    for key in ["`name`", "`metadata`", "`overwrite`"] {
        assert!(
            outcome.diagnostics.iter().any(|d| d.message.contains(key)),
            "{key}: {:?}",
            outcome.diagnostics
        );
    }
}

/// "Bound the work on hostile input (alias expansion, nesting depth, size)".
#[test]
fn an_alias_bomb_is_refused_by_the_budget_not_expanded() {
    let mut text = String::from("---\nname: bomb\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let prev = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
        ));
    }
    text.push_str("---\n");
    let outcome = parse(&text);
    // The budget refuses the document; recovery still finds the flat `name` line.
    assert_eq!(outcome.status, FrontmatterStatus::Recovered);
    assert_eq!(outcome.frontmatter.unwrap().name.as_deref(), Some("bomb"));
}

#[test]
fn ten_thousand_deep_block_nesting_is_refused_not_recursed() {
    let mut text = String::from("---\nname: deep\nnest:\n");
    text.push_str(&"- ".repeat(10_000));
    text.push_str("x\n");
    let mut flow = String::from("---\nname: deep\nnest: ");
    flow.push_str(&"[".repeat(10_000));
    flow.push_str(&"]".repeat(10_000));
    flow.push_str("\n---\n");
    text.push_str("---\n");
    for text in [text, flow] {
        let outcome = parse(&text);
        assert_ne!(outcome.status, FrontmatterStatus::Absent);
        if let Some(fm) = outcome.frontmatter {
            assert_eq!(fm.name.as_deref(), Some("deep"));
        }
    }
}

/// The size limit is the block's own bytes, fences excluded: a block of exactly
/// [`MAX_FRONTMATTER_BYTES`] is read, one byte more is not.
#[test]
fn a_block_of_exactly_the_size_limit_is_read() {
    assert_eq!(MAX_FRONTMATTER_BYTES, 64 * 1024);
    for (size, status) in [
        (2 * 1024, FrontmatterStatus::Strict),
        (MAX_FRONTMATTER_BYTES, FrontmatterStatus::Strict),
        (MAX_FRONTMATTER_BYTES + 1, FrontmatterStatus::Malformed),
    ] {
        let key = "description: ";
        let block = format!("{key}{}\n", "a".repeat(size - key.len() - 1));
        assert_eq!(block.len(), size);
        let outcome = parse(&format!("---\n{block}---\nbody\n"));
        assert_eq!(
            outcome.status, status,
            "{size} bytes: {:?}",
            outcome.diagnostics
        );
    }
}

/// The scalar and anchor budgets are twice the block limit, so tag handles that expand
/// as they are counted (`!!str` counts as `tag:yaml.org,2002:str`) never refuse a block
/// within it, anchored or not.
#[test]
fn a_block_within_the_size_limit_is_never_refused_for_its_scalar_or_anchor_bytes() {
    for anchor in ["", "&labels "] {
        let mut text = format!("---\nname: tagged\nlabels: {anchor}[");
        text.push_str(&"!!str a, ".repeat(3_500));
        text.push_str("]\n---\n");
        assert!(text.len() < MAX_FRONTMATTER_BYTES);
        let outcome = parse(&text);
        assert_eq!(
            outcome.status,
            FrontmatterStatus::Strict,
            "{anchor:?}: {:?}",
            outcome.diagnostics
        );
    }
}

/// A key given twice is still strict YAML: the last one wins, as in recovery.
#[test]
fn a_repeated_key_is_strict_yaml_and_the_last_one_wins() {
    let outcome = parse("---\nname: first\nname: last\n---\n");
    assert_eq!(
        outcome.status,
        FrontmatterStatus::Strict,
        "{:?}",
        outcome.diagnostics
    );
    assert_eq!(outcome.frontmatter.unwrap().name.as_deref(), Some("last"));
}

#[test]
fn the_recovery_diagnostic_names_the_file_line_strict_yaml_refused() {
    // file line 1 is the fence; `globs: **/*` is block line 2, file line 3
    let outcome = parse("---\nname: x\nglobs: **/*\n---\n");
    assert_eq!(outcome.status, FrontmatterStatus::Recovered);
    assert_eq!(
        outcome.diagnostics[0].line,
        Some(3),
        "{:?}",
        outcome.diagnostics
    );
}

/// The recovery diagnostic says what strict YAML refused, in the parser's words but
/// without its block-relative position (the diagnostic carries the file line).
#[test]
fn the_recovery_diagnostic_quotes_the_parser_without_its_position() {
    let outcome = parse("---\nname: x\nglobs: **/*\n---\n");
    let message = &outcome.diagnostics[0].message;
    assert!(message.contains("unknown anchor"), "{message}");
    assert!(!message.contains(" at line "), "{message}");
}

#[test]
fn booleans_and_numbers_are_spelled_out_as_text() {
    let fm = parse("---\nid: true\nname: false\ntitle: 1.5\n---\n")
        .frontmatter
        .unwrap();
    assert_eq!(
        (fm.id.as_deref(), fm.name.as_deref(), fm.title.as_deref()),
        (Some("true"), Some("false"), Some("1.5"))
    );
}

/// Whitespace YAML does not know as whitespace (a no-break space, a form feed) still
/// leaves a block with nothing in it: an empty frontmatter, not a malformed one.
#[test]
fn a_block_of_blank_lines_and_comments_is_an_empty_frontmatter() {
    for text in [
        "---\n\u{a0}\n---\n",
        "---\n\u{c}\n# a comment\n---\n",
        "---\n  # an indented comment\n\u{a0}\n---\n",
    ] {
        let outcome = parse(text);
        assert_ne!(outcome.status, FrontmatterStatus::Malformed, "{text:?}");
        assert_eq!(
            outcome.frontmatter,
            Some(Frontmatter::default()),
            "{text:?}"
        );
    }
}

/// Blank lines and top-level comments are skipped silently; inside a block scalar they
/// are part of the text.
#[test]
fn recovery_skips_blank_lines_and_comments_but_keeps_them_in_block_scalars() {
    let outcome = parse(
        "---\nglobs: **/*\n\n# a comment\nname: x\ndescription: |\n  first\n\n  # kept\n  last\n---\n",
    );
    assert_eq!(outcome.status, FrontmatterStatus::Recovered);
    assert_eq!(outcome.diagnostics.len(), 1, "{:?}", outcome.diagnostics);
    let fm = outcome.frontmatter.unwrap();
    assert_eq!(fm.name.as_deref(), Some("x"));
    assert_eq!(fm.description.as_deref(), Some("first\n\n# kept\nlast"));
}

/// Only `key: value` with a plain key is a key line: a key with a space or nothing
/// before the colon, or no space after it, is skipped and reported.
#[test]
fn recovery_reads_only_plain_key_lines() {
    for line in ["my name: x", ": x", "name:x"] {
        let outcome = parse(&format!("---\nglobs: **/*\n{line}\n---\n"));
        assert!(
            outcome
                .diagnostics
                .iter()
                .any(|d| d.line == Some(3) && d.message.contains("not a `key: value` line")),
            "{line:?}: {:?}",
            outcome.diagnostics
        );
        if let Some(fm) = outcome.frontmatter {
            assert_eq!(fm.name, None, "{line:?}");
        }
    }
}

/// A plain scalar continued on indented lines folds into one line; blank lines after a
/// value continue nothing.
#[test]
fn recovery_folds_a_plain_scalar_continued_on_indented_lines() {
    for (text, description, tools) in [
        ("description: one\n  two\n", "one two", &[][..]),
        ("description: one\n  two\n\n  three\n", "one two three", &[]),
        (
            "description: one\nallowed-tools: [Read, Grep]\n\n",
            "one",
            &["Read", "Grep"],
        ),
    ] {
        let outcome = parse(&format!("---\nglobs: **/*\n{text}name: x\n---\n"));
        assert_eq!(outcome.status, FrontmatterStatus::Recovered, "{text:?}");
        let fm = outcome.frontmatter.unwrap();
        assert_eq!(fm.description.as_deref(), Some(description), "{text:?}");
        assert_eq!(fm.allowed_tools, tools, "{text:?}");
    }
}

#[test]
fn recovery_reads_a_list_with_blank_lines_and_comments_between_items() {
    let outcome =
        parse("---\nglobs: **/*\nrequiredFeatures:\n  - a.read\n\n  # and\n  - a.write\n---\n");
    assert_eq!(outcome.status, FrontmatterStatus::Recovered);
    assert_eq!(
        outcome.frontmatter.unwrap().required_features,
        ["a.read", "a.write"]
    );
}

/// Issue 25: a 600-byte billion-laughs block cost 84 ms (debug build) under the former
/// budget (10,000 replayed events); the budget now stops its replay at a thousand.
#[test]
fn a_billion_laughs_block_is_refused_within_a_thousand_replayed_events() {
    let mut text = String::from(
        "---\nname: bomb\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let prev = i - 1;
        let refs = vec![format!("*a{prev}"); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    text.push_str("---\n");
    let outcome = parse(&text);
    let refusal = &outcome.diagnostics[0].message;
    assert!(
        refusal.contains("alias replay limit exceeded") && refusal.contains("1001 > 1000"),
        "{refusal}"
    );
    assert_eq!(outcome.status, FrontmatterStatus::Recovered);
}
