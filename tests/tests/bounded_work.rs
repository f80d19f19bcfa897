//! Issue 25, "bounded work per call" and "a fair share", end to end over gRPC in both
//! shapes: a member's Search past the query bounds is refused naming `query` before any
//! work (50,000 words, a 3.5 MB token); regex-like and full-text-operator text is
//! answered within a bound; eight abandoned heavy queries (the 300 KB ones,
//! then eight at the largest size allowed, from eight members) leave a caller of
//! another project answered and health SERVING; a caller over its share is answered
//! RESOURCE_EXHAUSTED with a `RetryInfo` while another caller is served.
//!
//! The bounds on time are generous (5 s, where the issue asks under 1 s) because the
//! tests run on two loaded cores; the figures measured are in `BENCHMARKS.md`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::time::{Duration, Instant};

use neuralis_discovery::{CallerToken, DiscoveryError};
use neuralis_proto::details;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_tests::fixture::{self, REPO, read_policy, register, scope};
use neuralis_tests::{Cluster, Mode, cluster::channel};
use tonic::Code;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use discovery::discovery_service_client::DiscoveryServiceClient;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";
const VICTIM_PROJECT: &str = "quiet";
/// Generous: the figure is 1 s, on an idle machine.
const ANSWERED_WITHIN: Duration = Duration::from_secs(5);
/// Documents every maximal query matches in full.
const DOCS: usize = 400;

macro_rules! in_both_modes {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn all_in_one() {
                super::$scenario(super::Mode::AllInOne, Default::default()).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn split() {
                super::$scenario(super::Mode::Split, Default::default()).await;
            }
        }
    )*};
}

in_both_modes!(
    a_search_past_its_bounds_is_refused_naming_the_query,
    regex_like_and_operator_text_is_answered_within_a_bound,
    abandoned_heavy_searches_leave_other_callers_answered_and_health_serving,
);

/// One call per caller at a time: of a burst of 24 maximal searches sent together on
/// one connection (each takes milliseconds), the ones that arrive while another runs
/// are shed.
mod a_caller_over_its_share_is_shed_with_retry_info_while_another_is_served {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn all_in_one() {
        super::a_caller_over_its_share_is_shed_with_retry_info_while_another_is_served(
            super::Mode::AllInOne,
        )
        .await;
    }
}

/// The 64 words every document holds: a query of all of them is the costliest one the
/// bounds allow (every word a term to walk, every document a match to rank).
fn common_words() -> Vec<String> {
    (0..64).map(|i| format!("common{i:02}")).collect()
}

/// The largest query allowed: 64 words, padded towards 4 KiB with separators.
fn maximal_query() -> String {
    let words = common_words().join(" ");
    let pad = 4 * 1024 - words.len();
    format!("{words}{}", " ".repeat(pad))
}

struct Setup {
    cluster: Cluster,
    _dirs: Vec<tempfile::TempDir>,
}

async fn start(mode: Mode, overrides: HashMap<String, String>) -> Cluster {
    match mode {
        Mode::AllInOne => Cluster::all_in_one(overrides).await.expect("cluster"),
        _ => Cluster::split_with(NODE, false, overrides)
            .await
            .expect("cluster"),
    }
}

/// Project `proj` with the `.claude` repository and `DOCS` documents that every
/// maximal query matches; project `quiet` with the repository alone (the victim's).
async fn setup(mode: Mode, overrides: HashMap<String, String>) -> Setup {
    let cluster = start(mode, overrides).await;
    let busy = tempfile::tempdir().unwrap();
    fixture::write_tree(busy.path(), REPO).unwrap();
    let body = common_words().join(" ");
    for i in 0..DOCS {
        let path = busy.path().join(format!(".claude/docs/d{i:04}.md"));
        std::fs::write(path, format!("---\nname: d{i:04}\n---\n{body}\n")).unwrap();
    }
    let admin = cluster.token("ops", "owner", None, P);
    register(
        &cluster,
        &admin,
        P,
        "repo",
        busy.path(),
        read_policy(vec![]),
    )
    .await
    .expect("register the busy project");
    let quiet = tempfile::tempdir().unwrap();
    fixture::write_tree(quiet.path(), REPO).unwrap();
    let quiet_admin = cluster.token("ops", "owner", None, VICTIM_PROJECT);
    register(
        &cluster,
        &quiet_admin,
        VICTIM_PROJECT,
        "repo",
        quiet.path(),
        read_policy(vec![]),
    )
    .await
    .expect("register the quiet project");
    Setup {
        cluster,
        _dirs: vec![busy, quiet],
    }
}

