//! Everything a caller is shown was decided for that caller (DESIGN.md section 5):
//! `ReadFile` and `Search` serve only files the caller may read now, a skill's bundle
//! entries are decided with it, privacy follows the source's current patterns,
//! `Hydrate` budgets on the bytes it returns, and host paths stay with administrators.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::sync::atomic::Ordering;

use fakes::{good, harness, token};
use neuralis_discovery::{CallerToken, DiscoveryApi, DiscoveryError};
use neuralis_proto::discovery::v1 as pb;

fn scope() -> Option<pb::Scope> {
    Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: String::new(),
        conversation_id: String::new(),
    })
}

const REVIEW: &str = ".claude/skills/review/SKILL.md";
const DIFF: &str = ".claude/skills/review/scripts/diff.sh";
const SECRET: &str = ".claude/skills/review/scripts/secret.sh";
const GUIDE: &str = ".claude/docs/guide.md";
const STYLE: &str = ".claude/rules/style.md";
const TONE: &str = ".claude/instructions/tone.md";

async fn seeded() -> fakes::Harness {
    let h = harness().await;
    let files = [
        (REVIEW, "---\nname: review\n---\nRead the diff.\n"),
        (DIFF, "#!/bin/sh\n# needle\n"),
        (SECRET, "#!/bin/sh\n# needle: zqsecretbody\n"),
        (GUIDE, "---\nname: guide\n---\nThe needle guide.\n"),
        (STYLE, "---\nname: style\n---\nBe terse, needle.\n"),
        (TONE, "---\nname: tone\n---\nBe kind.\n"),
        ("AGENTS.md", "Identity: needle.\n"),
    ];
    for (path, content) in files {
        h.index.put("repo", path, content);
    }
    h.access.denied.lock().unwrap().insert(SECRET.into());
    h
}

fn read(path: &str) -> pb::ReadFileRequest {
    pb::ReadFileRequest {
        scope: scope(),
        source_slug: "repo".into(),
        package_id: String::new(),
        path: path.into(),
    }
}

fn find<'a>(packages: &'a [pb::Package], path: &str) -> Option<&'a pb::PackageFile> {
    packages
        .iter()
        .flat_map(|p| &p.files)
        .find(|f| f.path == path)
}

#[tokio::test]
async fn read_file_serves_docs_active_files_and_shown_bundle_entries() {
    let h = seeded().await;
    for path in [GUIDE, TONE, REVIEW, DIFF] {
        let file = h.discovery.read_file(good(), read(path)).await.unwrap();
        assert_eq!(file.path, path);
        assert_eq!(
            file.content,
            h.index.files.lock().unwrap()[&("repo".into(), path.into())]
        );
    }
}

#[tokio::test]
async fn read_file_answers_not_found_alike_for_denied_unlisted_unknown_and_foreign() {
    let h = seeded().await;
    let listed = h
        .discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .packages;
    // Source rules and identity files are listed opt-in: not the agent's to read until
    // enabled.
    for path in ["AGENTS.md", STYLE] {
        let file = find(&listed, path).expect("listed");
        assert_eq!(file.state(), pb::FileState::OptIn, "{path}");
    }
    let installed_named = pb::ReadFileRequest {
        source_slug: String::new(),
        package_id: "repo".into(),
        ..read(GUIDE)
    };
    let other_source = pb::ReadFileRequest {
        source_slug: "elsewhere".into(),
        ..read(GUIDE)
    };
    let cases = [
        (good(), read(SECRET), "a denied bundle entry"),
        (good(), read("AGENTS.md"), "an opt-in identity file"),
        (good(), read(STYLE), "an opt-in rule"),
        (good(), read(".claude/zqnothing.md"), "an unknown path"),
        (good(), read(".claude/skills/review"), "a directory"),
        (
            good(),
            installed_named,
            "a source named as an installed package",
        ),
        (good(), other_source, "another source"),
        (CallerToken::new(None), read(GUIDE), "no token"),
        (
            fakes::member_of("p2"),
            read(GUIDE),
            "a token of another project",
        ),
    ];
    for (caller, request, case) in cases {
        let answer = h.discovery.read_file(caller, request).await;
        assert_eq!(answer, Err(DiscoveryError::NotFound), "{case}");
    }
    let sh = h.index.content_reads.lock().unwrap().clone();
    assert!(
        !sh.iter().any(|p| p == SECRET),
        "a denied file is never read"
    );
}

