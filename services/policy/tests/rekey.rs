//! `RekeyPackages` over gRPC (issue 10, stable package keys): a source's stored package
//! states move from legacy keys once; services only; a key naming a path is refused.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access_store::SnapshotQuery;
use neuralis_policy::{BearerToken, PolicyApi, PolicyError};
use neuralis_proto::policy::v1 as pb;
use support::{Harness, PROJECT, SOURCE, admin, member, service};

on_both_stores!(
    legacy_package_states_move_once_over_the_wire,
    rekeying_is_for_services_only,
    a_key_that_names_a_path_is_refused_with_its_field,
);

fn request(moves: &[(&str, &str)]) -> pb::RekeyPackagesRequest {
    pb::RekeyPackagesRequest {
        source_id: SOURCE.into(),
        moves: moves
            .iter()
            .map(|(legacy, key)| pb::PackageKeyMove {
                legacy_key: (*legacy).into(),
                key: (*key).into(),
            })
            .collect(),
    }
}

async fn enabled(h: &Harness, key: &str) -> bool {
    let query = SnapshotQuery {
        project: PROJECT.into(),
        role: "member".into(),
        agent: None,
        conversation: None,
        source_ids: Vec::new(),
    };
    h.store
        .snapshot(&query)
        .await
        .unwrap()
        .package_enabled(&format!("{SOURCE}/{key}"))
}

async fn legacy_package_states_move_once_over_the_wire(h: Harness) {
    let off = pb::SetPackageEnabledRequest {
        project_id: PROJECT.into(),
        package_key: format!("{SOURCE}/helper"),
        enabled: false,
        reset: false,
    };
    h.client.set_package_enabled(admin(), off).await.unwrap();
    let moves = [("helper", "helper-9826a339")];
    let first = h.client.rekey_packages(service(), request(&moves)).await;
    assert!(first.unwrap().rekeyed);
    assert!(!enabled(&h, "helper-9826a339").await);
    assert!(enabled(&h, "helper").await);
    let again = h.client.rekey_packages(service(), request(&moves)).await;
    assert!(!again.unwrap().rekeyed);
}

async fn rekeying_is_for_services_only(h: Harness) {
    for token in [admin(), member()] {
        let refused = h.client.rekey_packages(token, request(&[])).await;
        assert!(
            matches!(refused, Err(PolicyError::PermissionDenied(_))),
            "{refused:?}"
        );
    }
    let anonymous = h
        .client
        .rekey_packages(BearerToken::default(), request(&[]))
        .await;
    assert_eq!(anonymous.map(|_| ()), Err(PolicyError::Unauthenticated));
}

async fn a_key_that_names_a_path_is_refused_with_its_field(h: Harness) {
    let refused = h
        .client
        .rekey_packages(service(), request(&[("x", "other.0000000000000000/x")]))
        .await;
    assert!(
        matches!(&refused, Err(PolicyError::InvalidArgument { field, .. }) if field == "moves[0].key"),
        "{refused:?}"
    );
}
