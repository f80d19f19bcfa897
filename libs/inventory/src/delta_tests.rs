//! Deltas: applied to a held revision they give exactly a full re-read, and they obey
//! the race rule exactly as fills do (DESIGN.md section 3).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use proptest::prelude::*;

use crate::delta::{Changes, SourceRows, Tombstone, apply};
use crate::{Inventory, InventorySettings, Lookup, Phase, Weigh};

/// The index as the SQL store keeps it: each row remembers the revision that wrote it,
/// each delete leaves a tombstone, a deleted source one tombstone at the path `""`.
#[derive(Debug, Clone, Default)]
struct ModelIndex {
    revision: u64,
    files: BTreeMap<(String, String), (u64, u64)>,
    tombstones: BTreeMap<(String, String), u64>,
}

/// One committed write.
#[derive(Debug, Clone)]
enum Write {
    Put { source: u8, path: u8, content: u64 },
    Delete { source: u8, path: u8 },
    Rename { source: u8, from: u8, to: u8 },
    DeleteSource(u8),
}

fn name(source: u8) -> String {
    format!("s{source}")
}

fn file(path: u8) -> String {
    format!("d{}/f{path}.md", path % 3)
}

impl ModelIndex {
    fn commit(&mut self, write: &Write) {
        self.revision += 1;
        let rev = self.revision;
        match *write {
            Write::Put {
                source,
                path,
                content,
            } => {
                self.files
                    .insert((name(source), file(path)), (rev, content));
            }
            Write::Delete { source, path } => self.delete(name(source), file(path)),
            Write::Rename { source, from, to } => {
                let key = (name(source), file(from));
                if let Some((_, content)) = self.files.get(&key).copied() {
                    self.delete(key.0, key.1);
                    self.files.insert((name(source), file(to)), (rev, content));
                }
            }
            Write::DeleteSource(source) => {
                let source = name(source);
                self.files.retain(|(s, _), _| *s != source);
                self.tombstones.retain(|(s, _), _| *s != source);
                self.tombstones.insert((source, String::new()), rev);
            }
        }
    }

    fn delete(&mut self, source: String, path: String) {
        if self.files.remove(&(source.clone(), path.clone())).is_some() {
            self.tombstones.insert((source, path), self.revision);
        }
    }

    fn full(&self) -> SourceRows<u64> {
        let mut rows = SourceRows::new();
        for ((source, path), (_, content)) in &self.files {
            rows.entry(source.clone())
                .or_insert_with(BTreeMap::new)
                .insert(path.clone(), *content);
        }
        rows
    }

    fn changes_since(&self, since: u64) -> Changes<u64> {
        let rows = self
            .files
            .iter()
            .filter(|(_, (rev, _))| *rev > since)
            .map(|((s, p), (_, content))| (s.clone(), p.clone(), *content))
            .collect();
        let removed = self
            .tombstones
            .iter()
            .filter(|(key, rev)| **rev > since && !self.files.contains_key(key))
            .map(|((source, path), _)| {
                if path.is_empty() {
                    Tombstone::Source(source.clone())
                } else {
                    Tombstone::File {
                        source: source.clone(),
                        path: path.clone(),
                    }
                }
            })
            .collect();
        Changes {
            revision: self.revision,
            rows,
            removed,
        }
    }
}

fn write() -> impl Strategy<Value = Write> {
    prop_oneof![
        4 => (0u8..3, 0u8..8, any::<u64>()).prop_map(|(source, path, content)| Write::Put { source, path, content }),
        2 => (0u8..3, 0u8..8).prop_map(|(source, path)| Write::Delete { source, path }),
        2 => (0u8..3, 0u8..8, 0u8..8).prop_map(|(source, from, to)| Write::Rename { source, from, to }),
        1 => (0u8..3).prop_map(Write::DeleteSource),
    ]
}

