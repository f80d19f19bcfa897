//! Package roots: which directories anchor a package, by the five precedence rules
//! (seed 000, "How files group into packages"; DESIGN.md section 4, "Roots, precisely").
//! The strongest matching rule wins for a directory; roots are decided shallowest
//! first, so a directory knows the root that encloses it.

use crate::layout::{GroupOptions, RootRule, SourceForm};
use crate::manifest::{ManifestFacts, ManifestKind, anchored_dir};
use crate::path_order::sort_by_bytes;
use crate::path_set::{PathHashing, PathSet};
use crate::rows::Row;
use crate::vocabulary::{
    SKILL_FILE, basename, category_folder, is_marker, is_never_contribution_dir, is_reserved_dir,
    segments, split_parent,
};

/// An accepted package root.
#[derive(Debug, Clone)]
pub(crate) struct Root<'a> {
    pub dir: &'a str,
    pub rule: RootRule,
    pub name: String,
}

impl Root<'_> {
    /// The rule-5 source root binds only a restricted set of files.
    pub fn restricted(&self) -> bool {
        self.rule == RootRule::SourceRoot
    }
}

/// What the files of a tree say about one directory.
#[derive(Default)]
struct Signals<'a> {
    manifest: Option<(u8, &'a str, &'a ManifestFacts)>,
    holds_category_folder: bool,
    holds_skill: bool,
}

/// What one pass over the sorted rows learns about their folders: each path is split
/// once, and a folder's segments are read once per run of its files.
pub(crate) struct Folders<'a> {
    /// The directories holding a `SKILL.md`, except under `template(s)/` or
    /// `workflows/`: nothing there is a contribution (seed 000: "anything under
    /// template(s)/ directories ... excluded from the contribution categories"), a skill
    /// folder included.
    pub skills: PathSet<'a>,
    /// What the files say about each directory, keyed `dir/` ("" for the source root)
    /// in key order, which puts every directory after its ancestors and the
    /// directories below one root right after it.
    signals: Vec<(&'a str, Signals<'a>)>,
    /// Where each run of consecutive rows in one folder starts: the rows of a run bind
    /// to the same root.
    pub runs: Vec<usize>,
}

/// Decides the package roots of a tree. The first root is always the source root "".
pub(crate) fn detect<'a>(folders: &Folders<'a>, options: &GroupOptions) -> Vec<Root<'a>> {
    let signals = &folders.signals;
    let top = signals
        .first()
        .filter(|(key, _)| key.is_empty())
        .map(|(_, signal)| signal);
    let top_manifest = top.and_then(|s| s.manifest);
    let source_root = match (options.form, top_manifest) {
        (SourceForm::Installed { .. }, manifest) => Root {
            dir: "",
            rule: RootRule::Manifest,
            name: manifest_name(manifest).unwrap_or_else(|| options.source_name.clone()),
        },
        (SourceForm::Synced, Some(manifest)) => Root {
            dir: "",
            rule: RootRule::Manifest,
            name: manifest_name(Some(manifest)).unwrap_or_else(|| options.source_name.clone()),
        },
        (SourceForm::Synced, None) => Root {
            dir: "",
            rule: RootRule::SourceRoot,
            name: options.source_name.clone(),
        },
    };
    let mut roots = vec![source_root];
    if matches!(options.form, SourceForm::Installed { .. }) {
        return roots;
    }
    // In key order, the accepted roots whose keys prefix the current key are exactly
    // those enclosing it (binding.rs says why): a stack of them names the parent.
    let mut enclosing: Vec<(&str, usize)> = vec![("", 0)];
    for (key, signal) in signals.iter().filter(|(key, _)| !key.is_empty()) {
        while enclosing
            .last()
            .is_some_and(|(top, _)| !key.starts_with(top))
        {
            enclosing.pop();
        }
        let parent = &roots[enclosing.last().map_or(0, |&(_, index)| index)];
        let dir = &key[..key.len() - 1];
        if let Some(rule) = decide(dir, signal, parent, &folders.skills) {
            let name = match rule {
                RootRule::Manifest => manifest_name(signal.manifest),
                _ => None,
            }
            .unwrap_or_else(|| basename(dir).to_owned());
            enclosing.push((key, roots.len()));
            roots.push(Root { dir, rule, name });
        }
    }
    roots
}

