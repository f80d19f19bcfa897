//! Pruning tombstones: old ones go and the delta floor rises past them, so a reader
//! holding an older revision is told to re-read in full; every delta from the floor on
//! stays exact.

use super::cases::{Store, batch, row, source};
use neuralis_index::{Pruned, Removed, RowWrite};

fn put(project: &str, slug: &str, path: &str) -> RowWrite {
    RowWrite::Put {
        row: row(project, slug, path),
        chunks: None,
    }
}

fn delete(path: &str) -> RowWrite {
    RowWrite::Delete { path: path.into() }
}

async fn write(store: &Store, project: &str, slug: &str, writes: Vec<RowWrite>) -> u64 {
    store
        .write_batch(batch(project, slug, writes))
        .await
        .expect("batch commits")
}

async fn removed_since(store: &Store, project: &str, since: u64) -> Option<Vec<Removed>> {
    let changes = store.changes_since(project, since).await.expect("read");
    changes.map(|changes| changes.removed)
}

pub async fn pruned_tombstones_raise_the_floor_and_an_older_reader_gets_a_full_re_read(
    store: Store,
) {
    let (project, slug) = ("p1", "repo");
    store
        .create_source(&source(project, slug))
        .await
        .expect("created");
    let first = write(
        &store,
        project,
        slug,
        vec![
            put(project, slug, "a.md"),
            put(project, slug, "b.md"),
            put(project, slug, "c.md"),
        ],
    )
    .await;
    let deleted_a = write(&store, project, slug, vec![delete("a.md")]).await;
    let deleted_b = write(&store, project, slug, vec![delete("b.md")]).await;
    write(&store, project, slug, vec![put(project, slug, "d.md")]).await;
    let last = write(&store, project, slug, vec![put(project, slug, "e.md")]).await;
    assert_eq!(
        removed_since(&store, project, first).await.map(|r| r.len()),
        Some(2),
        "before pruning, a reader at the first write gets both deletes"
    );

    // Keep the tombstones of the last two revisions: a.md's and b.md's are older.
    let pruned = store
        .prune_tombstones(project, last - deleted_b)
        .await
        .expect("pruned");
    assert_eq!(
        pruned,
        Pruned {
            floor: deleted_b,
            removed: 2
        }
    );
    for older in [first, deleted_a] {
        assert_eq!(
            store.changes_since(project, older).await.expect("read"),
            None,
            "a reader at {older} can no longer learn b.md was deleted: it re-reads in full"
        );
    }
    // The full re-read such a reader falls back to has neither deleted path.
    let full = store.project_rows(project).await.expect("read");
    let paths: Vec<&str> = full.rows.iter().map(|row| row.path.as_str()).collect();
    assert_eq!((full.revision, paths), (last, vec!["c.md", "d.md", "e.md"]));
    let at_floor = store
        .changes_since(project, deleted_b)
        .await
        .expect("read")
        .expect("a reader at the floor still gets a delta");
    let written: Vec<&str> = at_floor.rows.iter().map(|row| row.path.as_str()).collect();
    assert_eq!((written, at_floor.removed), (vec!["d.md", "e.md"], vec![]));
}

pub async fn pruning_keeps_every_tombstone_above_the_floor(store: Store) {
    let project = "p1";
    for slug in ["repo", "gone"] {
        store
            .create_source(&source(project, slug))
            .await
            .expect("created");
    }
    assert_eq!(
        store.prune_tombstones(project, 1).await.expect("pruned"),
        Pruned::default(),
        "a project never written has nothing to prune"
    );
    write(
        &store,
        "p1",
        "repo",
        vec![put(project, "repo", "a.md"), put(project, "repo", "b.md")],
    )
    .await;
    write(&store, project, "gone", vec![put(project, "gone", "x.md")]).await;
    let deleted_a = write(&store, project, "repo", vec![delete("a.md")]).await;
    let deleted_b = write(&store, project, "repo", vec![delete("b.md")]).await;
    write(&store, project, "repo", vec![put(project, "repo", "c.md")]).await;
    let deleted_source = store
        .delete_source(project, "gone")
        .await
        .expect("deleted")
        .expect("it had rows");
    let last = write(&store, project, "repo", vec![put(project, "repo", "d.md")]).await;

    assert_eq!(
        store.prune_tombstones(project, last).await.expect("pruned"),
        Pruned::default(),
        "a retention reaching back before every tombstone removes none, the floor stays"
    );
    // The cut falls between b.md's delete and the source's: only a.md's goes, and the
    // floor rises to its revision, not to the cut (readers in between keep deltas).
    let keep = last - deleted_b + 1;
    let pruned = store.prune_tombstones(project, keep).await.expect("pruned");
    assert_eq!(
        pruned,
        Pruned {
            floor: deleted_a,
            removed: 1
        }
    );
    let b_and_source = vec![
        Removed::Source {
            source: "gone".into(),
        },
        Removed::File {
            source: "repo".into(),
            path: "b.md".into(),
        },
    ];
    assert_eq!(
        removed_since(&store, project, deleted_a).await,
        Some(b_and_source)
    );
    assert_eq!(
        removed_since(&store, project, deleted_b).await,
        Some(vec![Removed::Source {
            source: "gone".into()
        }])
    );
    assert_eq!(
        store.prune_tombstones(project, keep).await.expect("pruned"),
        Pruned {
            floor: deleted_a,
            removed: 0
        },
        "pruning again with the same retention changes nothing"
    );
    assert_eq!(
        store.prune_tombstones(project, 1000).await.expect("pruned"),
        Pruned {
            floor: deleted_a,
            removed: 0
        },
        "a longer retention never lowers the floor"
    );
    let pruned = store.prune_tombstones(project, 0).await.expect("pruned");
    assert_eq!(
        pruned,
        Pruned {
            floor: deleted_source,
            removed: 2
        }
    );
    assert_eq!(
        removed_since(&store, project, deleted_source).await,
        Some(vec![])
    );
    assert_eq!(removed_since(&store, project, deleted_b).await, None);
}
