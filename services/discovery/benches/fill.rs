//! Discovery's side of a cold fill of a 100,000-file project: every row put into a
//! `Filing` as the read brings it, then grouped (`Filing::snapshot`), on the two shapes
//! of `delta`'s project. What the store and the feed cost is `discovery-load`'s to
//! measure; this is what discovery adds, most of it after the last row came (the
//! profile in `BENCHMARKS.md`, issue 31 round 13). Baseline in the same run: the same
//! rows moved into one vector, the least any holder of them does.
//!
//!     cargo bench -p neuralis-discovery --bench fill
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use neuralis_discovery::inventory::Filing;
use neuralis_discovery::ports::{IndexRow, RowSink};
use support::{SOURCE, project, sources};

mod support;

fn bench(c: &mut Criterion) {
    let sources = sources();
    for (shape, per_folder) in [("1000 folders of 100", 100), ("49800 folders of 2", 2)] {
        let rows = project(per_folder).rows;
        let mut group = c.benchmark_group(format!("cold fill, 100k files in {shape}"));
        group.sample_size(20);
        group.bench_function("the rows moved into one vector (baseline)", |b| {
            b.iter_batched(
                || rows.clone(),
                |rows| {
                    let mut held: Vec<IndexRow> = Vec::with_capacity(rows.len());
                    for row in rows {
                        held.push(black_box(row));
                    }
                    held
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_function("filed as they come, then grouped", |b| {
            b.iter_batched(
                || rows.clone(),
                |rows| {
                    let mut filing = Filing::default();
                    for row in rows {
                        filing.put(SOURCE, black_box(row));
                    }
                    filing.snapshot(1, &sources)
                },
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
