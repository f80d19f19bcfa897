//! Sources: validating what a caller asks for, and showing what is stored.

use crate::SyncError;
use neuralis_index::{ScopeKind, SourceKind, SourceRecord, SyncStatus};
use neuralis_proto::bounds;
use neuralis_proto::common::v1 as common;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync_core::Trigger;

/// What a source that never synced says, exactly (seed 000, "Sync is the prerequisite").
pub const NEVER_SYNCED: &str =
    "Never synced — run a sync to index this source and load its packages";

/// The URI scheme of a machine sandbox.
const MACHINE_SCHEME: &str = "machine://";

/// Validates a requested source; `now` stamps it. Every error names its field, and
/// every field is bounded (`neuralis_proto::bounds`) before it is parsed or stored.
pub fn record_from_spec(spec: &pb::SourceSpec, now: i64) -> Result<SourceRecord, SyncError> {
    validate_project(&spec.project, "source.project")?;
    validate_slug(&spec.slug, "source.slug")?;
    let kind = kind_from(bounds::known("source.kind", spec.kind)?)?;
    validate_root(&spec.root)?;
    bounds::path("source.machine_uri", &spec.machine_uri)?;
    let machine_uri = machine_uri_for(kind, &spec.machine_uri)?;
    bounds::id("source.owner", &spec.owner)?;
    let (scope, owner) = scope_from(bounds::known("source.scope", spec.scope)?, &spec.owner)?;
    bounds::short_text("source.trigger", &spec.trigger)?;
    let trigger = canonical_trigger(&spec.trigger)?;
    bounds::each(
        "source.privacy_patterns",
        &spec.privacy_patterns,
        bounds::path,
    )?;
    let privacy_patterns = privacy_patterns_for(kind, &spec.privacy_patterns)?;
    bounds::each("source.exclude_globs", &spec.exclude_globs, bounds::path)?;
    let exclude_globs = exclude_globs_from(&spec.exclude_globs)?;
    Ok(SourceRecord {
        // Assigned by the store's caller: a new one at create, the stored one after.
        id: String::new(),
        project: spec.project.clone(),
        slug: spec.slug.clone(),
        kind,
        root: spec.root.clone(),
        machine_uri,
        scope,
        owner,
        trigger,
        privacy_patterns,
        exclude_globs,
        recognizes_packages: recognizes_packages_for(kind, spec.recognizes_packages)?,
        status: SyncStatus::default(),
        created_at: now,
        updated_at: now,
    })
}

/// A new source id, `<project>/<slug>.<16 lowercase hex>`: 64 random bits, so a source
/// created again under a deleted one's slug never meets its id (nor its access state).
pub fn new_id(project: &str, slug: &str) -> Result<String, SyncError> {
    let mut random = [0u8; 8];
    getrandom::fill(&mut random)
        .map_err(|err| SyncError::Unavailable(format!("no randomness for a source id: {err}")))?;
    Ok(format!(
        "{project}/{slug}.{:016x}",
        u64::from_be_bytes(random)
    ))
}

/// A project id: required, printable, without `/` (it keys rows and bus events).
pub fn validate_project(project: &str, field: &str) -> Result<(), SyncError> {
    Ok(bounds::project(field, project)?)
}

/// A slug: lowercase letters, digits, `-` and `_`, starting with a letter or digit.
pub fn validate_slug(slug: &str, field: &str) -> Result<(), SyncError> {
    let mut bytes = slug.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let rest_ok =
        bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if first_ok && rest_ok && slug.len() <= 63 {
        Ok(())
    } else {
        Err(SyncError::invalid(
            field,
            "must be 1 to 63 of a-z, 0-9, '-' and '_', starting with a letter or digit",
        ))
    }
}

fn kind_from(kind: pb::SourceKind) -> Result<SourceKind, SyncError> {
    match kind {
        pb::SourceKind::Local => Ok(SourceKind::Local),
        pb::SourceKind::Data => Ok(SourceKind::Data),
        pb::SourceKind::Machine => Ok(SourceKind::Machine),
        pb::SourceKind::Unspecified => Err(SyncError::invalid("source.kind", "is required")),
    }
}

fn validate_root(root: &str) -> Result<(), SyncError> {
    if root.is_empty() {
        return Err(SyncError::invalid("source.root", "is required"));
    }
    // A NUL would end the path the kernel sees early: `/etc\0` passes the refused-roots
    // rule as text and names `/etc` to every later open.
    bounds::path("source.root", root)?;
    if !std::path::Path::new(root).is_absolute() {
        return Err(SyncError::invalid(
            "source.root",
            "must be an absolute path",
        ));
    }
    Ok(())
}

fn machine_uri_for(kind: SourceKind, uri: &str) -> Result<Option<String>, SyncError> {
    match (kind, uri) {
        (SourceKind::Machine, "") => Err(SyncError::invalid(
            "source.machine_uri",
            "is required for a machine source",
        )),
        (SourceKind::Machine, uri) => {
            let machine = uri
                .strip_prefix(MACHINE_SCHEME)
                .and_then(|rest| rest.split('/').next());
            match machine {
                Some(id) if !id.is_empty() => Ok(Some(uri.trim_end_matches('/').to_owned())),
                _ => Err(SyncError::invalid(
                    "source.machine_uri",
                    "must be machine://<machine-id>/<path>",
                )),
            }
        }
        (_, "") => Ok(None),
        (_, _) => Err(SyncError::invalid(
            "source.machine_uri",
            "is only for machine sources",
        )),
    }
}

