use super::*;
use proptest::prelude::*;

const VERSION: u32 = 3;

fn no_privacy(_: &str) -> Option<String> {
    None
}

fn listed(path: &str, size: u64, modified: i64) -> ListedFile {
    ListedFile {
        path: path.into(),
        size,
        modified,
        real_path: None,
    }
}

fn row(path: &str, size: u64, modified: i64, version: u32) -> ExistingRow {
    ExistingRow {
        path: path.into(),
        size,
        modified,
        content_hash: format!("hash-of-{path}"),
        payload_version: version,
        privacy_owner: None,
        real_path: None,
    }
}

#[test]
fn a_link_moved_to_another_file_of_the_same_stat_refreshes_the_row() {
    let mut linked = listed("shared/rules/leak.md", 10, 5);
    linked.real_path = Some("agents/alice/rules/secret.md".into());
    let stored = row("shared/rules/leak.md", 10, 5, 1);
    let plan = plan_sync(
        std::slice::from_ref(&linked),
        std::slice::from_ref(&stored),
        1,
        |_| None,
    );
    assert_eq!(plan.refresh_payload, ["shared/rules/leak.md"]);
    let mut recorded = stored;
    recorded.real_path = linked.real_path.clone();
    let plan = plan_sync(&[linked], &[recorded], 1, |_| None);
    assert_eq!(plan.unchanged, 1, "the same real path leaves the row alone");
}

#[test]
fn a_no_change_resync_examines_nothing_and_writes_nothing() {
    let listing = [listed("a.md", 1, 10), listed("b/SKILL.md", 2, 20)];
    let rows = [
        row("a.md", 1, 10, VERSION),
        row("b/SKILL.md", 2, 20, VERSION),
    ];
    let plan = plan_sync(&listing, &rows, VERSION, no_privacy);
    assert_eq!(
        plan,
        SyncPlan {
            unchanged: 2,
            ..SyncPlan::default()
        }
    );
}

#[test]
fn the_plan_examines_new_and_moved_files_and_deletes_vanished_ones() {
    let listing = [
        listed("new.md", 1, 1),
        listed("grew.md", 9, 1),
        listed("touched.md", 1, 99),
    ];
    let rows = [
        row("grew.md", 1, 1, VERSION),
        row("touched.md", 1, 1, VERSION),
        row("gone.md", 1, 1, VERSION),
    ];
    let plan = plan_sync(&listing, &rows, VERSION, no_privacy);
    assert_eq!(plan.examine, ["new.md", "grew.md", "touched.md"]);
    assert_eq!(plan.delete, ["gone.md"]);
    assert!(plan.refresh_payload.is_empty());
}

#[test]
fn a_payload_version_bump_refreshes_payloads_only() {
    let listing = [listed("a.md", 1, 1), listed("b.md", 1, 1)];
    let rows = [row("a.md", 1, 1, VERSION - 1), row("b.md", 1, 1, VERSION)];
    let plan = plan_sync(&listing, &rows, VERSION, no_privacy);
    assert_eq!(plan.refresh_payload, ["a.md"]);
    assert!(plan.examine.is_empty());
    assert_eq!(plan.unchanged, 1);
}

#[test]
fn a_changed_privacy_pattern_refreshes_the_marker_payload_only() {
    let listing = [listed("agents/a1/notes.md", 1, 1)];
    let rows = [row("agents/a1/notes.md", 1, 1, VERSION)];
    let private_to_a1 = |path: &str| path.starts_with("agents/a1/").then(|| "a1".to_owned());
    let plan = plan_sync(&listing, &rows, VERSION, private_to_a1);
    assert_eq!(plan.refresh_payload, ["agents/a1/notes.md"]);
}

