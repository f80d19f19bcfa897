//! How rows and sources from sync's feed are keyed.

use neuralis_layout::FilePayload;
use neuralis_proto::common::v1 as common;
use neuralis_proto::sync::v1 as pb;

use super::entry::payload_of;
use super::*;

#[test]
fn a_source_is_known_by_the_id_sync_assigned() {
    let source = pb::Source {
        id: "p1/repo.0123456789abcdef".into(),
        spec: Some(pb::SourceSpec {
            project: "p1".into(),
            slug: "repo".into(),
            kind: pb::SourceKind::Local as i32,
            root: "/srv/repo".into(),
            scope: common::SourceScope::Project as i32,
            ..Default::default()
        }),
        ..Default::default()
    };
    let info = source_info(source.clone()).expect("a source");
    assert_eq!(info.id, "p1/repo.0123456789abcdef");
    assert_eq!(slug_of("p1", &info.id), "repo");
    let without_id = pb::Source {
        id: String::new(),
        ..source
    };
    assert_eq!(source_info(without_id), None, "no id, no contribution");
}

/// Seed 002: the agent data tree is the `data://` namespace, so policy must know which
/// sources are data trees to decide their files by package zone.
#[test]
fn a_data_source_is_sent_to_policy_as_a_data_tree() {
    let source = |kind: pb::SourceKind| pb::Source {
        id: "p1/data.0123456789abcdef".into(),
        spec: Some(pb::SourceSpec {
            project: "p1".into(),
            slug: "data".into(),
            kind: kind as i32,
            root: "/srv/data".into(),
            scope: common::SourceScope::Project as i32,
            ..Default::default()
        }),
        ..Default::default()
    };
    assert!(source_info(source(pb::SourceKind::Data)).unwrap().data_tree);
    assert!(
        !source_info(source(pb::SourceKind::Local))
            .unwrap()
            .data_tree
    );
}

fn listed(slug: &str) -> SourceInfo {
    let source = pb::Source {
        id: format!("p1/{slug}.00000000000000aa"),
        spec: Some(pb::SourceSpec {
            project: "p1".into(),
            slug: slug.into(),
            kind: pb::SourceKind::Local as i32,
            root: "/srv/repo".into(),
            scope: common::SourceScope::Project as i32,
            ..Default::default()
        }),
        ..Default::default()
    };
    source_info(source).expect("a source")
}

fn delta(rows: &[&str], removed: &[(&str, &str)]) -> Streamed {
    Streamed {
        revision: 2,
        delta: true,
        rows: rows
            .iter()
            .filter_map(|slug| {
                decoded(feed::Entry {
                    source: (*slug).into(),
                    path: "tools/t0/skills/s/SKILL.md".into(),
                    payload_json: serde_json::to_string(&FilePayload::default())
                        .unwrap_or_default(),
                    ..Default::default()
                })
            })
            .collect(),
        removed: removed
            .iter()
            .map(|(slug, path)| feed::Tombstone {
                source: (*slug).into(),
                path: (*path).into(),
            })
            .collect(),
    }
}

/// The request's listing keys a delta's rows only when no source can have come or
/// gone since: a row of an unlisted slug (a source created since the listing) or a
/// whole source's tombstone (deleted, perhaps created again under a new id) lists
/// the sources again after the rows.
#[test]
fn a_delta_is_keyed_by_the_request_listing_only_while_no_source_came_or_went() {
    let sources = [listed("repo")];
    assert!(keys_every_row(&delta(&["repo"], &[]), &sources));
    assert!(keys_every_row(
        &delta(&["repo"], &[("repo", "old.md"), ("gone", "x.md")]),
        &sources
    ));
    assert!(
        !keys_every_row(&delta(&["repo", "new"], &[]), &sources),
        "a source created since the listing"
    );
    assert!(
        !keys_every_row(&delta(&["repo"], &[("repo", "")]), &sources),
        "a source deleted (and created again) since the revision held"
    );
    assert!(
        !keys_every_row(&delta(&[], &[("other", "")]), &sources),
        "any whole source's tombstone"
    );
    assert!(!keys_every_row(&delta(&["repo"], &[]), &[]));
}

#[test]
fn a_row_carries_its_source_id_and_real_path() {
    let ids = HashMap::from([("repo".to_owned(), "p1/repo.00000000000000aa".to_owned())]);
    let entry = |source: &str| feed::Entry {
        source: source.into(),
        path: "shared/rules/leak.md".into(),
        payload_json: serde_json::to_string(&FilePayload::default()).unwrap_or_default(),
        real_path: "agents/alice/rules/secret.md".into(),
        ..Default::default()
    };
    let index_row = |ids: &HashMap<String, String>, entry| keyed(ids, decoded(entry)?);
    let row = index_row(&ids, entry("repo")).expect("a row");
    assert_eq!(row.source_id, "p1/repo.00000000000000aa");
    assert_eq!(
        row.real_path.as_deref(),
        Some("agents/alice/rules/secret.md")
    );
    assert_eq!(
        index_row(&ids, entry("gone")),
        None,
        "an unlisted source's row"
    );
}

