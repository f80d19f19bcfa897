//! The visibility gates of one batch (seed 000, "Security model"; DESIGN.md section 4):
//! source switch and policy, scope, URI policy on roots and files, floors, privacy,
//! features, and bad input naming the field.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{
    AccessError, AccessSnapshot, Caller, DecisionCode, EvaluationRequest, FileOverrides, Origin,
    PathRule, Scope, SourceRecord, UriPolicy, decide, evaluate,
};
use neuralis_layout::Category;
use support::{PROJECT, SOURCE, batch, caller, file, floor, read_all, rule, snapshot};

use DecisionCode::{Hidden, VisibleActive as Active};

/// The codes of (packages, files).
fn codes(
    who: &Caller,
    state: &AccessSnapshot,
    request: &EvaluationRequest,
) -> (Vec<DecisionCode>, Vec<DecisionCode>) {
    let evaluation = evaluate(who, state, request).unwrap();
    let codes =
        |decisions: Vec<neuralis_access::Decision>| decisions.into_iter().map(|d| d.code).collect();
    (codes(evaluation.packages), codes(evaluation.files))
}

fn skill_batch() -> EvaluationRequest {
    batch(
        ".claude",
        &[
            (".claude/skills/a/SKILL.md", Category::Skill),
            (".claude/skills/b/SKILL.md", Category::Skill),
        ],
    )
}

fn policy(paths: Vec<PathRule>) -> UriPolicy {
    UriPolicy {
        paths,
        ..read_all()
    }
}

#[test]
fn a_source_contributes_only_when_known_enabled_and_with_a_persisted_policy() {
    let with = |record: Option<SourceRecord>| {
        let mut state = AccessSnapshot::default();
        if let Some(record) = record {
            state.sources.insert(SOURCE.into(), record);
        }
        codes(&caller(), &state, &skill_batch())
    };
    let cases = [
        ("an unknown source decides not visible", None, Hidden),
        (
            "a source without a persisted policy contributes nothing",
            Some(SourceRecord {
                enabled: true,
                policy: None,
            }),
            Hidden,
        ),
        (
            "a disabled source contributes nothing",
            Some(SourceRecord {
                enabled: false,
                policy: Some(read_all()),
            }),
            Hidden,
        ),
        (
            "an enabled source with a policy contributes",
            Some(SourceRecord {
                enabled: true,
                policy: Some(read_all()),
            }),
            Active,
        ),
    ];
    for (name, record, expected) in cases {
        let (packages, files) = with(record);
        assert_eq!(packages, vec![expected], "{name}");
        assert_eq!(files, vec![expected; 2], "{name}");
    }
}

#[test]
fn a_stored_policy_that_no_longer_validates_contributes_nothing() {
    // Stored before a rule tightened, read back without validation: evaluation compiles
    // it, fails, and must fail closed rather than fall back to its default.
    let invalid = [
        policy(vec![rule("/absolute", true)]),
        policy(vec![PathRule::new("sets/nothing")]),
        policy(vec![PathRule {
            read: Some(true),
            ..floor("a/floor/that/grants")
        }]),
    ];
    for policy in invalid {
        assert!(policy.validate().is_err(), "{policy:?}");
        assert_eq!(
            codes(&caller(), &snapshot(policy.clone()), &skill_batch()),
            (vec![Hidden], vec![Hidden, Hidden]),
            "{policy:?}"
        );
    }
}

#[test]
fn discovery_needs_read_on_the_package_root_and_on_each_member_file() {
    let cases = [
        // The rule denies the root folder only: its files are readable, yet hidden with it.
        (
            "root denied hides the package and every file",
            policy(vec![rule(".claude", false)]),
            Hidden,
            [Hidden, Hidden],
        ),
        (
            "a denied file is absent, the rest stays",
            policy(vec![rule(".claude/skills/b/**", false)]),
            Active,
            [Active, Hidden],
        ),
        (
            "a package whose files are all denied is absent",
            policy(vec![rule(".claude/skills/**", false)]),
            Hidden,
            [Hidden, Hidden],
        ),
        (
            "a floor hides a subtree",
            policy(vec![floor(".claude/**")]),
            Hidden,
            [Hidden, Hidden],
        ),
    ];
    for (name, policy, package, files) in cases {
        let (got_packages, got_files) = codes(&caller(), &snapshot(policy), &skill_batch());
        assert_eq!(got_packages, vec![package], "{name}");
        assert_eq!(got_files, files, "{name}");
    }
}

#[test]
fn a_floor_holds_against_policy_overrides_and_file_overrides() {
    let open = PathRule {
        override_rule: true,
        roles: vec!["member".into()],
        ..rule("**", true)
    };
    let mut state = snapshot(policy(vec![floor(".claude/skills/b/**"), open]));
    state.agent_overrides = [("repo:.claude", ".claude/skills/b/SKILL.md", true)]
        .into_iter()
        .collect::<FileOverrides>();
    state.conversation_chain = vec![state.agent_overrides.clone()];
    let (_, files) = codes(&caller(), &state, &skill_batch());
    assert_eq!(files, vec![Active, Hidden]);
}

#[test]
fn scope_reaches_the_owner_alone() {
    let cases = [
        (Scope::Project, PROJECT, Active),
        (Scope::Project, "another-project", Hidden),
        (Scope::User, "ada", Active),
        (Scope::User, "bob", Hidden),
        (Scope::Agent, "a1", Active),
        (Scope::Agent, "a2", Hidden),
    ];
    for (scope, owner, expected) in cases {
        let mut request = skill_batch();
        request.sources[0].scope = neuralis_access::SourceScope {
            scope,
            owner: owner.into(),
        };
        let (packages, files) = codes(&caller(), &snapshot(read_all()), &request);
        assert_eq!(
            (packages[0], files[0]),
            (expected, expected),
            "{scope:?} owned by {owner}"
        );
    }
}

