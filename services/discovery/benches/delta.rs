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
use neuralis_access::{Scope, SourceScope};
use neuralis_discovery::inventory::ProjectSnapshot;
use neuralis_discovery::ports::{IndexRow, ProjectDelta, ProjectRows, SourceInfo};

const SOURCE: &str = "p/repo.00000000000000aa";
const FILES: usize = 100_000;

fn sources() -> Vec<SourceInfo> {
    vec![SourceInfo {
        id: SOURCE.into(),
        slug: "repo".into(),
        scope: SourceScope {
            scope: Scope::Project,
            owner: "p".into(),
        },
        root_uri: "file:///srv/repo".into(),
        local_root: None,
        privacy_patterns: Vec::new(),
        data_tree: false,
        recognizes_packages: false,
    }]
}

fn row(path: String, body: &str) -> IndexRow {
    IndexRow {
        source_id: SOURCE.into(),
        payload: neuralis_layout::capture(&path, Some(body.as_bytes())),
        path,
        size: body.len() as u64,
        real_path: None,
        content_flags: Default::default(),
        fingerprint: 1,
    }
}

fn skill(name: &str) -> String {
    format!("---\nname: {name}\ndescription: does {name}\n---\nDo it.\n")
}

/// 100 tool packages of 4 files, then plain files in folders of `per_folder`.
fn project(per_folder: usize) -> ProjectRows {
    let mut rows = Vec::with_capacity(FILES);
    for i in 0..100 {
        for k in 0..2 {
            rows.push(row(
                format!("tools/t{i}/skills/s{k}/SKILL.md"),
                &skill(&format!("t{i}-s{k}")),
            ));
        }
        rows.push(row(format!("tools/t{i}/rules/r.md"), "---\nname: r\n---\n"));
        rows.push(row(format!("tools/t{i}/docs/d.md"), "---\nname: d\n---\n"));
    }
    let plain = FILES - rows.len();
    for n in 0..plain {
        let (folder, file) = (n / per_folder, n % per_folder);
        rows.push(row(format!("src/m{folder}/f{file}.rs"), "fn f() {}\n"));
    }
    rows.sort_by(|a, b| a.path.cmp(&b.path));
    ProjectRows { revision: 1, rows }
}

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
