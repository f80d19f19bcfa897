//! A source grouped from its relevant files alone (a cold fill: the roots found first
//! from the files they can depend on) is the source grouped whole: the same layout,
//! roots, relevant files and others, for any files, links and manifests included.

use proptest::prelude::*;

use super::*;
use crate::rows::fixtures::skill;

/// Paths that make, feed, bind and stay outside packages, links to them among them.
const PATHS: &[&str] = &[
    ".claude/skills/a/SKILL.md",
    ".claude/skills/a/ref.md",
    ".claude/rules/r.md",
    ".cursor/rules/c.mdc",
    ".github/copilot-instructions.md",
    ".agents/skills/a/SKILL.md",
    "AGENTS.md",
    "CLAUDE.md",
    "SKILL.md",
    "README.md",
    "docs/guide.md",
    "lib/k/SKILL.md",
    "lib/k/run.sh",
    "lib/k-x/y.txt",
    "plugin/.claude-plugin/plugin.json",
    "plugin/skills/p/SKILL.md",
    "plugin/agents/helper.md",
    "pkg/neuralis.json",
    "pkg/rules/x.md",
    "skills/top/SKILL.md",
    "src/main.rs",
    "src/m0/f.rs",
    "src/m0/notes.md",
];

fn body(path: &str, version: u8) -> String {
    if path.ends_with("plugin.json") {
        format!("{{\"name\": \"plug{version}\"}}")
    } else if path.ends_with("neuralis.json") {
        format!("{{\"id\": \"pkg{version}\", \"version\": \"1.0.0\"}}")
    } else if path.ends_with("SKILL.md") {
        match version % 4 {
            3 => "---\nname: [broken\n---\n".to_owned(),
            v => skill(&format!("n{v}")),
        }
    } else if path.ends_with(".md") || path.ends_with(".mdc") {
        format!("---\nname: r{}\ndescription: d\n---\nText.\n", version % 2)
    } else {
        format!("v{version}")
    }
}

/// A file: `PATHS[at]` with a body of `version`, reached through a link to
/// `PATHS[link]` when one is given (a link to itself is none).
fn file(at: usize, version: u8, link: Option<usize>) -> (String, Kept) {
    let path = PATHS[at];
    let real_path = link.filter(|l| *l != at).map(|l| PATHS[l].to_owned());
    let body = body(path, version);
    let kept = Kept {
        payload: neuralis_layout::capture(path, Some(body.as_bytes())),
        facts: RowFacts {
            size: body.len() as u64,
            real_path,
            content_flags: Default::default(),
            fingerprint: 1,
        },
    };
    (path.to_owned(), kept)
}

/// Everything a source holds, as its fields show it. Of the layout, what discovery
/// reads: its packages, roots and aliases (its unloaded files and diagnostics name
/// files outside every package too, which a layout of the relevant files alone never
/// saw, as after any delta's regroup; no answer reads them).
fn held(source: &SourceSnapshot) -> String {
    let layout = &source.layout;
    let mut rows: Vec<_> = source.rows.iter().collect();
    rows.sort_by(|a, b| a.0.cmp(b.0));
    let others: Vec<_> = source.others.iter().flat_map(|(_, f)| f.iter()).collect();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{rows:?}\n{others:?}\n{} {}",
        layout.packages,
        layout.detected_roots,
        layout.aliases,
        source.roots,
        source.relevant,
        source.count,
        source.path_bytes
    )
}

fn files() -> impl Strategy<Value = Vec<(String, Kept)>> {
    let one = (
        0..PATHS.len(),
        any::<u8>(),
        prop::option::weighted(0.2, 0..PATHS.len()),
    );
    prop::collection::btree_map(0..PATHS.len(), one, 0..PATHS.len()).prop_map(|chosen| {
        let mut files: Vec<_> = chosen
            .into_values()
            .map(|(at, version, link)| file(at, version, link))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        files.dedup_by(|a, b| a.0 == b.0);
        files
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The cold fill's grouping equals grouping every file, in one run or many.
    #[test]
    fn a_source_grouped_from_its_relevant_files_is_the_source_grouped_whole(files in files()) {
        let whole = SourceSnapshot::whole("repo".into(), files.clone());
        let runs: Vec<Vec<_>> = files.chunks(3).map(<[_]>::to_vec).collect();
        let found = view(&runs);
        let grouped = SourceSnapshot::grouped("repo".into(), runs, found);
        prop_assert_eq!(held(&grouped), held(&whole));
    }

    /// Split under roots its relevant files do not find again, a source is grouped
    /// whole, as if it had never been split.
    #[test]
    fn a_source_split_under_wrong_roots_is_grouped_whole(files in files()) {
        let whole = SourceSnapshot::whole("repo".into(), files.clone());
        let wrong = PackageRoots::new(["src", "docs"], false);
        prop_assume!(wrong != *whole.roots);
        let runs = std::iter::once(files.clone().into_iter());
        let split = SourceSnapshot::split("repo".into(), runs, wrong);
        prop_assert_eq!(held(&split.regrouped()), held(&whole));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// With no file reached through a link, the few files the roots can depend on find
    /// the source's roots, so a cold fill groups the relevant files alone. (A link can
    /// make them differ: the grouping loads each real file once, which the roots' scan
    /// does not know; then the check in `regrouped` groups every file.)
    #[test]
    fn the_files_the_roots_depend_on_find_the_sources_roots(files in files()) {
        let files: Vec<_> = files.into_iter().filter(|(_, kept)| kept.facts.real_path.is_none()).collect();
        let whole = SourceSnapshot::whole("repo".into(), files.clone());
        let options = GroupOptions::synced("repo".to_owned());
        let roots = PackageRoots::of_files(&view(&[files]), &options);
        prop_assert_eq!(roots, (*whole.roots).clone());
    }
}
