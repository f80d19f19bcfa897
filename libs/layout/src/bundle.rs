//! Skill bundles: a skill's scope is its whole directory, enumerated into `files[]`
//! (seed 001, "Skill bundles — the directory is the scope"): dir-relative paths,
//! SKILL.md first, then `scripts/**`, `references/**`, `assets/**`, then the rest in
//! code-unit order, capped at 64 entries with the SKILL.md entry always kept.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::hash::BuildHasher;

use crate::vocabulary::{
    SKILL_FILE, category_folder, is_markdown, is_readme, segments, split_parent,
};

/// The most entries a bundle lists.
pub const MAX_BUNDLE_FILES: usize = 64;

/// Manifest and declaration files at a package root: package-meta, never in a root
/// skill's bundle (seed 001's directory contract names `hooks.json`; `mcp.json` is the
/// connectors' declaration, never loaded from a source either).
const ROOT_META_FILES: [&str; 5] = [
    "package.json",
    "neuralis.package.json",
    "gemini-extension.json",
    "hooks.json",
    "mcp.json",
];

/// The directory contract's reserved folders besides the category folders (seed 001,
/// "Directory contract"): never part of a root skill's bundle. (`dist/` is skipped in
/// every bundle.)
const CONTRACT_DIRS: [&str; 4] = ["tools", "workflows", "team", "src"];

/// Lists the bundle of the skill whose directory is `folder`.
///
/// `root_files` are the paths bound to the skill's package, sorted. `root_skill` is
/// set when the skill's directory is the package root: the category folders, the
/// other skill folders and the package-meta files are then left out (seed 001: "for a
/// root-SKILL.md package the reserved contribution folders and package-meta files are
/// excluded too").
pub fn bundle(
    folder: &str,
    root_files: &[&str],
    root_skill: bool,
    skills: &HashSet<&str>,
) -> Vec<String> {
    bundle_with(folder, root_files, root_skill, skills)
}

/// Whether `path` (relative to the source or package root, as `folder` is) lies in the
/// scope of the skill whose directory is `folder`: the files its bundle enumerates
/// before the cap (seed 001: the directory is the scope, `files[]` only advertises the
/// first 64). `root_skill` and `skills` as for [`bundle`].
pub fn in_bundle_scope<S: BuildHasher>(
    folder: &str,
    path: &str,
    root_skill: bool,
    skills: &HashSet<&str, S>,
) -> bool {
    let inside = folder.is_empty() || in_folder(path, folder);
    let Some(relative) = relative(path, folder).filter(|_| inside) else {
        return false;
    };
    let left_out = root_skill && excluded_from_root_skill(folder, relative, skills);
    !relative.is_empty() && !skipped(relative) && !left_out
}

/// [`bundle`] with the skill folders in a set of any hashing (grouping's is keyed
/// for speed, see `path_set.rs`).
pub(crate) fn bundle_with<S: BuildHasher>(
    folder: &str,
    root_files: &[&str],
    root_skill: bool,
    skills: &HashSet<&str, S>,
) -> Vec<String> {
    let members = members_of(folder, root_files);
    let mut listed: Vec<&str> = members
        .iter()
        .filter_map(|path| relative(path, folder))
        .filter(|relative| !skipped(relative))
        .filter(|relative| !root_skill || !excluded_from_root_skill(folder, relative, skills))
        .collect();
    listed.sort_by(|a, b| bundle_order(a, b));
    listed.truncate(MAX_BUNDLE_FILES);
    listed.into_iter().map(str::to_owned).collect()
}

/// The contiguous run of sorted paths under `folder/`.
fn members_of<'f, 'p>(folder: &str, root_files: &'f [&'p str]) -> &'f [&'p str] {
    if folder.is_empty() {
        return root_files;
    }
    let start = root_files.partition_point(|path| before_folder(path, folder));
    let len = root_files[start..].partition_point(|path| in_folder(path, folder));
    &root_files[start..start + len]
}

/// Whether `path` sorts before the prefix `folder/` (compared in place, no string built).
fn before_folder(path: &str, folder: &str) -> bool {
    let (path, folder) = (path.as_bytes(), folder.as_bytes());
    let shared = path.len().min(folder.len());
    match path[..shared].cmp(&folder[..shared]) {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => path.get(folder.len()).is_none_or(|byte| *byte < b'/'),
    }
}

/// Whether `path` starts with `folder/`.
fn in_folder(path: &str, folder: &str) -> bool {
    path.len() > folder.len() && path.as_bytes()[folder.len()] == b'/' && path.starts_with(folder)
}

