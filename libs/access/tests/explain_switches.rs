//! The source-switch step of an explanation (issue 30 item 1): for a source package and
//! for an installed package's attached scope, every state the store can hold is named in
//! its own words, and the step passes exactly when evaluation found a policy (or, for an
//! installed package, no path gate) for it.
#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{
    AccessSnapshot, Effect, EvaluationRequest, Origin, SourceRecord, StepKind, UriPolicy, explain,
    installed_scope,
};
use neuralis_layout::Category;
use support::{SOURCE, batch, caller, read_all, rule};

/// A policy that no longer validates (an absolute pattern).
fn invalid() -> UriPolicy {
    UriPolicy {
        paths: vec![rule("/absolute/**", true)],
        ..read_all()
    }
}

fn with_record(key: &str, record: Option<SourceRecord>) -> AccessSnapshot {
    let mut snapshot = AccessSnapshot::default();
    if let Some(record) = record {
        snapshot.sources.insert(key.into(), record);
    }
    snapshot
}

fn record(enabled: bool, policy: Option<UriPolicy>) -> Option<SourceRecord> {
    Some(SourceRecord { enabled, policy })
}

fn installed_batch() -> EvaluationRequest {
    let mut request = batch("", &[("skills/a/SKILL.md", Category::Skill)]);
    request.sources.clear();
    request.packages[0].origin = Origin::Installed;
    request.packages[0].key = "acme".into();
    request
}

/// The switch step explaining the one file of `request`: its words and its effect.
fn switch_step(snapshot: &AccessSnapshot, request: &EvaluationRequest) -> (String, Effect) {
    let checked = request.check().unwrap();
    let explanation = explain(&caller(), snapshot, &checked, None).unwrap();
    let step = explanation
        .steps
        .iter()
        .find(|step| step.kind == StepKind::SourceSwitch)
        .unwrap_or_else(|| panic!("no switch step in {explanation:#?}"));
    (step.matched.clone(), step.effect)
}

#[test]
fn every_state_of_a_source_is_named_and_only_an_enabled_valid_policy_passes() {
    let request = batch("pkg", &[("pkg/rules/a.md", Category::Rule)]);
    let cases = [
        (
            None,
            "source `repo` is unknown to the policy store",
            Effect::Hides,
        ),
        (
            record(false, Some(read_all())),
            "source `repo` is disabled",
            Effect::Hides,
        ),
        (
            record(true, None),
            "source `repo` is enabled but has no URI policy",
            Effect::Hides,
        ),
        (
            record(true, Some(invalid())),
            "source `repo`'s stored policy no longer validates",
            Effect::Hides,
        ),
        (
            record(true, Some(read_all())),
            "source `repo` is enabled, with a URI policy",
            Effect::Passes,
        ),
    ];
    for (stored, words, effect) in cases {
        let snapshot = with_record(SOURCE, stored);
        assert_eq!(switch_step(&snapshot, &request), (words.to_owned(), effect));
    }
}

#[test]
fn every_state_of_an_installed_scope_is_named_and_only_a_switched_off_or_broken_one_hides() {
    let scope = installed_scope("acme");
    let cases = [
        (
            None,
            "installed package: no policy attached under `packages://acme`, no path gate",
            Effect::Passes,
        ),
        (
            record(false, Some(read_all())),
            "`packages://acme` is switched off",
            Effect::Hides,
        ),
        (
            record(true, None),
            "`packages://acme` is enabled with no policy: no path gate",
            Effect::Passes,
        ),
        (
            record(true, Some(invalid())),
            "`packages://acme`'s attached policy no longer validates",
            Effect::Hides,
        ),
        (
            record(true, Some(read_all())),
            "`packages://acme` is enabled, with its attached policy",
            Effect::Passes,
        ),
    ];
    for (stored, words, effect) in cases {
        let snapshot = with_record(&scope, stored);
        assert_eq!(
            switch_step(&snapshot, &installed_batch()),
            (words.to_owned(), effect)
        );
    }
}
