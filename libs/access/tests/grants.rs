//! Role grants (seed 002, "requires"): a package's `defaultRoleGrants` and the
//! administrator's own grants, each stored under its grantor and replaced as a whole;
//! names are non-empty printable names, and a refusal names the field without the value.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};

use neuralis_access::grant::check_name;
use neuralis_access::{AccessError, Grantor, RoleGrants};

fn grants(grantor: Grantor, role: &str, features: &[&str]) -> RoleGrants {
    let features: BTreeSet<String> = features.iter().map(|f| f.to_string()).collect();
    RoleGrants {
        grantor,
        roles: BTreeMap::from([(role.to_owned(), features)]),
    }
}

fn field_of(error: AccessError) -> String {
    let AccessError::InvalidArgument { field, .. } = error;
    field
}

#[test]
fn each_grantor_is_stored_under_its_own_key() {
    assert_eq!(Grantor::Administrator.key(), "admin");
    assert_eq!(Grantor::Package("acme".into()).key(), "package:acme");
}

#[test]
fn grants_need_a_package_id_and_printable_role_and_feature_names() {
    let package = || Grantor::Package("acme".into());
    let cases = [
        (grants(package(), "member", &["deploy.run"]), None),
        (grants(Grantor::Administrator, "admin", &[]), None),
        (
            grants(Grantor::Package(String::new()), "member", &["f"]),
            Some("grantor.package"),
        ),
        (grants(package(), "", &["f"]), Some("roles")),
        (grants(package(), "on call", &["f"]), Some("roles")),
        (
            grants(package(), "member", &["deploy.run", "deploy\trun"]),
            Some("roles[member].features"),
        ),
    ];
    for (grants, expected) in cases {
        let got = grants.validate().err().map(field_of);
        assert_eq!(got.as_deref(), expected, "{grants:?}");
    }
}

#[test]
fn a_name_with_whitespace_or_a_control_character_is_refused_without_echoing_it() {
    for name in [
        "secret name",
        "secret\u{7}",
        "\u{0}secret",
        "secret\n",
        "\u{a0}secret",
    ] {
        let error = check_name(name, "features[0]").unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
        assert_eq!(field_of(error), "features[0]", "{name:?}");
    }
    for name in ["deploy.run", "pkg:feature-1", "ünïcode"] {
        assert_eq!(check_name(name, "features[0]"), Ok(()), "{name:?}");
    }
}
