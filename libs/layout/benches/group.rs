//! Classifying and grouping 100,000 synthetic paths, next to a baseline measured in the
//! same run: sorting the same paths. `BENCHMARKS.md` records the ratio.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use neuralis_layout::{GroupOptions, group};

#[path = "support/data.rs"]
mod data;

fn bench(c: &mut Criterion) {
    let paths = data::shuffled_paths();
    let rows = data::rows(&paths);
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
