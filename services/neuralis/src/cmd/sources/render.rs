//! How sources print: as JSON documents and as text.

use neuralis_proto::sync::v1 as pb;
use serde_json::{Value, json};

use crate::cmd::client;

pub(super) fn kind_word(spec: &pb::SourceSpec) -> String {
    client::word(spec.kind().as_str_name(), "SOURCE_KIND_")
}

pub(super) fn scope_word(spec: &pb::SourceSpec) -> String {
    client::word(spec.scope().as_str_name(), "SOURCE_SCOPE_")
}

pub(super) fn state_word(status: &pb::SourceStatus) -> String {
    client::word(status.state().as_str_name(), "SOURCE_STATE_")
}

pub(super) fn source_json(source: &pb::Source) -> Value {
    let spec = source.spec.clone().unwrap_or_default();
    let status = source.status.clone().unwrap_or_default();
    json!({
        "id": source.id,
        "project": spec.project,
        "slug": spec.slug,
        "kind": kind_word(&spec),
        "root": spec.root,
        "machine_uri": spec.machine_uri,
        "scope": scope_word(&spec),
        "owner": spec.owner,
        "trigger": spec.trigger,
        "privacy_patterns": spec.privacy_patterns,
        "created_at_ms": source.created_at_ms,
        "updated_at_ms": source.updated_at_ms,
        "status": {
            "state": state_word(&status),
            "message": status.message,
            "last_synced_at_ms": status.last_synced_at_ms,
            "last_revision": status.last_revision,
            "files_seen": status.files_seen,
            "files_indexed": status.files_indexed,
            "files_skipped": status.files_skipped,
            "bytes_read": status.bytes_read,
            "last_error": status.last_error,
        },
    })
}

pub(super) fn detail_text(source: &pb::Source) -> String {
    let spec = source.spec.clone().unwrap_or_default();
    let status = source.status.clone().unwrap_or_default();
    let mut lines = vec![
        format!("source   {}/{}", spec.project, spec.slug),
        format!("id       {}", source.id),
        format!("kind     {}", kind_word(&spec)),
    ];
    if !spec.root.is_empty() {
        lines.push(format!("root     {}", spec.root));
    }
    if !spec.machine_uri.is_empty() {
        lines.push(format!("machine  {}", spec.machine_uri));
    }
    if spec.owner.is_empty() {
        lines.push(format!("scope    {}", scope_word(&spec)));
    } else {
        lines.push(format!(
            "scope    {} (owner {})",
            scope_word(&spec),
            spec.owner
        ));
    }
    lines.push(format!("trigger  {}", spec.trigger));
    for pattern in &spec.privacy_patterns {
        lines.push(format!("private  {pattern}"));
    }
    lines.push(format!("state    {}", state_word(&status)));
    if !status.message.is_empty() {
        lines.push(format!("         {}", status.message));
    }
    if status.last_synced_at_ms > 0 {
        lines.push(format!(
            "synced   {} at revision {}: seen {} indexed {} skipped {} bytes {}",
            client::time(status.last_synced_at_ms),
            status.last_revision,
            status.files_seen,
            status.files_indexed,
            status.files_skipped,
            status.bytes_read
        ));
    }
    if !status.last_error.is_empty() {
        lines.push(format!("error    {}", status.last_error));
    }
    lines.join("\n")
}

pub(super) fn list_text(sources: &[pb::Source]) -> String {
    if sources.is_empty() {
        return "no sources".into();
    }
    let mut lines = Vec::new();
    for source in sources {
        let spec = source.spec.clone().unwrap_or_default();
        let status = source.status.clone().unwrap_or_default();
        let place = if spec.root.is_empty() {
            &spec.machine_uri
        } else {
            &spec.root
        };
        lines.push(format!(
            "{:<32} {:<8} {:<8} {:<12} {}",
            source.id,
            kind_word(&spec),
            scope_word(&spec),
            state_word(&status),
            place
        ));
    }
    lines.join("\n")
}
