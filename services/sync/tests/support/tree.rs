//! Source trees on disk.

use std::path::Path;

pub fn write(root: &Path, relative: &str, content: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

/// A repository with one `.claude` package (a skill and a rule), a doc outside every
/// package root, and some code.
pub fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        ".claude/skills/review/SKILL.md",
        "---\nname: review\ndescription: Reviews code\n---\n# Review\nLook at the diff.\n",
    );
    write(
        root,
        ".claude/rules/style.md",
        "---\nname: style\n---\nUse rustfmt.\n",
    );
    write(
        root,
        "notes/design.md",
        "# Design\nThe deploy pipeline runs nightly.\n",
    );
    write(root, "src/main.rs", "fn main() {}\n");
    dir
}
