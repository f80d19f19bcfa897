//! A recognized package (seed 000, `recognizesPackages`): an installed package found in
//! a folder of a flagged source is decided as an installed package and as that source's
//! files there, and the stricter wins. The source can only hide: its switch, its scope
//! and its URI policy (under a file's path and real path in the source), and its
//! `hide_flagged_files`; the package's own state still decides what stays visible.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{
    AccessError, AccessSnapshot, DecisionCode, EvaluationRequest, FoundIn, Origin, Scope,
    SourceScope, UriPolicy, evaluate,
};
use neuralis_layout::Category;
use support::*;

use DecisionCode::{
    Hidden, VisibleActive as Active, VisibleDisabled as Disabled, VisibleOptIn as OptIn,
};

/// Package `acme`, installed, found in folder `pkgs/acme` of the source, with a skill
/// (active by default) and a rule (opt-in by default).
fn found_batch() -> EvaluationRequest {
    let mut request = batch(
        "",
        &[
            ("skills/a/SKILL.md", Category::Skill),
            ("rules/style.md", Category::Rule),
        ],
    );
    let package = &mut request.packages[0];
    package.origin = Origin::Installed;
    package.key = "acme".into();
    package.found_in = Some(FoundIn {
        source: SOURCE.into(),
        folder: "pkgs/acme".into(),
    });
    request
}

fn codes(
    snapshot: &AccessSnapshot,
    request: &EvaluationRequest,
) -> (DecisionCode, Vec<DecisionCode>) {
    let evaluation = evaluate(&caller(), snapshot, request).unwrap();
    let files = evaluation.files.iter().map(|d| d.code).collect();
    (evaluation.packages[0].code, files)
}

fn with_rules(rules: &[(&str, bool)]) -> AccessSnapshot {
    let mut policy = read_all();
    policy.paths = rules
        .iter()
        .map(|(pattern, read)| rule(pattern, *read))
        .collect();
    snapshot(policy)
}

/// A case: its name, the source's rules, and the package's and files' codes.
type Case = (
    &'static str,
    &'static [(&'static str, bool)],
    (DecisionCode, &'static [DecisionCode]),
);

#[test]
fn the_sources_policy_decides_a_recognized_packages_paths_in_the_source() {
    let cases: &[Case] = &[
        ("reading everything", &[], (Active, &[Active, OptIn])),
        (
            "the folder denied",
            &[("pkgs/acme/**", false)],
            (Hidden, &[Hidden, Hidden]),
        ),
        (
            "the source's folder above denied",
            &[("pkgs/**", false)],
            (Hidden, &[Hidden, Hidden]),
        ),
        (
            "one file denied",
            &[("pkgs/acme/rules/**", false)],
            (Active, &[Active, Hidden]),
        ),
        (
            "every file denied",
            &[("pkgs/acme/*/**", false)],
            (Hidden, &[Hidden, Hidden]),
        ),
        // The package-relative path means nothing to the source: `rules/**` lies
        // elsewhere in it.
        (
            "a rule on the package-relative path",
            &[("rules/**", false)],
            (Active, &[Active, OptIn]),
        ),
        (
            "another folder denied",
            &[("pkgs/other/**", false)],
            (Active, &[Active, OptIn]),
        ),
        // The folder itself denied, a file in it allowed again by a later rule: the
        // package's root is not readable, so the package and every file are hidden, as
        // for a source package whose root is denied.
        (
            "the folder denied, a file in it allowed",
            &[
                ("pkgs/acme/**", false),
                ("pkgs/acme", false),
                ("pkgs/acme/skills/**", true),
            ],
            (Hidden, &[Hidden, Hidden]),
        ),
    ];
    for (case, rules, (package, files)) in cases {
        assert_eq!(
            codes(&with_rules(rules), &found_batch()),
            (*package, files.to_vec()),
            "{case}"
        );
    }
}

#[test]
fn a_recognized_packages_source_switched_off_or_without_a_policy_hides_it() {
    let mut off = snapshot(read_all());
    off.sources.get_mut(SOURCE).unwrap().enabled = false;
    let mut no_policy = snapshot(read_all());
    no_policy.sources.get_mut(SOURCE).unwrap().policy = None;
    let unknown = AccessSnapshot::default();
    for (case, snapshot) in [("off", off), ("no policy", no_policy), ("unknown", unknown)] {
        assert_eq!(
            codes(&snapshot, &found_batch()),
            (Hidden, vec![Hidden, Hidden]),
            "{case}"
        );
    }
}

