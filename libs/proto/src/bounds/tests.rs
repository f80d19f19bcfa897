use super::*;
use proptest::prelude::*;

/// One of the field rules of this module.
type Rule = fn(&str, &str) -> Result<(), FieldError>;

#[test]
fn each_bound_refuses_one_byte_over_and_names_the_field() {
    let table: [(Rule, usize); 4] = [
        (id, MAX_ID_BYTES),
        (path, MAX_PATH_BYTES),
        (short_text, MAX_SHORT_TEXT_BYTES),
        (page_token, MAX_PAGE_TOKEN_BYTES),
    ];
    for (check, max) in table {
        assert_eq!(check("f", &"a".repeat(max)), Ok(()));
        let refused = check("f", &"a".repeat(max + 1)).unwrap_err();
        assert_eq!(refused.field, "f");
        assert_eq!(
            refused.message,
            format!("must be at most {max} bytes ({} given)", max + 1)
        );
    }
}

#[test]
fn a_nul_in_a_path_is_refused() {
    let refused = path("source.root", "/etc\0").unwrap_err();
    assert_eq!(refused.field, "source.root");
    assert_eq!(
        refused.message,
        "must not contain control characters (U+0000 at byte 4)"
    );
}

#[test]
fn control_characters_are_refused_in_ids_and_paths() {
    for text in ["a\nb", "\r", "x\u{7f}", "\u{1b}[31m", "tab\there", "\u{85}"] {
        assert!(id("f", text).is_err(), "{text:?}");
        assert!(path("f", text).is_err(), "{text:?}");
    }
    for text in ["", "proj-1", "/srv/repo/docs", "été/日本", "a b"] {
        assert_eq!(path("f", text), Ok(()), "{text:?}");
    }
}

#[test]
fn a_repeated_field_is_bounded_in_count_and_names_the_entry() {
    let many = vec![String::new(); MAX_REPEATED + 1];
    assert_eq!(
        each("rules", &many, path).unwrap_err().message,
        format!(
            "must have at most {MAX_REPEATED} entries ({} given)",
            MAX_REPEATED + 1
        )
    );
    let one_bad = vec!["ok".to_owned(), "bad\0".to_owned()];
    assert_eq!(each("rules", &one_bad, path).unwrap_err().field, "rules[1]");
}

#[derive(Debug, PartialEq)]
enum Two {
    A,
    B,
}

impl TryFrom<i32> for Two {
    type Error = ();
    fn try_from(value: i32) -> Result<Self, ()> {
        match value {
            0 => Ok(Two::A),
            1 => Ok(Two::B),
            _ => Err(()),
        }
    }
}

#[test]
fn an_unknown_enum_value_is_refused_not_read_as_the_default() {
    assert_eq!(known::<Two>("scope", 1), Ok(Two::B));
    assert_eq!(known::<Two>("scope", 0), Ok(Two::A));
    let refused = known::<Two>("scope", 99).unwrap_err();
    assert_eq!(
        (refused.field.as_str(), refused.message.as_str()),
        ("scope", "unknown value 99")
    );
}

#[test]
fn a_long_value_is_quoted_cut_with_its_length() {
    assert_eq!(quote("/srv/a"), "\"/srv/a\"");
    let long = format!("/{}", "a".repeat(9_999));
    let quoted = quote(&long);
    assert!(quoted.ends_with("…\" (10000 bytes)"), "{quoted}");
    assert!(quoted.len() < 100, "{}", quoted.len());
    // A cut never splits a character.
    assert!(quote(&"é".repeat(100)).contains("(200 bytes)"));
}

#[test]
fn a_long_message_is_cut_to_the_bound_with_its_length() {
    let message = bounded_message("x".repeat(23_800));
    assert!(message.len() <= MAX_MESSAGE_BYTES, "{}", message.len());
    assert!(message.ends_with("… (23800 bytes)"), "{message}");
    assert_eq!(bounded_message("short".into()), "short");
}

proptest! {
    #[test]
    fn any_text_with_a_control_character_is_refused(
        before in "\\PC{0,40}",
        control in prop::char::ranges(vec!['\0'..='\u{1f}', '\u{7f}'..='\u{9f}'].into()),
        after in "\\PC{0,40}",
    ) {
        let text = format!("{before}{control}{after}");
        prop_assert!(id("f", &text).is_err());
        prop_assert!(path("f", &text).is_err());
        prop_assert!(short_text("f", &text).is_err());
    }

    #[test]
    fn any_text_over_the_bound_is_refused(text in "\\PC{1,64}", extra in 1usize..64) {
        let over = text.repeat(MAX_PATH_BYTES / text.len() + extra);
        prop_assume!(over.len() > MAX_PATH_BYTES);
        let refused = path("p", &over).unwrap_err();
        prop_assert_eq!(refused.field, "p");
        prop_assert!(refused.message.starts_with("must be at most 4096 bytes"));
        prop_assert!(id("p", &over).is_err());
    }

    #[test]
    fn any_quote_and_message_stays_bounded(text in "\\PC{0,3000}") {
        prop_assert!(quote(&text).len() <= MAX_QUOTED_BYTES + 32);
        prop_assert!(bounded_message(text.repeat(2)).len() <= MAX_MESSAGE_BYTES);
    }
}
