//! Package data zones (issue 27; seed 002 "uriPolicies", "dataLayout"): a data source is
//! the `data://` namespace, so a file at `<zone>/<rest>` in it lies in scope
//! `data://<zone>` and the baseline the package attached there decides it beside the
//! source's own policy ("seeds matching baselines into source configuration").

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::data_zone::zone_scopes;
use neuralis_access::{
    AccessSnapshot, DecisionCode, EvaluationRequest, SourceRecord, UriPolicy, evaluate,
};
use neuralis_layout::Category;
use support::*;

/// The data tree as one source package at its root: a secret and an open file in the
/// zone of first-party `acme`, and a file in the zone of installed `notes`.
fn data_batch(data_tree: bool) -> EvaluationRequest {
    let mut request = batch(
        "",
        &[
            ("acme/secret/k.md", Category::Docs),
            ("acme/open/o.md", Category::Docs),
            ("_installed/notes/secret/n.md", Category::Docs),
        ],
    );
    if data_tree {
        request.data_sources = vec![SOURCE.into()];
    }
    request
}

fn with_zone(scope: &str, enabled: bool, policy: Option<UriPolicy>) -> AccessSnapshot {
    let mut snapshot = snapshot(read_all());
    snapshot
        .sources
        .insert(scope.into(), SourceRecord { enabled, policy });
    snapshot
}

/// The baseline `data://<self>/secret/**` with `read: false`, as attached.
fn secret_denied() -> UriPolicy {
    UriPolicy {
        paths: vec![rule("secret/**", false)],
        ..read_all()
    }
}

fn codes(snapshot: &AccessSnapshot, request: &EvaluationRequest) -> Vec<DecisionCode> {
    let evaluation = evaluate(&caller(), snapshot, request).unwrap();
    evaluation.files.iter().map(|d| d.code).collect()
}

use DecisionCode::{Hidden, VisibleManual as Shown};

#[test]
fn a_data_baseline_denying_read_hides_the_data_source_file_under_that_zone() {
    let snapshot = with_zone("data://acme", true, Some(secret_denied()));
    assert_eq!(
        codes(&snapshot, &data_batch(true)),
        [Hidden, Shown, Shown],
        "only the zone's own secret subtree is hidden"
    );
    let installed = with_zone("data://_installed/notes", true, Some(secret_denied()));
    assert_eq!(codes(&installed, &data_batch(true)), [Shown, Shown, Hidden]);
}

#[test]
fn a_data_zone_decides_nothing_in_a_source_that_is_not_a_data_tree() {
    let snapshot = with_zone("data://acme", true, Some(secret_denied()));
    assert_eq!(codes(&snapshot, &data_batch(false)), [Shown, Shown, Shown]);
}

#[test]
fn a_data_zone_floor_stays_a_floor_and_a_switched_off_zone_hides_its_files() {
    let floored = UriPolicy {
        paths: vec![
            floor("secret/**"),
            neuralis_access::PathRule {
                read: Some(true),
                override_rule: true,
                ..neuralis_access::PathRule::new("secret/**")
            },
        ],
        ..read_all()
    };
    let snapshot = with_zone("data://acme", true, Some(floored));
    assert_eq!(codes(&snapshot, &data_batch(true)), [Hidden, Shown, Shown]);
    let off = with_zone("data://acme", false, Some(read_all()));
    assert_eq!(codes(&off, &data_batch(true)), [Hidden, Hidden, Shown]);
}

#[test]
fn the_policy_service_reads_each_zone_a_data_source_file_lies_in() {
    let scopes: Vec<String> = zone_scopes(&data_batch(true)).into_iter().collect();
    assert_eq!(scopes, ["data://_installed/notes", "data://acme"]);
    assert!(zone_scopes(&data_batch(false)).is_empty());
}
