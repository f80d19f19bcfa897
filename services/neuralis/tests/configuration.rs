//! Strict configuration: unknown keys are refused in every section, every bad value
//! stops the process with exit 64 naming its key, split mode never falls back to a
//! per-process store, variables are text (an all-digit secret works), layering is
//! defaults < file < environment, and `config print` never shows a secret.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::path::Path;
use std::process::{Command, Output};

/// Environment variables, name and value.
type Env = Vec<(&'static str, &'static str)>;

const SECRET: &str = "0123456789012345678901234567890123456789";
const SERVICE_SECRET: &str = "9876543210987654321098765432109876543210";

/// Runs the binary in `dir` with exactly `env` (nothing inherited).
fn neuralis(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .current_dir(dir)
        .args(args)
        .env_clear()
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A split policy process that would start (the URL is never dialled by `check`).
fn policy_env() -> Vec<(&'static str, &'static str)> {
    vec![
        ("NEURALIS__IDENTITY__KEYS__KIND", "hs256"),
        ("NEURALIS__IDENTITY__KEYS__SECRET", SECRET),
        ("NEURALIS__SERVICE_IDENTITY__KEYS__KIND", "hs256"),
        ("NEURALIS__SERVICE_IDENTITY__KEYS__SECRET", SERVICE_SECRET),
        ("NEURALIS__POLICY__STORE__BACKEND", "postgres"),
        (
            "NEURALIS__POLICY__STORE__URL",
            "postgres://neuralis:pw@db:5432/neuralis",
        ),
    ]
}

fn with(
    base: &[(&'static str, &'static str)],
    extra: &[(&'static str, &'static str)],
) -> Vec<(&'static str, &'static str)> {
    let mut all = base.to_vec();
    all.extend_from_slice(extra);
    all
}

#[test]
fn unknown_keys_are_refused_in_every_section() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("NEURALIS__LISTEN_ADDR", "listen_addr"),
        ("NEURALIS__DISCOVERY_BUS__URL", "discovery_bus"),
        ("NEURALIS__IDENTITY__HS256_SECRET", "hs256_secret"),
        ("NEURALIS__SYNC__INDEX_URL", "sync.index_url"),
        ("NEURALIS__SYNC__BUS__URLL", "urll"),
        ("NEURALIS__POLICY__STORE__URLL", "urll"),
        ("NEURALIS__TELEMETRY__OTLP", "telemetry.otlp"),
        ("NEURALIS__PEERS__DISCOVERY_URL", "peers.discovery_url"),
        ("NEURALIS__TLS__CERT", "tls.cert"),
        (
            "NEURALIS__DISCOVERY__INVENTORY__WINDOW",
            "discovery.inventory.window",
        ),
        (
            "NEURALIS__DISCOVERY__INSTALLED__ROOT",
            "discovery.installed.root",
        ),
    ];
    for (variable, named) in cases {
        let mut env = policy_env();
        if variable.starts_with("NEURALIS__SYNC__BUS") {
            env.extend([
                ("NEURALIS__SYNC__BUS__KIND", "redis"),
                ("NEURALIS__SYNC__BUS__URL", "redis://r"),
            ]);
        }
        env.push((variable, "x"));
        let out = neuralis(dir.path(), &["config", "check", "--target", "policy"], &env);
        assert_eq!(out.status.code(), Some(64), "{variable}: {}", stderr(&out));
        assert!(stderr(&out).contains(named), "{variable}: {}", stderr(&out));
    }
}

