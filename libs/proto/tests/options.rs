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
    assert!(ours.len() >= 5, "the contract's files: {}", ours.len());
    for file in ours {
        let name = file.name();
        let options = file
            .options
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no options"));
        let package = file.package();
        // `neuralis.sync.v1` -> `sync/v1`, Go name `syncv1`, `sync.v1`, `Sync.V1`;
        // `neuralis.sync.internal.v1` -> `sync/internal/v1`, `internalv1`, ...
        let parts: Vec<&str> = package.split('.').skip(1).collect();
        assert!(parts.len() >= 2, "{name}: package {package:?}");
        let go_name = parts[parts.len() - 2..].concat();
        let go = options.go_package();
        assert!(
            go.ends_with(&format!("/neuralis/{};{go_name}", parts.join("/"))),
            "{name}: go_package {go:?} names the package's import path and its Go name"
        );
        assert_eq!(
            options.java_package(),
            format!("com.example.neuralis.{}", parts.join(".")),
            "{name}"
        );
        assert!(options.java_multiple_files(), "{name}");
        assert!(!options.java_outer_classname().is_empty(), "{name}");
        let capitalized: Vec<String> = parts
            .iter()
            .map(|part| format!("{}{}", part[..1].to_uppercase(), &part[1..]))
            .collect();
        assert_eq!(
            options.csharp_namespace(),
            format!("Neuralis.{}", capitalized.join(".")),
            "{name}"
        );
        assert!(!options.php_namespace().is_empty(), "{name}");
        assert!(!options.ruby_package().is_empty(), "{name}");
        assert!(!options.objc_class_prefix().is_empty(), "{name}");
    }
}

/// Issue 28 item 5: a client generating every file gets one type of each name, and the
/// services-only feed is not in a public package.
#[test]
fn every_type_is_defined_once_and_the_feed_is_internal() {
    let set = FileDescriptorSet::decode(neuralis_proto::FILE_DESCRIPTOR_SET).unwrap();
    let mut seen = std::collections::BTreeMap::new();
    for file in set
        .file
        .iter()
        .filter(|f| f.package().starts_with("neuralis."))
    {
        let names = file
            .message_type
            .iter()
            .map(|m| m.name())
            .chain(file.enum_type.iter().map(|e| e.name()))
            .chain(file.service.iter().map(|s| s.name()));
        for type_name in names {
            if let Some(other) = seen.insert(type_name.to_owned(), file.package().to_owned()) {
                panic!("{type_name} is defined in {other} and {}", file.package());
            }
        }
    }
    assert_eq!(
        seen.get("IndexFeedService").map(String::as_str),
        Some("neuralis.sync.internal.v1")
    );
    assert_eq!(
        seen.get("SourceScope").map(String::as_str),
        Some("neuralis.common.v1")
    );
}