#[tokio::test]
async fn read_file_names_the_field_of_a_malformed_request() {
    let h = seeded().await;
    let neither = pb::ReadFileRequest {
        source_slug: String::new(),
        ..read(GUIDE)
    };
    let both = pb::ReadFileRequest {
        package_id: "acme".into(),
        ..read(GUIDE)
    };
    let no_path = read("");
    for (request, field) in [
        (neither, "source_slug"),
        (both, "package_id"),
        (no_path, "path"),
    ] {
        match h.discovery.read_file(good(), request).await {
            Err(DiscoveryError::InvalidArgument { field: named, .. }) => assert_eq!(named, field),
            other => panic!("{field}: {other:?}"),
        }
    }
}

fn search(limit: u32) -> pb::SearchRequest {
    pb::SearchRequest {
        scope: scope(),
        query: "needle".into(),
        limit,
    }
}

#[tokio::test]
async fn search_answers_only_hits_in_files_the_caller_may_read() {
    let h = seeded().await;
    let hits = h.discovery.search(good(), search(0)).await.unwrap().hits;
    let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, [GUIDE, DIFF], "denied and opt-in files hold no hit");
    assert!(hits.iter().all(|h| h.source_slug == "repo"));
    assert!(!format!("{hits:?}").contains("zqsecretbody"));
}

#[tokio::test]
async fn search_over_fetches_and_keeps_at_most_the_limit() {
    let h = seeded().await;
    let hits = h.discovery.search(good(), search(1)).await.unwrap().hits;
    assert_eq!(hits.len(), 1);
    h.discovery.search(good(), search(0)).await.unwrap();
    h.discovery.search(good(), search(1000)).await.unwrap();
    let limits: Vec<u32> = h
        .index
        .searches
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.1)
        .collect();
    assert_eq!(limits, [4, 40, 100], "4x the limit, capped at sync's 100");
}

#[tokio::test]
async fn search_for_an_unverified_caller_is_empty_and_asks_sync_nothing() {
    let h = seeded().await;
    for caller in [CallerToken::new(None), fakes::member_of("p2")] {
        let answer = h.discovery.search(caller, search(0)).await.unwrap();
        assert!(answer.hits.is_empty());
    }
    assert!(h.index.searches.lock().unwrap().is_empty());
    let empty = pb::SearchRequest {
        query: " ".into(),
        ..search(0)
    };
    let refused = h.discovery.search(good(), empty).await;
    assert!(
        matches!(refused, Err(DiscoveryError::InvalidArgument { field, .. }) if field == "query")
    );
}

