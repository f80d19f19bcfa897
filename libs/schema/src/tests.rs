use proptest::prelude::*;

use super::*;

fn known(versions: &[(i64, bool)]) -> Vec<Known> {
    versions
        .iter()
        .map(|&(version, compatible)| Known {
            version,
            compatible,
        })
        .collect()
}

fn applied(versions: &[(i64, bool)]) -> Vec<Applied> {
    versions
        .iter()
        .map(|&(version, compatible)| Applied {
            version,
            compatible,
        })
        .collect()
}

#[test]
fn a_store_holding_every_known_migration_is_current_in_either_mode() {
    let k = known(&[(1, false), (2, true)]);
    let a = applied(&[(1, false), (2, true)]);
    for mode in [Mode::Apply, Mode::Check] {
        let plan = plan(&k, &a, mode).expect("current");
        assert!(plan.apply.is_empty() && plan.newer.is_empty());
    }
}

#[test]
fn apply_mode_applies_what_the_store_lacks_in_version_order() {
    let k = known(&[(3, true), (1, false), (2, true)]);
    let plan = plan(&k, &applied(&[(1, false)]), Mode::Apply).expect("applies");
    assert_eq!(plan.apply, vec![2, 3]);
}

#[test]
fn check_mode_refuses_a_store_behind_and_names_what_is_missing() {
    let k = known(&[(1, false), (2, true), (3, true)]);
    let refusal = plan(&k, &applied(&[(1, false)]), Mode::Check).expect_err("behind");
    assert_eq!(
        refusal,
        Refusal::Behind {
            missing: vec![2, 3]
        }
    );
    assert!(refusal.to_string().contains("neuralis migrate up"));
}

#[test]
fn a_rollback_runs_on_a_store_with_a_later_compatible_migration() {
    let k = known(&[(1, false), (2, true)]);
    let a = applied(&[(1, false), (2, true), (3, true)]);
    for mode in [Mode::Apply, Mode::Check] {
        let plan = plan(&k, &a, mode).expect("compatible");
        assert_eq!(plan.newer, vec![3]);
        assert!(plan.apply.is_empty());
    }
}

#[test]
fn a_rollback_refuses_a_store_with_a_later_incompatible_migration() {
    let k = known(&[(1, false), (2, true)]);
    let a = applied(&[(1, false), (2, true), (3, true), (4, false)]);
    let refusal = plan(&k, &a, Mode::Apply).expect_err("incompatible");
    assert_eq!(refusal, Refusal::Incompatible { version: 4 });
}

#[test]
fn status_lists_every_version_either_side_knows_in_order() {
    let k = known(&[(1, false), (2, true), (3, true)]);
    let a = applied(&[(1, false), (2, true), (9, false), (7, true)]);
    assert_eq!(
        status(&k, &a),
        vec![
            (1, State::Applied),
            (2, State::Applied),
            (3, State::Pending),
            (7, State::Unknown { compatible: true }),
            (9, State::Unknown { compatible: false }),
        ]
    );
}

#[test]
fn the_mode_is_written_in_snake_case_and_defaults_to_apply() {
    assert_eq!(Mode::default(), Mode::Apply);
    let check: Mode = serde_json::from_str("\"check\"").expect("check");
    assert_eq!(check, Mode::Check);
    assert!(serde_json::from_str::<Mode>("\"Check\"").is_err());
}

proptest! {
    /// Whatever the two sides hold: applying the plan leaves a store that every mode
    /// finds current, and nothing a later release applied is ever touched.
    #[test]
    fn applying_the_plan_makes_the_store_current(
        k in prop::collection::btree_map(0i64..20, any::<bool>(), 0..10),
        a in prop::collection::btree_map(0i64..20, Just(true), 0..10),
    ) {
        let k: Vec<Known> = k.into_iter().map(|(version, compatible)| Known { version, compatible }).collect();
        let a: Vec<Applied> = a.into_iter().map(|(version, compatible)| Applied { version, compatible }).collect();
        let plan = plan(&k, &a, Mode::Apply).expect("every unknown step is compatible");
        prop_assert!(plan.apply.iter().all(|v| !a.iter().any(|x| x.version == *v)));
        let mut after = a.clone();
        after.extend(plan.apply.iter().map(|&version| Applied { version, compatible: true }));
        let again = super::plan(&k, &after, Mode::Check).expect("current");
        prop_assert!(again.apply.is_empty());
        prop_assert_eq!(again.newer, plan.newer);
    }

    /// Check mode never plans a change: it is current or it refuses.
    #[test]
    fn check_mode_never_applies(
        k in prop::collection::btree_set(0i64..20, 0..10),
        a in prop::collection::btree_set(0i64..20, 0..10),
    ) {
        let k: Vec<Known> = k.into_iter().map(|version| Known { version, compatible: true }).collect();
        let a: Vec<Applied> = a.into_iter().map(|version| Applied { version, compatible: true }).collect();
        if let Ok(plan) = plan(&k, &a, Mode::Check) {
            prop_assert!(plan.apply.is_empty());
        }
    }
}