#[test]
fn after_reading_only_a_new_hash_rewrites_the_row() {
    let existing = row("a.md", 1, 1, VERSION);
    let cases = [
        (None, "h", VERSION, FileAction::Insert),
        (Some(&existing), "other", VERSION, FileAction::Rewrite),
        (
            Some(&existing),
            "hash-of-a.md",
            VERSION,
            FileAction::Touch {
                refresh_payload: false,
            },
        ),
        (
            Some(&existing),
            "hash-of-a.md",
            VERSION + 1,
            FileAction::Touch {
                refresh_payload: true,
            },
        ),
    ];
    for (row, hash, version, expected) in cases {
        assert_eq!(
            action_after_read(row, hash, version, no_privacy),
            expected,
            "{hash} v{version}"
        );
    }
}

fn stat() -> impl Strategy<Value = (u64, i64)> {
    (0u64..3, 0i64..3)
}

proptest! {
    #[test]
    fn every_path_lands_in_exactly_one_bucket(
        listing in proptest::collection::btree_map("[a-e]{1,2}", stat(), 0..12),
        rows in proptest::collection::btree_map("[a-e]{1,2}", (stat(), 2u32..4), 0..12),
    ) {
        let listing: Vec<ListedFile> =
            listing.into_iter().map(|(path, (size, modified))| listed(&path, size, modified)).collect();
        let rows: Vec<ExistingRow> = rows
            .into_iter()
            .map(|(path, ((size, modified), version))| row(&path, size, modified, version))
            .collect();
        let plan = plan_sync(&listing, &rows, VERSION, no_privacy);
        prop_assert_eq!(
            plan.examine.len() + plan.refresh_payload.len() + plan.unchanged,
            listing.len()
        );
        for gone in &plan.delete {
            prop_assert!(listing.iter().all(|file| &file.path != gone));
            prop_assert!(rows.iter().any(|row| &row.path == gone));
        }
        let kept = rows.len() - plan.delete.len();
        prop_assert!(plan.refresh_payload.len() + plan.unchanged <= kept);
    }

    /// Rows stream from the store in no particular order: the plan is the same.
    #[test]
    fn the_plan_does_not_depend_on_the_order_rows_arrive_in(
        listing in proptest::collection::btree_map("[a-e]{1,2}", stat(), 0..12),
        rows in proptest::collection::btree_map("[a-e]{1,2}", (stat(), 2u32..4), 0..12),
        seed in any::<u64>(),
    ) {
        let listing: Vec<ListedFile> =
            listing.into_iter().map(|(path, (size, modified))| listed(&path, size, modified)).collect();
        let rows: Vec<ExistingRow> = rows
            .into_iter()
            .map(|(path, ((size, modified), version))| row(&path, size, modified, version))
            .collect();
        let mut shuffled = rows.clone();
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let mut planner = Planner::new(&listing, VERSION, no_privacy);
        for row in &shuffled {
            planner.compare(row.into());
        }
        prop_assert_eq!(planner.finish(), plan_sync(&listing, &rows, VERSION, no_privacy));
    }
}

#[test]
fn a_racy_row_is_examined_even_when_its_stat_is_unchanged() {
    // Issue 10 item 5: "an edit that keeps a file's size and modification time is never
    // picked up (the stat check trusts both). Git solves this ('racy' entries)".
    let files = [listed("a.md", 10, 1_000), listed("b.md", 10, 2_000)];
    let rows = [
        row("a.md", 10, 1_000, VERSION),
        row("b.md", 10, 2_000, VERSION),
    ];
    let mut planner = Planner::new(&files, VERSION, no_privacy).with_racy_since(Some(2_000));
    let verdicts: Vec<Verdict> = rows.iter().map(|r| planner.compare(r.into())).collect();
    assert_eq!(verdicts, [Verdict::Unchanged, Verdict::Examine]);
    // Without a previous run (or once a run began after the change) the stat is trusted.
    let mut planner = Planner::new(&files, VERSION, no_privacy).with_racy_since(Some(2_001));
    assert_eq!(planner.compare((&rows[1]).into()), Verdict::Unchanged);
}
