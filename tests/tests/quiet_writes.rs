//! Issue 10 item 5 (seed 000: "high-rate writes that cannot affect a package cost
//! nothing"): a busy file outside every package root, rewritten and synced again and
//! again, causes no refill and no regroup, even when every call revalidates; a write
//! inside a package, a new package and a skill at the source root are still
//! reflected, by a delta.
//!
//! Alone in its test binary: it reads the process's metric counters, which another
//! test in the same process would move.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::time::Duration;

use neuralis_tests::Cluster;
use neuralis_tests::fixture::{self, REPO, read_policy, register, resync, scope, visible};

const P: &str = "quiet";

/// A counter of this process, 0 before its first update.
fn counter(line_prefix: &str) -> f64 {
    neuralis_metrics::render()
        .lines()
        .find_map(|l| l.strip_prefix(line_prefix)?.trim().parse().ok())
        .unwrap_or(0.0)
}

fn full_refills() -> f64 {
    counter("neuralis_inventory_refills_total{kind=\"full\"} ")
}

fn regroups() -> f64 {
    counter("neuralis_inventory_regroups_total ")
}

fn deltas() -> f64 {
    counter("neuralis_inventory_refills_total{kind=\"delta\"} ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_file_outside_every_root_causes_zero_refills() {
    // A short recovery window: every call below revalidates, so the quiet writes'
    // revisions are seen (no event announces them).
    let settings = HashMap::from([(
        "NEURALIS__DISCOVERY__INVENTORY__RECOVERY_WINDOW_MS".to_owned(),
        "1".to_owned(),
    )]);
    let cluster = Cluster::all_in_one(settings).await.unwrap();
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", Some("a1"), P);
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    fixture::write_tree(dir.path(), &[("build/out.log", "0")]).unwrap();
    register(&cluster, &admin, P, "repo", dir.path(), read_policy(vec![]))
        .await
        .unwrap();
    let before = visible(&cluster, &member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert!(!before.is_empty(), "the fixture's packages are listed");
    let (refills, regrouped, applied) = (full_refills(), regroups(), deltas());
    for k in 0..20 {
        fixture::write_tree(dir.path(), &[("build/out.log", &"x".repeat(k + 2))]).unwrap();
        resync(&cluster, &admin, P, "repo").await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        let answer = visible(&cluster, &member, scope(P, "a1", ""))
            .await
            .unwrap();
        assert_eq!(
            answer, before,
            "a file outside every root changes no answer"
        );
    }
    assert_eq!(full_refills(), refills, "no full refill");
    assert_eq!(regroups(), regrouped, "no source regrouped");
    assert!(
        deltas() > applied,
        "the moved revisions were caught up by deltas"
    );

    // A write inside a package is reflected, by a delta, not a refill.
    let skill = ".claude/skills/fresh/SKILL.md";
    fixture::write_tree(dir.path(), &[(skill, "---\nname: fresh\n---\nNew.\n")]).unwrap();
    resync(&cluster, &admin, P, "repo").await.unwrap();
    let answer = visible(&cluster, &member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert!(answer.iter().any(|(path, _)| path == skill), "{answer:?}");
    assert_eq!(full_refills(), refills, "still no full refill");
    assert!(regroups() > regrouped, "the package's source was regrouped");

    // A new package moves the roots: its source is split again and regrouped (counted
    // like any regroup), still by a delta.
    let regrouped = regroups();
    let new_package = "lib/helper/SKILL.md";
    let body = "---\nname: helper\ndescription: Helps\n---\nHelp.\n";
    fixture::write_tree(dir.path(), &[(new_package, body)]).unwrap();
    resync(&cluster, &admin, P, "repo").await.unwrap();
    let answer = visible(&cluster, &member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert!(
        answer.iter().any(|(path, _)| path == new_package),
        "{answer:?}"
    );
    assert_eq!(
        full_refills(),
        refills,
        "a new package needs no full refill"
    );
    assert!(
        regroups() > regrouped,
        "the new package's source was regrouped"
    );

    // A SKILL.md at the source root binds every file: the whole source is regrouped,
    // still by a delta.
    let regrouped = regroups();
    let root_skill = "SKILL.md";
    let body = "---\nname: repo\ndescription: The whole repository\n---\nAll.\n";
    fixture::write_tree(dir.path(), &[(root_skill, body)]).unwrap();
    resync(&cluster, &admin, P, "repo").await.unwrap();
    let answer = visible(&cluster, &member, scope(P, "a1", ""))
        .await
        .unwrap();
    assert!(
        answer.iter().any(|(path, _)| path == root_skill),
        "{answer:?}"
    );
    assert_eq!(full_refills(), refills, "a root skill needs no full refill");
    assert!(regroups() > regrouped, "the whole source was regrouped");
    cluster.stop().await.unwrap();
}
