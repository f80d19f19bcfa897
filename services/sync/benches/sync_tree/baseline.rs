//! The baselines a sync is measured against, on the same tree in the same run: ripgrep
//! reading every file, and a plain parallel walk that stats every file and reads none.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Text that occurs in no file of the tree, so ripgrep must read every byte of every file.
const NEVER_FOUND: &str = "neuralis-bench-text-that-occurs-nowhere";

/// `rg -uuu` (no ignore files, hidden files, binary files too) searching every file of
/// `root` for text it never finds; `None` when ripgrep is not installed.
pub fn ripgrep(root: &Path) -> Option<Duration> {
    let started = Instant::now();
    let status = Command::new("rg")
        .args(["-uuu", "--count", "--no-messages", NEVER_FOUND])
        .arg(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    let elapsed = started.elapsed();
    // 1 is "no match", the expected answer; anything else means rg did not do the work.
    (status.code() == Some(1)).then_some(elapsed)
}

/// Whether `rg` can be run at all.
pub fn ripgrep_installed() -> bool {
    Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Lists and stats every file of `root` on two threads, reading nothing.
pub fn parallel_walk(root: &Path) -> Duration {
    let started = Instant::now();
    let tops: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("root")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let mut dirs: Vec<PathBuf> = tops
        .iter()
        .filter(|p| p.is_dir())
        .flat_map(|p| {
            std::fs::read_dir(p)
                .expect("dir")
                .filter_map(|e| e.ok().map(|e| e.path()))
        })
        .collect();
    let half = dirs.len() / 2;
    let second = dirs.split_off(half);
    let count = |dirs: Vec<PathBuf>| move || dirs.into_iter().map(|d| walk_dir(&d)).sum::<usize>();
    let other = std::thread::spawn(count(second));
    let files = count(dirs)() + other.join().expect("thread");
    std::hint::black_box(files);
    started.elapsed()
}

fn walk_dir(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return usize::from(std::fs::metadata(dir).is_ok());
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => walk_dir(&entry.path()),
            Ok(_) => 1,
            Err(_) => 0,
        })
        .sum()
}
