//! `neuralis validate DIR [--json] [--trust ...]`: exit 0 when the package would load,
//! 1 when it would be rejected, 2 for a usage error; compiler-like human output; JSON
//! on stdout always valid, also when rejected.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn neuralis(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .current_dir(workspace())
        .args(args)
        .output()
        .expect("the binary runs")
}

const REPORTS: &str = "tests/fixtures/installed/host/node_modules/@acme/reports";
const HELPER: &str = "tests/fixtures/installed/_packages/helper";
const BAD: &str = "tests/fixtures/installed/_packages/bad";

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn exit_0_when_the_package_would_load() {
    let out = neuralis(&["validate", REPORTS, "--trust", "first-party"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    insta::assert_snapshot!("loads_first_party", stdout(&out));
}

#[test]
fn the_default_trust_is_untrusted_and_first_party_only_fields_warn() {
    let out = neuralis(&["validate", HELPER]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("untrusted_warnings", stdout(&out));
    // the builtin is rejected when validated as a project package: its first-party
    // fields are dropped with warnings, but its uriPolicies floor needs trust
    let out = neuralis(&["validate", REPORTS]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    insta::assert_snapshot!("builtin_as_untrusted", stdout(&out));
}

#[test]
fn exit_1_when_the_package_would_be_rejected_with_compiler_like_lines() {
    let out = neuralis(&["validate", BAD]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("rejected_human", stdout(&out));
}

#[test]
fn json_output_is_always_valid_json_also_when_rejected() {
    for (dir, code, status) in [
        (BAD, 1, "rejected"),
        (HELPER, 0, "loads"),
        ("tests/fixtures/installed/nope", 2, "unreadable"),
    ] {
        let out = neuralis(&["validate", dir, "--json"]);
        assert_eq!(out.status.code(), Some(code), "{dir}");
        let report: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
        assert_eq!(report["status"], status, "{dir}");
    }
    let out = neuralis(&["validate", BAD, "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(report["errors"][0]["file"], "package.json");
    assert_eq!(report["errors"][0]["pointer"], "/neuralis/credentials/0/id");
    insta::assert_json_snapshot!("rejected_json", report);
}

#[test]
fn exit_2_for_a_usage_error() {
    for args in [
        &["validate"][..],
        &["validate", HELPER, "--trust", "root"],
        &["validate", "tests/fixtures/installed/nope"],
        &["validate", HELPER, "--bogus"],
    ] {
        let out = neuralis(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            out.stdout.is_empty() || args.len() == 2 && args[1].ends_with("nope"),
            "{args:?}"
        );
    }
}

#[test]
fn a_reference_only_package_is_not_rejected_and_a_plain_package_json_is() {
    // "a reference or documentation-only package opts out with referenceOnly: true"
    let out = neuralis(&[
        "validate",
        "tests/fixtures/installed/host/node_modules/ref-docs",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(report["status"], "reference-only");
    let out = neuralis(&[
        "validate",
        "tests/fixtures/installed/host/node_modules/ref-docs",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("is reference-only and never loads"),
        "{}",
        stdout(&out)
    );
    // "a plain application package.json is not usable and binds nothing"
    let out = neuralis(&[
        "validate",
        "tests/fixtures/installed/host/node_modules/left-pad",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(report["errors"][0]["pointer"], "/neuralis");
}

/// Seed 002: "every declaration the manifest carries is validated before the package
/// registers anything" — a declaration an untrusted package would have dropped for its
/// tier is validated too, and its error is reported and rejects the package.
#[test]
fn an_invalid_declaration_that_trust_would_drop_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "dropper", "neuralis": {"events": [
            {"id": "x", "title": "X", "subject": "Not A Subject", "dataSchema": {"type": "object"}}
        ]}}"#,
    )
    .unwrap();
    let path = dir.path().display().to_string();
    let out = neuralis(&["validate", &path, "--trust", "untrusted"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("/neuralis/events/0/subject"),
        "{}",
        stdout(&out)
    );
}
