//! An installed package's attached policy (issue 10 item 3; seed 002 "uriPolicies"):
//! the baseline seeded under `packages://<id>` gates the package's own paths, and its
//! floors are "a denial that no later override, admin edit, or policy-route call can
//! remove". An installed package with nothing attached is gated by features alone.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{
    AccessSnapshot, DecisionCode, EvaluationRequest, Origin, PathRule, SourceRecord, evaluate,
    installed_scope,
};
use neuralis_layout::Category;
use support::*;

fn installed_batch() -> EvaluationRequest {
    let mut request = batch(
        "",
        &[
            ("skills/a/SKILL.md", Category::Skill),
            ("skills/secret/SKILL.md", Category::Skill),
        ],
    );
    request.sources.clear();
    request.packages[0].origin = Origin::Installed;
    request.packages[0].key = "acme".into();
    request
}

fn with_scope(enabled: bool, policy: Option<neuralis_access::UriPolicy>) -> AccessSnapshot {
    let mut snapshot = AccessSnapshot::default();
    snapshot
        .sources
        .insert(installed_scope("acme"), SourceRecord { enabled, policy });
    snapshot
}

fn codes(snapshot: &AccessSnapshot) -> (Vec<DecisionCode>, Vec<DecisionCode>) {
    let evaluation = evaluate(&caller(), snapshot, &installed_batch()).unwrap();
    (
        evaluation.packages.iter().map(|d| d.code).collect(),
        evaluation.files.iter().map(|d| d.code).collect(),
    )
}

use DecisionCode::{Hidden, VisibleActive as Active};

#[test]
fn an_installed_package_without_an_attached_policy_has_no_path_gate() {
    assert_eq!(
        codes(&AccessSnapshot::default()),
        (vec![Active], vec![Active, Active])
    );
    assert_eq!(
        codes(&with_scope(true, None)),
        (vec![Active], vec![Active, Active])
    );
}

#[test]
fn an_attached_floor_hides_its_paths_whatever_an_override_grants() {
    let mut policy = read_all();
    policy.paths = vec![
        PathRule {
            override_rule: true,
            ..rule("skills/secret/**", true)
        },
        floor("skills/secret/**"),
    ];
    assert_eq!(
        codes(&with_scope(true, Some(policy))),
        (vec![Active], vec![Active, Hidden])
    );
}

#[test]
fn a_switched_off_installed_scope_hides_the_package() {
    assert_eq!(
        codes(&with_scope(false, Some(read_all()))),
        (vec![Hidden], vec![Hidden, Hidden])
    );
}

#[test]
fn an_installed_package_policy_is_stored_under_packages_and_its_id() {
    // The store and the policy CLI address the baseline by this spelling (seed 002).
    assert_eq!(installed_scope("acme"), "packages://acme");
    assert_eq!(installed_scope("@acme/kit"), "packages://@acme/kit");
}
