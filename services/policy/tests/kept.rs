//! A batch checked once and kept (discovery keeps one per prepared answer) is decided
//! exactly as the same batch sent afresh, refusals included: a permit of another
//! project, a caller bound to another project, and a caller bound to another
//! conversation are refused PERMISSION_DENIED on the kept path as on the fresh one, and
//! an honest caller gets the same decisions from both. The attacker's calls come first.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use neuralis_access::{Caller, KeptBatch};
use neuralis_access_store::testing::{Backend, with_store};
use neuralis_authz::{Gate, Permit, tables};
use neuralis_identity::Claims;
use neuralis_policy::{InProcessPolicy, LocalPolicy, PolicyError};
use support::{PROJECT, SOURCE, batch, caller_of, claims, member, read_all, service, token_with};

/// A permit for `Evaluate`, as the all-in-one wiring holds one (a service credential).
fn service_permit(gate: &Gate) -> Permit {
    gate.admit_bearer(tables::policy::EVALUATE, &service())
        .expect("a service may evaluate")
}

/// A permit a member of `project` holds for a caller RPC bound to a project
/// (`RegisterConversation`): a permit, but for another project than the batch's.
fn caller_permit_in(gate: &Gate, project: &str) -> Permit {
    let token = token_with(Claims {
        project: Some(project.into()),
        ..claims()
    });
    gate.admit_bearer(tables::policy::REGISTER_CONVERSATION, &token)
        .expect("a member may register conversations")
}

fn bound_caller(project: &str, conversation: Option<&str>) -> Caller {
    caller_of(&token_with(Claims {
        project: Some(project.into()),
        conversation: conversation.map(String::from),
        ..claims()
    }))
}

#[tokio::test]
async fn a_kept_batch_is_refused_for_another_projects_permit_or_caller_as_a_fresh_one_is() {
    with_store(Backend::Embedded, |store, _| async move {
        store.put_source_policy(SOURCE, &read_all()).await.unwrap();
        let gate = Gate::new(
            &tables::policy::TABLE,
            support::verifiers(&["admin".into()]),
        );
        let local = LocalPolicy::new(store);
        let request = Arc::new(batch());
        let kept = KeptBatch::new(Arc::clone(&request)).expect("a valid batch");

        let refused = [
            (
                "a permit of another project",
                caller_permit_in(&gate, "p2"),
                caller_of(&member()),
                None,
            ),
            (
                "a caller bound to another project",
                service_permit(&gate),
                bound_caller("p2", None),
                None,
            ),
            (
                "a caller bound to another conversation",
                service_permit(&gate),
                bound_caller(PROJECT, Some("c1")),
                Some("c2".to_owned()),
            ),
        ];
        for (what, permit, caller, conversation) in refused {
            let fresh = local
                .evaluate_batch(&permit, &caller, conversation.clone(), &request)
                .await;
            let kept = local
                .evaluate_kept(&permit, &caller, conversation, &kept)
                .await;
            assert!(
                matches!(fresh, Err(PolicyError::PermissionDenied(_))),
                "fresh, {what}: {fresh:?}"
            );
            assert!(
                matches!(kept, Err(PolicyError::PermissionDenied(_))),
                "kept, {what}: {kept:?}"
            );
        }

        // The honest call: the same decisions from both paths, and some file visible
        // (so the equality is not of two empty answers).
        let honest = caller_of(&member());
        let permit = service_permit(&gate);
        let fresh = local
            .evaluate_batch(&permit, &honest, None, &request)
            .await
            .unwrap();
        let from_kept = local
            .evaluate_kept(&permit, &honest, None, &kept)
            .await
            .unwrap();
        assert_eq!(fresh, from_kept);
        assert!(
            fresh.files.iter().any(|file| file.code.is_visible()),
            "{fresh:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn the_linked_path_refuses_a_kept_batch_for_a_caller_of_another_project() {
    with_store(Backend::Embedded, |store, _| async move {
        let gate = Gate::new(
            &tables::policy::TABLE,
            support::verifiers(&["admin".into()]),
        );
        let linked = InProcessPolicy::new(gate, Arc::new(LocalPolicy::new(store)))
            .linked_evaluate(&service())
            .expect("the wiring's credential is admitted");
        let kept = KeptBatch::new(Arc::new(batch())).expect("a valid batch");
        let foreign = linked
            .evaluate_kept(&bound_caller("p2", None), None, &kept)
            .await;
        assert!(
            matches!(foreign, Err(PolicyError::PermissionDenied(_))),
            "{foreign:?}"
        );
        let other_conversation = linked
            .evaluate_kept(&bound_caller(PROJECT, Some("c1")), Some("c2"), &kept)
            .await;
        assert!(
            matches!(other_conversation, Err(PolicyError::PermissionDenied(_))),
            "{other_conversation:?}"
        );
        assert!(
            linked
                .evaluate_kept(&caller_of(&member()), None, &kept)
                .await
                .is_ok()
        );
    })
    .await;
}
