//! Trojan Source characters (Boucher and Anderson, 2021): the bidirectional controls
//! (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) and invisible characters
//! (zero-width space, joiners, word joiner, invisible operators U+2060–U+2064, the BOM
//! anywhere but at the start, and the tag block U+E0000–U+E007F used to smuggle text).

/// Whether `content` holds any of them. Works on bytes: every one of these characters
/// has a lead byte of 0xD8 (U+061C), 0xE2, 0xEF or 0xF3 in UTF-8, so everything else is
/// skipped without decoding (a vectorised search for the lead bytes; ASCII text, most
/// of a file, is never looked at one byte at a time); invalid UTF-8 is never an error.
pub fn has_hidden(content: &[u8]) -> bool {
    if content.is_ascii() {
        return false;
    }
    // U+061C ARABIC LETTER MARK is the only one led by 0xD8: a two-byte needle.
    if memchr::memmem::find(content, &[0xD8, 0x9C]).is_some() {
        return true;
    }
    memchr::memchr3_iter(0xE2, 0xEF, 0xF3, content).any(|start| hidden_at(content, start))
}

fn hidden_at(content: &[u8], start: usize) -> bool {
    let rest = &content[start..];
    match rest {
        // U+061C ARABIC LETTER MARK.
        [0xD8, 0x9C, ..] => true,
        // U+200B–U+200F, U+202A–U+202E.
        [0xE2, 0x80, third, ..] => matches!(third, 0x8B..=0x8F | 0xAA..=0xAE),
        // U+2060–U+2064 (word joiner, invisible operators), U+2066–U+2069 (isolates).
        [0xE2, 0x81, third, ..] => matches!(third, 0xA0..=0xA4 | 0xA6..=0xA9),
        // U+FEFF (a BOM) anywhere but at the very start.
        [0xEF, 0xBB, 0xBF, ..] => start != 0,
        // U+E0000–U+E007F, the tag block: F3 A0 80..81 xx.
        [0xF3, 0xA0, 0x80 | 0x81, _, ..] => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trojan_source_and_invisible_characters_are_found() {
        for c in [
            '\u{061C}',
            '\u{200B}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{202A}',
            '\u{202E}',
            '\u{2060}',
            '\u{2064}',
            '\u{2066}',
            '\u{2069}',
            '\u{E0041}',
            '\u{E007F}',
        ] {
            let text = format!("a{c}b");
            assert!(has_hidden(text.as_bytes()), "U+{:04X}", c as u32);
        }
        assert!(has_hidden("a\u{FEFF}b".as_bytes()));
    }

    #[test]
    fn ordinary_text_and_a_leading_bom_are_not_flagged() {
        for text in [
            "plain",
            "café — “quotes” … €",
            "\u{FEFF}# Title",
            "\u{2065}",
            "日本語",
        ] {
            assert!(!has_hidden(text.as_bytes()), "{text:?}");
        }
        assert!(!has_hidden(&[0xE2, 0x80]), "a truncated sequence");
    }
}
