//! How current an answer is: writes and `ListPackages` calls race, and a checker
//! proves no call that started after a write's `finish` saw rows from before it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use neuralis_tests::fixture::{self, REPO, read_policy, register, resync, scope, visible};
use neuralis_tests::{Cluster, Mode};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";
const WRITES: usize = 12;

fn skill(k: usize) -> String {
    format!(".claude/skills/s{k}/SKILL.md")
}

/// All-in-one: the in-process bus applies a `finish` before any later call decides,
/// so the rule holds exactly. (Over Redis the same holds once the event crossed the
/// network; that delay is measured in BENCHMARKS.md rather than asserted here.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_call_started_after_a_finish_sees_rows_from_before_it() {
    let cluster = Arc::new(Cluster::start(Mode::AllInOne, NODE).await.unwrap());
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", Some("a1"), P);
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    register(&cluster, &admin, P, "repo", dir.path(), read_policy(vec![]))
        .await
        .unwrap();

    let finished: Arc<Mutex<HashMap<usize, Instant>>> = Arc::default();
    let writing = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let writer = {
        let (cluster, finished, writing, root) = (
            cluster.clone(),
            finished.clone(),
            writing.clone(),
            dir.path().to_owned(),
        );
        tokio::spawn(async move {
            for k in 0..WRITES {
                let body = format!("---\nname: s{k}\n---\nstep {k}\n");
                fixture::write_tree(&root, &[(skill(k).as_str(), body.as_str())]).unwrap();
                resync(&cluster, &admin, P, "repo").await.unwrap();
                finished.lock().unwrap().insert(k, Instant::now());
            }
            writing.store(false, std::sync::atomic::Ordering::SeqCst);
        })
    };
    let mut readers = Vec::new();
    for _ in 0..2 {
        let (cluster, writing, member) = (cluster.clone(), writing.clone(), member.clone());
        readers.push(tokio::spawn(async move {
            let mut seen = Vec::new();
            while writing.load(std::sync::atomic::Ordering::SeqCst) {
                let started = Instant::now();
                let answer = visible(&cluster, &member, scope(P, "a1", ""))
                    .await
                    .unwrap();
                let paths: BTreeSet<String> = answer.into_iter().map(|(path, _)| path).collect();
                seen.push((started, paths));
            }
            seen
        }));
    }
    writer.await.unwrap();
    let finished = finished.lock().unwrap().clone();
    let mut checked = 0;
    for reader in readers {
        for (started, paths) in reader.await.unwrap() {
            for (k, done) in &finished {
                if *done < started {
                    assert!(
                        paths.contains(&skill(*k)),
                        "a call started after write {k} finished missed it"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 0, "the readers overlapped the writes");
    Arc::try_unwrap(cluster)
        .ok()
        .expect("sole owner")
        .stop()
        .await
        .unwrap();
}
