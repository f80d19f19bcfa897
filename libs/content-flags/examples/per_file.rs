//! The bench's four steps as one process each, for instruction counts under callgrind
//! (repeatable on a loaded machine, unlike wall time):
//!
//! `valgrind --tool=callgrind target/release/examples/per_file STEP 100`, STEP one of
//! `read`, `detect`, `capture`, `capture+detect`; the corpus and steps are the bench's.

use neuralis_content_flags::detect;
use neuralis_sync_core::{ChunkLimits, chunk_text};
use sha2::{Digest, Sha256};
use std::hint::black_box;
use std::path::Path;

const PATH: &str = "skills/review/SKILL.md";

fn corpus() -> Vec<u8> {
    let section = "## Review a pull request\n\n\
        Read the diff with `git diff main...HEAD`, then check each file: naming, error \
        handling, tests. Quote the line — “like this” — and suggest a fix. Café, naïve, \
        日本語 and emoji 🚀 appear in real skills too.\n\n\
        ```sh\ncurl -o report.json https://ci.example/api/runs && jq .status report.json\n```\n\n\
        | step | command |\n| --- | --- |\n| lint | `cargo clippy` |\n\n";
    let mut out = String::from("---\nname: review\ndescription: Reviews code\n---\n");
    while out.len() < 64 * 1024 {
        out.push_str(section);
    }
    out.into_bytes()
}

/// The sync's per-file work on a content file, without the index write; with
/// `flags`, the detector on the same bytes as well.
fn capture(file: &Path, flags: bool) -> usize {
    let Ok(content) = std::fs::read(file) else {
        return 0;
    };
    let Ok(text) = std::str::from_utf8(&content) else {
        return 0;
    };
    let hash = Sha256::digest(&content);
    let payload = neuralis_layout::capture(PATH, Some(&content));
    let chunks = chunk_text(text, true, ChunkLimits::default());
    let found = if flags {
        detect(PATH, &content).len()
    } else {
        0
    };
    usize::from(hash[0]) + payload.diagnostics.len() + chunks.len() + found
}

fn main() {
    let mut args = std::env::args().skip(1);
    let step = args.next().unwrap_or_default();
    let times: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(100);
    let bytes = corpus();
    let file = std::env::temp_dir().join(format!("content-flags-{}.md", std::process::id()));
    if std::fs::write(&file, &bytes).is_err() {
        return;
    }
    let mut total = 0;
    for _ in 0..times {
        total += match step.as_str() {
            "read" => std::fs::read(black_box(&file)).map_or(0, |v| v.len()),
            "detect" => detect(black_box(PATH), black_box(&bytes)).len(),
            "capture" => capture(black_box(&file), false),
            "capture+detect" => capture(black_box(&file), true),
            _ => 0,
        };
    }
    let _ = std::fs::remove_file(&file);
    println!("{step} x{times}: {total}");
}
