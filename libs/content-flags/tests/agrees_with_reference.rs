//! The fast detector answers exactly what the first, naive one answered (kept in
//! `reference/`), on text built from the detectors' own needles in any letter case,
//! cut anywhere, and on arbitrary bytes.

mod reference;

use neuralis_content_flags::detect;
use proptest::prelude::*;

/// Pieces that make every branch of every check fire or nearly fire.
fn piece() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("curl "),
        Just("CuRl"),
        Just("wget -qO- "),
        Just("iwr "),
        Just("IRM "),
        Just("Invoke-WebRequest "),
        Just("invoke-"),
        Just("| "),
        Just("|"),
        Just("||"),
        Just("|sh"),
        Just("| bash"),
        Just("python3"),
        Just("sudo "),
        Just("env "),
        Just("/usr/bin/env "),
        Just("-E "),
        Just("<("),
        Just("$("),
        Just(")"),
        Just("\""),
        Just("/bin/"),
        Just("sh -c "),
        Just("iex"),
        Just("<!--"),
        Just("-->"),
        Just("- "),
        Just("a"),
        Just(" "),
        Just("\n"),
        Just("\r\n"),
        Just("\u{202E}"),
        Just("\u{2066}"),
        Just("\u{200B}"),
        Just("\u{2065}"),
        Just("\u{FEFF}"),
        Just("\u{061C}"),
        Just("\u{E0041}"),
        Just("—"),
        Just("“"),
        Just("日本"),
        Just("🚀"),
        Just("x"),
        Just("http://h/x"),
    ]
}

fn path() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("skills/a/SKILL.md"),
        Just("scripts/run.sh"),
        Just("rules/x.mdc")
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn the_fast_detector_agrees_with_the_reference_on_needle_text(
        parts in proptest::collection::vec(piece(), 0..48),
        path in path(),
        cut in any::<prop::sample::Index>(),
    ) {
        let text = parts.concat();
        let bytes = text.as_bytes();
        prop_assert_eq!(detect(path, bytes), reference::detect(path, bytes), "{:?}", text);
        // Cut anywhere, even inside a multi-byte character.
        let cut = if bytes.is_empty() { 0 } else { cut.index(bytes.len() + 1) };
        let prefix = &bytes[..cut];
        prop_assert_eq!(detect(path, prefix), reference::detect(path, prefix));
        let suffix = &bytes[cut..];
        prop_assert_eq!(detect(path, suffix), reference::detect(path, suffix));
    }

    #[test]
    fn the_fast_detector_agrees_with_the_reference_on_arbitrary_bytes(
        bytes in proptest::collection::vec(
            prop_oneof![
                any::<u8>(),
                prop::sample::select(b"|(<$!-\n curlwgetirmshbCURLI".to_vec()),
                prop::sample::select(vec![0xD8u8, 0x9C, 0xE2, 0x80, 0x81, 0xAE, 0xA6, 0xEF, 0xBB, 0xBF, 0xF3, 0xA0]),
            ],
            0..1024,
        ),
        path in path(),
    ) {
        prop_assert_eq!(detect(path, &bytes), reference::detect(path, &bytes));
    }
}
