//! Issue 9, "decide everything shown", end to end over gRPC in both shapes: `ReadFile`
//! and `Search` answer only files the caller may read now, a denied bundle entry is
//! named nowhere, a changed privacy pattern is honoured by the next call without a
//! sync, `Hydrate` stays within its budget when a file grew after the sync, a skill's
//! directory shows the sync host's path to administrators only, and an in-root symlink
//! shows nothing its real path hides (denied, or another agent's).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

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
const SECRET: &str = ".claude/skills/review/scripts/secret.sh";
const PRIVATE: &str = ".claude/skills/private-a2/SKILL.md";
const TONE: &str = ".claude/instructions/tone.md";

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
    read_file_and_search_answer_only_what_the_caller_may_read,
    a_changed_privacy_pattern_is_honoured_by_the_next_call_without_a_sync,
    hydrate_stays_within_its_budget_when_a_file_grew_after_the_sync,
    a_skill_directory_shows_the_host_path_to_administrators_only,
    a_symlink_shows_nothing_its_real_path_hides,
);

struct Setup {
    cluster: Cluster,
    admin: String,
    dir: tempfile::TempDir,
    /// The id sync assigned the source.
    repo_id: String,
}

/// The `.claude` repository, plus a denied script in the review skill and a skill
/// folder the privacy tests make private to agent a2.
async fn setup(mode: Mode) -> Setup {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    let extra = [
        (SECRET, "#!/bin/sh\n# zqsecret diff\n"),
        (PRIVATE, "---\nname: zqprivate\n---\nOnly for a2.\n"),
    ];
    fixture::write_tree(dir.path(), &extra).unwrap();
    let deny = policy::PathRule {
        pattern: SECRET.into(),
        read: Some(false),
        ..Default::default()
    };
    let repo_id = register(
        &cluster,
        &admin,
        P,
        "repo",
        dir.path(),
        read_policy(vec![deny]),
    )
    .await
    .expect("register");
    Setup {
        cluster,
        admin,
        dir,
        repo_id,
    }
}

fn caller(token: &str) -> CallerToken {
    CallerToken::new(Some(token.to_owned()))
}

fn read(path: &str) -> discovery::ReadFileRequest {
    discovery::ReadFileRequest {
        scope: scope(P, "", ""),
        source_slug: "repo".into(),
        package_id: String::new(),
        path: path.into(),
    }
}

