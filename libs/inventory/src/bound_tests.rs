//! The byte bound on kept rows ([`crate::InventorySettings::max_bytes`]): what is kept
//! weighs at most the bound, exactly the bound included, and rows are weighed again when
//! what is derived from them is kept with them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::{Inventory, InventorySettings, Lookup, Weigh};

/// Rows whose weight grows after they are kept (what a caller derives from them).
#[derive(Debug)]
struct Growing(std::cell::Cell<usize>);

impl Weigh for Growing {
    fn bytes(&self) -> usize {
        self.0.get()
    }
}

fn bounded(max_bytes: usize) -> Inventory<Growing> {
    let mut inventory = Inventory::new(InventorySettings {
        max_bytes,
        ..InventorySettings::default()
    });
    inventory.subscription_up();
    inventory
}

fn kept(inv: &mut Inventory<Growing>, project: &str, weight: usize, now: Instant) -> Arc<Growing> {
    let Lookup::Fill(t) = inv.lookup(project, now) else {
        panic!("expected a fill");
    };
    assert!(inv.store(&t, Growing(weight.into()), 1, now));
    match inv.lookup(project, now) {
        Lookup::Hit(rows) => rows,
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn what_is_derived_from_kept_rows_counts_toward_the_bound_once_reweighed() {
    let mut inv = bounded(10);
    let t0 = Instant::now();
    kept(&mut inv, "a", 4, t0);
    let b = kept(&mut inv, "b", 4, t0 + Duration::from_millis(1));
    assert_eq!(inv.cached_bytes(), 8);
    b.0.set(8); // b's prepared answer was kept with it
    assert!(inv.reweigh("b", |rows| std::ptr::eq(rows, b.as_ref())));
    assert_eq!(inv.cached_bytes(), 8, "a, least recently used, made room");
    assert!(matches!(inv.lookup("a", t0), Lookup::Fill(_)));
    assert!(matches!(inv.lookup("b", t0), Lookup::Hit(_)));
    assert_eq!(inv.take_evictions(), 1);
}

#[test]
fn rows_that_outgrow_the_whole_bound_once_reweighed_are_let_go() {
    let mut inv = bounded(10);
    let t0 = Instant::now();
    let a = kept(&mut inv, "a", 4, t0);
    a.0.set(11);
    assert!(!inv.reweigh("a", |rows| std::ptr::eq(rows, a.as_ref())));
    assert_eq!(inv.cached_bytes(), 0);
    assert_eq!(inv.take_evictions(), 1, "letting them go is an eviction");
    assert!(matches!(inv.lookup("a", t0), Lookup::Fill(_)));
}

#[test]
fn reweighing_other_rows_than_those_kept_changes_nothing() {
    let mut inv = bounded(10);
    let t0 = Instant::now();
    let a = kept(&mut inv, "a", 4, t0);
    let other = Growing(9.into());
    a.0.set(9);
    assert!(!inv.reweigh("a", |rows| std::ptr::eq(rows, &other)));
    assert_eq!(inv.cached_bytes(), 4, "weighed as stored");
    assert!(!inv.reweigh("nobody", |_| true));
}

#[test]
fn rows_weighing_exactly_the_bound_are_kept() {
    let mut inv = bounded(10);
    let t0 = Instant::now();
    kept(&mut inv, "a", 10, t0);
    assert_eq!(inv.cached_bytes(), 10);
    assert_eq!(inv.take_evictions(), 0);
}

#[test]
fn rows_reweighed_to_exactly_the_bound_are_kept() {
    let mut inv = bounded(10);
    let t0 = Instant::now();
    let a = kept(&mut inv, "a", 4, t0);
    a.0.set(10);
    assert!(inv.reweigh("a", |rows| std::ptr::eq(rows, a.as_ref())));
    assert_eq!(inv.cached_bytes(), 10);
    assert!(matches!(inv.lookup("a", t0), Lookup::Hit(_)));
}

#[test]
fn reweighed_rows_that_fill_the_bound_exactly_evict_nothing() {
    // 4 + 6 is the bound itself: nothing is beyond it, so no other project makes room.
    let mut inv = bounded(10);
    let t0 = Instant::now();
    kept(&mut inv, "a", 4, t0);
    let b = kept(&mut inv, "b", 4, t0 + Duration::from_millis(1));
    b.0.set(6);
    assert!(inv.reweigh("b", |rows| std::ptr::eq(rows, b.as_ref())));
    assert_eq!(inv.cached_bytes(), 10);
    assert_eq!(inv.take_evictions(), 0);
    assert!(matches!(inv.lookup("a", t0), Lookup::Hit(_)));
}

#[test]
fn rows_kept_behind_an_arc_weigh_what_they_hold() {
    // Callers keep their rows shared (`Inventory<Arc<_>>`): the Arc must not hide the weight.
    // (`Vec<&str>` weighs its length in the tests.)
    for weight in [0, 7, 1000] {
        assert_eq!(Arc::new(vec!["row"; weight]).bytes(), weight);
    }
}
