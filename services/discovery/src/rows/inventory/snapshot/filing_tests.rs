//! The filing holds, per source, exactly the rows one map per source would (the later
//! row of a path replacing the earlier), whatever the order, interleaving and number
//! of rows, and whatever keys the listing after a read mends.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::base::ports::RowSink;
use crate::rows::fixtures::{row, skill, sources};
use crate::rows::inventory::snapshot::RowFacts;
use neuralis_layout::FilePayload;

const IDS: [&str; 3] = ["p/a.01", "p/b.02", "p/c.03"];

/// A row of `source` at one of a few paths: packages, their files, and files outside.
fn sent(source: usize, path: usize, body: u8) -> (String, IndexRow) {
    let path = match path % 4 {
        0 => format!("tools/t{}/skills/s/SKILL.md", path % 7),
        1 => format!("tools/t{}/rules/r{path}.md", path % 7),
        _ => format!("src/m{}/f{path}.rs", path % 11),
    };
    let body = if path.ends_with("SKILL.md") {
        skill(&format!("s{body}"))
    } else {
        format!("body {body}\n")
    };
    (IDS[source].to_owned(), row(&path, &body))
}

/// What an answer reads of one source: its packages, and each row's facts and payload.
type Seen = (String, Vec<(String, RowFacts, FilePayload)>);

fn seen_of(source: &SourceSnapshot, paths: &[String]) -> Seen {
    let rows = paths
        .iter()
        .map(|path| {
            let facts = source.facts(path).cloned().expect("a held path has facts");
            let payload = source.payload(path).cloned().expect("and a payload");
            (path.clone(), facts, payload)
        })
        .collect();
    (format!("{:?}", source.layout.packages), rows)
}

/// The rows put, one map per source (the later row of a path replaces the earlier),
/// each grouped whole; and what the filing of the same puts holds.
fn both(puts: &[(String, IndexRow)]) -> (BTreeMap<String, Seen>, BTreeMap<String, Seen>) {
    let mut maps: BTreeMap<String, BTreeMap<String, IndexRow>> = BTreeMap::new();
    let mut filing = Filing::default();
    for (id, row) in puts {
        maps.entry(id.clone())
            .or_default()
            .insert(row.path.clone(), row.clone());
        filing.put(id, row.clone());
    }
    let filed = filing.snapshot(1, &sources());
    let expected = maps
        .iter()
        .map(|(id, map)| {
            let whole =
                SourceSnapshot::whole(id.clone(), map.values().cloned().map(kept).collect());
            let paths: Vec<String> = map.keys().cloned().collect();
            (id.clone(), seen_of(&whole, &paths))
        })
        .collect();
    let held = filed
        .sources
        .iter()
        .map(|(id, source)| {
            let paths: Vec<String> = maps
                .get(id)
                .map_or_else(Vec::new, |m| m.keys().cloned().collect());
            assert_eq!(source.count, paths.len(), "{id}: rows held");
            (id.clone(), seen_of(source, &paths))
        })
        .collect();
    (expected, held)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any puts, in any order and interleaving, with paths repeated.
    #[test]
    fn a_filing_holds_what_one_map_per_source_holds(
        puts in prop::collection::vec((0..3usize, 0..60usize, 0..3u8), 0..400)
    ) {
        let puts: Vec<_> = puts.into_iter().map(|(s, p, b)| sent(s, p, b)).collect();
        let (expected, held) = both(&puts);
        prop_assert_eq!(held, expected);
    }
}

/// A source far larger than a run (rows in the store's order) is held whole, across
/// runs; as is one whose rows come in two runs with another source's between them.
#[test]
fn a_source_larger_than_a_run_is_held_whole() {
    let rows = |id: &str, n: usize| -> Vec<(String, IndexRow)> {
        let mut rows: Vec<_> = (0..n)
            .map(|i| {
                (
                    id.to_owned(),
                    row(&format!("src/f{i:06}.rs"), "fn f() {}\n"),
                )
            })
            .collect();
        rows.push((id.to_owned(), row("tools/t/skills/s/SKILL.md", &skill("s"))));
        rows
    };
    let large = rows(IDS[0], 3 * LONGEST_RUN + 5);
    let (expected, held) = both(&large);
    assert_eq!(held, expected);
    let other = rows(IDS[1], 10);
    let (first, second) = large.split_at(FIRST_RUN + 1);
    let interleaved: Vec<_> = first.iter().chain(&other).chain(second).cloned().collect();
    let (expected, held) = both(&interleaved);
    assert_eq!(held, expected);
}

