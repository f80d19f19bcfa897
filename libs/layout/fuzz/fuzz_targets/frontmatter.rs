//! The frontmatter parser on arbitrary bytes: it must never panic, and a recovered or
//! strict frontmatter must round-trip through the payload's JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neuralis_layout::frontmatter::{FrontmatterStatus, parse_frontmatter};

fuzz_target!(|data: &[u8]| {
    let outcome = parse_frontmatter(data);
    if outcome.status == FrontmatterStatus::Malformed || outcome.status == FrontmatterStatus::Absent {
        assert!(outcome.frontmatter.is_none());
    }
    if let Some(frontmatter) = outcome.frontmatter {
        let json = serde_json_roundtrip(&frontmatter);
        assert_eq!(json, frontmatter);
    }
});

fn serde_json_roundtrip(frontmatter: &neuralis_layout::Frontmatter) -> neuralis_layout::Frontmatter {
    let text = serde_json::to_string(frontmatter).unwrap_or_default();
    serde_json::from_str(&text).unwrap_or_default()
}
