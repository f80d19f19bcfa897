//! Detector cost against what a sync already does to every file it reads, in one run:
//! reading the bytes (the page cache), and the sync's whole per-file capture (read,
//! UTF-8 check, SHA-256, the layout core's payload capture, chunking, as
//! `services/sync/src/run/prepare.rs` does for a content file) with and without
//! `detect`. The corpus is a realistic 64 KiB skill body with no flag in it, so every
//! check scans to the end (the worst case).
//!
//! `cargo bench -p neuralis-content-flags --bench detect`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
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

fn content_flags(c: &mut Criterion) {
    let bytes = corpus();
    assert!(detect(PATH, &bytes).is_empty());
    let dir = std::env::temp_dir().join(format!("content-flags-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("SKILL.md");
    if std::fs::write(&file, &bytes).is_err() {
        return;
    }
    let mut group = c.benchmark_group("content flags");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("read the file (baseline)", |b| {
        b.iter(|| std::fs::read(black_box(&file)).map(|v| v.len()))
    });
    group.bench_function("detect", |b| {
        b.iter(|| detect(black_box(PATH), black_box(&bytes)))
    });
    group.bench_function("sync capture: read, hash, payload, chunks", |b| {
        b.iter(|| capture(black_box(&file), false))
    });
    group.bench_function("sync capture + detect", |b| {
        b.iter(|| capture(black_box(&file), true))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, content_flags);
criterion_main!(benches);