fn caller(token: &str) -> CallerToken {
    CallerToken::new(Some(token.to_owned()))
}

fn search(query: &str) -> discovery::SearchRequest {
    discovery::SearchRequest {
        scope: scope(P, "", ""),
        query: query.into(),
        limit: 10,
    }
}

async fn a_search_past_its_bounds_is_refused_naming_the_query(
    mode: Mode,
    overrides: HashMap<String, String>,
) {
    let s = setup(mode, overrides).await;
    let member = s.cluster.token("mallory", "member", None, P);
    let attacks = [
        ("50,000 words", "word ".repeat(50_000)),
        ("a 3.5 MB token", "x".repeat(3_500_000)),
        ("(a+)+$ x 2,000", "(a+)+$".repeat(2_000)),
        ("2,000 unicode words", "ünïcödé ".repeat(2_000)),
        ("65 words", vec!["w"; 65].join(" ")),
    ];
    for (name, query) in attacks {
        let started = Instant::now();
        let refused = s
            .cluster
            .discovery
            .search(caller(&member), search(&query))
            .await;
        match refused {
            Err(DiscoveryError::InvalidArgument { field, .. }) => {
                assert_eq!(field, "query", "{name}")
            }
            other => panic!("{name}: {other:?}"),
        }
        assert!(started.elapsed() < ANSWERED_WITHIN, "{name}");
    }
    s.cluster.stop().await.unwrap();
}

async fn regex_like_and_operator_text_is_answered_within_a_bound(
    mode: Mode,
    overrides: HashMap<String, String>,
) {
    let s = setup(mode, overrides).await;
    let member = s.cluster.token("ada", "member", None, P);
    let queries = [
        "(a+)+$ ".repeat(60),
        "NOT AND OR NEAR( \" * ^ col: - + ".repeat(6),
        "ünïcödé 言語 ".repeat(30),
        maximal_query(),
    ];
    for query in queries {
        let started = Instant::now();
        let answered = s
            .cluster
            .discovery
            .search(caller(&member), search(&query))
            .await;
        let took = started.elapsed();
        assert!(answered.is_ok(), "{:?}: {answered:?}", &query[..20]);
        assert!(took < ANSWERED_WITHIN, "{:?} took {took:?}", &query[..20]);
    }
    // Read literally: the common words find the documents, the operators found nothing.
    let hits = s
        .cluster
        .discovery
        .search(caller(&member), search("common00 common63"))
        .await
        .unwrap()
        .hits;
    assert!(!hits.is_empty());
    s.cluster.stop().await.unwrap();
}

/// Sends `query` as `token` with a deadline of `abandon_after`, then gives up on it.
async fn abandoned_search(
    client: DiscoveryServiceClient<tonic::transport::Channel>,
    token: String,
    query: String,
    abandon_after: Duration,
) {
    let mut request = tonic::Request::new(search(&query));
    request.set_timeout(abandon_after);
    let bearer = format!("Bearer {token}").parse().unwrap();
    request.metadata_mut().insert("authorization", bearer);
    let mut client = client;
    let _ = tokio::time::timeout(abandon_after, client.search(request)).await;
}

