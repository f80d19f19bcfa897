use super::*;

fn spec() -> pb::SourceSpec {
    pb::SourceSpec {
        project: "p1".into(),
        slug: "repo".into(),
        kind: pb::SourceKind::Local as i32,
        root: "/srv/repo".into(),
        trigger: "interval:5m".into(),
        ..Default::default()
    }
}

fn field_of(result: Result<SourceRecord, SyncError>) -> String {
    match result {
        Err(SyncError::InvalidArgument { field, .. }) => field,
        other => panic!("expected an invalid argument, got {other:?}"),
    }
}

#[test]
fn a_valid_spec_is_stored_with_its_canonical_trigger() {
    let mut wanted = spec();
    wanted.trigger = "interval:60m".into();
    let record = record_from_spec(&wanted, 7).expect("valid");
    assert_eq!(record.trigger, "interval:1h");
    assert_eq!(record.status.last_synced_at, None);
    assert_eq!(
        record_from_spec(
            &pb::SourceSpec {
                trigger: String::new(),
                ..spec()
            },
            7
        )
        .expect("valid")
        .trigger,
        "manual"
    );
}

#[test]
fn every_bad_field_is_named() {
    type Edit = fn(&mut pb::SourceSpec);
    let cases: [(Edit, &str); 13] = [
        (|s| s.project.clear(), "source.project"),
        (|s| s.project = "a/b".into(), "source.project"),
        (|s| s.slug = "Repo".into(), "source.slug"),
        (|s| s.slug = "-x".into(), "source.slug"),
        (|s| s.kind = 0, "source.kind"),
        (|s| s.root = "relative/dir".into(), "source.root"),
        (|s| s.trigger = "interval:5x".into(), "source.trigger"),
        (|s| s.trigger = "hourly".into(), "source.trigger"),
        (
            |s| s.machine_uri = "machine://m/x".into(),
            "source.machine_uri",
        ),
        (
            |s| {
                s.kind = pb::SourceKind::Machine as i32;
            },
            "source.machine_uri",
        ),
        (
            |s| {
                s.kind = pb::SourceKind::Machine as i32;
                s.machine_uri = "http://m/x".into();
            },
            "source.machine_uri",
        ),
        (
            |s| {
                s.scope = common::SourceScope::Agent as i32;
            },
            "source.owner",
        ),
        (
            |s| s.privacy_patterns = vec!["agents/*/**".into()],
            "source.privacy_patterns[0]",
        ),
    ];
    for (edit, field) in cases {
        let mut wanted = spec();
        edit(&mut wanted);
        assert_eq!(field_of(record_from_spec(&wanted, 0)), field, "{wanted:?}");
    }
}

#[test]
fn a_data_source_defaults_to_agent_private_subtrees() {
    let wanted = pb::SourceSpec {
        kind: pb::SourceKind::Data as i32,
        ..spec()
    };
    let record = record_from_spec(&wanted, 0).expect("valid");
    assert_eq!(record.privacy_patterns, ["agents/{agent}/**"]);
}

#[test]
fn a_machine_source_keeps_its_uri() {
    let wanted = pb::SourceSpec {
        kind: pb::SourceKind::Machine as i32,
        machine_uri: "machine://m-1/work/".into(),
        ..spec()
    };
    assert_eq!(
        record_from_spec(&wanted, 0)
            .expect("valid")
            .machine_uri
            .as_deref(),
        Some("machine://m-1/work")
    );
}

#[test]
fn a_source_that_never_synced_says_so_exactly() {
    let record = record_from_spec(&spec(), 0).expect("valid");
    let status = to_proto(&record).status.expect("status");
    assert_eq!(status.state(), pb::SourceState::NeverSynced);
    assert_eq!(
        status.message,
        "Never synced — run a sync to index this source and load its packages"
    );
    let mut failed_first = record;
    failed_first.status.last_error = Some("root unavailable".into());
    let status = to_proto(&failed_first).status.expect("status");
    assert_eq!(status.state(), pb::SourceState::Failed);
    assert_eq!(status.message, NEVER_SYNCED);
}
