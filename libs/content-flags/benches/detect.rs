//! Detector throughput against reading the same bytes from a file (the page cache; what
//! a sync does for every content file anyway), in one run. The corpus is a realistic
//! 64 KiB skill body with no flag in it, so every check scans to the end (worst case).
//!
//! `cargo bench -p neuralis-content-flags --bench detect`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neuralis_content_flags::detect;
use std::hint::black_box;

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

fn content_flags(c: &mut Criterion) {
    let bytes = corpus();
    assert!(detect("skills/review/SKILL.md", &bytes).is_empty());
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
        b.iter(|| detect(black_box("skills/review/SKILL.md"), black_box(&bytes)))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, content_flags);
criterion_main!(benches);
