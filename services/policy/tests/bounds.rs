//! What one caller can store is bounded: a member of a project cannot pile file
//! overrides on a conversation (every evaluation in it reads them) past
//! `MAX_CONVERSATION_OVERRIDES`, over gRPC, on both stores.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access_store::MAX_CONVERSATION_OVERRIDES;
use neuralis_identity::Claims;
use neuralis_policy::{PolicyApi, PolicyError};
use neuralis_proto::policy::v1 as pb;
use support::{Harness, PACKAGE, member, token_with};

on_both_stores!(a_member_cannot_pile_overrides_on_a_conversation_past_the_bound);

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
