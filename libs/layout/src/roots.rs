//! Package roots: which directories anchor a package, by the five precedence rules
//! (seed 000, "How files group into packages"; DESIGN.md section 4, "Roots, precisely").
//! The strongest matching rule wins for a directory; roots are decided shallowest
//! first, so a directory knows the root that encloses it.

use std::collections::{HashMap, HashSet};

use crate::layout::{GroupOptions, IndexedFile, RootRule, SourceForm};
use crate::manifest::{ManifestFacts, ManifestKind, anchored_dir};
use crate::vocabulary::{
    SKILL_FILE, basename, category_folder, is_marker, is_never_contribution_dir, is_reserved_dir,
    split_parent,
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

/// The directories holding a `SKILL.md`, except under `template(s)/` or `workflows/`:
/// nothing there is a contribution (seed 000: "anything under template(s)/ directories
/// ... excluded from the contribution categories"), a skill folder included.
pub(crate) fn skill_dirs<'a>(files: &[&'a IndexedFile]) -> HashSet<&'a str> {
    files
        .iter()
        .filter_map(|f| {
            let (dir, base) = split_parent(&f.path);
            // The basename first: only skill entry files pay for the segment scan.
            (base == SKILL_FILE && !dir.split('/').any(is_never_contribution_dir)).then_some(dir)
        })
        .collect()
}

/// Decides the package roots of a tree. The first root is always the source root "".
pub(crate) fn detect<'a>(
    files: &[&'a IndexedFile],
    skills: &HashSet<&'a str>,
    options: &GroupOptions,
) -> Vec<Root<'a>> {
    let signals = collect_signals(files);
    let top = signals
        .first()
        .filter(|(dir, _)| dir.is_empty())
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
    let mut by_dir: HashMap<&str, usize> = HashMap::from([("", 0)]);
    // Sorted order puts every directory after its ancestors (a proper prefix sorts first).
    for (dir, signal) in signals.iter().filter(|(dir, _)| !dir.is_empty()) {
        let dir = *dir;
        let parent = &roots[nearest_root(dir, &by_dir)];
        if let Some(rule) = decide(dir, signal, parent, skills) {
            let name = match rule {
                RootRule::Manifest => manifest_name(signal.manifest),
                _ => None,
            }
            .unwrap_or_else(|| basename(dir).to_owned());
            by_dir.insert(dir, roots.len());
            roots.push(Root { dir, rule, name });
        }
    }
    roots
}

/// What the files say about each directory, ordered by directory. `files` must be
/// sorted by path. Collected in a hash map and sorted once at the end: a search tree
/// compared whole paths a dozen times per signal.
fn collect_signals<'a>(files: &[&'a IndexedFile]) -> Vec<(&'a str, Signals<'a>)> {
    let mut signals: HashMap<&str, Signals<'_>> = HashMap::new();
    let mut previous_dir: Option<&str> = None;
    for file in files {
        let path = file.path.as_str();
        let (dir, base) = split_parent(path);
        // Files are sorted: a folder's segments are read once, for its first file, and
        // only those past the folders it shares with the previous file's folder (their
        // signals were recorded when that folder was first read).
        let unread = match previous_dir {
            Some(previous) if previous == dir => path.len(),
            Some(previous) => first_unshared_segment(previous, dir),
            None => 0,
        };
        previous_dir = Some(dir);
        let mut start = unread;
        for (offset, _) in path[unread..].match_indices('/') {
            let slash = unread + offset;
            let segment = &path[start..slash];
            if is_marker(segment) {
                signals.entry(&path[..slash]).or_default();
            }
            if category_folder(segment).is_some() {
                let holder = if start == 0 { "" } else { &path[..start - 1] };
                signals.entry(holder).or_default().holds_category_folder = true;
            }
            start = slash + 1;
        }
        if base == SKILL_FILE {
            signals.entry(dir).or_default().holds_skill = true;
        }
        if let Some(facts) = file.payload.manifest.as_ref().filter(|m| m.usable) {
            let anchor = anchored_dir(path, facts.kind);
            let candidate = (manifest_rank(facts.kind), path, facts);
            let slot = &mut signals.entry(anchor).or_default().manifest;
            if slot.is_none_or(|(rank, p, _)| (candidate.0, candidate.1) < (rank, p)) {
                *slot = Some(candidate);
            }
        }
    }
    let mut signals: Vec<(&str, Signals<'_>)> = signals.into_iter().collect();
    signals.sort_unstable_by(|a, b| a.0.cmp(b.0));
    signals
}

/// Where the first folder segment of `dir` not shared with `previous` starts: the
/// byte offset just past their longest common run of whole segments (0 when they
/// share none, `dir.len() + 1` when `dir` is `previous` or one of its ancestors).
fn first_unshared_segment(previous: &str, dir: &str) -> usize {
    let (a, b) = (previous.as_bytes(), dir.as_bytes());
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let boundary = |bytes: &[u8], i: usize| i == bytes.len() || bytes[i] == b'/';
    if common > 0 && boundary(a, common) && boundary(b, common) {
        return common + 1;
    }
    match b[..common].iter().rposition(|byte| *byte == b'/') {
        Some(slash) => slash + 1,
        None => 0,
    }
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

/// The index of the deepest accepted root strictly enclosing `dir`, or holding `path`.
pub(crate) fn nearest_root(path: &str, by_dir: &HashMap<&str, usize>) -> usize {
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
    skills: &HashSet<&str>,
) -> Option<RootRule> {
    if dir.split('/').any(is_never_contribution_dir) {
        return None;
    }
    let offset = if parent.dir.is_empty() {
        0
    } else {
        parent.dir.len() + 1
    };
    let relative = dir.get(offset..)?;
    if !relative.contains('/') && category_folder(relative).is_some() {
        return None;
    }
    if skill_folder_of(dir, parent, skills).is_some() {
        return None;
    }
    if signal.manifest.is_some() {
        Some(RootRule::Manifest)
    } else if is_marker(basename(dir)) {
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
    skills: &HashSet<&str>,
) -> Option<&'p str> {
    let offset = if root.dir.is_empty() {
        0
    } else {
        root.dir.len() + 1
    };
    let relative = path.get(offset..)?;
    let mut parts = relative.splitn(3, '/');
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
        for (previous, dir, start) in [
            ("", "a", 0),
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
                start,
                "{previous:?} -> {dir:?}"
            );
        }
    }
}
