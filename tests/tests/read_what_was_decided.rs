//! Issue 25 item 1, "read what was decided", end to end over gRPC in both shapes. A
//! caller syncs a source, then (no re-sync) swaps files for links: a doc for a link to
//! a file policy hides, a skill folder for a link into that hidden folder, a file for a
//! link to `/etc/passwd` or to a key file the server keeps, and, in an agents' tree,
//! agent a1's own skill for a link into agent a2's private folder. `ReadFile`,
//! `Hydrate`, `ActivateSkill` and bundle entry reads answer NOT_FOUND or leave the file
//! out, and never return the target's bytes; an untouched file still reads. A source
//! root moved away after the sync makes every read fail without naming its host path.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::os::unix::fs::symlink;
use std::path::Path;

use neuralis_discovery::{CallerToken, DiscoveryError};
use neuralis_policy::BearerToken;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;
use neuralis_tests::fixture::{self, REPO, read_policy, register, scope};
use neuralis_tests::{Cluster, Mode};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";
const GUIDE: &str = ".claude/docs/guide.md";
const KEYS_DOC: &str = ".claude/docs/keys.md";
const PLAIN: &str = ".claude/docs/plain.md";
const TONE: &str = ".claude/instructions/tone.md";
const REVIEW: &str = ".claude/skills/review";
/// Bytes of the targets: none may ever come back (and `/etc/passwd`'s first line).
const SECRETS: &[&str] = &[
    "zqvaultsecret",
    "zqvaultskill",
    "zqvaultscript",
    "zqserverkey",
];

fn secrets() -> Vec<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let first = passwd.lines().next().unwrap_or("").to_owned();
    SECRETS
        .iter()
        .map(|s| (*s).to_owned())
        .chain((!first.is_empty()).then_some(first))
        .collect()
}

macro_rules! in_both_modes {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn all_in_one() {
                super::$scenario(super::Mode::AllInOne).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn split() {
                super::$scenario(super::Mode::Split).await;
            }
        }
    )*};
}

in_both_modes!(
    a_file_or_skill_folder_swapped_for_a_link_after_the_sync_serves_nothing_of_its_target,
    an_agent_s_skill_linked_into_another_agent_s_private_folder_serves_nothing_of_it,
    a_source_root_gone_after_the_sync_answers_naming_no_host_path,
);

fn caller(token: &str) -> CallerToken {
    CallerToken::new(Some(token.to_owned()))
}

fn read(agent: &str, path: &str) -> discovery::ReadFileRequest {
    discovery::ReadFileRequest {
        scope: scope(P, agent, ""),
        source_slug: "repo".into(),
        package_id: String::new(),
        path: path.into(),
    }
}

/// Replaces whatever is at `at` (a file or a folder) by a link to `target`.
fn swap_for_link(root: &Path, at: &str, target: &Path) {
    let at = root.join(at);
    if at.is_dir() {
        std::fs::remove_dir_all(&at).unwrap();
    } else {
        std::fs::remove_file(&at).unwrap();
    }
    symlink(target, at).unwrap();
}

/// Every caller-facing read of one caller, as text: ReadFile of `paths`, ActivateSkill
/// of `skill`, and Hydrate.
async fn every_read(
    cluster: &Cluster,
    token: &str,
    agent: &str,
    paths: &[&str],
    skill: &str,
) -> (Vec<Result<Vec<u8>, DiscoveryError>>, String) {
    let d = &cluster.discovery;
    let mut reads = Vec::new();
    for path in paths {
        let read = d.read_file(caller(token), read(agent, path)).await;
        reads.push(read.map(|r| r.content));
    }
    let activated = d
        .activate_skill(
            caller(token),
            discovery::ActivateSkillRequest {
                scope: scope(P, agent, ""),
                skill_id: skill.into(),
            },
        )
        .await;
    let hydrated = d
        .hydrate(
            caller(token),
            discovery::HydrateRequest {
                scope: scope(P, agent, ""),
                budget_bytes: 1 << 20,
            },
        )
        .await;
    (reads, format!("{activated:?}\n{hydrated:?}"))
}

