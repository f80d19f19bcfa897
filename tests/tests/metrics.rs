//! Metrics that move with the calls and never carry caller text, scraped over a real
//! admin port.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::{BTreeSet, HashMap};

use neuralis_host::Shutdown;
use neuralis_host::admin::{Readiness, serve_admin};
use neuralis_tests::Cluster;
use neuralis_tests::cluster::channel;
use neuralis_tests::fixture::{self, REPO, read_policy, register, scope, visible};
use neuralis_tests::process::{code_name, http_get};
use neuralis_tests::raw;

/// `name{labels} value` lines of a scrape, as (series, value).
fn series(text: &str) -> HashMap<String, f64> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .filter_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            Some((name.to_owned(), value.parse().ok()?))
        })
        .collect()
}

/// The sum of every series of `family` whose labels contain all of `with`.
fn total(scrape: &HashMap<String, f64>, family: &str, with: &[&str]) -> f64 {
    scrape
        .iter()
        .filter(|(name, _)| {
            (name.as_str() == family || name.starts_with(&format!("{family}{{")))
                && with.iter().all(|w| name.contains(w))
        })
        .map(|(_, v)| v)
        .sum()
}

/// Every label value of a scrape.
fn label_values(text: &str) -> BTreeSet<String> {
    let mut values = BTreeSet::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((_, rest)) = line.split_once('{') else {
            continue;
        };
        let Some((labels, _)) = rest.rsplit_once('}') else {
            continue;
        };
        for pair in labels.split("\",") {
            if let Some((_, value)) = pair.split_once("=\"") {
                values.insert(value.trim_end_matches('"').to_owned());
            }
        }
    }
    values
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_move_with_calls_and_no_label_value_carries_caller_text() {
    // The metrics are the process's: an all-in-one node in this process, scraped over
    // a real admin port.
    let cluster = Cluster::all_in_one(HashMap::new()).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let admin_addr = listener.local_addr().unwrap();
    let shutdown = Shutdown::new();
    tokio::spawn(serve_admin(
        listener,
        Readiness::new(shutdown.clone()),
        shutdown.clone(),
    ));
    let before = series(&http_get(admin_addr, "/metrics").await.1);

    let (project, slug, subject) = ("zebraproj77", "quokkaslug", "narwhalsubject");
    let admin = cluster.token("opsnarwhal", "owner", None, project);
    let member = cluster.token(subject, "member", Some("agentwombat"), project);
    let dir = tempfile::tempdir().unwrap();
    fixture::write_tree(dir.path(), REPO).unwrap();
    register(
        &cluster,
        &admin,
        project,
        slug,
        dir.path(),
        read_policy(vec![]),
    )
    .await
    .unwrap();
    for _ in 0..3 {
        visible(&cluster, &member, scope(project, "agentwombat", ""))
            .await
            .unwrap();
    }
    // Calls an attacker chooses: a path that is a token, and a forged credential.
    let grpc = channel(cluster.addrs["discovery"], None).unwrap();
    let forged = cluster.forged_token(project);
    let odd = raw::Rpc {
        path: format!("/neuralis.discovery.v1.DiscoveryService/{member}"),
        streaming: false,
    };
    assert_ne!(
        raw::call(&grpc, &odd, Vec::new(), Some(&forged)).await.code,
        tonic::Code::Ok
    );
    let list = raw::Rpc {
        path: "/neuralis.discovery.v1.DiscoveryService/ListPackages".into(),
        streaming: false,
    };
    let request =
        prost::Message::encode_to_vec(&neuralis_proto::discovery::v1::ListPackagesRequest {
            scope: scope(project, "agentwombat", ""),
            ..Default::default()
        });
    raw::call(&grpc, &list, request, Some(&forged)).await;
    let sources = raw::Rpc {
        path: "/neuralis.sync.v1.SourceService/ListSources".into(),
        streaming: false,
    };
    let refused = raw::call(&grpc, &sources, Vec::new(), None).await.code;
    assert_ne!(refused, tonic::Code::Ok);
    let refused = format!("code=\"{}\"", code_name(refused));

    let text = http_get(admin_addr, "/metrics").await.1;
    let after = series(&text);
    let moved =
        |family: &str, with: &[&str]| total(&after, family, with) > total(&before, family, with);
    let list_packages = "method=\"ListPackages\"";
    for (family, with) in [
        (
            "neuralis_rpc_server_duration_seconds_count",
            vec![list_packages, "code=\"OK\""],
        ),
        (
            "neuralis_rpc_server_duration_seconds_count",
            vec!["method=\"ListSources\"", refused.as_str()],
        ),
        (
            "neuralis_rpc_server_duration_seconds_count",
            vec!["method=\"unknown\""],
        ),
        (
            "neuralis_rpc_server_duration_seconds_count",
            vec!["method=\"SyncSource\""],
        ),
        ("neuralis_inventory_lookups_total", vec![]),
        ("neuralis_inventory_refills_total", vec!["kind=\"full\""]),
        (
            "neuralis_invalidation_events_total",
            vec!["phase=\"finish\""],
        ),
        ("neuralis_sync_runs_total", vec!["outcome=\"succeeded\""]),
        ("neuralis_sync_files_total", vec!["result=\"indexed\""]),
        ("neuralis_sync_read_bytes_total", vec![]),
        ("neuralis_policy_decisions_total", vec!["kind=\"file\""]),
    ] {
        assert!(
            moved(family, &with),
            "{family} {with:?} did not move:\n{text}"
        );
    }
    for family in [
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_open_fds",
    ] {
        assert!(after.contains_key(family), "{family} missing");
    }

    let values = label_values(&text);
    let dir_text = dir.path().display().to_string();
    for secret in [
        project,
        slug,
        subject,
        "opsnarwhal",
        "agentwombat",
        &member,
        &admin,
        &forged,
        dir_text.as_str(),
        "SKILL.md",
        ".claude",
    ] {
        assert!(
            !values
                .iter()
                .any(|v| v.contains(secret) || secret.contains(v.as_str()) && v.len() > 12),
            "a label value carries {secret:?}: {values:?}"
        );
    }
    shutdown.trigger();
    cluster.stop().await.unwrap();
}

