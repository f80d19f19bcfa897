//! A batch crosses the wire from discovery to policy unchanged, a package found in a
//! flagged source (seed 000, `recognizesPackages`) with where it was found: dropping it
//! would decide the package without its source's switch and policy.

#![allow(clippy::unwrap_used)]

mod support;

use neuralis_access::{FoundIn, Origin, PackageCandidate};
use neuralis_policy::convert::{batch_from_proto, batch_to_proto};
use support::{SOURCE, batch, caller_of, member};

#[test]
fn a_package_found_in_a_source_crosses_the_wire_with_where_it_was_found() {
    let mut request = batch();
    request.packages.push(PackageCandidate {
        key: "acme".into(),
        origin: Origin::Installed,
        root: String::new(),
        access_feature: None,
        private_owner: None,
        found_in: Some(FoundIn {
            source: SOURCE.into(),
            folder: "pkgs/acme".into(),
        }),
    });
    let wire = batch_to_proto(&request, None, &caller_of(&member()));
    assert_eq!(wire.packages[1].found_in_source_id, SOURCE);
    assert_eq!(batch_from_proto(wire).unwrap().batch, request);
}

#[test]
fn a_folder_found_in_no_source_is_refused_naming_the_field() {
    let mut wire = batch_to_proto(&batch(), None, &caller_of(&member()));
    wire.packages[0].found_in_folder = "pkgs/acme".into();
    let refused = batch_from_proto(wire).unwrap_err().to_string();
    assert!(
        refused.contains("packages[0].found_in_source_id"),
        "{refused}"
    );
}