#[tokio::test]
async fn a_denied_bundle_entry_is_dropped_from_every_answer() {
    let h = seeded().await;
    let listed = h
        .discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .packages;
    let review = find(&listed, REVIEW).unwrap();
    assert_eq!(review.files, ["SKILL.md", "scripts/diff.sh"]);
    let overview = h
        .discovery
        .render_overview(
            good(),
            pb::RenderOverviewRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .text;
    assert!(
        overview.contains("[files: SKILL.md, scripts/diff.sh]"),
        "{overview}"
    );
    let skill = h
        .discovery
        .activate_skill(
            good(),
            pb::ActivateSkillRequest {
                scope: scope(),
                skill_id: "review".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(skill.files, ["SKILL.md", "scripts/diff.sh"]);
    for answer in [format!("{listed:?}"), overview, format!("{skill:?}")] {
        assert!(!answer.contains("secret"), "{answer}");
    }
}

#[tokio::test]
async fn a_changed_privacy_pattern_changes_the_next_answer_without_a_sync() {
    let h = harness().await;
    h.index.put(
        "repo",
        ".claude/skills/private-alice/SKILL.md",
        "---\nname: zqalice\n---\nMine.\n",
    );
    h.index.put(
        "repo",
        ".claude/skills/shared/SKILL.md",
        "---\nname: shared\n---\nOurs.\n",
    );
    let names = |packages: Vec<pb::Package>| format!("{packages:?}");
    let list = || pb::ListPackagesRequest {
        scope: scope(),
        ..Default::default()
    };
    let bob = || token("member", Some("bob"), "p1");
    let alice = || token("member", Some("alice"), "p1");
    let before = names(
        h.discovery
            .list_packages(bob(), list())
            .await
            .unwrap()
            .packages,
    );
    assert!(
        before.contains("zqalice"),
        "no pattern yet: shared with everyone"
    );
    let reads = h.index.row_reads.load(Ordering::SeqCst);
    h.index.privacy.lock().unwrap().insert(
        "repo".into(),
        vec![".claude/skills/private-{agent}/**".into()],
    );
    let after = names(
        h.discovery
            .list_packages(bob(), list())
            .await
            .unwrap()
            .packages,
    );
    assert!(!after.contains("zqalice"), "private to alice now: {after}");
    assert!(after.contains("shared"), "the rest stays");
    let own = names(
        h.discovery
            .list_packages(alice(), list())
            .await
            .unwrap()
            .packages,
    );
    assert!(own.contains("zqalice"), "its owner still sees it");
    assert_eq!(
        h.index.row_reads.load(Ordering::SeqCst),
        reads,
        "the same indexed rows: privacy was computed from the pattern, not re-synced"
    );
}

#[tokio::test]
async fn hydration_never_exceeds_its_budget_when_a_file_grew_after_the_sync() {
    let h = seeded().await;
    let helper = ".claude/agents/helper.md";
    h.index
        .put("repo", helper, "---\nname: helper\n---\nHelps.\n");
    h.index
        .rewrite_content_only("repo", TONE, &"x".repeat(5_000));
    let hydrated = h
        .discovery
        .hydrate(
            good(),
            pb::HydrateRequest {
                scope: scope(),
                budget_bytes: 1_000,
            },
        )
        .await
        .unwrap();
    let returned: u64 = hydrated.files.iter().map(|f| f.content.len() as u64).sum();
    assert!(hydrated.used_bytes <= 1_000);
    assert_eq!(hydrated.used_bytes, returned);
    let paths: Vec<&str> = hydrated.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [helper],
        "the grown file is omitted whole, the rest still fits"
    );
    let omitted: Vec<(&str, u64)> = hydrated
        .omitted
        .iter()
        .map(|o| (o.path.as_str(), o.size_bytes))
        .collect();
    assert_eq!(omitted, [(TONE, 5_000)]);
}

async fn directory_uri(h: &fakes::Harness, caller: CallerToken) -> String {
    let request = pb::ActivateSkillRequest {
        scope: scope(),
        skill_id: "review".into(),
    };
    h.discovery
        .activate_skill(caller, request)
        .await
        .unwrap()
        .directory_uri
}

#[tokio::test]
async fn a_skill_directory_shows_the_sync_hosts_path_to_administrators_only() {
    let h = seeded().await;
    let machine = directory_uri(&h, good()).await;
    assert_eq!(machine, "machine://m1/repo/.claude/skills/review");
    h.index
        .local_roots
        .lock()
        .unwrap()
        .insert("repo".into(), "/srv/zqhost/repo".into());
    let member = directory_uri(&h, good()).await;
    assert_eq!(member, "source://repo/.claude/skills/review");
    let owner = directory_uri(&h, token("owner", None, "p1")).await;
    assert_eq!(owner, "file:///srv/zqhost/repo/.claude/skills/review");
}
