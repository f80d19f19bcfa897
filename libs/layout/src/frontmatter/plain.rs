//! The plainest frontmatter, read without a YAML parser: every line `key: text`, where
//! the text is a run of words YAML can only read as that same string. Most skills,
//! agents and rules look like this (a name and a description), and serde-saphyr spent
//! about 60,000 instructions on each such block (callgrind of `neuralis inspect`, a
//! quarter of inspect's own work). Anything else, or anything in doubt, is left to
//! strict YAML (`None`): this is a shortcut to the same answer, never a second reading.
//! The test `a_plain_block_reads_as_strict_yaml_reads_it` compares the two.

use std::collections::BTreeMap;

use serde_json::Value;

use super::fields::WHITELIST;

/// The most lines read here; a longer block goes to strict YAML (whose budgets then
/// apply as always).
const MAX_LINES: usize = 64;

/// Words YAML (or a float parser behind it) may read as something other than a string,
/// compared without case. A text that is one of them is left to strict YAML.
const NOT_PLAIN_WORDS: &[&str] = &[
    "null", "true", "false", "yes", "no", "on", "off", "y", "n", "inf", "infinity", "nan",
];

/// The whitelisted keys of a block of `key: text` lines, last one winning, as strict
/// YAML would give them; `None` when the block is anything more.
pub(super) fn parse(text: &str) -> Option<BTreeMap<String, Value>> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut values = BTreeMap::new();
    for (count, line) in text.split('\n').enumerate() {
        if count == MAX_LINES {
            return None;
        }
        let (key, value) = line.split_once(": ")?;
        if !is_plain_key(key) || !is_plain_text(value) {
            return None;
        }
        if let Some(known) = WHITELIST.iter().find(|known| **known == key) {
            values.insert((*known).to_owned(), Value::String(value.to_owned()));
        }
    }
    Some(values)
}

/// A key of letters, digits, `_` and `-`, starting with a letter, and not a word YAML
/// may read otherwise (strict YAML refuses a `null:` key, for one).
fn is_plain_key(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !is_not_plain_word(key)
}

/// Text YAML reads as exactly this string: starts with a letter, holds only letters,
/// digits, single spaces and a few marks that mean nothing inside a plain scalar, does
/// not end in a space or a mark, and is not a word YAML may read otherwise.
fn is_plain_text(text: &str) -> bool {
    let bytes = text.as_bytes();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    first.is_ascii_alphabetic()
        && last.is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b" .,_-()/".contains(&b))
        && !text.contains("  ")
        && !is_not_plain_word(text)
}

fn is_not_plain_word(text: &str) -> bool {
    NOT_PLAIN_WORDS
        .iter()
        .any(|word| text.eq_ignore_ascii_case(word))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_block_of_name_and_description_is_read_plainly() {
        let values = parse("name: skill53163\ndescription: does thing 53163\n").unwrap();
        assert_eq!(values["name"], Value::String("skill53163".into()));
        assert_eq!(
            values["description"],
            Value::String("does thing 53163".into())
        );
    }

    #[test]
    fn anything_more_than_key_and_plain_text_is_left_to_strict_yaml() {
        for block in [
            "name: x\n  continued",
            "name: 'quoted'",
            "name: true",
            "name: Null",
            "name: 12",
            "name: x # comment",
            "name:  two spaces",
            "name: trailing ",
            "name:",
            "# comment\nname: x",
            "tags: [a, b]",
            "name: x\r",
            "null: x",
            "True: x",
            "",
        ] {
            assert_eq!(parse(block), None, "{block:?}");
        }
    }

    /// Lines from the plain shape and from just outside it: YAML's special words in
    /// any case, numbers, marks, indentation, comments, empty values, repeated keys.
    fn line() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec![
            "name",
            "description",
            "title",
            "id",
            "role",
            "context",
            "overwrite",
            "activation",
            "metadata",
            "credentials",
            "allowed-tools",
            "requiredFeatures",
            "other",
            "x_y",
            "null",
            "true",
            "Name",
            "Yes",
            "n",
            "inf",
        ]);
        let word = prop::sample::select(vec![
            "a", "skill1", "does", "thing", "53163", "1e5", "0x1F", "True", "NO", "on", "Off",
            "null", "NaN", "inf", "Infinity", ".inf", "~", "y", "-", "x-y", "a.b", "(c)", "d/e",
            "f,", "g:", "#h", "'i'", "\"j\"", "k!", "&l", "*m", "[n]", "{o}", "|", ">", "%p", "@q",
            "`r", "é", "s\t",
        ]);
        let text = prop::collection::vec(word, 0..4).prop_map(|words| words.join(" "));
        let separator = prop::sample::select(vec![": ", ":  ", ":", " : ", ": "]);
        let indent = prop::sample::select(vec!["", "", "", " ", "  ", "- "]);
        (indent, key, separator, text)
            .prop_map(|(indent, key, separator, text)| format!("{indent}{key}{separator}{text}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]
        #[test]
        fn a_plain_block_reads_as_strict_yaml_reads_it(
            lines in prop::collection::vec(line(), 1..6),
            newline in any::<bool>(),
        ) {
            let mut block = lines.join("\n");
            if newline {
                block.push('\n');
            }
            if let Some(plain) = parse(&block) {
                let strict = crate::frontmatter::strict::parse(&block);
                prop_assert!(strict.is_ok(), "strict YAML refused {:?}", block);
                prop_assert_eq!(Some(plain), strict.ok(), "{:?}", block);
            }
        }
    }
}
