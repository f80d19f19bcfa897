//! Batches whose statements the embedded store splits and pads (`write/sqlite.rs`):
//! fixed-size statements, a chunk delete before the inserts, rows of `NULL` padding.

use super::cases::{Store, batch, chunk, put, row, source, write};
use neuralis_index::{IndexError, RowWrite, SyncStatus};
use std::collections::BTreeMap;

/// A batch that replaces the chunks of the path written last: its old chunk rows are the
/// table's newest, so the new ones may take their row ids again, and must still reach
/// the full-text index.
pub async fn rewritten_chunks_of_the_newest_rows_stay_searchable(store: Store) {
    let first = vec![
        put(row("p1", "s", "a.md"), Some(vec![chunk(0, "apple")])),
        put(
            row("p1", "s", "b.md"),
            Some(vec![chunk(0, "stale"), chunk(1, "stale too")]),
        ),
    ];
    write(&store, batch("p1", "s", first)).await;
    let again = vec![put(
        row("p1", "s", "b.md"),
        Some(vec![chunk(0, "banana"), chunk(1, "cherry")]),
    )];
    write(&store, batch("p1", "s", again)).await;
    for (word, paths) in [
        ("stale", vec![]),
        ("banana", vec!["b.md"]),
        ("cherry", vec!["b.md"]),
        ("apple", vec!["a.md"]),
    ] {
        let hits = store.search_text("p1", word, 10).await.expect("search");
        let found: Vec<&str> = hits.iter().map(|hit| hit.path.as_str()).collect();
        assert_eq!(found, paths, "{word}");
    }
}

/// Deletes, puts without chunks and puts with a varying number of chunks, in counts
/// that are not multiples of any statement size: the store ends up holding exactly what
/// a model of the writes says, every row and chunk once, no padding row.
pub async fn mixed_batches_of_many_statements_write_every_row_once(store: Store) {
    // path -> chunk bodies; a put without chunks keeps the ones before it.
    let mut model: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for round in 0..3_usize {
        let mut writes = Vec::new();
        for n in 0..(300 + round * 97) {
            let path = format!("d{n:04}.md");
            match (n + round) % 5 {
                0 if round > 0 => {
                    model.remove(&path);
                    writes.push(RowWrite::Delete { path });
                }
                1 => {
                    model.entry(path.clone()).or_default();
                    writes.push(put(row("p1", "s", &path), None));
                }
                k => {
                    let bodies = vec![format!("w{round}x{n}"); k];
                    let chunks = (0..k).map(|o| chunk(o as u32, &bodies[o])).collect();
                    model.insert(path.clone(), bodies);
                    writes.push(put(row("p1", "s", &path), Some(chunks)));
                }
            }
        }
        write(&store, batch("p1", "s", writes)).await;
    }
    let rows = store.source_rows("p1", "s").await.expect("read");
    let paths: Vec<&str> = rows.iter().map(|found| found.path.as_str()).collect();
    let expected: Vec<&str> = model.keys().map(String::as_str).collect();
    assert_eq!(paths, expected);
    for round in 0..3_usize {
        for n in (0..40).chain(380..400) {
            let word = format!("w{round}x{n}");
            let hits = store.search_text("p1", &word, 10).await.expect("search");
            let chunks = model
                .values()
                .flatten()
                .filter(|body| **body == word)
                .count();
            assert_eq!(hits.len(), chunks, "{word}");
        }
    }
}

/// A sync run's batch names the source record it was made for: once that source is
/// deleted, or deleted and created again under its slug, the run's later batches write
/// nothing (they left rows that the new source inherited until its first sync), and
/// its status is not recorded on the new source.
pub async fn a_batch_of_a_deleted_source_writes_nothing_even_under_its_slug_again(store: Store) {
    let first = source("p1", "repo");
    store.create_source(&first).await.expect("created");
    let of_first = |path: &str| {
        let mut batch = batch("p1", "repo", vec![put(row("p1", "repo", path), None)]);
        batch.source_id = Some(first.id.clone());
        batch
    };
    write(&store, of_first("a.md")).await;
    store.delete_source("p1", "repo").await.expect("deleted");
    let revision = store.revision("p1").await.expect("revision");
    let refused = store.write_batch(of_first("b.md")).await;
    assert!(
        matches!(refused, Err(IndexError::NotFound(_))),
        "{refused:?}"
    );
    let again = source("p1", "repo");
    store.create_source(&again).await.expect("created again");
    let refused = store.write_batch(of_first("c.md")).await;
    assert!(
        matches!(refused, Err(IndexError::NotFound(_))),
        "{refused:?}"
    );
    let status = SyncStatus {
        last_synced_at: Some(5),
        ..SyncStatus::default()
    };
    let refused = store.record_status("p1", "repo", &first.id, &status).await;
    assert!(
        matches!(refused, Err(IndexError::NotFound(_))),
        "{refused:?}"
    );
    let kept = store
        .get_source("p1", "repo")
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(
        kept.status,
        SyncStatus::default(),
        "the old run's status is not the new source's"
    );
    assert!(
        store
            .source_rows("p1", "repo")
            .await
            .expect("read")
            .is_empty()
    );
    assert_eq!(store.revision("p1").await.expect("revision"), revision);
    let mut current = batch("p1", "repo", vec![put(row("p1", "repo", "d.md"), None)]);
    current.source_id = Some(again.id.clone());
    write(&store, current).await;
    let rows = store.source_rows("p1", "repo").await.expect("read");
    assert_eq!(
        rows.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(),
        ["d.md"]
    );
}
