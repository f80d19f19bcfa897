//! The floor under `neuralis inspect`: the least kernel work each way of reading the
//! sync bench's tree costs, timed on the same tree in the same run, on one thread, with
//! nothing done in user space but the walk itself:
//!
//! - `list`: open every directory relative to its parent, read its entries, close it;
//! - `list + stat`: that and one `statx` per file, the least a sync's listing does
//!   (every file's size, so that every oversized file is reported) and so the least
//!   `neuralis inspect` does, since it prints what a sync would yield;
//! - `list + read`: that and open, read to the end and close every file, ripgrep's
//!   kernel work when it reads every file.
//!
//! `list + stat` / `list + read` is the best `inspect` / `rg -uuu` can be while inspect
//! reports what a sync reports (issue 31 asked for ≤ 0.5×; docs/decisions/layout.md,
//! "Inspect's floor"). `rg -uuu --threads 1` runs beside them, on one thread as they
//! do, so `list + stat` / rg is that floor against ripgrep with its own user-space
//! work, and `list + read` / rg how much of ripgrep's time its kernel work is.
//!
//! `cargo bench -p neuralis --bench inspect_floor`. Settings, from the environment:
//! `NEURALIS_BENCH_FILES` (100,000), `NEURALIS_BENCH_ROUNDS` (7), `NEURALIS_BENCH_TREE`
//! (a folder to keep the tree in between runs, generated when missing).
#![allow(clippy::unwrap_used)]

#[allow(dead_code)]
#[path = "../../sync/benches/sync_tree/baseline.rs"]
mod baseline;
#[path = "../../sync/benches/sync_tree/tree.rs"]
mod tree;

use std::ffi::CString;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir, StatxFlags};

/// ext4's position after a directory's last entry: reading stops there, as the
/// connector's walk does, instead of asking once more for an empty answer.
const END_OF_DIRECTORY: u64 = i64::MAX as u64;

#[derive(Clone, Copy, Debug)]
enum Work {
    List,
    Stat,
    Read,
}

const WORKS: [Work; 3] = [Work::List, Work::Stat, Work::Read];

fn main() {
    // `cargo test --all-targets` runs this target too: a smoke test on a small tree.
    let tree::Settings { files, rounds } = tree::Settings::from_env(7);
    let tree = tree::Tree::at(std::env::var_os("NEURALIS_BENCH_TREE"), files);
    let ripgrep = baseline::ripgrep_installed();
    println!(
        "tree: {files} files, {} markdown contributions; load average {}",
        tree::markdown_files(files),
        load_average()
    );
    // Warm up: the tree may just have been written.
    for work in WORKS {
        let (_, counted) = walk_tree(tree.path(), work);
        assert_eq!(counted, files, "{work:?} found every file");
    }
    println!();
    println!(
        "| round | list | list + stat | list + read | rg -uuu, one thread | stat / read | list / read | stat / rg |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let (mut stat_ratios, mut list_ratios, mut rg_ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        // Rotate the order, so that no way always follows another.
        let mut times = [Duration::ZERO; 3];
        for step in 0..WORKS.len() {
            let which = (round + step) % WORKS.len();
            times[which] = walk_tree(tree.path(), WORKS[which]).0;
        }
        let rg = ripgrep.then(|| ripgrep_one_thread(tree.path()));
        let [list, stat, read] = times.map(|time| time.as_secs_f64());
        stat_ratios.push(stat / read);
        list_ratios.push(list / read);
        rg_ratios.extend(rg.map(|rg| stat / rg));
        println!(
            "| {} | {list:.3} s | {stat:.3} s | {read:.3} s | {} | {:.2}× | {:.2}× | {} |",
            round + 1,
            rg.map_or("-".into(), |rg| format!("{rg:.3} s")),
            stat / read,
            list / read,
            rg.map_or("-".into(), |rg| format!("{:.2}×", stat / rg)),
        );
    }
    println!();
    println!(
        "medians over {rounds} rounds: list + stat / list + read {:.2}×, list / list + read {:.2}×, list + stat / rg {}; load average after: {}",
        median(stat_ratios),
        median(list_ratios),
        if rg_ratios.is_empty() {
            "-".into()
        } else {
            format!("{:.2}×", median(rg_ratios))
        },
        load_average()
    );
}

/// Walks `root` doing `work`; the time it took and the regular files it found.
fn walk_tree(root: &Path, work: Work) -> (Duration, usize) {
    let mut listing = vec![MaybeUninit::uninit(); 32 * 1024];
    let mut data = vec![0u8; 64 * 1024];
    let started = Instant::now();
    let open = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let root = rustix::fs::open(root, open, Mode::empty()).expect("open the tree");
    let files = walk(&root, work, &mut listing, &mut data);
    drop(root);
    (started.elapsed(), files)
}

/// `rg -uuu` on one thread reading every file of `root` for text it never finds.
fn ripgrep_one_thread(root: &Path) -> f64 {
    let started = Instant::now();
    let status = Command::new("rg")
        .args(["-uuu", "--threads", "1", "--count", "--no-messages"])
        .arg("neuralis-bench-text-that-occurs-nowhere")
        .arg(root)
        .stdout(Stdio::null())
        .status()
        .expect("rg");
    // 1 is "no match": anything else means rg did not read every file.
    assert_eq!(status.code(), Some(1), "rg read every file");
    started.elapsed().as_secs_f64()
}

/// Walks the open directory `dir` and every directory below it.
fn walk(dir: &OwnedFd, work: Work, listing: &mut [MaybeUninit<u8>], data: &mut [u8]) -> usize {
    let entries = entries(dir, listing);
    let mut files = 0;
    for (name, file_type) in entries {
        match file_type {
            FileType::Directory => {
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let child = rustix::fs::openat(dir, &name, flags, Mode::empty()).expect("open");
                files += walk(&child, work, listing, data);
            }
            FileType::RegularFile => {
                files += 1;
                visit(dir, &name, work, data);
            }
            _ => {}
        }
    }
    files
}

/// A directory's entries but `.` and `..`, read to its end.
fn entries(dir: &OwnedFd, listing: &mut [MaybeUninit<u8>]) -> Vec<(CString, FileType)> {
    let mut entries = Vec::new();
    let mut raw = RawDir::new(dir, listing);
    while let Some(entry) = raw.next() {
        let entry = entry.expect("getdents64");
        let name = entry.file_name();
        if !matches!(name.to_bytes(), b"." | b"..") {
            entries.push((name.to_owned(), entry.file_type()));
        }
        if entry.next_entry_cookie() == END_OF_DIRECTORY && raw.is_buffer_empty() {
            break;
        }
    }
    entries
}

/// What each way does with one regular file.
fn visit(dir: &OwnedFd, name: &CString, work: Work, data: &mut [u8]) {
    match work {
        Work::List => {}
        Work::Stat => {
            let flags = AtFlags::SYMLINK_NOFOLLOW;
            let status = rustix::fs::statx(dir, name, flags, StatxFlags::BASIC_STATS);
            std::hint::black_box(status.expect("statx").stx_size);
        }
        Work::Read => {
            let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let file = rustix::fs::openat(dir, name, flags, Mode::empty()).expect("open");
            while rustix::io::read(file.as_fd(), &mut *data).expect("read") > 0 {}
        }
    }
}

fn median(mut ratios: Vec<f64>) -> f64 {
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
