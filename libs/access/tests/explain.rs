//! `ExplainAccess` in the core (issue 30 item 1): the explanation of one file comes from
//! the evaluation that decides it, and names the step that decided, for every kind of
//! step evaluation takes. The property: its state is always `evaluate`'s.
#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{
    AccessSnapshot, Caller, DecisionCode, Effect, EvaluationRequest, Explanation, FileOverrides,
    Scope, StepKind, UriPolicy, evaluate, explain,
};
use neuralis_layout::Category;
use support::{batch, caller, floor, read_all, rule, snapshot};

fn explained(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    request: &EvaluationRequest,
) -> Explanation {
    let checked = request.check().unwrap();
    let explanation = explain(caller, snapshot, &checked, None).unwrap();
    let decided = evaluate(caller, snapshot, request).unwrap().files[0].code;
    assert_eq!(
        explanation.code, decided,
        "the explanation's state is evaluate's"
    );
    explanation
}

/// Asserts the deciding step's kind and effect, and that its words contain `words`.
fn decided_by(explanation: &Explanation, kind: StepKind, code: DecisionCode, words: &str) {
    let step = explanation.deciding_step().expect("a deciding step");
    assert_eq!(
        (step.kind, explanation.code),
        (kind, code),
        "{explanation:#?}"
    );
    assert!(
        step.matched.contains(words),
        "{:?} lacks {words:?}",
        step.matched
    );
    let expected = if code == DecisionCode::Hidden {
        Effect::Hides
    } else {
        Effect::Decides(code)
    };
    assert_eq!(step.effect, expected);
}

fn policy(paths: Vec<neuralis_access::PathRule>) -> UriPolicy {
    UriPolicy {
        paths,
        ..read_all()
    }
}

fn one(path: &str, category: Category) -> EvaluationRequest {
    batch("pkg", &[(path, category)])
}

#[test]
fn a_disabled_source_decides_hidden_and_the_explanation_names_its_switch() {
    let mut snapshot = snapshot(read_all());
    snapshot.sources.get_mut("repo").unwrap().enabled = false;
    let explanation = explained(&caller(), &snapshot, &one("pkg/rules/a.md", Category::Rule));
    decided_by(
        &explanation,
        StepKind::SourceSwitch,
        DecisionCode::Hidden,
        "`repo` is disabled",
    );
}

#[test]
fn a_source_of_another_agent_decides_hidden_by_its_scope() {
    let mut request = one("pkg/rules/a.md", Category::Rule);
    request.sources[0].scope.scope = Scope::Agent;
    request.sources[0].scope.owner = "a2".into();
    let explanation = explained(&caller(), &snapshot(read_all()), &request);
    decided_by(
        &explanation,
        StepKind::SourceScope,
        DecisionCode::Hidden,
        "`a2`",
    );
}

#[test]
fn a_uri_rule_that_denies_read_is_named_with_its_pattern_and_position() {
    let snapshot = snapshot(policy(vec![
        rule("pkg/**", true),
        rule("pkg/secret/**", false),
    ]));
    let explanation = explained(
        &caller(),
        &snapshot,
        &one("pkg/secret/a.md", Category::Docs),
    );
    decided_by(
        &explanation,
        StepKind::UriRule,
        DecisionCode::Hidden,
        "rule #1 `pkg/secret/**`",
    );
    let rule = explanation.deciding_step().unwrap().rule.clone().unwrap();
    assert_eq!((rule.index, rule.pattern.as_str()), (1, "pkg/secret/**"));
}

#[test]
fn a_floor_decides_over_a_rule_that_allows_and_the_rule_is_shown_overruled() {
    let allow = neuralis_access::PathRule {
        override_rule: true,
        ..rule("pkg/**", true)
    };
    let snapshot = snapshot(policy(vec![allow, floor("pkg/vault/**")]));
    let explanation = explained(&caller(), &snapshot, &one("pkg/vault/a.md", Category::Docs));
    decided_by(
        &explanation,
        StepKind::Floor,
        DecisionCode::Hidden,
        "floor #1 `pkg/vault/**`",
    );
    let overruled = explanation
        .steps
        .iter()
        .find(|s| s.effect == Effect::Overruled)
        .unwrap();
    assert!(
        overruled.matched.contains("rule #0 `pkg/**` (override)"),
        "{overruled:?}"
    );
}