#[test]
fn a_recognized_packages_source_that_does_not_reach_the_caller_hides_it() {
    let mut request = found_batch();
    request.sources[0].scope = SourceScope {
        scope: Scope::Agent,
        owner: "a2".into(),
    };
    assert_eq!(
        codes(&snapshot(read_all()), &request),
        (Hidden, vec![Hidden, Hidden])
    );
}

#[test]
fn a_recognized_file_is_decided_under_its_real_path_in_the_source_too() {
    let mut request = found_batch();
    request.files[1].real_path = Some("secrets/style.md".into());
    let denied = with_rules(&[("secrets/**", false)]);
    assert_eq!(codes(&denied, &request), (Active, vec![Active, Hidden]));
    let elsewhere = with_rules(&[("other/**", false)]);
    assert_eq!(codes(&elsewhere, &request), (Active, vec![Active, OptIn]));
}

#[test]
fn a_recognized_packages_flagged_file_is_hidden_where_its_source_hides_flagged_files() {
    let mut request = found_batch();
    request.files[0].content_flagged = true;
    let hides = snapshot(UriPolicy {
        hide_flagged_files: true,
        ..read_all()
    });
    assert_eq!(codes(&hides, &request), (Active, vec![Hidden, OptIn]));
    assert_eq!(
        codes(&snapshot(read_all()), &request),
        (Active, vec![Active, OptIn])
    );
}

/// The source can only hide: it never switches on what the package's state turns off.
#[test]
fn a_recognized_packages_own_state_still_decides_what_its_source_lets_through() {
    let mut disabled = snapshot(read_all());
    disabled.package_enabled.insert("acme".into(), false);
    assert_eq!(
        codes(&disabled, &found_batch()),
        (Disabled, vec![Disabled, Disabled])
    );
}

#[test]
fn only_an_installed_package_is_found_in_a_source_of_the_batch() {
    let field = |request: &EvaluationRequest| match request.validate() {
        Err(AccessError::InvalidArgument { field, .. }) => field,
        Ok(()) => "accepted".into(),
    };
    let mut elsewhere = found_batch();
    elsewhere.packages[0].found_in = Some(FoundIn {
        source: "other".into(),
        folder: String::new(),
    });
    assert_eq!(field(&elsewhere), "packages[0].found_in_source_id");
    let mut source = batch("pkgs", &[("pkgs/a.md", Category::Rule)]);
    source.packages[0].found_in = Some(FoundIn {
        source: SOURCE.into(),
        folder: String::new(),
    });
    assert_eq!(field(&source), "packages[0].found_in_source_id");
    let mut escaping = found_batch();
    escaping.packages[0].found_in.as_mut().unwrap().folder = "../up".into();
    assert_eq!(field(&escaping), "packages[0].found_in_folder");
}

/// `ExplainAccess` on a recognized package's file in a switched-off source names the
/// source's switch as the step that hid it, after the package's own (passing) scope.
#[test]
fn an_explanation_names_the_switch_of_the_source_a_package_was_found_in() {
    use neuralis_access::{Effect, StepKind, explain};
    let mut off = snapshot(read_all());
    off.sources.get_mut(SOURCE).unwrap().enabled = false;
    let mut request = found_batch();
    request.files.truncate(1);
    let checked = request.check().unwrap();
    let explanation = explain(&caller(), &off, &checked, None).unwrap();
    let switches: Vec<(&str, Effect)> = explanation
        .steps
        .iter()
        .filter(|step| step.kind == StepKind::SourceSwitch)
        .map(|step| (step.matched.as_str(), step.effect))
        .collect();
    assert_eq!(
        switches,
        [
            (
                "installed package: no policy attached under `packages://acme`, no path gate",
                Effect::Passes
            ),
            ("source `repo` is disabled", Effect::Hides),
        ],
        "{explanation:#?}"
    );
    assert_eq!(explanation.code, Hidden);
}
