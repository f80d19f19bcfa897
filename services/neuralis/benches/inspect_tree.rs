//! `neuralis inspect` of the sync bench's 100,000-file tree against ripgrep reading
//! every file of the same tree (`rg -uuu --count <text found nowhere>`), timed in the
//! same run, several rounds alternating, printing the ratio as markdown for
//! BENCHMARKS.md (goal: inspect ≤ 0.5× rg, issue 31; `inspect_floor` measures the
//! least it can be).
//!
//! `cargo bench -p neuralis --bench inspect_tree`. The tree generator and the rg
//! baseline are the sync bench's own files (`services/sync/benches/sync_tree/`), so
//! both benches measure the same tree. Settings, from the environment:
//! `NEURALIS_BENCH_FILES` (tree size, 100,000), `NEURALIS_BENCH_ROUNDS` (5),
//! `NEURALIS_BENCH_TREE` (a folder to keep the tree in between runs, generated when
//! missing). The inspected binary is this build's `neuralis` (release under `cargo
//! bench`); its output goes to /dev/null.
#![allow(clippy::unwrap_used)]

#[allow(dead_code)]
#[path = "../../sync/benches/sync_tree/baseline.rs"]
mod baseline;
#[path = "../../sync/benches/sync_tree/tree.rs"]
mod tree;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    // `cargo test --all-targets` runs this target too: a smoke test on a small tree.
    let tree::Settings { files, rounds } = tree::Settings::from_env(5);
    let tree = tree::Tree::at(std::env::var_os("NEURALIS_BENCH_TREE"), files);
    println!(
        "tree: {files} files, {} markdown contributions; load average {}",
        tree::markdown_files(files),
        load_average()
    );
    if !baseline::ripgrep_installed() {
        println!("ripgrep (rg) is not installed: nothing to compare with");
        // Still run inspect once, so the smoke test exercises it.
        inspect(tree.path());
        return;
    }
    // Warm up: the tree may just have been written; the first pass pays for that.
    let _ = baseline::ripgrep(tree.path());
    let _ = inspect(tree.path());
    println!();
    println!("| round | rg -uuu | neuralis inspect | inspect / rg |");
    println!("| --- | --- | --- | --- |");
    let mut ratios = Vec::new();
    for round in 1..=rounds {
        // Alternate which runs first, so neither always follows the other.
        let (rg, inspected) = if round % 2 == 1 {
            let rg = baseline::ripgrep(tree.path()).expect("rg");
            (rg, inspect(tree.path()))
        } else {
            let inspected = inspect(tree.path());
            (baseline::ripgrep(tree.path()).expect("rg"), inspected)
        };
        let ratio = inspected.as_secs_f64() / rg.as_secs_f64();
        ratios.push(ratio);
        println!(
            "| {round} | {:.3} s | {:.3} s | {ratio:.2}× |",
            rg.as_secs_f64(),
            inspected.as_secs_f64()
        );
    }
    ratios.sort_by(f64::total_cmp);
    println!();
    println!(
        "median inspect / rg: {:.3}× over {rounds} rounds; load average after: {}",
        ratios[ratios.len() / 2],
        load_average()
    );
}

/// Runs the release `neuralis inspect` on `root`, output to /dev/null.
fn inspect(root: &Path) -> Duration {
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .arg("inspect")
        .arg(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("neuralis inspect");
    let elapsed = started.elapsed();
    assert!(status.success(), "neuralis inspect failed: {status}");
    elapsed
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