#[test]
fn an_unknown_key_in_the_file_is_refused_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("neuralis.yaml"),
        "sync:\n  index:\n    kind: embedded\n    path: x.db\n    url: postgres://db\n",
    )
    .unwrap();
    let out = neuralis(
        dir.path(),
        &["config", "check", "--config", "neuralis.yaml"],
        &[],
    );
    assert_eq!(out.status.code(), Some(64), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("sync.index") && stderr(&out).contains("url"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn every_bad_value_exits_64_naming_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[(&str, &str)], &str); 16] = [
        (&[("NEURALIS__SYNC__BATCH_SIZE", "many")], "sync.batch_size"),
        (
            &[("NEURALIS__SYNC__READ_AHEAD_FILES", "0")],
            "sync.read_ahead_files",
        ),
        (
            &[("NEURALIS__SYNC__BATCH_MAX_BYTES", "0")],
            "sync.batch_max_bytes",
        ),
        (&[("NEURALIS__PEERS__TIMEOUT_MS", "0")], "peers.timeout_ms"),
        (
            &[("NEURALIS__PEERS__RESOLVE_INTERVAL_MS", "0")],
            "peers.resolve_interval_ms",
        ),
        (&[("NEURALIS__SYNC__BATCH_SIZE", "0")], "sync.batch_size"),
        (&[("NEURALIS__LISTEN", "7400")], "listen"),
        (
            &[("NEURALIS__DRAIN_DEADLINE_MS", "-1")],
            "drain_deadline_ms",
        ),
        (
            &[("NEURALIS__TELEMETRY__LOG_FORMAT", "xml")],
            "telemetry.log_format",
        ),
        (
            &[("NEURALIS__TELEMETRY__LOG_FILTER", "info,[")],
            "telemetry.log_filter",
        ),
        (
            &[("NEURALIS__TELEMETRY__OTLP_ENDPOINT", "ftp://collector")],
            "telemetry.otlp_endpoint",
        ),
        (&[("NEURALIS__TARGETS", "sync,search")], "search"),
        (
            &[("NEURALIS__TLS__CERT_FILE", "/nonexistent/tls.crt")],
            "tls.key_file",
        ),
        (
            &[
                ("NEURALIS__TLS__CERT_FILE", "/nonexistent/tls.crt"),
                ("NEURALIS__TLS__KEY_FILE", "/nonexistent/tls.key"),
            ],
            "tls.cert_file",
        ),
        (
            &[("NEURALIS__POLICY__IDENTITY__ISSUER", "me")],
            "policy.identity",
        ),
        (
            &[("NEURALIS__SYNC__AUTH__ALLOW_UNAUTHENTICATED", "true")],
            "sync.auth",
        ),
    ];
    for (env, key) in cases {
        let out = neuralis(dir.path(), &["serve", "--data-dir", "data"], env);
        assert_eq!(out.status.code(), Some(64), "{env:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(key),
            "{env:?} should name {key}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn split_mode_bad_values_exit_64_naming_their_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[(&str, &str)], &str); 5] = [
        (
            &[("NEURALIS__POLICY__STORE__URL", "mysql://db")],
            "policy.store.url",
        ),
        (
            &[(
                "NEURALIS__POLICY__STORE__URL",
                "postgres://db/x?sslmode=sometimes",
            )],
            "policy.store.url",
        ),
        (
            &[(
                "NEURALIS__POLICY__STORE__URL",
                "postgres://db/x?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem",
            )],
            "sslrootcert",
        ),
        (
            &[("NEURALIS__POLICY__STORE__MAX_CONNECTIONS", "lots")],
            "max_connections",
        ),
        (
            &[("NEURALIS__IDENTITY__KEYS__SECRET", "short")],
            "identity.keys",
        ),
    ];
    for (extra, key) in cases {
        let env = with(&policy_env(), extra);
        let out = neuralis(dir.path(), &["serve", "--target", "policy"], &env);
        assert_eq!(out.status.code(), Some(64), "{extra:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(key),
            "{extra:?} should name {key}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_split_target_without_its_shared_store_or_bus_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let keys = [
        ("NEURALIS__IDENTITY__KEYS__KIND", "hs256"),
        ("NEURALIS__IDENTITY__KEYS__SECRET", SECRET),
        ("NEURALIS__SERVICE_IDENTITY__KEYS__KIND", "hs256"),
        ("NEURALIS__SERVICE_IDENTITY__KEYS__SECRET", SERVICE_SECRET),
    ];
    let pg = "postgres://neuralis@db:5432/neuralis";
    let policy_store = [
        ("NEURALIS__POLICY__STORE__BACKEND", "postgres"),
        ("NEURALIS__POLICY__STORE__URL", pg),
    ];
    let cases: [(&str, Env, &str); 8] = [
        ("policy", keys.to_vec(), "policy.store"),
        ("sync", keys.to_vec(), "sync.index"),
        (
            "sync",
            with(
                &keys,
                &[
                    ("NEURALIS__SYNC__INDEX__KIND", "postgres"),
                    ("NEURALIS__SYNC__INDEX__URL", pg),
                ],
            ),
            "sync.bus",
        ),
        ("discovery", keys.to_vec(), "sync.bus"),
        (
            "discovery",
            with(
                &keys,
                &[
                    ("NEURALIS__SYNC__BUS__KIND", "redis"),
                    ("NEURALIS__SYNC__BUS__URL", "redis://r:6379"),
                ],
            ),
            "peers.sync_feed_url",
        ),
        ("policy", policy_store.to_vec(), "identity.keys"),
        (
            "policy",
            with(&policy_store, &keys[..2]),
            "service_identity.keys",
        ),
        (
            "policy",
            with(
                &with(&policy_store, &keys[..3]),
                &[("NEURALIS__SERVICE_IDENTITY__KEYS__SECRET", SECRET)],
            ),
            "service_identity.keys.secret",
        ),
    ];
    for (target, env, key) in cases {
        let out = neuralis(dir.path(), &["serve", "--target", target], &env);
        assert_eq!(out.status.code(), Some(64), "{target}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(key),
            "{target} should name {key}: {}",
            stderr(&out)
        );
        assert!(
            std::fs::read_dir(dir.path()).unwrap().next().is_none(),
            "{target}: nothing was written (no per-process store)"
        );
    }
}

#[test]
fn an_all_digit_secret_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let out = neuralis(
        dir.path(),
        &["config", "check", "--target", "policy"],
        &policy_env(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "configuration ok: policy");
}

#[test]
fn layering_is_defaults_then_file_then_environment() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("neuralis.toml"),
        "listen = \"0.0.0.0:7000\"\n[sync]\nbatch_size = 50\nmax_file_size = 10\n",
    )
    .unwrap();
    let out = neuralis(
        dir.path(),
        &["config", "print", "--json", "--config", "neuralis.toml"],
        &[
            ("NEURALIS__SYNC__BATCH_SIZE", "70"),
            ("NEURALIS__POLICY__ADMIN_ROLES", "owner,ops"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        printed["listen"], "0.0.0.0:7000",
        "the file beats the default"
    );
    assert_eq!(
        printed["sync"]["max_file_size"], 10,
        "the file beats the default"
    );
    assert_eq!(
        printed["sync"]["batch_size"], 70,
        "the environment beats the file"
    );
    assert_eq!(printed["sync"]["chunk_max_bytes"], 2000, "a default stays");
    assert_eq!(
        printed["policy"]["admin_roles"],
        serde_json::json!(["owner", "ops"])
    );
}

#[test]
fn config_print_never_shows_a_secret_or_a_password() {
    let dir = tempfile::tempdir().unwrap();
    let env = with(
        &policy_env(),
        &[
            ("NEURALIS__SYNC__BUS__KIND", "redis"),
            ("NEURALIS__SYNC__BUS__URL", "rediss://:hunter2@r:6380"),
        ],
    );
    let out = neuralis(dir.path(), &["config", "print", "--target", "policy"], &env);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        !text.contains(SECRET) && !text.contains("hunter2") && !text.contains(":pw@"),
        "{text}"
    );
    assert!(text.contains("[redacted]"), "{text}");
    assert!(text.contains("targets:\n- policy"), "{text}");
}

