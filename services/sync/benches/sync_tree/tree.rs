//! The synthetic tree: code and data files in many folders, and packages whose skills,
//! rules and docs make up about 3 % of the files. Deterministic.

use std::path::{Path, PathBuf};

/// Where the tree is: a temporary folder, or one kept between runs.
pub enum Tree {
    Temporary(tempfile::TempDir),
    Kept(PathBuf),
}

impl Tree {
    /// The tree of `files` files in `kept` (generated there when the folder does not
    /// exist yet), or in a fresh temporary folder.
    pub fn at(kept: Option<std::ffi::OsString>, files: usize) -> Self {
        match kept {
            Some(folder) => {
                let folder = PathBuf::from(folder);
                if !folder.exists() {
                    generate(&folder, files);
                }
                Tree::Kept(folder)
            }
            None => {
                let folder = tempfile::tempdir().expect("tempdir");
                generate(folder.path(), files);
                Tree::Temporary(folder)
            }
        }
    }

    pub fn path(&self) -> &Path {
        match self {
            Tree::Temporary(folder) => folder.path(),
            Tree::Kept(folder) => folder,
        }
    }
}

/// How a tree bench runs, from its arguments and the environment: benching under
/// `cargo bench` (which passes `--bench`); otherwise `cargo test --all-targets` is
/// running the target as a smoke test on a small tree.
pub struct Settings {
    /// `NEURALIS_BENCH_FILES`: 100,000 when benching, else 2,000.
    pub files: usize,
    /// `NEURALIS_BENCH_ROUNDS`: `rounds` when benching, else 1.
    pub rounds: usize,
}

impl Settings {
    pub fn from_env(rounds: usize) -> Self {
        let benching = std::env::args().any(|arg| arg == "--bench");
        let setting = |name: &str, default: usize| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        Settings {
            files: setting(
                "NEURALIS_BENCH_FILES",
                if benching { 100_000 } else { 2_000 },
            ),
            rounds: setting("NEURALIS_BENCH_ROUNDS", if benching { rounds } else { 1 }),
        }
    }
}

/// How many of the first `files` files are markdown contributions.
pub fn markdown_files(files: usize) -> usize {
    files.div_ceil(33)
}

/// Writes `files` files under `root`.
fn generate(root: &Path, files: usize) {
    for n in 0..files {
        let (path, content) = if n % 33 == 0 {
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