proptest! {
    /// "a delta after a write equals a full re-read": whatever the writes (puts,
    /// deletes, renames, deleted sources), rows held at any earlier revision plus the
    /// delta since it are the rows a full re-read gives.
    #[test]
    fn a_delta_after_writes_equals_a_full_re_read(
        writes in prop::collection::vec(write(), 1..40),
        held_at in any::<prop::sample::Index>(),
    ) {
        let mut index = ModelIndex::default();
        let mut history = vec![(0, index.full())];
        for write in &writes {
            index.commit(write);
            history.push((index.revision, index.full()));
        }
        let (since, held) = history[held_at.index(history.len())].clone();
        let mut rows = held.clone();
        let touched = apply(&mut rows, index.changes_since(since));
        prop_assert_eq!(&rows, &index.full());
        // Every source whose rows differ is reported touched: the holder regroups it.
        for source in held.keys().chain(rows.keys()) {
            if rows.get(source) != held.get(source) {
                prop_assert!(touched.contains_key(source), "{} changed untouched", source);
            }
        }
    }
}

/// Rows as the inventory keeps them in these tests.
#[derive(Debug, Clone, PartialEq)]
struct Held(SourceRows<u64>);

impl Weigh for Held {
    fn bytes(&self) -> usize {
        self.0.values().map(BTreeMap::len).sum::<usize>() * 64 + 64
    }
}

/// One step of a random schedule with deltas against one project.
#[derive(Debug, Clone)]
enum Step {
    /// Take what the inventory asks (fill, delta or revalidation) and read it now.
    Begin,
    Complete,
    Start(u8),
    Finish(u8, Write),
    Lose,
    Restore,
    /// Time passes beyond the recovery window.
    Tick,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Begin),
        3 => Just(Step::Complete),
        2 => (0u8..3).prop_map(Step::Start),
        3 => (0u8..3, write()).prop_map(|(w, write)| Step::Finish(w, write)),
        1 => Just(Step::Lose),
        1 => Just(Step::Restore),
        1 => Just(Step::Tick),
    ]
}

proptest! {
    /// The race rule holds for deltas exactly as for fills: whatever the interleaving of
    /// fills, deltas, revalidations, writes and outages, a hit serves exactly the rows
    /// of the index after the last write the inventory observed.
    #[test]
    fn a_hit_after_deltas_never_serves_rows_from_before_the_last_observed_write(
        steps in prop::collection::vec(step(), 1..80),
    ) {
        let window = Duration::from_secs(5);
        let mut inv: Inventory<Held> = Inventory::new(InventorySettings {
            recovery_window: window,
            ..InventorySettings::default()
        });
        inv.subscription_up();
        let mut now = Instant::now();
        let mut index = ModelIndex::default();
        let mut pending = None;
        for step in steps {
            match step {
                Step::Begin => {
                    pending = match inv.lookup("p", now) {
                        Lookup::Fill(t) => Some((t, index.full(), index.revision)),
                        Lookup::Delta { base, revision, ticket } |
                        Lookup::Revalidate { rows: base, revision, ticket } => {
                            let mut rows = base.0.clone();
                            apply(&mut rows, index.changes_since(revision));
                            Some((ticket, rows, index.revision))
                        }
                        Lookup::Hit(_) | Lookup::Bypass => None,
                    };
                }
                Step::Complete => {
                    if let Some((t, rows, revision)) = pending.take() {
                        inv.store(&t, Held(rows), revision, now);
                    }
                }
                Step::Start(w) => inv.observe("p", &w.to_string(), Phase::Start, now),
                Step::Finish(w, write) => {
                    // The write commits, then publishes finish.
                    index.commit(&write);
                    inv.observe("p", &w.to_string(), Phase::Finish, now);
                }
                Step::Lose => inv.subscription_lost(),
                Step::Restore => inv.subscription_up(),
                Step::Tick => now += window,
            }
            if let Lookup::Hit(rows) = inv.lookup("p", now) {
                prop_assert_eq!(&rows.0, &index.full());
            }
        }
    }
}

#[test]
fn a_finish_turns_the_rows_into_the_base_of_a_delta() {
    let mut inv: Inventory<Held> = Inventory::new(InventorySettings::default());
    inv.subscription_up();
    let t0 = Instant::now();
    let Lookup::Fill(ticket) = inv.lookup("p", t0) else {
        panic!("a fill first")
    };
    assert!(inv.store(&ticket, Held(SourceRows::new()), 3, t0));
    inv.observe("p", "w", Phase::Finish, t0);
    match inv.lookup("p", t0) {
        Lookup::Delta {
            revision, ticket, ..
        } => {
            assert_eq!(revision, 3, "the delta starts at the revision held");
            assert!(inv.store(&ticket, Held(SourceRows::new()), 4, t0));
        }
        other => panic!("expected a delta, got {other:?}"),
    }
    assert!(matches!(inv.lookup("p", t0), Lookup::Hit(_)));
}