fn relative<'p>(path: &'p str, folder: &str) -> Option<&'p str> {
    if folder.is_empty() {
        Some(path)
    } else {
        path.get(folder.len() + 1..)
    }
}

/// "Dotfiles and build directories (node_modules, .git, dist) are skipped."
fn skipped(relative: &str) -> bool {
    segments(relative)
        .any(|segment| segment.starts_with('.') || segment == "node_modules" || segment == "dist")
}

fn excluded_from_root_skill<S: BuildHasher>(
    folder: &str,
    relative: &str,
    skills: &HashSet<&str, S>,
) -> bool {
    let (parent, base) = split_parent(relative);
    if parent.is_empty() {
        // Root-level package-meta: loose markdown other than SKILL.md, manifests, READMEs.
        return base != SKILL_FILE
            && (is_markdown(base) || is_readme(base) || ROOT_META_FILES.contains(&base));
    }
    let first = segments(relative).next().unwrap_or_default();
    if category_folder(first).is_some() || CONTRACT_DIRS.contains(&first) {
        return true;
    }
    let sub = if folder.is_empty() {
        first.to_owned()
    } else {
        format!("{folder}/{first}")
    };
    skills.contains(sub.as_str())
}

fn rank(relative: &str) -> u8 {
    if relative == SKILL_FILE {
        0
    } else if relative.starts_with("scripts/") {
        1
    } else if relative.starts_with("references/") {
        2
    } else if relative.starts_with("assets/") {
        3
    } else {
        4
    }
}

/// SKILL.md, scripts, references, assets, the rest; code-unit (UTF-16) order within.
fn bundle_order(a: &str, b: &str) -> Ordering {
    rank(a).cmp(&rank(b)).then_with(|| code_unit_order(a, b))
}

