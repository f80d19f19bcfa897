//! The inventory protocol, rule by rule (DESIGN.md section 3).

use std::time::{Duration, Instant};

use proptest::prelude::*;

use crate::{FillTicket, Inventory, InventorySettings, Lookup, Phase, Weigh};

impl Weigh for Vec<&'static str> {
    fn bytes(&self) -> usize {
        self.len()
    }
}

impl Weigh for u64 {
    fn bytes(&self) -> usize {
        8
    }
}

const WINDOW: Duration = Duration::from_secs(5);

fn inventory() -> Inventory<Vec<&'static str>> {
    let mut inventory = Inventory::new(InventorySettings {
        recovery_window: WINDOW,
        open_write_limit: Duration::from_secs(60),
        max_projects: 3,
        ..InventorySettings::default()
    });
    inventory.subscription_up();
    inventory
}

fn ticket(lookup: Lookup<Vec<&'static str>>) -> FillTicket {
    match lookup {
        Lookup::Fill(ticket) | Lookup::Revalidate { ticket, .. } | Lookup::Delta { ticket, .. } => {
            ticket
        }
        other => panic!("expected a fill ticket, got {other:?}"),
    }
}

fn hit(lookup: Lookup<Vec<&'static str>>) -> Vec<&'static str> {
    match lookup {
        Lookup::Hit(rows) => rows.as_ref().clone(),
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn repeated_lookups_do_not_reread_the_same_rows() {
    // "repeated stream starts do not re-read the same rows"
    let mut inv = inventory();
    let t0 = Instant::now();
    let t = ticket(inv.lookup("p", t0));
    assert!(inv.store(&t, vec!["a"], 1, t0));
    assert_eq!(hit(inv.lookup("p", t0 + Duration::from_secs(1))), vec!["a"]);
    assert_eq!(hit(inv.lookup("p", t0 + Duration::from_secs(2))), vec!["a"]);
}

#[test]
fn a_fill_that_overlaps_a_start_event_is_not_stored() {
    let mut inv = inventory();
    let t0 = Instant::now();
    let t = ticket(inv.lookup("p", t0));
    inv.observe("p", "w1", Phase::Start, t0);
    assert!(!inv.store(&t, vec!["old"], 1, t0));
    assert!(
        matches!(inv.lookup("p", t0), Lookup::Bypass),
        "open write bypasses"
    );
}

#[test]
fn a_fill_that_overlaps_a_finish_event_is_not_stored() {
    // The start was seen before the fill began; the finish lands during the fill.
    let mut inv = inventory();
    let t0 = Instant::now();
    inv.observe("p", "w1", Phase::Start, t0);
    assert!(matches!(inv.lookup("p", t0), Lookup::Bypass));
    // start lost for w2: the fill begins, then w2's finish arrives.
    let t = ticket({
        inv.observe("p", "w1", Phase::Finish, t0);
        inv.lookup("p", t0)
    });
    inv.observe("p", "w2", Phase::Finish, t0);
    assert!(!inv.store(&t, vec!["stale"], 1, t0));
    assert!(matches!(inv.lookup("p", t0), Lookup::Fill(_)));
}

#[test]
fn a_failed_write_invalidates_too() {
    // "A write that fails or times out invalidates too"
    let mut inv = inventory();
    let t0 = Instant::now();
    let t = ticket(inv.lookup("p", t0));
    assert!(inv.store(&t, vec!["a"], 1, t0));
    inv.observe("p", "w1", Phase::Start, t0);
    inv.observe("p", "w1", Phase::Failed, t0);
    assert!(matches!(inv.lookup("p", t0), Lookup::Delta { .. }));
}

#[test]
fn reads_bypass_while_a_write_is_open_and_resume_after_finish() {
    let mut inv = inventory();
    let t0 = Instant::now();
    inv.observe("p", "w1", Phase::Start, t0);
    assert!(matches!(inv.lookup("p", t0), Lookup::Bypass));
    inv.observe("p", "w1", Phase::Finish, t0);
    let t = ticket(inv.lookup("p", t0));
    assert!(inv.store(&t, vec!["new"], 2, t0));
    assert_eq!(hit(inv.lookup("p", t0)), vec!["new"]);
}

#[test]
fn an_open_write_whose_finish_was_lost_stops_bypassing_after_the_limit() {
    let mut inv = inventory();
    let t0 = Instant::now();
    inv.observe("p", "w1", Phase::Start, t0);
    assert!(matches!(
        inv.lookup("p", t0 + Duration::from_secs(59)),
        Lookup::Bypass
    ));
    assert!(matches!(
        inv.lookup("p", t0 + Duration::from_secs(61)),
        Lookup::Fill(_)
    ));
}

#[test]
fn an_open_write_bypasses_until_exactly_the_limit() {
    let mut inv = inventory();
    let t0 = Instant::now();
    inv.observe("p", "w1", Phase::Start, t0);
    let limit = Duration::from_secs(60);
    assert!(matches!(
        inv.lookup("p", t0 + limit - Duration::from_millis(1)),
        Lookup::Bypass
    ));
    assert!(matches!(inv.lookup("p", t0 + limit), Lookup::Fill(_)));
}

#[test]
fn an_entry_older_than_the_recovery_window_is_revalidated() {
    let mut inv = inventory();
    let t0 = Instant::now();
    let t = ticket(inv.lookup("p", t0));
    assert!(inv.store(&t, vec!["a"], 7, t0));
    let later = t0 + WINDOW;
    match inv.lookup("p", later) {
        Lookup::Revalidate {
            rows,
            revision,
            ticket,
        } => {
            assert_eq!(revision, 7);
            assert_eq!(rows.as_ref(), &vec!["a"]);
            assert!(
                inv.confirm(&ticket, 7, later),
                "unchanged revision confirms"
            );
        }
        other => panic!("expected revalidation, got {other:?}"),
    }
    assert_eq!(
        hit(inv.lookup("p", later + Duration::from_secs(1))),
        vec!["a"]
    );
}

#[test]
fn a_write_nobody_published_is_seen_within_the_recovery_window() {
    // "writes by another instance that published nothing are seen within that bound"
    let mut inv = inventory();
    let t0 = Instant::now();
    let t = ticket(inv.lookup("p", t0));
    assert!(inv.store(&t, vec!["a"], 7, t0));
    let later = t0 + WINDOW;
    let ticket = ticket(inv.lookup("p", later));
    assert!(
        !inv.confirm(&ticket, 8, later),
        "a moved revision does not confirm"
    );
    assert!(inv.store(&ticket, vec!["a", "b"], 8, later));
    assert_eq!(hit(inv.lookup("p", later)), vec!["a", "b"]);
}

#[test]
fn nothing_is_cached_until_the_subscription_is_up() {
    let mut inv: Inventory<Vec<&str>> = Inventory::new(InventorySettings::default());
    assert!(!inv.is_subscribed());
    assert!(matches!(inv.lookup("p", Instant::now()), Lookup::Bypass));
    inv.subscription_up();
    assert!(inv.is_subscribed());
    inv.subscription_lost();
    assert!(!inv.is_subscribed());
}

#[test]
fn losing_the_subscription_drops_every_entry_and_bypasses_until_it_is_back() {
    let mut inv = inventory();
    let t0 = Instant::now();
    for p in ["p", "q"] {
        let t = ticket(inv.lookup(p, t0));
        assert!(inv.store(&t, vec!["a"], 1, t0));
    }
    let in_flight = ticket({
        inv.observe("r", "w", Phase::Finish, t0);
        inv.lookup("r", t0)
    });
    inv.subscription_lost();
    assert_eq!(inv.cached_projects(), 0);
    assert!(matches!(inv.lookup("p", t0), Lookup::Bypass));
    inv.subscription_up();
    assert!(
        !inv.store(&in_flight, vec!["x"], 1, t0),
        "a fill that spanned the outage is refused"
    );
    assert!(matches!(inv.lookup("p", t0), Lookup::Fill(_)));
}

#[test]
fn events_of_one_project_leave_another_alone() {
    let mut inv = inventory();
    let t0 = Instant::now();
    let t = ticket(inv.lookup("p", t0));
    assert!(inv.store(&t, vec!["a"], 1, t0));
    inv.observe("q", "w", Phase::Start, t0);
    assert_eq!(hit(inv.lookup("p", t0)), vec!["a"]);
}

#[test]
fn the_least_recently_used_project_is_evicted_beyond_capacity() {
    let mut inv = inventory();
    let t0 = Instant::now();
    for (i, p) in ["a", "b", "c", "d"].into_iter().enumerate() {
        let now = t0 + Duration::from_millis(i as u64);
        let t = ticket(inv.lookup(p, now));
        assert!(inv.store(&t, vec![p], 1, now));
    }
    assert_eq!(inv.cached_projects(), 3);
    assert!(
        matches!(inv.lookup("a", t0), Lookup::Fill(_)),
        "a was least recently used"
    );
}

#[test]
fn an_eviction_drops_rows_and_never_an_empty_slot_in_their_place() {
    // "z" saw an event first (a slot without rows, the oldest): evicting it would free
    // nothing, and the inventory would hold four projects' rows with room for three.
    let mut inv = inventory();
    let t0 = Instant::now();
    inv.observe("z", "w", Phase::Finish, t0);
    for (i, p) in ["a", "b", "c", "d"].into_iter().enumerate() {
        let now = t0 + Duration::from_millis(1 + i as u64);
        let t = ticket(inv.lookup(p, now));
        assert!(inv.store(&t, vec![p], 1, now));
    }
    assert_eq!(inv.cached_projects(), 3);
    assert!(matches!(inv.lookup("a", t0), Lookup::Fill(_)));
}

#[test]
fn a_fill_racing_the_eviction_of_its_project_is_not_stored() {
    let mut inv = inventory();
    let t0 = Instant::now();
    for (i, p) in ["a", "b", "c"].into_iter().enumerate() {
        let now = t0 + Duration::from_millis(i as u64);
        let t = ticket(inv.lookup(p, now));
        assert!(inv.store(&t, vec![p], 1, now));
    }
    // "a" starts revalidating, then "b" and "c" are used more recently: "a" is the
    // least recently used when "d" arrives, and is evicted while its fill is running.
    let later = t0 + WINDOW;
    let racing = ticket(inv.lookup("a", later));
    for (i, p) in ["b", "c", "d"].into_iter().enumerate() {
        let now = later + Duration::from_millis(1 + i as u64);
        let t = ticket(inv.lookup(p, now));
        assert!(inv.store(&t, vec![p], 2, now));
    }
    assert!(!inv.store(&racing, vec!["a"], 2, later));
    assert_eq!(inv.cached_projects(), 3);
    assert!(matches!(inv.lookup("a", later), Lookup::Fill(_)));
}

/// One step of a random schedule against one project.
#[derive(Debug, Clone)]
enum Step {
    BeginFill,
    CompleteFill,
    Start(u8),
    Finish(u8),
    Lose,
    Restore,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        Just(Step::BeginFill),
        Just(Step::CompleteFill),
        (0u8..3).prop_map(Step::Start),
        (0u8..3).prop_map(Step::Finish),
        Just(Step::Lose),
        Just(Step::Restore),
    ]
}

proptest! {
    /// Whatever the interleaving of fills, writes and outages, a served row set was
    /// read after the last event the inventory saw: the store holds "index state"
    /// numbers and a hit must equal the current one.
    #[test]
    fn a_hit_never_serves_rows_from_before_the_last_observed_write(steps in prop::collection::vec(step(), 1..60)) {
        let mut inv: Inventory<u64> = Inventory::new(InventorySettings::default());
        inv.subscription_up();
        let now = Instant::now();
        let mut index_state = 0u64; // bumped by every committed write
        let mut pending: Option<(FillTicket, u64)> = None;
        let mut open = std::collections::HashSet::new();
        for step in steps {
            match step {
                Step::BeginFill => {
                    if let Lookup::Fill(t) | Lookup::Revalidate { ticket: t, .. } | Lookup::Delta { ticket: t, .. } = inv.lookup("p", now) {
                        pending = Some((t, index_state));
                    }
                }
                Step::CompleteFill => {
                    if let Some((t, read)) = pending.take() {
                        inv.store(&t, read, read, now);
                    }
                }
                Step::Start(w) => {
                    open.insert(w);
                    inv.observe("p", &w.to_string(), Phase::Start, now);
                }
                Step::Finish(w) => {
                    // The write commits, then publishes finish.
                    index_state += 1;
                    open.remove(&w);
                    inv.observe("p", &w.to_string(), Phase::Finish, now);
                }
                Step::Lose => inv.subscription_lost(),
                Step::Restore => inv.subscription_up(),
            }
            if let Lookup::Hit(rows) = inv.lookup("p", now) {
                prop_assert_eq!(*rows, index_state);
            }
        }
    }
}