/// Issue 28 item 3: every metric an alert or a dashboard panel of the chart names is a
/// family this binary exports (a renamed family would leave an alert that never fires).
/// Read from the golden render with monitoring on, checked against the registry's own
/// `# TYPE` lines.
#[test]
fn every_metric_the_alerts_and_the_dashboard_name_is_exported() {
    let golden =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../helm/ci/golden/monitoring.yaml");
    let render = std::fs::read_to_string(&golden).expect("the monitoring golden render");
    touch_every_family();
    let exported: BTreeSet<String> = neuralis_metrics::render()
        .lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    let named = metric_names(&render);
    assert!(
        named.len() >= 10,
        "the alerts and the dashboard name the families: {named:?}"
    );
    for name in &named {
        let family = ["_total", "_bucket", "_count", "_sum"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix))
            .unwrap_or(name);
        assert!(
            exported.contains(family) || exported.contains(name.as_str()),
            "{name} is named by the chart's monitoring but not exported: {exported:?}"
        );
    }
    // The check can fail: a family that does not exist is caught.
    assert!(!exported.contains("neuralis_no_such_family"));
}

/// One update of every family, so each prints its `# TYPE` line (an empty family
/// prints nothing).
fn touch_every_family() {
    use neuralis_metrics as m;
    m::rpc_served("neuralis.test.v1.T", "Call", m::code_name(0), 0.01);
    m::rpc_called("neuralis.test.v1.T", "Call", m::code_name(0), 0.01);
    m::inventory_lookup(m::Lookup::Hit);
    m::inventory_full_refill();
    m::inventory_delta_apply();
    m::inventory_regroups(1);
    m::inventory_evictions(1);
    m::inventory_bytes(1);
    m::subscription_attached();
    m::invalidation(m::Invalidation::Finish);
    m::sync_run(
        m::RunOutcome::Succeeded,
        m::RunTrigger::Api,
        m::RunFiles::default(),
    );
    m::policy_decisions(m::Candidate::File, m::Decision::Hidden, 1);
    m::auth_refusal(
        "neuralis.test.v1.T",
        m::AuthOutcome::Unverified,
        m::AuthReason::InvalidCredential,
    );
}

/// The `neuralis_…` and `process_…` identifiers of a text (PromQL inside YAML and JSON).
fn metric_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let rest = &text[at..];
        let starts = rest.starts_with("neuralis_") || rest.starts_with("process_");
        let boundary = at == 0 || !is_ident(bytes[at - 1]);
        if starts && boundary {
            let len = rest.bytes().take_while(|b| is_ident(*b)).count();
            names.insert(rest[..len].to_owned());
            at += len;
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    names
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}