/// Code-unit order, the order JavaScript's default sort gives (UTF-16 units), which
/// differs from byte order for characters beyond the Basic Multilingual Plane.
pub fn code_unit_order(a: &str, b: &str) -> Ordering {
    // Where the first differing bytes are both ASCII, the strings agree up to there in
    // both encodings and differ by those characters: byte order is code-unit order.
    let differ = a.bytes().zip(b.bytes()).position(|(x, y)| x != y);
    match differ {
        // One is a prefix of the other, in both encodings.
        None => a.len().cmp(&b.len()),
        Some(at) if a.as_bytes()[at].is_ascii() && b.as_bytes()[at].is_ascii() => {
            a.as_bytes()[at].cmp(&b.as_bytes()[at])
        }
        _ => a.encode_utf16().cmp(b.encode_utf16()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(folder: &str, files: &[&str], root_skill: bool, skills: &[&str]) -> Vec<String> {
        let mut sorted = files.to_vec();
        sorted.sort_unstable();
        bundle(
            folder,
            &sorted,
            root_skill,
            &skills.iter().copied().collect(),
        )
    }

    #[test]
    fn bundle_order_is_skill_md_scripts_references_assets_then_the_rest() {
        let files = [
            "skills/a/zeta.txt",
            "skills/a/assets/logo.png",
            "skills/a/references/api.md",
            "skills/a/SKILL.md",
            "skills/a/scripts/run.sh",
            "skills/a/Alpha.md",
            "skills/a/scripts/a/deep.py",
            "skills/ab/SKILL.md",
        ];
        assert_eq!(
            list("skills/a", &files, false, &[]),
            [
                "SKILL.md",
                "scripts/a/deep.py",
                "scripts/run.sh",
                "references/api.md",
                "assets/logo.png",
                "Alpha.md",
                "zeta.txt"
            ]
        );
    }

    #[test]
    fn dotfiles_and_build_directories_are_skipped() {
        let files = [
            "s/SKILL.md",
            "s/.env",
            "s/.git/config",
            "s/node_modules/x/index.js",
            "s/dist/out.js",
            "s/sub/.hidden/x",
            "s/keep.txt",
        ];
        assert_eq!(list("s", &files, false, &[]), ["SKILL.md", "keep.txt"]);
    }

    #[test]
    fn the_bundle_scope_is_the_directory_past_the_cap_minus_the_skipped_files() {
        let skills: HashSet<&str> = ["s"].into();
        assert!(in_bundle_scope("s", "s/aaa099.txt", false, &skills));
        assert!(in_bundle_scope("s", "s/scripts/run.sh", false, &skills));
        assert!(!in_bundle_scope("s", "s/.env", false, &skills));
        assert!(!in_bundle_scope("s", "s/dist/out.js", false, &skills));
        assert!(!in_bundle_scope("s", "sx/SKILL.md", false, &skills));
        assert!(!in_bundle_scope("s", "t/a.txt", false, &skills));
        assert!(!in_bundle_scope("", "hooks.json", true, &skills));
        assert!(!in_bundle_scope("", "s/SKILL.md", true, &skills));
        assert!(in_bundle_scope("", "notes.txt", true, &skills));
    }

    #[test]
    fn the_bundle_is_capped_at_64_with_skill_md_kept() {
        let mut files: Vec<String> = (0..100).map(|i| format!("s/aaa{i:03}.txt")).collect();
        files.push("s/SKILL.md".into());
        let refs: Vec<&str> = files.iter().map(String::as_str).collect();
        let listed = list("s", &refs, false, &[]);
        assert_eq!(listed.len(), MAX_BUNDLE_FILES);
        assert_eq!(listed[0], "SKILL.md");
    }

    /// Issue 27: "for a root-SKILL.md package the reserved contribution folders and
    /// package-meta files are excluded too": the directory contract's `tools/`,
    /// `workflows/`, `team/`, `src/` and `hooks.json` as well.
    #[test]
    fn a_root_skill_leaves_out_the_directory_contracts_reserved_folders_and_hooks() {
        let files = [
            "SKILL.md",
            "hooks.json",
            "mcp.json",
            "tools/deploy.json",
            "workflows/ship.json",
            "team/lead/member.json",
            "src/index.ts",
            "scripts/run.sh",
            "lib/tools/helper.py",
        ];
        assert_eq!(
            list("", &files, true, &[""]),
            ["SKILL.md", "scripts/run.sh", "lib/tools/helper.py"]
        );
        // A skill in its own folder keeps them: only the package root is reserved.
        let nested: Vec<String> = files.iter().map(|f| format!("s/{f}")).collect();
        let nested: Vec<&str> = nested.iter().map(String::as_str).collect();
        assert_eq!(list("s", &nested, false, &["s"]).len(), files.len());
    }

    #[test]
    fn a_root_skill_leaves_out_category_folders_skill_folders_and_package_meta() {
        let files = [
            "SKILL.md",
            "README.md",
            "AGENTS.md",
            "package.json",
            "LICENSE",
            "scripts/run.sh",
            "rules/r.md",
            "docs/d.md",
            "other/SKILL.md",
            "other/x.txt",
            "lib/helper.py",
        ];
        assert_eq!(
            list("", &files, true, &["", "other"]),
            ["SKILL.md", "scripts/run.sh", "LICENSE", "lib/helper.py"]
        );
    }

    /// The byte fast paths agree with comparing UTF-16 code units, whatever the text.
    #[test]
    fn code_unit_order_is_the_utf16_order() {
        use proptest::prelude::*;
        let text = prop::collection::vec(
            prop::sample::select(vec!['a', 'b', '/', '.', '\u{e9}', '\u{FF5E}', '\u{1F600}']),
            0..6,
        )
        .prop_map(|chars| chars.into_iter().collect::<String>());
        proptest!(|(a in text.clone(), b in text)| {
            prop_assert_eq!(code_unit_order(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
        });
    }

    /// Members are found without building `folder/`: names continuing with a byte
    /// below `/` (`s-x`, `s.x`) sort between `s` and `s/` and are not members.
    #[test]
    fn folder_members_are_the_paths_under_folder_slash() {
        let files = ["s", "s-x/a", "s.x", "s/a", "s/b/c", "s0", "t/a"];
        assert_eq!(members_of("s", &files), ["s/a", "s/b/c"]);
        assert_eq!(members_of("s/b", &files), ["s/b/c"]);
        assert!(members_of("r", &files).is_empty());
    }

    #[test]
    fn code_unit_order_differs_from_byte_order_beyond_the_bmp() {
        // U+1F600 is a surrogate pair (0xD83D...) in UTF-16, below U+FF5E (0xFF5E);
        // in UTF-8 its first byte 0xF0 sorts above 0xEF.
        let emoji = "\u{1F600}";
        let fullwidth = "\u{FF5E}";
        assert_eq!(code_unit_order(emoji, fullwidth), Ordering::Less);
        assert_eq!(emoji.cmp(fullwidth), Ordering::Greater);
    }
}
