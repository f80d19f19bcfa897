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

    // Writes that move packages are reflected, by a delta, not a refill, and each
    // regroups its source: inside a package (its relevant files), a new package (the
    // roots move: the files below it split again), a SKILL.md at the source root (it
    // binds every file: the whole source).
    for (path, body) in [
        (
            ".claude/skills/fresh/SKILL.md",
            "---\nname: fresh\n---\nNew.\n",
        ),
        (
            "lib/helper/SKILL.md",
            "---\nname: helper\ndescription: Helps\n---\nHelp.\n",
        ),
        (
            "SKILL.md",
            "---\nname: repo\ndescription: The repository\n---\nAll.\n",
        ),
    ] {
        let regrouped = regroups();
        fixture::write_tree(dir.path(), &[(path, body)]).unwrap();
        resync(&cluster, &admin, P, "repo").await.unwrap();
        let answer = visible(&cluster, &member, scope(P, "a1", ""))
            .await
            .unwrap();
        assert!(
            answer.iter().any(|(seen, _)| seen == path),
            "{path}: {answer:?}"
        );
        assert_eq!(full_refills(), refills, "{path}: still no full refill");
        assert!(regroups() > regrouped, "{path}: its source was regrouped");
    }
    cluster.stop().await.unwrap();
}