async fn read_file_and_search_answer_only_what_the_caller_may_read(mode: Mode) {
    let s = setup(mode).await;
    let member = s.cluster.token("ada", "member", None, P);
    let d = &s.cluster.discovery;
    let listed = d
        .list_packages(
            caller(&member),
            discovery::ListPackagesRequest {
                scope: scope(P, "", ""),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .packages;
    let claude = listed.iter().find(|p| p.key == "claude").expect("listed");
    assert_eq!(
        claude.policy_key,
        format!("{}/claude", s.repo_id),
        "source packages are keyed by source id"
    );
    let review = claude.files.iter().find(|f| f.id == "review").unwrap();
    assert_eq!(
        review.files,
        ["SKILL.md", "scripts/diff.sh"],
        "no denied entry"
    );
    assert!(!format!("{listed:?}").contains("secret"));

    let guide = d
        .read_file(caller(&member), read(".claude/docs/guide.md"))
        .await
        .unwrap();
    assert_eq!(guide.content, b"---\nname: guide\n---\nHow we work.\n");
    let script = d
        .read_file(
            caller(&member),
            read(".claude/skills/review/scripts/diff.sh"),
        )
        .await
        .unwrap();
    assert!(String::from_utf8_lossy(&script.content).contains("git diff"));
    for path in [SECRET, ".claude/rules/style.md", ".claude/zqnothing.md"] {
        let refused = d.read_file(caller(&member), read(path)).await;
        assert_eq!(refused, Err(DiscoveryError::NotFound), "{path}");
    }
    let outsider = s.cluster.token("eve", "owner", None, "other");
    let refused = d
        .read_file(caller(&outsider), read(".claude/docs/guide.md"))
        .await;
    assert_eq!(
        refused,
        Err(DiscoveryError::NotFound),
        "another project's token"
    );

    let search = |query: &str| discovery::SearchRequest {
        scope: scope(P, "", ""),
        query: query.into(),
        limit: 10,
    };
    let hits = d
        .search(caller(&member), search("diff"))
        .await
        .unwrap()
        .hits;
    let text = format!("{hits:?}");
    assert!(
        !text.contains("zqsecret") && !text.contains("secret.sh"),
        "{text}"
    );
    assert!(
        !hits.is_empty(),
        "the check can fail: the skill and its script match"
    );
    let foreign = d.search(caller(&outsider), search("diff")).await.unwrap();
    assert!(foreign.hits.is_empty());
    s.cluster.stop().await.unwrap();
}

async fn a_changed_privacy_pattern_is_honoured_by_the_next_call_without_a_sync(mode: Mode) {
    let s = setup(mode).await;
    let a1 = s.cluster.token("ada", "member", Some("a1"), P);
    let a2 = s.cluster.token("bea", "member", Some("a2"), P);
    let sees_private = |token: String, agent: &'static str| {
        let d = s.cluster.discovery.clone();
        async move {
            let request = discovery::ListPackagesRequest {
                scope: scope(P, agent, ""),
                ..Default::default()
            };
            let listed = d.list_packages(caller(&token), request).await.unwrap();
            format!("{listed:?}").contains("zqprivate")
        }
    };
    assert!(sees_private(a1.clone(), "a1").await, "no pattern: shared");
    let spec = sync::SourceSpec {
        project: P.into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: s.dir.path().display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        privacy_patterns: vec![".claude/skills/private-{agent}/**".into()],
        ..Default::default()
    };
    s.cluster
        .sources
        .update_source(
            &BearerToken::new(Some(s.admin.clone())),
            sync::UpdateSourceRequest { source: Some(spec) },
        )
        .await
        .expect("update");
    assert!(!sees_private(a1.clone(), "a1").await, "a2's now, at once");
    assert!(
        sees_private(a2.clone(), "a2").await,
        "its owner still sees it"
    );
    let read = discovery::ReadFileRequest {
        scope: scope(P, "a1", ""),
        ..read(PRIVATE)
    };
    let refused = s.cluster.discovery.read_file(caller(&a1), read).await;
    assert_eq!(refused, Err(DiscoveryError::NotFound));
    s.cluster.stop().await.unwrap();
}

async fn hydrate_stays_within_its_budget_when_a_file_grew_after_the_sync(mode: Mode) {
    let s = setup(mode).await;
    let member = s.cluster.token("ada", "member", None, P);
    let grown = format!("---\nname: tone\n---\n{}", "x".repeat(200_000));
    std::fs::write(s.dir.path().join(TONE), grown).unwrap();
    let request = discovery::HydrateRequest {
        scope: scope(P, "", ""),
        budget_bytes: 1_000,
    };
    let hydrated = s
        .cluster
        .discovery
        .hydrate(caller(&member), request)
        .await
        .unwrap();
    let returned: u64 = hydrated.files.iter().map(|f| f.content.len() as u64).sum();
    assert!(hydrated.used_bytes <= 1_000, "{}", hydrated.used_bytes);
    assert_eq!(hydrated.used_bytes, returned);
    // Rewritten since its row: not the bytes decided, so not served (issue 25 item 1),
    // and the refused read re-syncs the source; then it is omitted by its new size.
    assert!(hydrated.files.iter().all(|f| f.path != TONE));
    let omitted = neuralis_tests::cluster::eventually(std::time::Duration::from_secs(20), || {
        let (d, member) = (s.cluster.discovery.clone(), member.clone());
        async move {
            let request = discovery::HydrateRequest {
                scope: scope(P, "", ""),
                budget_bytes: 1_000,
            };
            let hydrated = d.hydrate(caller(&member), request).await.unwrap();
            assert!(hydrated.used_bytes <= 1_000, "{}", hydrated.used_bytes);
            assert!(hydrated.files.iter().all(|f| f.path != TONE));
            hydrated.omitted.iter().any(|o| o.path == TONE)
        }
    })
    .await;
    assert!(omitted, "re-synced without anyone asking, then omitted");
    s.cluster.stop().await.unwrap();
}

async fn a_skill_directory_shows_the_host_path_to_administrators_only(mode: Mode) {
    let s = setup(mode).await;
    let member = s.cluster.token("ada", "member", None, P);
    let activate = |token: String| {
        let d = s.cluster.discovery.clone();
        async move {
            let request = discovery::ActivateSkillRequest {
                scope: scope(P, "", ""),
                skill_id: "review".into(),
            };
            d.activate_skill(caller(&token), request).await.unwrap()
        }
    };
    let seen = activate(member).await;
    assert_eq!(seen.directory_uri, "source://repo/.claude/skills/review");
    assert!(!format!("{seen:?}").contains(&s.dir.path().display().to_string()));
    let admin = activate(s.admin.clone()).await;
    assert!(
        admin.directory_uri.starts_with("file://")
            && admin.directory_uri.ends_with("/.claude/skills/review"),
        "{}",
        admin.directory_uri
    );
    s.cluster.stop().await.unwrap();
}

/// `shared/…` links into a2's private subtree and into a denied folder: the link is
/// decided under both paths, so a1 sees neither link, a2 sees its own file through it.
async fn a_symlink_shows_nothing_its_real_path_hides(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "agents/a2/notes/secret.md",
            "---\nname: zqleak\n---\nzqsecretbody\n",
        ),
        (
            "private/denied.md",
            "---\nname: zqdenied\n---\nzqdeniedbody\n",
        ),
        (".claude/docs/open.md", "---\nname: open\n---\nShared.\n"),
    ];
    fixture::write_tree(dir.path(), &files).unwrap();
    let link = |from: &str, to: &str| {
        std::os::unix::fs::symlink(dir.path().join(to), dir.path().join(from)).unwrap();
    };
    link(".claude/docs/leak.md", "agents/a2/notes/secret.md");
    link(".claude/docs/alias.md", "private/denied.md");
    let deny = policy::PathRule {
        pattern: "private/**".into(),
        read: Some(false),
        ..Default::default()
    };
    register(
        &cluster,
        &admin,
        P,
        "repo",
        dir.path(),
        read_policy(vec![deny]),
    )
    .await
    .expect("register");
    let spec = sync::SourceSpec {
        project: P.into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: dir.path().display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        privacy_patterns: vec!["agents/{agent}/**".into()],
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
    let answers = |agent: &'static str| {
        let d = cluster.discovery.clone();
        let token = cluster.token("ada", "member", Some(agent), P);
        async move {
            let mut out = String::new();
            let listed = d
                .list_packages(
                    caller(&token),
                    discovery::ListPackagesRequest {
                        scope: scope(P, agent, ""),
                        ..Default::default()
                    },
                )
                .await;
            out.push_str(&format!("{listed:?}"));
            for path in [".claude/docs/leak.md", ".claude/docs/alias.md"] {
                let request = discovery::ReadFileRequest {
                    scope: scope(P, agent, ""),
                    ..read(path)
                };
                out.push_str(&format!("{:?}", d.read_file(caller(&token), request).await));
            }
            let search = discovery::SearchRequest {
                scope: scope(P, agent, ""),
                query: "zqsecretbody".into(),
                limit: 10,
            };
            out.push_str(&format!("{:?}", d.search(caller(&token), search).await));
            out
        }
    };
    let a1 = answers("a1").await;
    assert!(
        a1.contains(".claude/docs/open.md"),
        "the check can fail: {a1}"
    );
    for hidden in ["leak.md", "zqleak", "zqsecretbody", "alias.md", "zqdenied"] {
        assert!(!a1.contains(hidden), "a1 is shown {hidden}: {a1}");
    }
    let a2 = answers("a2").await;
    assert!(
        a2.contains("leak.md") && a2.contains("zqsecretbody"),
        "{a2}"
    );
    assert!(!a2.contains("alias.md") && !a2.contains("zqdenied"), "{a2}");
    cluster.stop().await.unwrap();
}
