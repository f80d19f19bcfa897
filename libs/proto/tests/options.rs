//! Every file of the contract carries the options each language's generator needs
//! (issue 28 item 5): protoc-gen-go refuses a file without `go_package`, and Java, C#,
//! PHP, Ruby and Objective-C otherwise derive names that clash across packages.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use prost::Message;
use prost_types::FileDescriptorSet;

#[test]
fn every_file_names_its_package_for_every_language() {
    let set = FileDescriptorSet::decode(neuralis_proto::FILE_DESCRIPTOR_SET).unwrap();
    let ours: Vec<_> = set
        .file
        .iter()
        .filter(|file| file.package().starts_with("neuralis."))
        .collect();
    assert!(ours.len() >= 4, "the contract's files: {}", ours.len());
    for file in ours {
        let name = file.name();
        let options = file
            .options
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no options"));
        let package = file.package();
        // `neuralis.sync.v1` -> `sync`, `v1`
        let parts: Vec<&str> = package.split('.').collect();
        let (service, version) = (parts[1], parts[2]);
        let go = options.go_package();
        assert!(
            go.ends_with(&format!("/neuralis/{service}/{version};{service}{version}")),
            "{name}: go_package {go:?} names the package's import path and its Go name"
        );
        assert_eq!(
            options.java_package(),
            format!("com.example.neuralis.{service}.{version}"),
            "{name}"
        );
        assert!(options.java_multiple_files(), "{name}");
        assert!(!options.java_outer_classname().is_empty(), "{name}");
        let capitalized = format!("{}{}", service[..1].to_uppercase(), &service[1..]);
        assert_eq!(
            options.csharp_namespace(),
            format!("Neuralis.{capitalized}.V1"),
            "{name}"
        );
        assert!(!options.php_namespace().is_empty(), "{name}");
        assert!(!options.ruby_package().is_empty(), "{name}");
        assert!(!options.objc_class_prefix().is_empty(), "{name}");
    }
}
