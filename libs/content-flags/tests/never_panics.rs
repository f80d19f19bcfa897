//! The detector runs on every synced file, whatever bytes it holds: it never panics,
//! and its answer is sorted and free of duplicates.

use neuralis_content_flags::detect;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_detector_never_panics_on_arbitrary_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
        markdown in any::<bool>(),
    ) {
        let path = if markdown { "skills/a/SKILL.md" } else { "scripts/run.sh" };
        let flags = detect(path, &bytes);
        prop_assert!(flags.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn the_detector_never_panics_on_text_made_of_its_own_needles(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("curl "), Just("| "), Just("|sh"), Just("sudo "), Just("<("), Just("$("),
                Just("<!--"), Just("-->"), Just("\u{202E}"), Just("\u{FEFF}"), Just("\n"),
                Just("bash"), Just("x"), Just("\u{E0041}"),
            ],
            0..64,
        ),
    ) {
        let text: String = parts.concat();
        let _ = detect("a.md", text.as_bytes());
        // Any prefix cuts a multi-byte character somewhere: still no panic.
        for cut in 0..text.len().min(64) {
            let _ = detect("a.md", &text.as_bytes()[..cut]);
        }
    }
}