/// Reads the folders of `files`, which must be sorted by path.
pub(crate) fn scan<'a>(files: &[Row<'a>]) -> Folders<'a> {
    let (mut skills, mut runs) = (Vec::new(), Vec::new());
    let mut events = Vec::with_capacity(files.len() / 2);
    let mut previous_dir: Option<&str> = None;
    for (index, row) in files.iter().enumerate() {
        let path = row.path;
        let dir = row.dir();
        // A folder's segments are read for the first file of its run, and only those
        // past the folders it shares with the previous run's folder (their signals were
        // recorded when that folder was read).
        let unread = match previous_dir {
            Some(previous) => first_unshared_segment(previous, dir),
            None => Some(0),
        };
        if let Some(unread) = unread {
            runs.push(index);
            previous_dir = Some(dir);
            folder_signals(path, unread, dir.len(), &mut events);
        }
        if row.is_skill_entry() {
            events.push((key_of(path, dir), Signal::HoldsSkill));
            if !segments(dir).any(is_never_contribution_dir) {
                skills.push(dir);
            }
        }
        if let Some(facts) = row.manifest() {
            let anchor = anchored_dir(path, facts.kind);
            let manifest = (manifest_rank(facts.kind), path, facts);
            events.push((key_of(path, anchor), Signal::Manifest(manifest)));
        }
    }
    // Built at its final size: growing it rehashed every folder several times.
    let mut set = PathSet::with_capacity_and_hasher(skills.len(), PathHashing::default());
    set.extend(skills);
    Folders {
        skills: set,
        signals: merge_signals(events),
        runs,
    }
}

/// One thing a file says about a directory.
#[derive(Clone, Copy)]
enum Signal<'a> {
    Marker,
    HoldsCategoryFolder,
    HoldsSkill,
    Manifest((u8, &'a str, &'a ManifestFacts)),
}

/// The signals of the folder segments of `path` from byte `unread` to `dir_len`. A new
/// kind of signal here must be added to [`path_signals`] too: the sync leaves out of
/// its move predicate every file that answers false there
/// (`roots_do_not_depend_on_files_whose_path_signals_nothing` checks the two agree).
fn folder_signals<'a>(
    path: &'a str,
    unread: usize,
    dir_len: usize,
    events: &mut Vec<(&'a str, Signal<'a>)>,
) {
    let bytes = path.as_bytes();
    let mut start = unread;
    while start < dir_len {
        let slash = bytes[start..dir_len]
            .iter()
            .position(|b| *b == b'/')
            .map_or(dir_len, |at| start + at);
        let segment = &path[start..slash];
        if is_marker(segment) {
            events.push((&path[..=slash], Signal::Marker));
        }
        if category_folder(segment).is_some() {
            events.push((&path[..start], Signal::HoldsCategoryFolder));
        }
        start = slash + 1;
    }
}

/// Whether [`scan`] records anything for a file at `path` without a usable manifest:
/// it does when the file is a `SKILL.md`, or when one of its folders is a marker or a
/// category folder ([`folder_signals`]); for any other such file it records nothing.
pub(crate) fn path_signals(path: &str) -> bool {
    let (dir, base) = split_parent(path);
    base == SKILL_FILE
        || segments(dir).any(|segment| is_marker(segment) || category_folder(segment).is_some())
}

/// The key `dir/` of `dir`, a folder of `path` ("" for the source root).
fn key_of<'a>(path: &'a str, dir: &str) -> &'a str {
    if dir.is_empty() {
        ""
    } else {
        &path[..=dir.len()]
    }
}

/// Sorts the signals by key and folds those of one directory together.
fn merge_signals<'a>(mut events: Vec<(&'a str, Signal<'a>)>) -> Vec<(&'a str, Signals<'a>)> {
    // Repeated keys are expected here (folded below).
    let _ = sort_by_bytes(&mut events, |(key, _)| key.as_bytes());
    let mut signals: Vec<(&str, Signals<'_>)> = Vec::new();
    for (key, signal) in events {
        if signals.last().is_none_or(|(last, _)| *last != key) {
            signals.push((key, Signals::default()));
        }
        let Some((_, folder)) = signals.last_mut() else {
            continue;
        };
        match signal {
            Signal::Marker => {}
            Signal::HoldsCategoryFolder => folder.holds_category_folder = true,
            Signal::HoldsSkill => folder.holds_skill = true,
            Signal::Manifest(candidate) => {
                let slot = &mut folder.manifest;
                if slot.is_none_or(|(rank, p, _)| (candidate.0, candidate.1) < (rank, p)) {
                    *slot = Some(candidate);
                }
            }
        }
    }
    signals
}

/// Where the first folder segment of `dir` not shared with `previous` starts: the
/// byte offset just past their longest common run of whole segments (0 when they
/// share none, `dir.len() + 1` when `dir` is one of `previous`'s ancestors; `None`
/// when `dir` is `previous`, the same run).
fn first_unshared_segment(previous: &str, dir: &str) -> Option<usize> {
    let (a, b) = (previous.as_bytes(), dir.as_bytes());
    let common = common_prefix(a, b);
    if common == a.len() && common == b.len() {
        return None;
    }
    let boundary = |bytes: &[u8], i: usize| i == bytes.len() || bytes[i] == b'/';
    if common > 0 && boundary(a, common) && boundary(b, common) {
        return Some(common + 1);
    }
    Some(match b[..common].iter().rposition(|byte| *byte == b'/') {
        Some(slash) => slash + 1,
        None => 0,
    })
}