#[test]
fn a_floor_step_refers_to_the_floor_by_its_position_and_pattern() {
    // A client links the deciding step to the policy's rule by this reference, not by
    // parsing the words: a floor is a rule of the policy like any other.
    let snapshot = snapshot(policy(vec![rule("pkg/**", true), floor("pkg/vault/**")]));
    let explanation = explained(&caller(), &snapshot, &one("pkg/vault/a.md", Category::Docs));
    let deciding = explanation.deciding_step().unwrap();
    assert_eq!(deciding.kind, StepKind::Floor);
    let floor = deciding.rule.clone().unwrap();
    assert_eq!((floor.index, floor.pattern.as_str()), (1, "pkg/vault/**"));
}

#[test]
fn another_agents_private_file_decides_hidden_by_its_owner() {
    let mut request = one("pkg/rules/a.md", Category::Rule);
    request.files[0].private_owner = Some("a2".into());
    let explanation = explained(&caller(), &snapshot(read_all()), &request);
    decided_by(
        &explanation,
        StepKind::PrivacyOwner,
        DecisionCode::Hidden,
        "private to agent `a2`",
    );
}

#[test]
fn a_missing_required_feature_decides_hidden_and_is_named() {
    let mut request = one("pkg/rules/a.md", Category::Rule);
    request.files[0].required_features = vec!["f.deploy".into()];
    let explanation = explained(&caller(), &snapshot(read_all()), &request);
    decided_by(
        &explanation,
        StepKind::RequiredFeatures,
        DecisionCode::Hidden,
        "`f.deploy` not held",
    );
}

#[test]
fn an_access_feature_not_granted_to_the_role_decides_hidden_and_a_granted_one_is_named() {
    let mut request = one("pkg/rules/a.md", Category::Rule);
    request.packages[0].access_feature = Some("f.pkg".into());
    let mut snapshot = snapshot(read_all());
    let explanation = explained(&caller(), &snapshot, &request);
    decided_by(
        &explanation,
        StepKind::RoleGrant,
        DecisionCode::Hidden,
        "not granted to role `member`",
    );
    snapshot.role_features.insert("f.pkg".into());
    let explanation = explained(&caller(), &snapshot, &request);
    assert!(explanation.code.is_visible());
    let grant = explanation
        .steps
        .iter()
        .find(|s| s.kind == StepKind::RoleGrant)
        .unwrap();
    assert!(grant.matched.contains("granted to role `member`") && grant.effect == Effect::Passes);
}

#[test]
fn a_flagged_file_under_a_policy_that_hides_flagged_files_is_hidden_by_its_flags() {
    let mut request = one("pkg/rules/a.md", Category::Rule);
    request.files[0].content_flagged = true;
    let snapshot = snapshot(UriPolicy {
        hide_flagged_files: true,
        ..read_all()
    });
    let explanation = explained(&caller(), &snapshot, &request);
    decided_by(
        &explanation,
        StepKind::ContentFlags,
        DecisionCode::Hidden,
        "hides flagged files",
    );
}

#[test]
fn a_disabled_package_decides_disabled_by_its_state() {
    let mut snapshot = snapshot(read_all());
    snapshot.package_enabled.insert("repo:pkg".into(), false);
    let explanation = explained(
        &caller(),
        &snapshot,
        &one("pkg/skills/a/SKILL.md", Category::Skill),
    );
    decided_by(
        &explanation,
        StepKind::PackageState,
        DecisionCode::VisibleDisabled,
        "disabled",
    );
}

