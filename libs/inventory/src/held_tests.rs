//! Rows held for when sync cannot be reached (issue 26, "listings that outlive sync").

use std::time::{Duration, Instant};

use crate::{Inventory, InventorySettings, Lookup, Phase};

fn stored(project: &str) -> (Inventory<Vec<&'static str>>, Instant) {
    let mut inventory = Inventory::new(InventorySettings {
        recovery_window: Duration::from_secs(5),
        open_write_limit: Duration::from_secs(60),
        ..InventorySettings::default()
    });
    inventory.subscription_up();
    let now = Instant::now();
    let ticket = match inventory.lookup(project, now) {
        Lookup::Fill(ticket) => ticket,
        other => panic!("expected a fill, got {other:?}"),
    };
    assert!(inventory.store(&ticket, vec!["row"], 1, now));
    (inventory, now)
}

fn held(inventory: &Inventory<Vec<&'static str>>, project: &str) -> Option<Vec<&'static str>> {
    inventory
        .held(project)
        .map(|(rows, _)| rows.as_ref().clone())
}

#[test]
fn stored_rows_are_held_however_long_ago_they_were_confirmed() {
    let (mut inventory, now) = stored("p");
    // Past the recovery window a lookup would revalidate with sync; held rows do not.
    let _ = inventory.lookup("p", now + Duration::from_secs(3600));
    assert_eq!(held(&inventory, "p"), Some(vec!["row"]));
}

#[test]
fn rows_stop_being_held_at_a_write_start_and_stay_so_after_its_finish() {
    let (mut inventory, now) = stored("p");
    inventory.observe("p", "w1", Phase::Start, now);
    assert_eq!(held(&inventory, "p"), None, "a write is open");
    inventory.observe("p", "w1", Phase::Finish, now);
    assert_eq!(
        held(&inventory, "p"),
        None,
        "the finished write is not in the rows"
    );
}

#[test]
fn an_open_write_is_never_taken_for_lost_while_rows_are_held_without_sync() {
    let (mut inventory, now) = stored("p");
    inventory.observe("p", "w1", Phase::Start, now);
    // A lookup stops bypassing after the limit; a write that committed while its
    // finish was lost would then be missing from rows served with no word from sync.
    let _ = inventory.lookup("p", now + Duration::from_secs(3600));
    assert_eq!(held(&inventory, "p"), None);
}

#[test]
fn nothing_is_held_while_events_are_not_arriving() {
    let (mut inventory, _) = stored("p");
    inventory.subscription_lost();
    assert_eq!(held(&inventory, "p"), None);
    assert_eq!(held(&inventory, "never-seen"), None);
}

#[test]
fn the_mark_moves_with_the_projects_events_and_a_lost_subscription_only() {
    let (mut inventory, now) = stored("p");
    let before = inventory.seen("p");
    inventory.observe("q", "w1", Phase::Start, now);
    assert_eq!(inventory.seen("p"), before, "another project's event");
    inventory.observe("p", "w2", Phase::Failed, now);
    assert_ne!(inventory.seen("p"), before, "the project's own event");
    let after_event = inventory.seen("p");
    inventory.subscription_lost();
    inventory.subscription_up();
    assert_ne!(
        inventory.seen("p"),
        after_event,
        "events may have been missed"
    );
}
