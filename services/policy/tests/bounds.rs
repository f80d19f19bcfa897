//! What one caller can store is bounded: a member of a project cannot pile file
//! overrides on a conversation (every evaluation in it reads them) past
//! `MAX_CONVERSATION_OVERRIDES`, and an administrator cannot pile floors on a source's
//! policy past `MAX_RULES`, over gRPC, on both stores.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::policy::MAX_RULES;
use neuralis_access::{PathRule, UriPolicy};
use neuralis_access_store::MAX_CONVERSATION_OVERRIDES;
use neuralis_identity::Claims;
use neuralis_policy::convert::policy_to_proto;
use neuralis_policy::{PolicyApi, PolicyError};
use neuralis_proto::policy::v1 as pb;
use support::{Harness, PACKAGE, admin, member, token_with};

on_both_stores!(
    a_member_cannot_pile_overrides_on_a_conversation_past_the_bound,
    floors_kept_from_earlier_policies_never_take_a_policy_past_the_rule_bound,
);

fn toggle(path: &str, state: pb::OverrideState) -> pb::SetFileOverrideRequest {
    pb::SetFileOverrideRequest {
        scope: pb::OverrideScope::Conversation.into(),
        owner_id: "c1".into(),
        package_key: PACKAGE.into(),
        file_path: path.into(),
        state: state.into(),
        project_id: support::PROJECT.into(),
    }
}

async fn a_member_cannot_pile_overrides_on_a_conversation_past_the_bound(h: Harness) {
    h.client
        .register_conversation(
            member(),
            pb::RegisterConversationRequest {
                conversation_id: "c1".into(),
                project_id: support::PROJECT.into(),
                parent_conversation_id: String::new(),
            },
        )
        .await
        .unwrap();
    for index in 0..MAX_CONVERSATION_OVERRIDES {
        let path = format!(".claude/rules/r{index:04}.md");
        h.client
            .set_file_override(member(), toggle(&path, pb::OverrideState::Off))
            .await
            .unwrap();
    }
    // The attacker's next call: refused, naming the field and the bound, never the
    // file or the package.
    let refused = h
        .client
        .set_file_override(
            member(),
            toggle(".claude/rules/secret-plan.md", pb::OverrideState::Off),
        )
        .await;
    match refused {
        Err(PolicyError::LimitReached { field, message }) => {
            assert_eq!(field, "file_path");
            assert!(message.contains(&MAX_CONVERSATION_OVERRIDES.to_string()));
            assert!(!message.contains("secret-plan") && !message.contains(PACKAGE));
        }
        other => panic!("expected the limit, got {other:?}"),
    }
    // A caller of another project is refused before anything is counted: it learns
    // nothing of the conversation, not even that it is full.
    let stranger = token_with(Claims {
        project: Some("other".into()),
        ..support::claims()
    });
    let foreign = h
        .client
        .set_file_override(
            stranger,
            toggle(".claude/rules/secret-plan.md", pb::OverrideState::Off),
        )
        .await;
    assert!(
        matches!(foreign, Err(PolicyError::PermissionDenied(_))),
        "{foreign:?}"
    );
    // What the conversation holds can still change and be cleared, which makes room.
    let first = ".claude/rules/r0000.md";
    for state in [pb::OverrideState::On, pb::OverrideState::Clear] {
        h.client
            .set_file_override(member(), toggle(first, state))
            .await
            .unwrap();
    }
    h.client
        .set_file_override(
            member(),
            toggle(".claude/rules/secret-plan.md", pb::OverrideState::Off),
        )
        .await
        .unwrap();
}

/// `count` floors named `{prefix}{index}/**`.
fn floors(prefix: &str, count: usize) -> Vec<PathRule> {
    (0..count)
        .map(|index| PathRule {
            read: Some(false),
            floor: true,
            ..PathRule::new(format!("{prefix}{index:04}/**"))
        })
        .collect()
}

fn put(policy: &UriPolicy) -> pb::PutSourcePolicyRequest {
    pb::PutSourcePolicyRequest {
        source_id: support::SOURCE.into(),
        policy: Some(policy_to_proto(policy)),
    }
}

/// Floors are never removed, so each put keeps the floors stored before it. An
/// administrator putting policies of 1,000 new floors each, every one within the bound,
/// made the stored policy grow past `MAX_RULES` without limit: a policy that no longer
/// compiles hides the whole source from everyone, and no edit could bring it back. The
/// put that would pass the bound is refused naming `policy.paths`; restating the stored
/// floors adds no rule, so a policy within the bound with them still goes in.
async fn floors_kept_from_earlier_policies_never_take_a_policy_past_the_rule_bound(h: Harness) {
    let first = UriPolicy {
        paths: floors("first", 1_000),
        ..support::read_all()
    };
    h.client
        .put_source_policy(admin(), put(&first))
        .await
        .unwrap();
    let second = UriPolicy {
        paths: floors("second", 1_000),
        ..support::read_all()
    };
    match h.client.put_source_policy(admin(), put(&second)).await {
        Err(PolicyError::LimitReached { field, message }) => {
            assert_eq!(field, "policy.paths");
            assert!(message.contains(&MAX_RULES.to_string()), "{message}");
            assert!(message.contains("the 1000 floors stored"), "{message}");
        }
        Ok(answer) => panic!(
            "stored past the bound: {} rules",
            answer.policy.map_or(0, |policy| policy.paths.len())
        ),
        Err(other) => panic!("expected the bound, got {other:?}"),
    }
    let stored = |h: &Harness| {
        let client = h.client.clone();
        async move {
            let request = pb::GetSourcePolicyRequest {
                source_id: support::SOURCE.into(),
            };
            let answer = client.get_source_policy(admin(), request).await.unwrap();
            answer.policy.unwrap().paths.len()
        }
    };
    assert_eq!(stored(&h).await, 1_000, "the refused put stored nothing");
    let mut restated = floors("first", 1_000);
    restated.extend(floors("second", MAX_RULES - 1_000));
    let within = UriPolicy {
        paths: restated,
        ..support::read_all()
    };
    h.client
        .put_source_policy(admin(), put(&within))
        .await
        .unwrap();
    assert_eq!(stored(&h).await, MAX_RULES);
}