/// A plain file's stored payload is decoded without a parse; any other text is parsed,
/// and a payload that cannot be read drops its row (fail closed).
#[test]
fn a_plain_payload_decodes_to_the_default_and_an_unreadable_one_drops_its_row() {
    let entry = |payload_json: String| feed::Entry {
        source: "repo".into(),
        path: "src/main.rs".into(),
        payload_json,
        ..Default::default()
    };
    let plain = serde_json::to_value(FilePayload::default())
        .expect("encodes")
        .to_string();
    assert_eq!(payload_of(&plain).expect("plain"), FilePayload::default());
    let captured = FilePayload {
        version: 0,
        ..FilePayload::default()
    };
    let text = serde_json::to_string(&captured).expect("encodes");
    assert_ne!(text, plain);
    assert_eq!(payload_of(&text).expect("parsed"), captured);
    assert!(decoded(entry(plain)).is_some());
    assert!(decoded(entry("{\"version\": \"x\"".into())).is_none());
}

fn source_of(
    kind: pb::SourceKind,
    scope: common::SourceScope,
    owner: &str,
    uri: &str,
) -> SourceInfo {
    let source = pb::Source {
        id: "p1/repo.0123456789abcdef".into(),
        spec: Some(pb::SourceSpec {
            project: "p1".into(),
            slug: "repo".into(),
            kind: kind as i32,
            root: "/srv/repo".into(),
            machine_uri: uri.into(),
            scope: scope as i32,
            owner: owner.into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    source_info(source).expect("a source")
}

/// A project source's owner is its project when sync stored none; a user or agent
/// source keeps its own owner, even an empty one (policy then grants it nothing), and
/// a project source with an owner keeps it.
#[test]
fn a_project_source_without_an_owner_is_owned_by_its_project() {
    use common::SourceScope as S;
    for (scope, owner, expected) in [
        (S::Project, "", "p1"),
        (S::Project, "team", "team"),
        (S::User, "u1", "u1"),
        (S::User, "", ""),
        (S::Agent, "", ""),
    ] {
        let info = source_of(pb::SourceKind::Local, scope, owner, "");
        assert_eq!(info.scope.owner, expected, "{scope:?} owned by {owner:?}");
    }
}

/// A machine source with its URI is addressed by that URI and has no local root (its
/// files are not read from this host); any other source, or a machine source without
/// a URI, by its root directory.
#[test]
fn only_a_machine_source_with_a_uri_is_addressed_by_it() {
    use pb::SourceKind as K;
    let project = common::SourceScope::Project;
    for (kind, uri, root_uri, local) in [
        (K::Machine, "machine://m1/work", "machine://m1/work", false),
        (K::Machine, "", "file:///srv/repo", true),
        (K::Local, "machine://m1/work", "file:///srv/repo", true),
        (K::Data, "", "file:///srv/repo", true),
    ] {
        let info = source_of(kind, project, "", uri);
        assert_eq!(info.root_uri, root_uri, "{kind:?} with {uri:?}");
        assert_eq!(info.local_root.is_some(), local, "{kind:?} with {uri:?}");
    }
}

/// Sync's messages are for a service: a source root's host path (shown to
/// administrators only), a row's path or a refused field the caller never sent reach
/// the caller as one fixed, retryable phrase; only a refused `query`, the caller's own
/// field, is passed on, and NOT_FOUND stays NOT_FOUND.
#[test]
fn a_sync_error_reaches_the_caller_as_a_fixed_phrase_never_its_message() {
    let secret = "/srv/zq-acme-secret/repo";
    let hidden = [
        SyncError::Unavailable(format!("source root: source root {secret} cannot be used")),
        SyncError::Internal(format!("corrupt row {secret}/.claude/docs/x.md")),
        SyncError::invalid("source.root", format!("{secret} is under a refused folder")),
        SyncError::AlreadyExists(secret.into()),
    ];
    for error in hidden {
        let answered = from_sync(error);
        assert_eq!(
            answered,
            DiscoveryError::Unavailable(SYNC_UNAVAILABLE.into())
        );
        assert!(!format!("{answered:?}").contains("zq-acme-secret"));
    }
    assert_eq!(
        from_sync(SyncError::NotFound(format!("file {secret:?}"))),
        DiscoveryError::NotFound
    );
    assert_eq!(
        from_sync(SyncError::invalid("query", "is required")),
        DiscoveryError::invalid("query", "is required")
    );
}

/// The log line of a feed error names its kind, one word per kind, never its message.
#[test]
fn a_sync_error_is_logged_by_its_kind_alone() {
    let cases = [
        (
            SyncError::invalid("source.root", "/srv/x"),
            "invalid_argument",
        ),
        (SyncError::NotFound("/srv/x".into()), "not_found"),
        (SyncError::AlreadyExists("/srv/x".into()), "already_exists"),
        (SyncError::Unauthenticated, "unauthenticated"),
        (
            SyncError::PermissionDenied("/srv/x".into()),
            "permission_denied",
        ),
        (SyncError::Unavailable("/srv/x".into()), "unavailable"),
        (
            SyncError::ResourceExhausted {
                message: "/srv/x".into(),
                retry_after: std::time::Duration::ZERO,
            },
            "resource_exhausted",
        ),
        (SyncError::Internal("/srv/x".into()), "internal"),
    ];
    for (error, kind) in cases {
        assert_eq!(kind_of(&error), kind, "{error:?}");
    }
}
