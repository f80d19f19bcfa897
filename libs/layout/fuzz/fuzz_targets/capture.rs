//! `capture` on arbitrary bytes for each kind of path the sync reads: never a panic,
//! and the payload's diagnostics stay bounded.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neuralis_layout::capture;

const PATHS: [&str; 5] = [
    "skills/a/SKILL.md",
    ".cursor/rules/x.mdc",
    "package.json",
    "plugins/p/.claude-plugin/plugin.json",
    "AGENTS.md",
];

fuzz_target!(|data: &[u8]| {
    for path in PATHS {
        let payload = capture(path, Some(data));
        assert!(payload.diagnostics.len() <= neuralis_layout::diagnostic::MAX_DIAGNOSTICS_PER_FILE);
    }
});
