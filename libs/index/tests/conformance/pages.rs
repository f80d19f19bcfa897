//! A project's rows in pages (`IndexStore::project_pages`): the rows of one revision,
//! in key order, each page under its bounds, and a read given up halfway costs nothing
//! after it.

use super::cases::{Store, batch, put, row, write};
use neuralis_index::{FileRow, ListedRow, PageBounds, RowPages, RowWrite};

/// Every row of `pages`, each page checked against `bounds` on the way.
async fn drain(mut pages: RowPages, bounds: PageBounds) -> Vec<ListedRow> {
    let mut rows = Vec::new();
    while let Some(page) = pages.next_page().await {
        let page = page.expect("page");
        assert!(!page.is_empty(), "a page is never empty");
        assert!(page.len() <= bounds.rows, "{} rows in a page", page.len());
        let before_last: usize = page[..page.len() - 1]
            .iter()
            .map(ListedRow::text_bytes)
            .sum();
        assert!(before_last < bounds.bytes, "a page went on past its bytes");
        rows.extend(page);
    }
    rows
}

/// The comparable form: the payload as a JSON value (a backend may store its text in
/// another spelling).
fn comparable(row: ListedRow) -> (ListedRow, serde_json::Value) {
    let payload = serde_json::from_str(&row.payload_json).expect("stored payload is JSON");
    (
        ListedRow {
            payload_json: String::new(),
            ..row
        },
        payload,
    )
}

fn varied(project: &str, source: &str, n: usize) -> FileRow {
    let mut row = row(project, source, &format!("d{:02}/f{n:05}.md", n % 17));
    row.size = n as u64;
    row.privacy_owner = n.is_multiple_of(5).then(|| format!("agent-{n}"));
    row.real_path = n.is_multiple_of(7).then(|| format!("real/{n}.md"));
    row.content_flags = if n.is_multiple_of(11) {
        vec!["hidden-comment".into(), "hidden-unicode".into()]
    } else {
        Vec::new()
    };
    row.usable_manifest = n.is_multiple_of(3);
    // Some payloads far larger than others, so the byte bound ends some pages.
    if n.is_multiple_of(13) {
        row.payload = serde_json::json!({"version": 1, "description": "x".repeat(3_000)});
    }
    row
}

pub async fn paged_rows_are_the_project_rows_of_one_revision_in_key_order(store: Store) {
    for source in ["b", "a", "c"] {
        let writes = (0..900)
            .map(|n| put(varied("p1", source, n), None))
            .collect();
        write(&store, batch("p1", source, writes)).await;
    }
    write(
        &store,
        batch("p2", "a", vec![put(row("p2", "a", "x.md"), None)]),
    )
    .await;
    let snapshot = store.project_rows("p1").await.expect("read");
    let bounds = PageBounds {
        rows: 250,
        bytes: 20_000,
    };
    let pages = store.project_pages("p1", bounds).await.expect("pages");
    assert_eq!(pages.revision, snapshot.revision);
    let paged: Vec<_> = drain(pages, bounds)
        .await
        .into_iter()
        .map(comparable)
        .collect();
    let whole: Vec<_> = snapshot
        .rows
        .into_iter()
        .map(|row| comparable(ListedRow::of(row)))
        .collect();
    assert_eq!(paged.len(), 2_700);
    assert_eq!(paged, whole);
}

pub async fn a_page_ends_at_its_row_bound_whatever_room_its_bytes_leave(store: Store) {
    let writes = (0..100).map(|n| put(varied("p1", "a", n), None)).collect();
    write(&store, batch("p1", "a", writes)).await;
    let bounds = PageBounds {
        rows: 7,
        bytes: 1 << 24,
    };
    let pages = store.project_pages("p1", bounds).await.expect("pages");
    let mut sizes = Vec::new();
    let mut pages = pages;
    while let Some(page) = pages.next_page().await {
        sizes.push(page.expect("page").len());
    }
    // Fourteen full pages and the two rows left: the bytes never end a page here.
    let mut expected = vec![7; 14];
    expected.push(2);
    assert_eq!(sizes, expected);
}

pub async fn an_empty_project_pages_no_row_at_revision_zero(store: Store) {
    let bounds = PageBounds::default();
    let pages = store.project_pages("nothing", bounds).await.expect("pages");
    assert_eq!(pages.revision, 0);
    assert!(drain(pages, bounds).await.is_empty());
}

pub async fn paged_rows_stay_at_their_revision_while_writes_commit_beside_them(store: Store) {
    let writes = (0..600).map(|n| put(varied("p1", "a", n), None)).collect();
    let revision = write(&store, batch("p1", "a", writes)).await;
    let before = store.project_rows("p1").await.expect("read");
    let bounds = PageBounds {
        rows: 20,
        bytes: usize::MAX,
    };
    let mut pages = store.project_pages("p1", bounds).await.expect("pages");
    let mut rows = pages.next_page().await.expect("a page").expect("read");
    // A write in the middle of the read: new rows, a deleted row and a changed one.
    let mut changed = varied("p1", "a", 599);
    changed.size = 1;
    let writes = vec![
        put(varied("p1", "a", 5_000), None),
        RowWrite::Delete {
            path: before.rows[300].path.clone(),
        },
        put(changed, None),
    ];
    assert_eq!(write(&store, batch("p1", "a", writes)).await, revision + 1);
    rows.extend(drain(pages, bounds).await);
    let expected: Vec<_> = before
        .rows
        .into_iter()
        .map(ListedRow::of)
        .map(comparable)
        .collect();
    assert_eq!(
        rows.into_iter().map(comparable).collect::<Vec<_>>(),
        expected
    );
    let after = store.project_rows("p1").await.expect("read");
    assert_eq!(after.revision, revision + 1);
}

pub async fn a_paged_read_given_up_halfway_leaves_the_store_as_it_was(store: Store) {
    let writes = (0..400).map(|n| put(varied("p1", "a", n), None)).collect();
    write(&store, batch("p1", "a", writes)).await;
    let bounds = PageBounds {
        rows: 10,
        bytes: usize::MAX,
    };
    // More reads given up than the store runs at once: each must free its place.
    for _ in 0..12 {
        let mut pages = store.project_pages("p1", bounds).await.expect("pages");
        pages.next_page().await.expect("a page").expect("read");
    }
    let writes = vec![put(varied("p1", "a", 9_999), None)];
    write(&store, batch("p1", "a", writes)).await;
    let pages = store
        .project_pages("p1", PageBounds::default())
        .await
        .expect("pages");
    assert_eq!(drain(pages, PageBounds::default()).await.len(), 401);
}
