//! Reads past what a listing shows, each decided for the caller now (issue 27):
//! a skill's whole directory is readable, not only the 64 files `files[]` advertises
//! (seed 001); every indexed file is searchable content (seed 000), never a hidden
//! one; and `Hydrate` decides each file again right before reading it, budgeting the
//! bytes it reads.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::sync::Arc;

use fakes::{good, harness, token};
use neuralis_discovery::{CallerToken, DiscoveryApi, DiscoveryError};
use neuralis_proto::discovery::v1 as pb;

const SKILL: &str = ".claude/skills/big/SKILL.md";

fn scope() -> Option<pb::Scope> {
    Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: String::new(),
        conversation_id: String::new(),
    })
}

fn read(path: &str) -> pb::ReadFileRequest {
    pb::ReadFileRequest {
        scope: scope(),
        source_slug: "repo".into(),
        package_id: String::new(),
        path: path.into(),
    }
}

fn script(n: usize) -> String {
    format!(".claude/skills/big/scripts/s{n:03}.sh")
}

/// A skill whose directory holds 70 scripts: `files[]` lists SKILL.md and 63 of them.
async fn big_skill() -> fakes::Harness {
    let h = harness().await;
    h.index
        .put("repo", SKILL, "---\nname: big\n---\nRun the scripts.\n");
    for n in 0..70 {
        h.index.put("repo", &script(n), &format!("echo {n}\n"));
    }
    h.index
        .put("repo", ".claude/skills/big/.env", "TOKEN=zqdotfile\n");
    h.index
        .put("repo", ".claude/skills/big/dist/out.js", "built\n");
    h
}

#[tokio::test]
async fn read_file_serves_a_bundle_file_past_the_64_that_files_lists() {
    let h = big_skill().await;
    let listed = h
        .discovery
        .list_packages(good(), fakes::listing::list_request())
        .await
        .unwrap();
    let skill = listed
        .packages
        .iter()
        .flat_map(|p| &p.files)
        .find(|f| f.path == SKILL)
        .unwrap();
    assert_eq!(skill.files.len(), 64, "files[] advertises 64");
    assert!(!skill.files.iter().any(|f| f == "scripts/s069.sh"));
    let file = h.discovery.read_file(good(), read(&script(69))).await;
    assert_eq!(file.unwrap().content, b"echo 69\n", "the 65th file and on");
}

#[tokio::test]
async fn read_file_past_the_list_still_refuses_denied_skipped_and_unindexed_files() {
    let h = big_skill().await;
    h.access.denied.lock().unwrap().insert(script(68));
    for path in [
        script(68),                                  // denied by policy
        ".claude/skills/big/.env".into(),            // a dotfile
        ".claude/skills/big/dist/out.js".into(),     // a build directory
        ".claude/skills/big/scripts/none.sh".into(), // never indexed
    ] {
        let answer = h.discovery.read_file(good(), read(&path)).await;
        assert_eq!(answer, Err(DiscoveryError::NotFound), "{path}");
    }
    let reads = h.index.content_reads.lock().unwrap().clone();
    assert!(reads.is_empty(), "nothing refused was read: {reads:?}");
}

#[tokio::test]
async fn read_file_past_the_list_serves_nothing_of_a_skill_the_caller_may_not_see() {
    let h = big_skill().await;
    h.access.denied.lock().unwrap().insert(SKILL.into());
    let answer = h.discovery.read_file(good(), read(&script(69))).await;
    assert_eq!(answer, Err(DiscoveryError::NotFound));
}

fn search(query: &str) -> pb::SearchRequest {
    pb::SearchRequest {
        scope: scope(),
        query: query.into(),
        limit: 0,
    }
}

async fn hits(h: &fakes::Harness, caller: CallerToken, query: &str) -> Vec<String> {
    let answer = h.discovery.search(caller, search(query)).await.unwrap();
    answer.hits.into_iter().map(|hit| hit.path).collect()
}

#[tokio::test]
async fn search_finds_every_indexed_file_no_package_lists() {
    let h = harness().await;
    h.index.put(
        "repo",
        ".claude/skills/review/SKILL.md",
        "---\nname: review\n---\nReview.\n",
    );
    let plain = [
        "README.md",
        ".claude/settings.json",
        ".claude/agents/notes.md",
        ".claude/skills/review/run.py",
        "deep/nested/stray/notes.md",
    ];
    for path in plain {
        h.index.put("repo", path, "the zqneedle term\n");
    }
    let mut found = hits(&h, good(), "zqneedle").await;
    found.sort();
    let mut expected: Vec<String> = plain.iter().map(|p| (*p).to_owned()).collect();
    expected.sort();
    assert_eq!(found, expected);
}

