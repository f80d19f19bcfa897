//! Immutable floors (seed 002, "uriPolicies"): a path rule with `floor: true` is a
//! restrict-only denial "that no later override, admin edit, or policy-route call can
//! remove". It may carry only false capabilities and never `override`, `roles` or `agents`.
//! Evaluation applies floors after every rule ([`crate::CallerPolicy`]).

use crate::UriPolicy;

/// The shape a floor rule must have is checked where a policy is validated (the
/// `policy` module applies it to every rule it compiles); named here too, with the
/// floors.
pub use crate::policy::check_floor_shape as check_shape;

/// The policy to persist when `next` replaces `previous`: every floor of `previous` that
/// `next` does not restate is kept, after the rules of `next`, so an edit can add floors
/// but never remove one.
pub fn keep_floors(previous: Option<&UriPolicy>, mut next: UriPolicy) -> UriPolicy {
    let Some(previous) = previous else {
        return next;
    };
    for floor in previous.paths.iter().filter(|rule| rule.floor) {
        if !next.paths.contains(floor) {
            next.paths.push(floor.clone());
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AccessError, PathRule};

    fn floor(pattern: &str) -> PathRule {
        PathRule {
            read: Some(false),
            floor: true,
            ..PathRule::new(pattern)
        }
    }

    #[test]
    fn a_floor_may_carry_only_false_capabilities_and_no_override_roles_or_agents() {
        let cases = [
            (floor("a"), None),
            (
                PathRule {
                    read: Some(true),
                    ..floor("a")
                },
                Some("floor"),
            ),
            (
                PathRule {
                    write: Some(true),
                    ..floor("a")
                },
                Some("floor"),
            ),
            (
                PathRule {
                    read: None,
                    ..floor("a")
                },
                Some("floor"),
            ),
            (
                PathRule {
                    override_rule: true,
                    ..floor("a")
                },
                Some("override"),
            ),
            (
                PathRule {
                    roles: vec!["admin".into()],
                    ..floor("a")
                },
                Some("roles"),
            ),
            (
                PathRule {
                    agents: vec!["a1".into()],
                    ..floor("a")
                },
                Some("agents"),
            ),
        ];
        for (rule, expected) in cases {
            let got = check_shape(&rule)
                .err()
                .map(|AccessError::InvalidArgument { field, .. }| field);
            assert_eq!(got.as_deref(), expected, "{rule:?}");
        }
    }

    #[test]
    fn an_edit_cannot_remove_a_floor_that_no_admin_edit_can_remove() {
        let previous = UriPolicy {
            paths: vec![floor("secret/**")],
            ..UriPolicy::default()
        };
        let next = UriPolicy {
            paths: vec![PathRule {
                read: Some(true),
                ..PathRule::new("**")
            }],
            ..UriPolicy::default()
        };
        let stored = keep_floors(Some(&previous), next);
        assert_eq!(stored.paths.len(), 2);
        assert_eq!(stored.paths[1], floor("secret/**"));
        // Restating the floor does not duplicate it.
        assert_eq!(keep_floors(Some(&stored), stored.clone()), stored);
    }

    #[test]
    fn a_policy_edit_keeps_only_the_floors_of_the_previous_policy() {
        // A grant revoked by the edit must not survive it: only floors carry over.
        let grant = PathRule {
            read: Some(true),
            ..PathRule::new("private/**")
        };
        let previous = UriPolicy {
            paths: vec![grant, floor("secret/**")],
            ..UriPolicy::default()
        };
        let stored = keep_floors(Some(&previous), UriPolicy::default());
        assert_eq!(stored.paths, vec![floor("secret/**")]);
        // A first policy is stored as given.
        let first = UriPolicy {
            paths: vec![floor("a/**")],
            ..UriPolicy::default()
        };
        assert_eq!(keep_floors(None, first.clone()), first);
    }
}
