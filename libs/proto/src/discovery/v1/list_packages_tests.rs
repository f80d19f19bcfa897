//! The hand-written response and the encoded parts write exactly the bytes prost writes
//! for the messages they stand for, so a client cannot tell them apart.

use super::super::FlaggedEntry;
use super::*;
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), "[a-z/._ -]{1,12}", "\\PC{1,6}"]
}

fn texts() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(), 0..4)
}

fn file() -> impl Strategy<Value = PackageFile> {
    (
        (text(), 0..8i32, text(), text(), text(), -1..6i32),
        (
            any::<bool>(),
            any::<bool>(),
            texts(),
            text(),
            texts(),
            texts(),
        ),
        prop::collection::vec((text(), texts()), 0..3),
    )
        .prop_map(
            |(
                (path, category, id, title, description, state),
                (identity, default_enabled, files, activation_id, allowed_tools, flags),
                flagged,
            )| PackageFile {
                path,
                category,
                id,
                title,
                description,
                state,
                identity,
                default_enabled,
                files,
                activation_id,
                allowed_tools,
                content_flags: flags,
                flagged_files: flagged
                    .into_iter()
                    .map(|(file, content_flags)| FlaggedEntry {
                        file,
                        content_flags,
                    })
                    .collect(),
            },
        )
}

fn head() -> impl Strategy<Value = Package> {
    (
        (text(), text(), 0..3i32, text(), text()),
        (0..6i32, text(), any::<bool>(), text()),
    )
        .prop_map(
            |((name, key, origin, source_slug, root), (rule, package_id, enabled, policy_key))| {
                Package {
                    name,
                    key,
                    origin,
                    source_slug,
                    root,
                    rule,
                    package_id,
                    enabled,
                    files: Vec::new(),
                    policy_key,
                }
            },
        )
}

/// Field 1 entries as prost writes them.
fn prost_entries(packages: &[Package]) -> Vec<u8> {
    ListPackagesResponse {
        packages: packages.to_vec(),
        ..ListPackagesResponse::default()
    }
    .encode_to_vec()
}

proptest! {
    #[test]
    fn an_encoded_file_writes_what_prost_writes_for_any_state(
        message in file(),
        state in -1..6i32,
    ) {
        let encoded = EncodedFile::new(&message);
        let mut ours = BytesMut::new();
        encoded.put(state, &mut ours);
        let expected = PackageFile { state, ..message };
        let mut theirs = BytesMut::new();
        put_file_entry(&expected, &mut theirs);
        prop_assert_eq!(ours.len(), encoded.entry_len(state));
        prop_assert_eq!(theirs.len(), file_entry_len(&expected));
        prop_assert_eq!(ours, theirs);
    }

    #[test]
    fn an_encoded_package_writes_what_prost_writes(
        head in head(),
        files in prop::collection::vec((file(), -1..6i32), 0..4),
        enabled in any::<bool>(),
    ) {
        let encoded = EncodedHead::new(&head);
        let parts: Vec<EncodedFile> = files.iter().map(|(f, _)| EncodedFile::new(f)).collect();
        let length: usize = parts.iter().zip(&files).map(|(p, (_, s))| p.entry_len(*s)).sum();
        let mut ours = BytesMut::new();
        encoded.put(enabled, length, &mut ours, |buf| {
            for (part, (_, state)) in parts.iter().zip(&files) {
                part.put(*state, buf);
            }
        });
        prop_assert_eq!(ours.len(), encoded.entry_len(enabled, length));
        let package = Package {
            enabled,
            files: files.into_iter().map(|(f, state)| PackageFile { state, ..f }).collect(),
            ..head
        };
        prop_assert_eq!(&ours[..], &prost_entries(&[package])[..]);
    }

    #[test]
    fn a_response_decodes_its_encoded_packages_after_its_packages(
        first in prop::collection::vec(head(), 0..3),
        encoded in prop::collection::vec(head(), 0..3),
        token in text(),
    ) {
        let response = ListPackagesResponse {
            packages: first.clone(),
            next_page_token: token.clone(),
            encoded_packages: prost_entries(&encoded).into(),
        };
        let bytes = response.encode_to_vec();
        prop_assert_eq!(bytes.len(), response.encoded_len());
        let decoded = ListPackagesResponse::decode(&bytes[..]).unwrap();
        let all: Vec<Package> = first.into_iter().chain(encoded).collect();
        prop_assert_eq!(decoded, ListPackagesResponse {
            packages: all,
            next_page_token: token,
            encoded_packages: Bytes::new(),
        });
    }
}

#[test]
fn a_bad_package_is_refused_naming_the_field() {
    // field 1 holding field 1 (name) = 0xff: not UTF-8
    let error = ListPackagesResponse::decode(&[0x0a, 0x03, 0x0a, 0x01, 0xff][..]).unwrap_err();
    let status = crate::codec::undecodable(&error);
    assert!(
        status.message().starts_with("packages.name: "),
        "{}",
        status.message()
    );
}

#[test]
fn a_cleared_response_is_empty_and_debug_counts_the_encoded_bytes() {
    let mut response = ListPackagesResponse {
        packages: vec![Package::default()],
        next_page_token: "t".into(),
        encoded_packages: Bytes::from_static(&[0x0a, 0x00]),
    };
    let shown = format!("{response:?}");
    assert!(shown.contains("encoded_packages: 2"), "{shown}");
    assert!(shown.contains("next_page_token: \"t\""), "{shown}");
    response.clear();
    assert_eq!(response, ListPackagesResponse::default());
}

proptest! {
    /// The kept parts weigh their bytes: the message encoded without the per-call fields.
    #[test]
    fn the_kept_parts_weigh_their_bytes(message in file(), head in head()) {
        let file_weight = PackageFile { state: 0, ..message.clone() }.encoded_len();
        prop_assert_eq!(EncodedFile::new(&message).bytes(), file_weight);
        let head_weight = Package { enabled: false, ..head.clone() }.encoded_len();
        prop_assert_eq!(EncodedHead::new(&head).bytes(), head_weight);
    }
}