#[test]
fn all_in_one_refuses_a_data_dir_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = neuralis(dir.path(), &["serve", "--data-dir", "a-file/data"], &[]);
    assert_eq!(out.status.code(), Some(64), "{}", stderr(&out));
    assert!(stderr(&out).contains("data_dir"), "{}", stderr(&out));
}

#[test]
fn a_rediss_bus_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let env = with(
        &policy_env(),
        &[
            ("NEURALIS__SYNC__INDEX__KIND", "postgres"),
            (
                "NEURALIS__SYNC__INDEX__URL",
                "postgres://neuralis@db:5432/neuralis?sslmode=require",
            ),
            ("NEURALIS__SYNC__BUS__KIND", "redis"),
            ("NEURALIS__SYNC__BUS__URL", "rediss://:password@redis:6380"),
            ("NEURALIS__PEERS__POLICY_URL", "http://policy:7400"),
        ],
    );
    let out = neuralis(dir.path(), &["config", "check", "--target", "sync"], &env);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_server_with_an_https_otlp_endpoint_starts_and_stops_cleanly() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .current_dir(dir.path())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--announce",
            "--data-dir",
            "data",
        ])
        .env_clear()
        .env("NEURALIS__TELEMETRY__OTLP_ENDPOINT", "https://127.0.0.1:9/")
        .env("NEURALIS__TELEMETRY__LOG_FILTER", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("listening "), "did not start: {line:?}");
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
}
