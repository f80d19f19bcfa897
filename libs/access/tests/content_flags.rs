//! Hiding flagged files (issue 10 item 6: "a policy option to hide flagged files"): a
//! file the sync flagged is denied like a path no rule lets the caller read when its
//! source's policy sets `hide_flagged_files`, and is data only otherwise. Decided per
//! batch, from the policy in the snapshot of that request.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{DecisionCode, EvaluationRequest, UriPolicy, evaluate};
use neuralis_layout::Category;
use support::{batch, caller, read_all, snapshot};

use DecisionCode::{Hidden, VisibleActive as Active};

/// Two skills and a bundled script; `flagged` marks files by index.
fn skills(flagged: &[usize]) -> EvaluationRequest {
    let mut request = batch(
        ".claude",
        &[
            (".claude/skills/a/SKILL.md", Category::Skill),
            (".claude/skills/b/SKILL.md", Category::Skill),
            (".claude/skills/b/scripts/install.sh", Category::Skill),
        ],
    );
    for at in flagged {
        request.files[*at].content_flagged = true;
    }
    request
}

fn decide(
    policy: UriPolicy,
    request: &EvaluationRequest,
) -> (Vec<DecisionCode>, Vec<DecisionCode>) {
    let evaluation = evaluate(&caller(), &snapshot(policy), request).unwrap();
    (
        evaluation.packages.iter().map(|d| d.code).collect(),
        evaluation.files.iter().map(|d| d.code).collect(),
    )
}

fn hiding() -> UriPolicy {
    UriPolicy {
        hide_flagged_files: true,
        ..read_all()
    }
}

#[test]
fn a_flagged_file_is_hidden_when_the_policy_says_so() {
    let (packages, files) = decide(hiding(), &skills(&[1, 2]));
    assert_eq!(packages, [Active]);
    assert_eq!(files, [Active, Hidden, Hidden]);
}

#[test]
fn a_flagged_file_is_data_only_when_the_policy_does_not_hide_flagged_files() {
    let (packages, files) = decide(read_all(), &skills(&[0, 1, 2]));
    assert_eq!(packages, [Active]);
    assert_eq!(files, [Active, Active, Active]);
}

#[test]
fn a_package_whose_every_file_is_flagged_and_hidden_is_absent() {
    let (packages, files) = decide(hiding(), &skills(&[0, 1, 2]));
    assert_eq!(packages, [Hidden]);
    assert_eq!(files, [Hidden, Hidden, Hidden]);
}

#[test]
fn hiding_flagged_files_never_shows_what_the_path_rules_deny() {
    // The option only takes away: an unflagged file stays as the rules decide it.
    let (_, files) = decide(
        UriPolicy {
            hide_flagged_files: true,
            ..UriPolicy::default()
        },
        &skills(&[]),
    );
    assert_eq!(files, [Hidden, Hidden, Hidden]);
}

#[test]
fn the_option_is_stored_as_hide_flagged_files_and_absent_when_off() {
    let stored = hiding().to_json();
    assert!(stored.contains(r#""hideFlaggedFiles":true"#), "{stored}");
    assert_eq!(UriPolicy::from_json(&stored).unwrap(), hiding());
    assert!(!read_all().to_json().contains("hideFlaggedFiles"));
}