#[tokio::test]
async fn a_member_searching_a_term_only_in_a_denied_file_gets_nothing() {
    let h = harness().await;
    h.index.put("repo", "README.md", "public\n");
    h.index.put("repo", "ops/keys.txt", "zqdeniedterm\n");
    h.access
        .denied
        .lock()
        .unwrap()
        .insert("ops/keys.txt".into());
    let answer = h.discovery.search(good(), search("zqdeniedterm")).await;
    assert_eq!(answer.unwrap().hits, [], "no hit, no name, no count");
}

#[tokio::test]
async fn an_agent_searching_a_term_only_in_another_agents_private_file_gets_nothing() {
    let h = harness().await;
    h.index
        .put("repo", "data/private-alice/diary.txt", "zqalicesecret\n");
    h.index
        .privacy
        .lock()
        .unwrap()
        .insert("repo".into(), vec!["data/private-{agent}/**".into()]);
    let bob = token("member", Some("bob"), "p1");
    assert_eq!(hits(&h, bob, "zqalicesecret").await, Vec::<String>::new());
    let alice = token("member", Some("alice"), "p1");
    assert_eq!(
        hits(&h, alice, "zqalicesecret").await,
        ["data/private-alice/diary.txt"],
        "its owner finds it"
    );
}

fn hydrate(budget_bytes: u64) -> pb::HydrateRequest {
    pb::HydrateRequest {
        scope: scope(),
        budget_bytes,
    }
}

const FIRST: &str = ".claude/instructions/a.md";
const SECOND: &str = ".claude/instructions/b.md";

#[tokio::test]
async fn a_file_revoked_while_hydration_reads_is_not_returned() {
    let h = harness().await;
    h.index.put("repo", FIRST, "---\nname: a\n---\nFirst.\n");
    h.index
        .put("repo", SECOND, "---\nname: b\n---\nzqrevoked.\n");
    let access = Arc::clone(&h.access);
    // The revocation lands while the call reads the first file.
    *h.index.on_read.lock().unwrap() = Some(Box::new(move |path: &str| {
        if path == FIRST {
            access.denied.lock().unwrap().insert(SECOND.into());
        }
    }));
    let hydrated = h.discovery.hydrate(good(), hydrate(0)).await.unwrap();
    let paths: Vec<&str> = hydrated.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, [FIRST]);
    assert!(!format!("{hydrated:?}").contains("zqrevoked"));
    assert!(
        !h.index
            .content_reads
            .lock()
            .unwrap()
            .iter()
            .any(|p| p == SECOND),
        "the revoked file is not read"
    );
}

#[tokio::test]
async fn a_file_that_shrank_since_the_sync_is_budgeted_by_the_bytes_read() {
    let h = harness().await;
    let indexed = format!("---\nname: a\n---\n{}\n", "x".repeat(500));
    h.index.put("repo", FIRST, &indexed);
    h.index
        .rewrite_content_only("repo", FIRST, "---\nname: a\n---\nShort.\n");
    let hydrated = h.discovery.hydrate(good(), hydrate(100)).await.unwrap();
    let paths: Vec<&str> = hydrated.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, [FIRST], "not skipped by its indexed 500 bytes");
    assert_eq!(hydrated.omitted, []);
}

/// The same for an installed package's skill: its directory as listed at load.
#[tokio::test]
async fn read_file_serves_an_installed_skills_bundle_file_past_the_64_listed() {
    use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
    use neuralis_discovery::adapters::LoadedCatalog;
    let zone = tempfile::tempdir().unwrap();
    let dir = zone.path().join("kit");
    std::fs::create_dir_all(dir.join("skills/big/scripts")).unwrap();
    std::fs::write(
        dir.join("package.json"),
        r#"{"name": "kit", "neuralis": {}}"#,
    )
    .unwrap();
    std::fs::write(dir.join("skills/big/SKILL.md"), "---\nname: big\n---\n").unwrap();
    for n in 0..70 {
        let file = dir.join(format!("skills/big/scripts/s{n:03}.sh"));
        std::fs::write(file, format!("echo {n}\n")).unwrap();
    }
    let roots = Roots {
        dependency_tree: None,
        drop_zone: Some(zone.path().to_path_buf()),
        trusted_dirs: Vec::new(),
    };
    let catalog = Catalog::load(&roots, ReadLimits::default(), &Extras::default()).unwrap();
    let h = fakes::harness_with(Arc::new(LoadedCatalog::new(catalog, &roots))).await;
    let request = |path: &str| pb::ReadFileRequest {
        source_slug: String::new(),
        package_id: "kit".into(),
        ..read(path)
    };
    let file = h
        .discovery
        .read_file(good(), request("skills/big/scripts/s069.sh"))
        .await;
    assert_eq!(file.unwrap().content, b"echo 69\n");
    h.access
        .denied
        .lock()
        .unwrap()
        .insert("skills/big/scripts/s068.sh".into());
    let denied = h
        .discovery
        .read_file(good(), request("skills/big/scripts/s068.sh"))
        .await;
    assert_eq!(denied, Err(DiscoveryError::NotFound));
}