#[test]
fn an_agent_off_is_final_over_a_conversation_on_and_is_named() {
    let path = "pkg/skills/a/SKILL.md";
    let mut snapshot = snapshot(read_all());
    snapshot.agent_overrides = [("repo:pkg", path, false)].into_iter().collect();
    snapshot.conversation_chain = vec![[("repo:pkg", path, true)].into_iter().collect()];
    let explanation = explained(&caller(), &snapshot, &one(path, Category::Skill));
    decided_by(
        &explanation,
        StepKind::AgentOverride,
        DecisionCode::VisibleDisabled,
        "agent-scope override: off",
    );
}

#[test]
fn a_conversation_override_decides_off_or_on_and_is_named_with_its_scope() {
    let path = "pkg/rules/a.md";
    for (on, code, words) in [
        (
            false,
            DecisionCode::VisibleDisabled,
            "conversation-scope override: off",
        ),
        (
            true,
            DecisionCode::VisibleActive,
            "conversation-scope override: on",
        ),
    ] {
        let mut snapshot = snapshot(read_all());
        let parent: FileOverrides = [("repo:pkg", path, on)].into_iter().collect();
        snapshot.conversation_chain = vec![FileOverrides::default(), parent];
        let explanation = explained(&caller(), &snapshot, &one(path, Category::Rule));
        decided_by(&explanation, StepKind::ConversationOverride, code, words);
    }
}

#[test]
fn the_default_decides_a_file_on_by_default_with_no_switch() {
    let explanation = explained(
        &caller(),
        &snapshot(read_all()),
        &one("pkg/skills/a/SKILL.md", Category::Skill),
    );
    decided_by(
        &explanation,
        StepKind::Default,
        DecisionCode::VisibleActive,
        "on by default",
    );
}

#[test]
fn the_default_decides_an_opt_in_file_and_the_category_decides_docs() {
    let explanation = explained(
        &caller(),
        &snapshot(read_all()),
        &one("pkg/rules/a.md", Category::Rule),
    );
    decided_by(
        &explanation,
        StepKind::Default,
        DecisionCode::VisibleOptIn,
        "opt-in",
    );
    let explanation = explained(
        &caller(),
        &snapshot(read_all()),
        &one("pkg/docs/a.md", Category::Docs),
    );
    decided_by(
        &explanation,
        StepKind::Category,
        DecisionCode::VisibleManual,
        "docs",
    );
}

#[test]
fn a_link_to_a_denied_real_path_is_hidden_by_the_rule_on_the_real_path() {
    let mut request = one("pkg/rules/a.md", Category::Rule);
    request.files[0].real_path = Some("private/a.md".into());
    let snapshot = snapshot(policy(vec![rule("private/**", false)]));
    let explanation = explained(&caller(), &snapshot, &request);
    decided_by(
        &explanation,
        StepKind::UriRule,
        DecisionCode::Hidden,
        "`private/a.md`: rule #0",
    );
    assert!(
        explanation
            .steps
            .iter()
            .any(|s| s.kind == StepKind::RealPath)
    );
}

#[test]
fn an_explanation_is_of_one_package_and_one_file() {
    let request = batch(
        "pkg",
        &[("pkg/a.md", Category::Docs), ("pkg/b.md", Category::Docs)],
    );
    let checked = request.check().unwrap();
    assert!(explain(&caller(), &snapshot(read_all()), &checked, None).is_err());
}

#[test]
fn a_rule_served_as_docs_by_its_trust_tier_names_the_trust_tier() {
    let snapshot = snapshot(read_all());
    let mut request = one("pkg/rules/a.md", Category::Docs);
    request.files[0].downgraded_from = Some(Category::Rule);
    let explanation = explained(&caller(), &snapshot, &request);
    decided_by(
        &explanation,
        StepKind::TrustTier,
        DecisionCode::VisibleManual,
        "declared `rule`; its package's trust tier is below first party",
    );
    // A docs file that declared docs is decided by its category, as before.
    let plain = explained(&caller(), &snapshot, &one("pkg/docs/a.md", Category::Docs));
    decided_by(
        &plain,
        StepKind::Category,
        DecisionCode::VisibleManual,
        "docs",
    );
}