#[test]
fn a_lost_finish_is_caught_up_by_a_delta_within_the_recovery_window() {
    // "writes by another instance that published nothing are seen within that bound":
    // the revalidation carries the revision held, and the delta since it is what the
    // write changed; applied, it equals a full re-read.
    let window = Duration::from_secs(5);
    let mut inv: Inventory<Held> = Inventory::new(InventorySettings {
        recovery_window: window,
        ..InventorySettings::default()
    });
    inv.subscription_up();
    let t0 = Instant::now();
    let mut index = ModelIndex::default();
    index.commit(&Write::Put {
        source: 0,
        path: 1,
        content: 1,
    });
    let Lookup::Fill(ticket) = inv.lookup("p", t0) else {
        panic!("a fill first")
    };
    assert!(inv.store(&ticket, Held(index.full()), index.revision, t0));
    // A write whose events were lost: a delete and a rename.
    index.commit(&Write::Delete { source: 0, path: 1 });
    index.commit(&Write::Put {
        source: 1,
        path: 2,
        content: 9,
    });
    assert!(matches!(inv.lookup("p", t0 + window / 2), Lookup::Hit(_)));
    let later = t0 + window;
    let Lookup::Revalidate {
        rows,
        revision,
        ticket,
    } = inv.lookup("p", later)
    else {
        panic!("revalidation at the window")
    };
    assert!(
        !inv.confirm(&ticket, index.revision, later),
        "the revision moved"
    );
    let mut caught_up = rows.0.clone();
    apply(&mut caught_up, index.changes_since(revision));
    assert!(inv.store(&ticket, Held(caught_up), index.revision, later));
    match inv.lookup("p", later) {
        Lookup::Hit(rows) => assert_eq!(rows.0, index.full()),
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn the_byte_bound_evicts_the_least_recently_used_and_the_next_call_refills() {
    let mut inv: Inventory<Held> = Inventory::new(InventorySettings {
        max_bytes: 3 * 128,
        ..InventorySettings::default()
    });
    inv.subscription_up();
    let t0 = Instant::now();
    let one_row = |v: u64| {
        Held(SourceRows::from([(
            "s".into(),
            BTreeMap::from([("a".into(), v)]),
        )]))
    };
    for (i, p) in ["a", "b", "c", "d"].into_iter().enumerate() {
        let now = t0 + Duration::from_millis(i as u64);
        let Lookup::Fill(ticket) = inv.lookup(p, now) else {
            panic!("a fill")
        };
        assert!(inv.store(&ticket, one_row(i as u64), 1, now));
    }
    assert_eq!(inv.cached_projects(), 3, "128 bytes each, 384 allowed");
    assert_eq!(inv.cached_bytes(), 3 * 128);
    assert_eq!(inv.take_evictions(), 1);
    assert_eq!(inv.take_evictions(), 0, "counted once");
    let later = t0 + Duration::from_millis(10);
    let Lookup::Fill(ticket) = inv.lookup("a", later) else {
        panic!("a was least recently used: the next call refills")
    };
    assert!(inv.store(&ticket, one_row(7), 2, later));
    match inv.lookup("a", later) {
        Lookup::Hit(rows) => assert_eq!(*rows, one_row(7)),
        other => panic!("expected a hit, got {other:?}"),
    }
    assert!(inv.cached_bytes() <= 3 * 128);
}

#[test]
fn rows_heavier_than_the_whole_bound_are_served_but_not_kept() {
    let mut inv: Inventory<Held> = Inventory::new(InventorySettings {
        max_bytes: 100,
        ..InventorySettings::default()
    });
    inv.subscription_up();
    let t0 = Instant::now();
    let Lookup::Fill(ticket) = inv.lookup("p", t0) else {
        panic!("a fill")
    };
    let heavy = Held(SourceRows::from([(
        "s".into(),
        BTreeMap::from([("a".into(), 1)]),
    )]));
    assert!(!inv.store(&ticket, heavy, 1, t0));
    assert_eq!(inv.cached_bytes(), 0);
    assert!(matches!(inv.lookup("p", t0), Lookup::Fill(_)));
}