async fn a_file_or_skill_folder_swapped_for_a_link_after_the_sync_serves_nothing_of_its_target(
    mode: Mode,
) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", None, P);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fixture::write_tree(root, REPO).unwrap();
    let extra = [
        (KEYS_DOC, "---\nname: keys\n---\nA doc.\n"),
        (PLAIN, "---\nname: plain\n---\nzqplainbody\n"),
        ("vault/secret.md", "---\nname: vault\n---\nzqvaultsecret\n"),
        (
            "vault/review/SKILL.md",
            "---\nname: review\n---\nzqvaultskill\n",
        ),
        (
            "vault/review/scripts/diff.sh",
            "#!/bin/sh\n# zqvaultscript\n",
        ),
    ];
    fixture::write_tree(root, &extra).unwrap();
    // A key file the server keeps, in its protected data directory.
    let key = cluster.data_dir("sync").join("zq-server.key");
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    std::fs::write(&key, "zqserverkey").unwrap();
    let deny = policy::PathRule {
        pattern: "vault/**".into(),
        read: Some(false),
        ..Default::default()
    };
    register(&cluster, &admin, P, "repo", root, read_policy(vec![deny]))
        .await
        .expect("register");
    let (skill, entry) = (
        format!("{REVIEW}/SKILL.md"),
        format!("{REVIEW}/scripts/diff.sh"),
    );
    let paths: [&str; 6] = [GUIDE, KEYS_DOC, TONE, &skill, &entry, PLAIN];

    // Before the swaps every read answers: the checks below can fail.
    let (reads, rest) = every_read(&cluster, &member, "", &paths, "review").await;
    assert!(reads.iter().all(Result::is_ok), "{reads:?}");
    assert!(
        rest.contains("Read the diff first") && rest.contains("Be direct"),
        "{rest}"
    );

    swap_for_link(root, GUIDE, &root.join("vault/secret.md"));
    swap_for_link(root, REVIEW, &root.join("vault/review"));
    swap_for_link(root, TONE, Path::new("/etc/passwd"));
    swap_for_link(root, KEYS_DOC, &key);

    let (reads, rest) = every_read(&cluster, &member, "", &paths, "review").await;
    for (path, read) in paths.iter().zip(&reads) {
        if *path == PLAIN {
            assert_eq!(
                read.as_deref().unwrap(),
                b"---\nname: plain\n---\nzqplainbody\n"
            );
        } else {
            assert_eq!(read, &Err(DiscoveryError::NotFound), "{path}");
        }
    }
    assert!(
        rest.starts_with("Err(NotFound)"),
        "the skill activates nothing: {rest}"
    );
    for secret in secrets() {
        assert!(!rest.contains(&secret), "{secret} served: {rest}");
    }

    // Re-synced, the links are decided for what they are: still nothing of the targets.
    fixture::resync(&cluster, &admin, P, "repo").await.unwrap();
    let (reads, rest) = every_read(&cluster, &member, "", &paths, "review").await;
    let served = format!("{reads:?}{rest}");
    for secret in secrets() {
        assert!(
            !served.contains(&secret),
            "{secret} served after the re-sync: {served}"
        );
    }
    cluster.stop().await.unwrap();
}