fn scope_from(
    scope: common::SourceScope,
    owner: &str,
) -> Result<(ScopeKind, Option<String>), SyncError> {
    let kind = match scope {
        // UNSPECIFIED is the documented default (project); an unknown number was refused
        // by the caller of this function, never read as it.
        common::SourceScope::Unspecified | common::SourceScope::Project => ScopeKind::Project,
        common::SourceScope::User => ScopeKind::User,
        common::SourceScope::Agent => ScopeKind::Agent,
    };
    match (kind, owner) {
        (ScopeKind::Project, "") => Ok((kind, None)),
        (ScopeKind::Project, _) => Err(SyncError::invalid(
            "source.owner",
            "a project-scoped source has no owner",
        )),
        (_, "") => Err(SyncError::invalid(
            "source.owner",
            "is required for a user- or agent-scoped source",
        )),
        (_, owner) => Ok((kind, Some(owner.to_owned()))),
    }
}

/// The trigger in its canonical spelling; empty means manual.
pub fn canonical_trigger(text: &str) -> Result<String, SyncError> {
    if text.is_empty() {
        return Ok(Trigger::Manual.to_string());
    }
    text.parse::<Trigger>()
        .map(|trigger| trigger.to_string())
        .map_err(|err| SyncError::invalid("source.trigger", err.to_string()))
}

fn privacy_patterns_for(kind: SourceKind, patterns: &[String]) -> Result<Vec<String>, SyncError> {
    if patterns.is_empty() && kind == SourceKind::Data {
        return Ok(vec![
            neuralis_layout::DEFAULT_AGENT_PRIVATE_PATTERN.to_owned(),
        ]);
    }
    for (at, pattern) in patterns.iter().enumerate() {
        let relative =
            !pattern.starts_with('/') && !pattern.split('/').any(|s| s == ".." || s.is_empty());
        if !relative || pattern.matches("{agent}").count() != 1 {
            return Err(SyncError::invalid(
                format!("source.privacy_patterns[{at}]"),
                "must be a relative pattern holding {agent} exactly once",
            ));
        }
    }
    Ok(patterns.to_vec())
}

/// `recognizesPackages` is for local sources only (seed 000: "a local source flagged
/// recognizesPackages: true ALSO becomes a runtime-WASM package source").
fn recognizes_packages_for(kind: SourceKind, flagged: bool) -> Result<bool, SyncError> {
    if flagged && kind != SourceKind::Local {
        return Err(SyncError::invalid(
            "source.recognizes_packages",
            "is only for local sources",
        ));
    }
    Ok(flagged)
}

/// Exclude globs, each checked as the exclude rule reads it.
fn exclude_globs_from(globs: &[String]) -> Result<Vec<String>, SyncError> {
    for (at, glob) in globs.iter().enumerate() {
        if let Err(problem) =
            neuralis_sync_core::exclude::ExcludeGlobs::new(std::slice::from_ref(glob))
        {
            return Err(SyncError::invalid(
                format!("source.exclude_globs[{at}]"),
                problem,
            ));
        }
    }
    Ok(globs.to_vec())
}

/// The stored source as the API shows it.
pub fn to_proto(record: &SourceRecord) -> pb::Source {
    pb::Source {
        id: record.id.clone(),
        spec: Some(pb::SourceSpec {
            project: record.project.clone(),
            slug: record.slug.clone(),
            kind: kind_to_proto(record.kind) as i32,
            root: record.root.clone(),
            machine_uri: record.machine_uri.clone().unwrap_or_default(),
            scope: scope_to_proto(record.scope) as i32,
            owner: record.owner.clone().unwrap_or_default(),
            trigger: record.trigger.clone(),
            privacy_patterns: record.privacy_patterns.clone(),
            exclude_globs: record.exclude_globs.clone(),
            recognizes_packages: record.recognizes_packages,
        }),
        status: Some(status_to_proto(&record.status)),
        created_at_ms: record.created_at,
        updated_at_ms: record.updated_at,
    }
}

fn kind_to_proto(kind: SourceKind) -> pb::SourceKind {
    match kind {
        SourceKind::Local => pb::SourceKind::Local,
        SourceKind::Data => pb::SourceKind::Data,
        SourceKind::Machine => pb::SourceKind::Machine,
    }
}

fn scope_to_proto(scope: ScopeKind) -> common::SourceScope {
    match scope {
        ScopeKind::Project => common::SourceScope::Project,
        ScopeKind::User => common::SourceScope::User,
        ScopeKind::Agent => common::SourceScope::Agent,
    }
}

/// A never-synced source says exactly [`NEVER_SYNCED`], even after a failed first run.
fn status_to_proto(status: &SyncStatus) -> pb::SourceStatus {
    let (state, message) = match (&status.last_error, status.last_synced_at) {
        (Some(_), None) => (pb::SourceState::Failed, NEVER_SYNCED.to_owned()),
        (None, None) => (pb::SourceState::NeverSynced, NEVER_SYNCED.to_owned()),
        (Some(error), Some(_)) => (
            pb::SourceState::Failed,
            format!("Last sync failed: {error}"),
        ),
        (None, Some(_)) => (pb::SourceState::Synced, "Synced".to_owned()),
    };
    pb::SourceStatus {
        state: state as i32,
        message,
        last_synced_at_ms: status.last_synced_at.unwrap_or(0),
        last_revision: status.last_revision,
        files_seen: status.files_seen,
        files_indexed: status.files_indexed,
        files_skipped: status.files_skipped,
        bytes_read: status.bytes_read,
        last_error: status.last_error.clone().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests;