/// A caller of another project lists its packages (a cold inventory: store reads),
/// and health answers SERVING; returns how long the listing took.
async fn victim_is_served(s: &Setup) -> Duration {
    let victim = s.cluster.token("vic", "member", None, VICTIM_PROJECT);
    let started = Instant::now();
    let listed = tokio::time::timeout(
        ANSWERED_WITHIN,
        s.cluster.discovery.list_packages(
            caller(&victim),
            discovery::ListPackagesRequest {
                scope: scope(VICTIM_PROJECT, "", ""),
                ..Default::default()
            },
        ),
    )
    .await
    .expect("the victim is answered in time")
    .expect("the victim is answered");
    let took = started.elapsed();
    assert!(!listed.packages.is_empty());
    let health = channel(s.cluster.addrs["discovery"], None).unwrap();
    let status = tokio::time::timeout(
        ANSWERED_WITHIN,
        HealthClient::new(health).check(HealthCheckRequest {
            service: String::new(),
        }),
    )
    .await
    .expect("health answers in time")
    .expect("health answers");
    assert_eq!(status.into_inner().status(), ServingStatus::Serving);
    took
}

async fn abandoned_heavy_searches_leave_other_callers_answered_and_health_serving(
    mode: Mode,
    overrides: HashMap<String, String>,
) {
    let s = setup(mode, overrides).await;
    let client = DiscoveryServiceClient::new(channel(s.cluster.addrs["discovery"], None).unwrap());
    // The attack: eight 300 KB queries from one member, abandoned.
    let member = s.cluster.token("mallory", "member", None, P);
    let heavy = "lorem ipsum dolor ".repeat(300 * 1024 / 18);
    let attack = (0..8).map(|_| {
        abandoned_search(
            client.clone(),
            member.clone(),
            heavy.clone(),
            Duration::from_millis(200),
        )
    });
    futures::future::join_all(attack).await;
    let first = victim_is_served(&s).await;
    // Eight of the largest queries allowed, from eight members (each within its own
    // share; past the project's, the rest shed), abandoned mid-way.
    let attack = (0..8).map(|i| {
        let token = s.cluster.token(&format!("m{i}"), "member", None, P);
        abandoned_search(
            client.clone(),
            token,
            maximal_query(),
            Duration::from_millis(20),
        )
    });
    futures::future::join_all(attack).await;
    let second = victim_is_served(&s).await;
    eprintln!(
        "victim answered in {first:?} after the 300 KB queries, {second:?} after the maximal ones"
    );
    s.cluster.stop().await.unwrap();
}

async fn a_caller_over_its_share_is_shed_with_retry_info_while_another_is_served(mode: Mode) {
    let overrides = HashMap::from([
        (
            "NEURALIS__DISCOVERY__FAIR_SHARE__PER_CALLER".to_owned(),
            "1".to_owned(),
        ),
        (
            "NEURALIS__DISCOVERY__FAIR_SHARE__RETRY_AFTER_MS".to_owned(),
            "1500".to_owned(),
        ),
    ]);
    let s = setup(mode, overrides).await;
    let client = DiscoveryServiceClient::new(channel(s.cluster.addrs["discovery"], None).unwrap());
    let mallory = s.cluster.token("mallory", "member", None, P);
    let alice = s.cluster.token("alice", "member", None, P);
    let call = |token: &str| {
        let mut client = client.clone();
        let mut request = tonic::Request::new(search(&maximal_query()));
        let bearer = format!("Bearer {token}").parse().unwrap();
        request.metadata_mut().insert("authorization", bearer);
        async move { client.search(request).await }
    };
    // Mallory's burst, with Alice's one call in the middle of it.
    let mut calls: Vec<_> = (0..24).map(|_| call(&mallory)).collect();
    calls.insert(12, call(&alice));
    let mut answers = futures::future::join_all(calls).await;
    let alices = answers.remove(12);
    assert!(alices.is_ok(), "another caller is served: {alices:?}");
    let shed: Vec<_> = answers
        .iter()
        .filter_map(|answer| answer.as_ref().err())
        .collect();
    assert!(
        !shed.is_empty(),
        "one caller at a time: a burst of 24 is shed"
    );
    assert!(
        answers.iter().any(Result::is_ok),
        "the caller's share is served"
    );
    for status in shed {
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
        assert_eq!(
            details::reason_of(status).as_deref(),
            Some("RESOURCE_EXHAUSTED")
        );
        assert_eq!(
            details::retry_after_of(status),
            Some(Duration::from_millis(1_500))
        );
    }
    s.cluster.stop().await.unwrap();
}
