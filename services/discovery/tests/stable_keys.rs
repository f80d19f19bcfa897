//! Stable package keys (issue 10): a package's key depends on its own root only, and
//! the first answer that sees a source indexed asks policy to move the states stored
//! under the keys earlier releases gave its packages, once per source and process.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use fakes::listing::{list_request, packages};
use fakes::{good, harness};
use neuralis_discovery::DiscoveryApi;
use neuralis_layout::naming::{KeyMove, package_key};

const SKILL: &str = "---\nname: review\n---\nRead the diff.\n";

async fn keys(h: &fakes::Harness) -> Vec<(String, String)> {
    let mut keys: Vec<(String, String)> = packages(h, good())
        .await
        .iter()
        .map(|p| (p.name.clone(), p.key.clone()))
        .collect();
    keys.sort();
    keys
}

#[tokio::test]
async fn a_package_key_does_not_change_when_another_package_of_its_name_appears() {
    let h = harness().await;
    h.index.put("repo", "tools/helper/skills/a/SKILL.md", SKILL);
    let before = keys(&h).await;
    assert_eq!(
        before,
        [("helper".into(), package_key("tools/helper", "helper"))]
    );
    h.index
        .put("repo", "vendor/helper/skills/b/SKILL.md", SKILL);
    fakes::publish(&h.bus, neuralis_bus::Phase::Finish, "w").await;
    let after = keys(&h).await;
    assert!(after.contains(&before[0]), "{after:?}");
    assert_eq!(after.len(), 2);
}

#[tokio::test]
async fn the_first_answer_moves_legacy_keys_once_per_source() {
    let h = harness().await;
    h.index.put("repo", "tools/helper/skills/a/SKILL.md", SKILL);
    h.index.put("repo", ".claude/skills/review/SKILL.md", SKILL);
    keys(&h).await;
    keys(&h).await;
    let rekeys = h.access.rekeys.lock().unwrap().clone();
    assert_eq!(rekeys.len(), 1, "{rekeys:?}");
    let (source, moves) = &rekeys[0];
    assert_eq!(source, "repo");
    // `.claude` sits at its canonical place: only its old collision form (name and
    // root hash) could hold state; `helper` was keyed by its bare name.
    assert_eq!(
        moves,
        &[
            KeyMove {
                // the root hash of `.claude`, as any name not at its place carries it
                legacy: format!("claude-{}", &package_key(".claude", "kit")[4..]),
                key: "claude".into(),
            },
            KeyMove {
                legacy: "helper".into(),
                key: package_key("tools/helper", "helper"),
            },
        ]
    );
}

#[tokio::test]
async fn a_failed_rekey_is_retried_by_the_next_answer() {
    let h = harness().await;
    h.index.put("repo", "tools/helper/skills/a/SKILL.md", SKILL);
    h.access
        .down
        .store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(
        h.discovery
            .list_packages(good(), list_request())
            .await
            .is_err()
    );
    h.access
        .down
        .store(false, std::sync::atomic::Ordering::SeqCst);
    keys(&h).await;
    assert_eq!(h.access.rekeys.lock().unwrap().len(), 1);
}
