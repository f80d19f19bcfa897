//! The `group` benches' input: 100,000 monorepo-shaped paths, shuffled, and their
//! index rows with payloads captured as a sync captures them. Shared by `group.rs`
//! (criterion, wall clock) and `group_cpu.rs` (on-CPU time).

use neuralis_layout::{IndexedFile, capture, needs_content};

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

pub fn rows(paths: &[String]) -> Vec<IndexedFile> {
    paths
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let content = needs_content(path).then(|| content_for(path, i).as_bytes());
            IndexedFile::new(path.clone(), capture(path, content))
        })
        .collect()
}

/// The synthetic paths in a fixed pseudo-random order: both the baseline and
/// grouping get the same unsorted input.
pub fn shuffled_paths() -> Vec<String> {
    let mut paths = synthetic_paths();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for i in (1..paths.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        paths.swap(i, (state % (i as u64 + 1)) as usize);
    }
    paths
}
