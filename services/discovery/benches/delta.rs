//! One write applied to a held 100,000-file project (`ProjectSnapshot::apply`, what the
//! first call after a sync's finish does), on two shapes of the same size: the load
//! generator's (1,000 folders of 100 files outside every package) and a tree of small
//! folders like the demo's (49,800 folders of 2). Baseline in the same run: applying a
//! delta that changes nothing. `BENCHMARKS.md` records the ratios.
//!
//!     cargo bench -p neuralis-discovery --bench delta
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use neuralis_discovery::inventory::ProjectSnapshot;
use neuralis_discovery::ports::{IndexRow, ProjectDelta};
use support::{project, row, skill, sources};

mod support;

fn delta(rows: Vec<IndexRow>) -> ProjectDelta {
    ProjectDelta {
        revision: 2,
        rows,
        removed: Vec::new(),
    }
}

fn bench(c: &mut Criterion) {
    let sources = sources();
    let writes = [
        ("nothing (baseline)", delta(Vec::new())),
        (
            "a file outside every package",
            delta(vec![row("src/m7/f0.rs".into(), "fn g() {}\n")]),
        ),
        (
            "a skill inside a package",
            delta(vec![row(
                "tools/t0/skills/new/SKILL.md".into(),
                &skill("new"),
            )]),
        ),
        (
            "a new package",
            delta(vec![row("tools/n0/skills/s/SKILL.md".into(), &skill("n0"))]),
        ),
    ];
    for (shape, per_folder) in [("1000 folders of 100", 100), ("49800 folders of 2", 2)] {
        let held = ProjectSnapshot::build(project(per_folder), &sources);
        let mut group = c.benchmark_group(format!("apply one write, 100k files in {shape}"));
        for (write, delta) in &writes {
            // The snapshot it makes is dropped after the timing: the inventory drops
            // the one it replaces off the request path.
            group.bench_function(*write, |b| {
                b.iter_with_large_drop(|| held.apply(black_box(delta.clone()), &sources))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
