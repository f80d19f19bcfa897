//! The synthetic tree: code and data files in many folders, and packages whose skills,
//! rules and docs make up about 3 % of the files. Deterministic.

use std::path::{Path, PathBuf};

/// Writes `files` files under `root`; returns how many are markdown contributions.
pub fn generate(root: &Path, files: usize) -> usize {
    let mut markdown = 0;
    for n in 0..files {
        let (path, content) = if n % 33 == 0 {
            markdown += 1;
            contribution(n)
        } else {
            (
                PathBuf::from(format!("src/area{}/module{}/file{n}.rs", n % 50, n % 977)),
                code(n),
            )
        };
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }
    markdown
}

fn contribution(n: usize) -> (PathBuf, String) {
    let package = format!("packages/pkg{}", n % 40);
    match n % 3 {
        0 => (
            PathBuf::from(format!("{package}/skills/skill{n}/SKILL.md")),
            format!(
                "---\nname: skill{n}\ndescription: does thing {n}\n---\n# Skill {n}\n\nSteps.\n\n## Notes\n\nMore.\n"
            ),
        ),
        1 => (
            PathBuf::from(format!("{package}/rules/rule{n}.md")),
            format!("---\nname: rule{n}\n---\nAlways do {n}.\n"),
        ),
        _ => (
            PathBuf::from(format!("{package}/.claude/docs/doc{n}.md")),
            format!("---\ntitle: Doc {n}\n---\n# Doc\n\nText {n}.\n"),
        ),
    }
}

fn code(n: usize) -> String {
    format!("// file {n}\npub fn f{n}(x: u64) -> u64 {{\n    x.wrapping_mul({n})\n}}\n")
}