#[test]
fn private_files_are_visible_to_their_agent_alone_names_included() {
    let mut request = batch(
        "agents/a1",
        &[
            ("agents/a1/rules/x.md", Category::Rule),
            ("agents/a1/skills/s/SKILL.md", Category::Skill),
        ],
    );
    request.files[0].private_owner = Some("a1".into());
    let owner = caller();
    let other = Caller {
        agent: Some("a2".into()),
        ..caller()
    };
    assert_eq!(
        codes(&owner, &snapshot(read_all()), &request).1,
        vec![DecisionCode::VisibleOptIn, Active]
    );
    assert_eq!(
        codes(&other, &snapshot(read_all()), &request).1,
        vec![Hidden, Active]
    );
    request.packages[0].private_owner = Some("a1".into());
    assert_eq!(
        codes(&other, &snapshot(read_all()), &request),
        (vec![Hidden], vec![Hidden, Hidden])
    );
}

#[test]
fn required_features_hide_a_file_entirely_from_non_holders() {
    let mut request = skill_batch();
    request.files[1].required_features = vec!["deploy.run".into()];
    let holder_by_token = Caller {
        features: ["deploy.run".to_owned()].into(),
        ..caller()
    };
    let mut granted_to_role = snapshot(read_all());
    granted_to_role.role_features.insert("deploy.run".into());
    let cases = [
        (
            "a non-holder never sees it",
            caller(),
            snapshot(read_all()),
            Hidden,
        ),
        (
            "a feature carried by the token opens it",
            holder_by_token,
            snapshot(read_all()),
            Active,
        ),
        (
            "a feature granted to the role opens it",
            caller(),
            granted_to_role,
            Active,
        ),
    ];
    for (name, who, state, expected) in cases {
        assert_eq!(
            codes(&who, &state, &request).1,
            vec![Active, expected],
            "{name}"
        );
    }
}

#[test]
fn an_access_feature_hides_a_whole_installed_package() {
    let mut request = EvaluationRequest {
        sources: Vec::new(),
        ..skill_batch()
    };
    request.packages[0].origin = Origin::Installed;
    request.packages[0].access_feature = Some("pkg.access".into());
    let state = AccessSnapshot::default();
    assert_eq!(
        codes(&caller(), &state, &request),
        (vec![Hidden], vec![Hidden, Hidden])
    );
    let holder = Caller {
        features: ["pkg.access".to_owned()].into(),
        ..caller()
    };
    assert_eq!(
        codes(&holder, &state, &request),
        (vec![Active], vec![Active, Active])
    );
}

#[test]
fn a_disabled_package_stays_listed_but_off() {
    let mut state = snapshot(read_all());
    state.package_enabled.insert("repo:.claude".into(), false);
    let disabled = DecisionCode::VisibleDisabled;
    assert_eq!(
        codes(&caller(), &state, &skill_batch()),
        (vec![disabled], vec![disabled, disabled])
    );
}

#[test]
fn bad_input_is_rejected_naming_the_field_without_the_value() {
    let mut outside = skill_batch();
    outside.files[1].path = "secret/skills/b/SKILL.md".into();
    let mut no_package = skill_batch();
    no_package
        .files
        .push(file(7, ".claude/x.md", Category::Docs));
    let mut no_header = skill_batch();
    no_header.sources.clear();
    let mut traversal = skill_batch();
    traversal.files[0].path = ".claude/../secret".into();
    let mut empty_project = skill_batch();
    empty_project.project.clear();
    let mut empty_owner = skill_batch();
    empty_owner.sources[0].scope.owner.clear();
    // A member file lies strictly below its root: the root folder itself is no member.
    let mut at_root = skill_batch();
    at_root.files[0].path = ".claude".into();
    let mut blank_file_owner = skill_batch();
    blank_file_owner.files[1].private_owner = Some(" ".into());
    let mut blank_package_owner = skill_batch();
    blank_package_owner.packages[0].private_owner = Some(String::new());
    let cases = [
        (at_root, "files[0].path"),
        (blank_file_owner, "files[1].private_owner"),
        (blank_package_owner, "packages[0].private_owner"),
        (outside, "files[1].path"),
        (no_package, "files[2].package"),
        (no_header, "packages[0].source_id"),
        (traversal, "files[0].path"),
        (empty_project, "project"),
        (empty_owner, "sources[0].owner"),
    ];
    for (request, expected) in cases {
        let error = evaluate(&caller(), &snapshot(read_all()), &request).unwrap_err();
        let AccessError::InvalidArgument { field, .. } = &error;
        assert_eq!(field, expected);
        assert!(!error.to_string().contains("secret"), "{error}");
        // The policy service checks a batch before it reads the store: the same error.
        assert_eq!(request.validate(), Err(error));
    }
}

#[test]
fn a_checked_batch_is_decided_as_evaluate_decides_the_batch_it_checked() {
    let request = skill_batch();
    let state = snapshot(policy(vec![rule(".claude/skills/b/**", false)]));
    assert_eq!(request.validate(), Ok(()));
    let checked = request.check().unwrap();
    assert_eq!(checked.request(), &request);
    assert_eq!(
        decide(&caller(), &state, &checked),
        evaluate(&caller(), &state, &request).unwrap()
    );
}
