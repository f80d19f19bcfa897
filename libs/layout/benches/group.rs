//! Classifying and grouping 100,000 synthetic paths, next to a baseline measured in the
//! same run: sorting the same paths. `BENCHMARKS.md` records the ratio.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use neuralis_layout::{GroupOptions, IndexedFile, capture, group, needs_content};

const PATHS: usize = 100_000;

/// A monorepo-shaped tree: packages with manifests, marker folders, skills with
/// bundles, category folders, and a majority of ordinary source files.
fn synthetic_paths() -> Vec<String> {
    let mut paths = Vec::with_capacity(PATHS);
    let mut package = 0usize;
    while paths.len() < PATHS {
        let root = format!("packages/p{package:04}");
        paths.push(format!("{root}/package.json"));
        paths.push(format!("{root}/README.md"));
        paths.push(format!("{root}/.claude/rules/style.md"));
        paths.push(format!("{root}/.claude/settings.json"));
        for skill in 0..3 {
            paths.push(format!("{root}/skills/s{skill}/SKILL.md"));
            paths.push(format!("{root}/skills/s{skill}/scripts/run.sh"));
            paths.push(format!("{root}/skills/s{skill}/references/notes.md"));
        }
        paths.push(format!("{root}/docs/guide.md"));
        paths.push(format!("{root}/agents/helper.md"));
        for file in 0..20 {
            paths.push(format!("{root}/src/module{}/file{file}.rs", file % 4));
        }
        paths.push(format!("{root}/notes/plan.md"));
        package += 1;
    }
    paths.truncate(PATHS);
    paths
}

fn content_for(path: &str, index: usize) -> &'static str {
    if path.ends_with("package.json") {
        if index.is_multiple_of(3) {
            r#"{"name": "app"}"#
        } else {
            r#"{"name": "p", "neuralis": {}}"#
        }
    } else if path.ends_with("style.md") {
        "---\ndescription: style\nglobs: **/*\n---\nBe terse.\n"
    } else {
        "---\nname: x\ndescription: a file\n---\nbody\n"
    }
}

fn rows(paths: &[String]) -> Vec<IndexedFile> {
    paths
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let content = needs_content(path).then(|| content_for(path, i).as_bytes());
            IndexedFile {
                path: path.clone(),
                payload: capture(path, content),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut paths = synthetic_paths();
    // Shuffle deterministically, so both the baseline and grouping get unsorted input.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for i in (1..paths.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        paths.swap(i, (state % (i as u64 + 1)) as usize);
    }
    let rows = rows(&paths);
    let options = GroupOptions::synced("bench");
    let mut group_bench = c.benchmark_group("layout_100k");
    group_bench.sample_size(20);
    // Both timings cover the operation alone, on the same 100,000 shuffled paths: the
    // sort's input clone is made before its timing (`iter_batched`) and the sorted
    // vector is dropped after it; grouping reads its rows in place, and the `Layout`
    // is likewise dropped after the timing (the same `iter_batched`, one call per
    // timing), so neither side pays for freeing its output.
    group_bench.bench_function("baseline_sort_paths", |b| {
        b.iter_batched(
            || paths.clone(),
            |mut p| {
                p.sort();
                black_box(p)
            },
            BatchSize::LargeInput,
        )
    });
    group_bench.bench_function("classify_and_group", |b| {
        b.iter_batched(
            || (),
            |()| group(black_box(&rows), &options),
            BatchSize::LargeInput,
        )
    });
    group_bench.finish();
    let layout = group(&rows, &options);
    eprintln!(
        "grouped {} paths into {} packages, {} unloaded",
        rows.len(),
        layout.packages.len(),
        layout.unloaded.len()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
