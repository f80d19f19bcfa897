//! Source leases and due times: compare-and-set on what was read, so of two replicas
//! that read the same row one wins; a deleted source takes its lease with it.

use super::cases::{Store, source};
use neuralis_index::{LeaseRow, SourceTurn};

fn lease(holder: &str, expires_at: i64) -> LeaseRow {
    LeaseRow {
        holder: holder.into(),
        expires_at,
    }
}

async fn turn(store: &Store, project: &str, slug: &str) -> SourceTurn {
    store
        .source_turn(project, slug)
        .await
        .expect("read")
        .expect("the source exists")
}

pub async fn a_new_source_has_a_free_lease_and_no_due_time(store: Store) {
    store
        .create_source(&source("p1", "repo"))
        .await
        .expect("created");
    let turn = turn(&store, "p1", "repo").await;
    assert_eq!(turn.lease, LeaseRow::default());
    assert_eq!(turn.next_due, 0);
    assert_eq!(turn.trigger, "interval:5m");
    assert_eq!(
        store.source_turn("p1", "missing").await.expect("read"),
        None
    );
}

pub async fn of_two_replicas_that_read_the_same_lease_one_takes_it(store: Store) {
    store
        .create_source(&source("p1", "repo"))
        .await
        .expect("created");
    let seen = turn(&store, "p1", "repo").await.lease;
    let (to_a, to_b) = (lease("a", 5_000), lease("b", 5_000));
    let a = store.swap_lease("p1", "repo", &seen, &to_a);
    let b = store.swap_lease("p1", "repo", &seen, &to_b);
    let (a, b) = futures::join!(a, b);
    let (a, b) = (a.expect("a asked"), b.expect("b asked"));
    assert!(a ^ b, "exactly one replica holds the lease: a {a}, b {b}");
    let holder = if a { "a" } else { "b" };
    assert_eq!(turn(&store, "p1", "repo").await.lease, lease(holder, 5_000));
}

pub async fn a_lease_is_renewed_and_released_only_by_its_holder(store: Store) {
    store
        .create_source(&source("p1", "repo"))
        .await
        .expect("created");
    let free = LeaseRow::default();
    assert!(
        store
            .swap_lease("p1", "repo", &free, &lease("a", 5_000))
            .await
            .expect("taken")
    );
    // Another replica that read the lease before it was taken changes nothing.
    assert!(
        !store
            .swap_lease("p1", "repo", &free, &lease("b", 9_000))
            .await
            .expect("asked")
    );
    let renewed = lease("a", 8_000);
    assert!(
        store
            .swap_lease("p1", "repo", &lease("a", 5_000), &renewed)
            .await
            .expect("renewed")
    );
    assert!(
        store
            .swap_lease("p1", "repo", &renewed, &free)
            .await
            .expect("released")
    );
    assert_eq!(turn(&store, "p1", "repo").await.lease, free);
}

pub async fn of_two_replicas_that_read_the_same_due_time_one_moves_it(store: Store) {
    store
        .create_source(&source("p1", "repo"))
        .await
        .expect("created");
    assert!(store.swap_due("p1", "repo", 0, 1_000).await.expect("armed"));
    let (a, b) = futures::join!(
        store.swap_due("p1", "repo", 1_000, 2_000),
        store.swap_due("p1", "repo", 1_000, 2_000)
    );
    assert!(
        a.expect("a asked") ^ b.expect("b asked"),
        "one run per due time"
    );
    assert_eq!(turn(&store, "p1", "repo").await.next_due, 2_000);
}

pub async fn a_source_created_again_starts_with_a_free_lease_and_no_due_time(store: Store) {
    store
        .create_source(&source("p1", "repo"))
        .await
        .expect("created");
    let free = LeaseRow::default();
    assert!(
        store
            .swap_lease("p1", "repo", &free, &lease("a", 5_000))
            .await
            .expect("taken")
    );
    assert!(store.swap_due("p1", "repo", 0, 1_000).await.expect("armed"));
    store.delete_source("p1", "repo").await.expect("deleted");
    assert_eq!(store.source_turn("p1", "repo").await.expect("read"), None);
    store
        .create_source(&source("p1", "repo"))
        .await
        .expect("created again");
    let turn = turn(&store, "p1", "repo").await;
    assert_eq!((turn.lease, turn.next_due), (free, 0));
}
