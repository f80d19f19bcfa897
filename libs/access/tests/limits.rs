//! The size limits of what the access model accepts, at the boundary and one beyond:
//! 200,000 candidates of one kind in a batch, 1,024 rules in a policy, 128-byte feature
//! and role names. Refusals name the field and never echo a value. (The 4,096-byte path
//! and pattern limit is in `patterns.rs`.)

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::candidate::MAX_CANDIDATES;
use neuralis_access::grant::{MAX_NAME_LEN, check_name};
use neuralis_access::policy::MAX_RULES;
use neuralis_access::{AccessError, EvaluationRequest, UriPolicy};
use neuralis_layout::Category;
use support::{batch, file, rule};

fn field_of(error: AccessError) -> String {
    let AccessError::InvalidArgument { field, .. } = error;
    field
}

#[test]
fn a_batch_takes_at_most_200000_candidates_of_one_kind() {
    let with_files = |count: usize| -> EvaluationRequest {
        let mut request = batch("", &[]);
        request.files = vec![file(0, "rules/a.md", Category::Rule); count];
        request
    };
    assert_eq!(MAX_CANDIDATES, 200_000);
    assert_eq!(with_files(MAX_CANDIDATES).validate(), Ok(()));
    let error = with_files(MAX_CANDIDATES + 1).validate().unwrap_err();
    assert_eq!(field_of(error), "files");
}

#[test]
fn a_policy_takes_at_most_1024_rules() {
    let with_rules = |count: usize| UriPolicy {
        paths: vec![rule("docs/**", true); count],
        ..UriPolicy::default()
    };
    assert_eq!(MAX_RULES, 1024);
    assert_eq!(with_rules(MAX_RULES).validate().unwrap().len(), MAX_RULES);
    let error = with_rules(MAX_RULES + 1).validate().unwrap_err();
    assert_eq!(field_of(error), "paths");
}

#[test]
fn feature_and_role_names_take_at_most_128_bytes() {
    assert_eq!(MAX_NAME_LEN, 128);
    assert_eq!(check_name(&"f".repeat(MAX_NAME_LEN), "feature"), Ok(()));
    let error = check_name(&"f".repeat(MAX_NAME_LEN + 1), "features[2]").unwrap_err();
    assert!(!error.to_string().contains("fff"), "{error}");
    assert_eq!(field_of(error), "features[2]");
}
