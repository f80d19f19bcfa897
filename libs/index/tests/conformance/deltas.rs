//! Deltas (DESIGN.md section 3): "rows changed since revision R", tombstones included.

use super::cases::{Store, batch, row, source};
use neuralis_index::{FileRow, ProjectChanges, Removed, RowWrite};
use std::collections::BTreeMap;

type Rows = BTreeMap<(String, String), FileRow>;

fn keyed(rows: Vec<FileRow>) -> Rows {
    rows.into_iter()
        .map(|row| ((row.source.clone(), row.path.clone()), row))
        .collect()
}

/// What a reader holding `rows` does with a delta: sources first, then files, then rows.
fn apply(rows: &mut Rows, changes: ProjectChanges) {
    for removed in changes.removed {
        match removed {
            Removed::Source { source } => rows.retain(|(s, _), _| *s != source),
            Removed::File { source, path } => {
                rows.remove(&(source, path));
            }
        }
    }
    for row in changes.rows {
        rows.insert((row.source.clone(), row.path.clone()), row);
    }
}

/// A small deterministic generator (no dependency): the same sequences on every run
/// and every backend.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

async fn full(store: &Store, project: &str) -> (u64, Rows) {
    let snapshot = store.project_rows(project).await.expect("read");
    (snapshot.revision, keyed(snapshot.rows))
}

/// Random batches of puts, deletes and renames over two sources, with a source now and
/// then deleted and created again and tombstones now and then pruned; after every
/// batch, a reader that took a snapshot at a random earlier point and applies the delta
/// since holds exactly a full re-read, or, below the floor, is told to re-read in full.
pub async fn a_delta_after_random_writes_equals_a_full_re_read(store: Store) {
    let project = "p1";
    let slugs = ["repo", "data"];
    for slug in slugs {
        store
            .create_source(&source(project, slug))
            .await
            .expect("created");
    }
    let mut random = Lcg(7);
    let mut held: Vec<(u64, Rows)> = vec![full(&store, project).await];
    let (mut floor, mut refused) = (0, 0);
    for step in 0..60u32 {
        let slug = slugs[random.below(2) as usize];
        if random.below(8) == 0 {
            let pruned = store
                .prune_tombstones(project, random.below(12))
                .await
                .expect("pruned");
            assert!(pruned.floor >= floor, "step {step}: the floor went down");
            floor = pruned.floor;
        }
        if random.below(12) == 0 {
            store.delete_source(project, slug).await.expect("deleted");
            store
                .create_source(&source(project, slug))
                .await
                .expect("created");
        } else {
            let existing = store.source_rows(project, slug).await.expect("read");
            let mut writes = Vec::new();
            let mut touched = std::collections::HashSet::new();
            for _ in 0..1 + random.below(4) {
                let path = format!("d{}/f{}.md", random.below(3), random.below(6));
                let kind = random.below(3);
                let old = existing
                    .get(random.below(existing.len().max(1) as u64) as usize)
                    .map(|row| row.path.clone());
                match (kind, old) {
                    (1, Some(old)) if touched.insert(old.clone()) => {
                        writes.push(RowWrite::Delete { path: old });
                    }
                    (2, Some(old))
                        if old != path && !touched.contains(&path) && !touched.contains(&old) =>
                    {
                        // A rename: the old path goes, the new one comes.
                        touched.insert(old.clone());
                        touched.insert(path.clone());
                        writes.push(RowWrite::Delete { path: old });
                        writes.push(RowWrite::Put {
                            row: row(project, slug, &path),
                            chunks: None,
                        });
                    }
                    _ if touched.insert(path.clone()) => {
                        let mut put = row(project, slug, &path);
                        put.size = u64::from(step);
                        writes.push(RowWrite::Put {
                            row: put,
                            chunks: None,
                        });
                    }
                    _ => {}
                }
            }
            store
                .write_batch(batch(project, slug, writes))
                .await
                .expect("batch commits");
        }
        let (revision, now) = full(&store, project).await;
        let (since, mut rows) = held[random.below(held.len() as u64) as usize].clone();
        let changes = store.changes_since(project, since).await.expect("read");
        let Some(changes) = changes else {
            assert!(
                since < floor,
                "step {step}: no delta since {since}, floor {floor}"
            );
            refused += 1;
            held.push((revision, now));
            continue;
        };
        assert!(
            since >= floor,
            "step {step}: a delta since {since} below the floor"
        );
        assert_eq!((changes.since, changes.revision), (since, revision));
        apply(&mut rows, changes);
        assert_eq!(rows, now, "step {step}: delta since {since} differs");
        held.push((revision, now));
    }
    assert!(
        floor > 0 && refused > 0,
        "the pruning was exercised: floor {floor}, {refused} refused"
    );
}

pub async fn a_delta_carries_deletes_renames_and_deleted_sources(store: Store) {
    let project = "p1";
    store
        .create_source(&source(project, "repo"))
        .await
        .expect("created");
    store
        .create_source(&source(project, "gone"))
        .await
        .expect("created");
    let put = |slug: &str, path: &str| RowWrite::Put {
        row: row(project, slug, path),
        chunks: None,
    };
    store
        .write_batch(batch(
            project,
            "repo",
            vec![put("repo", "a.md"), put("repo", "b.md")],
        ))
        .await
        .expect("commits");
    let before = store
        .write_batch(batch(project, "gone", vec![put("gone", "x.md")]))
        .await
        .expect("commits");
    let unchanged = store.changes_since(project, before).await.expect("read");
    assert_eq!(
        unchanged.map(|c| (c.rows.len(), c.removed.len())),
        Some((0, 0)),
        "nothing since the current revision"
    );
    store
        .write_batch(batch(
            project,
            "repo",
            vec![
                RowWrite::Delete {
                    path: "a.md".into(),
                },
                put("repo", "c.md"),
            ],
        ))
        .await
        .expect("commits");
    store.delete_source(project, "gone").await.expect("deleted");
    let changes = store
        .changes_since(project, before)
        .await
        .expect("read")
        .expect("a delta");
    let written: Vec<&str> = changes.rows.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(written, vec!["c.md"], "b.md did not change");
    assert_eq!(
        changes.removed,
        vec![
            Removed::Source {
                source: "gone".into()
            },
            Removed::File {
                source: "repo".into(),
                path: "a.md".into()
            },
        ]
    );
}

pub async fn a_delta_from_before_the_floor_or_beyond_the_revision_is_refused(store: Store) {
    let project = "p1";
    store
        .create_source(&source(project, "repo"))
        .await
        .expect("created");
    let revision = store
        .write_batch(batch(
            project,
            "repo",
            vec![RowWrite::Put {
                row: row(project, "repo", "a.md"),
                chunks: None,
            }],
        ))
        .await
        .expect("commits");
    assert!(
        store
            .changes_since(project, 0)
            .await
            .expect("read")
            .is_some()
    );
    assert_eq!(
        store
            .changes_since(project, revision + 1)
            .await
            .expect("read"),
        None,
        "a revision the store never reached: re-read in full"
    );
    assert!(
        store
            .changes_since("never-written", 0)
            .await
            .expect("read")
            .is_some(),
        "a project without writes has an empty delta"
    );
}