/// The listing after a read mends keys: rows move to a source's new id (joining any
/// it holds already), or are dropped with a source deleted during the read; the source
/// being filed when the keys are mended included.
#[test]
fn mended_keys_move_or_drop_a_sources_rows() {
    let (a, b) = (sent(0, 0, 0), sent(1, 5, 0));
    let mut filing = Filing::default();
    filing.put(IDS[0], a.1.clone());
    filing.put(IDS[1], b.1.clone());
    filing.rekey(IDS[1], Some(IDS[2])); // the open source
    filing.put(IDS[0], sent(0, 6, 1).1);
    filing.rekey(IDS[0], Some(IDS[2])); // into one holding rows already
    let snapshot = filing.snapshot(3, &sources());
    assert_eq!(snapshot.revision, 3);
    assert_eq!(snapshot.sources.keys().collect::<Vec<_>>(), [IDS[2]]);
    assert_eq!(snapshot.row_count(), 3);

    let mut filing = Filing::default();
    filing.put(IDS[0], a.1);
    filing.put(IDS[1], b.1);
    filing.rekey(IDS[0], None);
    filing.rekey("p/never.04", None);
    let snapshot = filing.snapshot(3, &sources());
    assert_eq!(snapshot.sources.keys().collect::<Vec<_>>(), [IDS[1]]);
    assert_eq!(snapshot.row_count(), 1);
}

/// Rows in the store's order (each path after the one before) fill runs that double
/// from the first size to the longest, and are grouped with no sort; a path that does
/// not come after the one before it (the same again, or an earlier one) means a sort.
#[test]
fn rows_in_the_stores_order_fill_doubling_runs_and_need_no_sort() {
    let n = 9_000;
    let mut filing = Filing::default();
    for i in 0..n {
        filing.put(IDS[0], row(&format!("src/f{i:06}.rs"), "x"));
    }
    filing.close();
    let held = &filing.sources[IDS[0]];
    assert!(held.ascending, "the store's order needs no sort");
    let mut expected = Vec::new();
    let (mut left, mut room) = (n, FIRST_RUN);
    while left > 0 {
        expected.push(left.min(room));
        left -= left.min(room);
        room = (2 * room).min(LONGEST_RUN);
    }
    let lens: Vec<usize> = held.runs.iter().map(Vec::len).collect();
    assert_eq!(lens, expected);
    let rooms: Vec<usize> = held.runs.iter().map(Vec::capacity).collect();
    assert!(rooms.iter().all(|room| *room <= LONGEST_RUN), "{rooms:?}");

    for (first, then) in [("a.md", "a.md"), ("b.md", "a.md")] {
        let mut held = Held::default();
        held.push(kept(row(first, "1")));
        assert!(held.ascending);
        held.push(kept(row(then, "2")));
        assert!(!held.ascending, "{first} then {then}");
    }
}

/// The roots' view a filing takes as rows come in the store's order is the view of its
/// runs after the last row; once a row comes out of order it is dropped (found after
/// the sort instead), and grouping still finds the same packages.
#[test]
fn the_view_taken_as_rows_come_is_the_view_of_the_runs() {
    let paths = [
        ".claude/skills/a/SKILL.md",
        "README.md",
        "src/lib.rs",
        "tools/t/package.json",
        "tools/t/skills/s/SKILL.md",
        "tools/t/src/x.rs",
    ];
    let mut held = Held::default();
    for path in paths {
        held.push(kept(row(path, &skill("s"))));
    }
    assert!(held.ascending);
    let taken: Vec<&str> = held.view.iter().map(|file| file.path.as_str()).collect();
    let after: Vec<String> = view(&held.runs).into_iter().map(|f| f.path).collect();
    assert_eq!(taken, after);
    assert!(taken.contains(&"tools/t/skills/s/SKILL.md"), "{taken:?}");
    assert!(!taken.contains(&"src/lib.rs"), "{taken:?}");

    held.push(kept(row("a.md", "x")));
    assert!(
        !held.ascending && held.view.is_empty(),
        "out of order: found after"
    );
    let grouped = held.grouped("repo".into());
    assert!(
        grouped.layout.packages.len() >= 2,
        "{:?}",
        grouped.layout.packages
    );
}