async fn an_agent_s_skill_linked_into_another_agent_s_private_folder_serves_nothing_of_it(
    mode: Mode,
) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mine = ".claude/skills/private-a1/SKILL.md";
    let theirs = ".claude/skills/private-a2/SKILL.md";
    let files = [
        (mine, "---\nname: zqmine\n---\nzqa1body\n"),
        (theirs, "---\nname: zqtheirs\n---\nzqa2privatebody\n"),
    ];
    fixture::write_tree(root, &files).unwrap();
    register(&cluster, &admin, P, "repo", root, read_policy(vec![]))
        .await
        .expect("register");
    let spec = sync::SourceSpec {
        project: P.into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        privacy_patterns: vec![".claude/skills/private-{agent}/**".into()],
        ..Default::default()
    };
    cluster
        .sources
        .update_source(
            &BearerToken::new(Some(admin.clone())),
            sync::UpdateSourceRequest { source: Some(spec) },
        )
        .await
        .expect("update");
    let a1 = cluster.token("ada", "member", Some("a1"), P);
    let a2 = cluster.token("bea", "member", Some("a2"), P);
    let (reads, rest) = every_read(&cluster, &a1, "a1", &[mine], "zqmine").await;
    assert!(
        reads[0].is_ok() && rest.contains("zqa1body"),
        "a1 reads its own: {rest}"
    );
    assert!(
        !format!("{reads:?}{rest}").contains("zqa2privatebody"),
        "{rest}"
    );

    // a1 writes in its own folder: its skill becomes a link to a2's private one.
    swap_for_link(root, mine, &root.join(theirs));
    let (reads, rest) = every_read(&cluster, &a1, "a1", &[mine], "zqmine").await;
    assert_eq!(reads[0], Err(DiscoveryError::NotFound));
    assert!(rest.starts_with("Err(NotFound)"), "{rest}");
    assert!(
        !rest.contains("zqa2privatebody"),
        "a2's body served to a1: {rest}"
    );
    // A relative link, and a link to the folder: the same.
    std::fs::remove_file(root.join(mine)).unwrap();
    symlink("../private-a2/SKILL.md", root.join(mine)).unwrap();
    let (reads, rest) = every_read(&cluster, &a1, "a1", &[mine], "zqmine").await;
    assert_eq!(reads[0], Err(DiscoveryError::NotFound));
    assert!(!rest.contains("zqa2privatebody"), "{rest}");
    swap_for_link(
        root,
        ".claude/skills/private-a1",
        &root.join(".claude/skills/private-a2"),
    );
    let (reads, rest) = every_read(&cluster, &a1, "a1", &[mine], "zqmine").await;
    assert_eq!(reads[0], Err(DiscoveryError::NotFound));
    assert!(!rest.contains("zqa2privatebody"), "{rest}");

    // Its owner still reads its own, unchanged.
    let (reads, rest) = every_read(&cluster, &a2, "a2", &[theirs], "zqtheirs").await;
    assert!(
        reads[0].is_ok() && rest.contains("zqa2privatebody"),
        "{rest}"
    );
    cluster.stop().await.unwrap();
}

/// The attacker: an agent that owns the folder around a source root moves the root
/// away (or a sandbox is removed) after the sync, and a member reads. Sync cannot
/// open the root, and its message names the host path, which only administrators are
/// shown: every read fails, as unavailable or not found, naming no part of it.
async fn a_source_root_gone_after_the_sync_answers_naming_no_host_path(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", None, P);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("zqhostroot");
    fixture::write_tree(&root, REPO).unwrap();
    register(&cluster, &admin, P, "repo", &root, read_policy(vec![]))
        .await
        .expect("register");
    let (reads, _) = every_read(&cluster, &member, "", &[GUIDE], "review").await;
    assert!(
        reads[0].is_ok(),
        "the read works before the move: {reads:?}"
    );

    std::fs::rename(&root, dir.path().join("moved")).unwrap();
    let (reads, rest) = every_read(&cluster, &member, "", &[GUIDE, TONE], "review").await;
    for read in &reads {
        assert!(
            matches!(
                read,
                Err(DiscoveryError::Unavailable(_) | DiscoveryError::NotFound)
            ),
            "{read:?}"
        );
    }
    let told = format!("{reads:?}{rest}");
    let host = dir.path().display().to_string();
    assert!(
        !told.contains("zqhostroot") && !told.contains(&host),
        "a host path reached a member: {told}"
    );
    cluster.stop().await.unwrap();
}