/// The length of the longest common prefix, eight bytes a step while they agree.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let word = |bytes: &[u8], at: usize| {
        bytes
            .get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map(u64::from_ne_bytes)
    };
    let mut at = 0;
    while let (Some(x), Some(y)) = (word(a, at), word(b, at)) {
        if x != y {
            break;
        }
        at += 8;
    }
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// When one directory holds several manifests, the most specific names the package.
fn manifest_rank(kind: ManifestKind) -> u8 {
    match kind {
        ManifestKind::NeuralisPackageJson => 0,
        ManifestKind::PackageJson => 1,
        ManifestKind::GeminiExtension => 2,
        ManifestKind::Plugin => 3,
    }
}

/// A manifest package is named by its declared id, then its declared name.
fn manifest_name(manifest: Option<(u8, &str, &ManifestFacts)>) -> Option<String> {
    let (_, _, facts) = manifest?;
    facts.id.clone().or_else(|| facts.name.clone())
}

/// The index of the deepest accepted root strictly enclosing `dir`, or holding `path`:
/// the plain ancestor lookup the merge in binding.rs is checked against.
#[cfg(test)]
pub(crate) fn nearest_root(path: &str, by_dir: &std::collections::HashMap<&str, usize>) -> usize {
    use crate::vocabulary::split_parent;
    let mut dir = split_parent(path).0;
    loop {
        if let Some(index) = by_dir.get(dir) {
            return *index;
        }
        if dir.is_empty() {
            return 0;
        }
        dir = split_parent(dir).0;
    }
}

fn decide(
    dir: &str,
    signal: &Signals<'_>,
    parent: &Root<'_>,
    skills: &PathSet<'_>,
) -> Option<RootRule> {
    if segments(dir).any(is_never_contribution_dir) {
        return None;
    }
    let offset = if parent.dir.is_empty() {
        0
    } else {
        parent.dir.len() + 1
    };
    let relative = dir.get(offset..)?;
    if skill_folder_of(dir, parent, skills).is_some() {
        return None;
    }
    // Rule 1 is unconditional (issue 10): a usable manifest anchors its directory
    // whatever the directory is called, a category folder's name included
    // (`examples/skills/gemini-extension.json` beside `examples/hooks/`).
    if signal.manifest.is_some() {
        return Some(RootRule::Manifest);
    }
    if !relative.contains('/') && category_folder(relative).is_some() {
        return None;
    }
    if is_marker(basename(dir)) {
        Some(RootRule::Marker)
    } else if signal.holds_category_folder {
        Some(RootRule::Category)
    } else if signal.holds_skill && parent.restricted() {
        // "a free-standing SKILL.md folder enclosed by no other root"
        Some(RootRule::BareSkill)
    } else {
        None
    }
}

/// The skill folder of `root` that `path` (a file or directory inside the root) sits
/// at or below, if any: `skills/<name>/` holding a SKILL.md, or `<subdir>/` holding a
/// SKILL.md directly under a root that is not the restricted source root. A skill's
/// directory is its scope: below it, no root forms and nothing else is a contribution.
pub(crate) fn skill_folder_of<'p>(
    path: &'p str,
    root: &Root<'_>,
    skills: &PathSet<'_>,
) -> Option<&'p str> {
    let offset = if root.dir.is_empty() {
        0
    } else {
        root.dir.len() + 1
    };
    let relative = path.get(offset..)?;
    let mut parts = segments(relative);
    let first = parts.next()?;
    let len = if first == "skills" {
        offset + first.len() + 1 + parts.next()?.len()
    } else if !root.restricted() && !is_reserved_dir(first) {
        offset + first.len()
    } else {
        return None;
    };
    let folder = path.get(..len)?;
    skills.contains(folder).then_some(folder)
}

#[cfg(test)]
mod signal_scan_tests {
    use super::*;

    /// Signals are read once per folder segment: a new folder resumes past the whole
    /// segments it shares with the previous folder, never inside a segment.
    #[test]
    fn a_new_folder_is_read_from_its_first_segment_not_shared_with_the_previous() {
        assert_eq!(first_unshared_segment("a/b", "a/b"), None);
        assert_eq!(first_unshared_segment("", ""), None);
        for (previous, dir, start) in [
            ("", "a", 0),
            ("packages/p0001/skills", "packages/p0001/skills/s0", 22),
            ("packages/p0001/skillz/x", "packages/p0001/skills/s0", 15),
            ("a", "", 0),
            ("a/b", "a/c", 2),
            ("a/b/c", "a/b", 4),
            ("a/b", "a/b/c", 4),
            ("ab/c", "ab-d/e", 0),
            ("a/b-c", "a/b/d", 2),
            ("x", "y/z", 0),
        ] {
            assert_eq!(
                first_unshared_segment(previous, dir),
                Some(start),
                "{previous:?} -> {dir:?}"
            );
        }
    }
}
