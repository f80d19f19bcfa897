//! Persisted sources: what sync syncs, and how its last run went.

use serde::{Deserialize, Serialize};

use crate::IndexError;

/// What a source's root is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// A mounted repository directory.
    Local,
    /// An agent data tree, with agent-private subtrees.
    Data,
    /// A machine sandbox directory addressed by a machine URI.
    Machine,
}

impl SourceKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Local => "local",
            SourceKind::Data => "data",
            SourceKind::Machine => "machine",
        }
    }

    /// Parses the stored name.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "local" => Some(SourceKind::Local),
            "data" => Some(SourceKind::Data),
            "machine" => Some(SourceKind::Machine),
            _ => None,
        }
    }
}

/// Who a source is visible to (DESIGN.md section 4, "Scope").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScopeKind {
    /// Everyone in the project.
    Project,
    /// One user (the owner).
    User,
    /// One agent (the owner).
    Agent,
}

impl ScopeKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeKind::Project => "project",
            ScopeKind::User => "user",
            ScopeKind::Agent => "agent",
        }
    }

    /// Parses the stored name.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "project" => Some(ScopeKind::Project),
            "user" => Some(ScopeKind::User),
            "agent" => Some(ScopeKind::Agent),
            _ => None,
        }
    }
}

/// How the last sync run of a source went.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncStatus {
    /// When the last successful sync began (ms since the epoch; the index holds the tree
    /// as of then, and rows changed since are racy for the next run); `None`: never synced.
    pub last_synced_at: Option<i64>,
    /// The project's revision after that sync.
    pub last_revision: u64,
    /// Files listed by the connector in the last run.
    pub files_seen: u64,
    /// Files written (inserted, rewritten or refreshed) in the last run.
    pub files_indexed: u64,
    /// Files skipped and reported in the last run.
    pub files_skipped: u64,
    /// Bytes read in the last run.
    pub bytes_read: u64,
    /// Why the last run failed, when it did.
    pub last_error: Option<String>,
}

/// A source as persisted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRecord {
    /// The source id, `<project>/<slug>.<16 lowercase hex>`: assigned at create, never
    /// reused (a source deleted and created again under its slug gets a new one).
    /// Policy keys access by it; rows and events key by (project, slug).
    pub id: String,
    /// The project the source belongs to.
    pub project: String,
    /// The source's slug, unique within the project.
    pub slug: String,
    /// What the root is.
    pub kind: SourceKind,
    /// The directory the connector lists, on this host.
    pub root: String,
    /// For a machine source: the URI of the root on its machine (`machine://<id>/<path>`).
    pub machine_uri: Option<String>,
    /// Who the source is visible to.
    pub scope: ScopeKind,
    /// The user or agent a user- or agent-scoped source belongs to.
    pub owner: Option<String>,
    /// The sync trigger in its canonical spelling (`manual`, `auto`, `interval:5m`).
    pub trigger: String,
    /// Agent-private subtree patterns with an `{agent}` placeholder.
    pub privacy_patterns: Vec<String>,
    /// Globs (relative to the root; `*` within one segment, `**` any depth) of files a
    /// sync leaves out of the index. A new data source is seeded with the installed
    /// packages' metrics files (seed 002, "machineWritten"); later only its owner edits it.
    pub exclude_globs: Vec<String>,
    /// A local source whose directory is also a package source (seed 000,
    /// `recognizesPackages`), its packages advertised only within its scope.
    pub recognizes_packages: bool,
    /// How the last run went.
    pub status: SyncStatus,
    /// When the source was created (ms since the epoch).
    pub created_at: i64,
    /// When its settings last changed (ms since the epoch).
    pub updated_at: i64,
}

impl SourceRecord {
    /// Whether `other` has the settings this record has: everything an administrator
    /// sets (not the id, status or times). Destructured whole, so a field added to the
    /// record does not compile until it is placed here.
    pub fn same_settings(&self, other: &SourceRecord) -> bool {
        let SourceRecord {
            id: _,
            project,
            slug,
            kind,
            root,
            machine_uri,
            scope,
            owner,
            trigger,
            privacy_patterns,
            exclude_globs,
            recognizes_packages,
            status: _,
            created_at: _,
            updated_at: _,
        } = self;
        *project == other.project
            && *slug == other.slug
            && *kind == other.kind
            && *root == other.root
            && *machine_uri == other.machine_uri
            && *scope == other.scope
            && *owner == other.owner
            && *trigger == other.trigger
            && *privacy_patterns == other.privacy_patterns
            && *exclude_globs == other.exclude_globs
            && *recognizes_packages == other.recognizes_packages
    }
}

/// A source's lease as stored: who runs it now, and until when (issue 26 item 1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeaseRow {
    /// The holding replica's id; empty when nobody holds it.
    pub holder: String,
    /// When the lease lapses unless renewed (ms since the epoch).
    pub expires_at: i64,
}

/// What the replicas share to take turns at a source: its trigger as stored now, its
/// lease, and when an `interval:` trigger runs next.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceTurn {
    /// The trigger in its canonical spelling.
    pub trigger: String,
    /// The lease (free before the first run).
    pub lease: LeaseRow,
    /// When the `interval:` trigger is due (ms since the epoch); `0`: never scheduled.
    pub next_due: i64,
}

/// Whether `source` may join `held`, the sources its project holds now, under a bound
/// of `max`: refused as [`refused`] says when the slug is taken or the project full.
/// The store decides with the insert itself (creates racing for the last place), by
/// the same rule; a caller asks this first to refuse before anything is announced of
/// a source that will not exist.
pub fn room_for(
    held: &[SourceRecord],
    source: &SourceRecord,
    max: usize,
) -> Result<(), IndexError> {
    let taken = held.iter().any(|other| other.slug == source.slug);
    if taken || held.len() >= max {
        return Err(refused(held.len(), source, max));
    }
    Ok(())
}

/// Why a create of `source` beside `held` sources is refused, when it is:
/// [`IndexError::LimitReached`] when the project is full (first: room is what the
/// caller must make), else [`IndexError::AlreadyExists`] (its slug is taken).
pub(crate) fn refused(held: usize, source: &SourceRecord, max: usize) -> IndexError {
    if held >= max {
        project_full(max)
    } else {
        source_taken(&source.project, &source.slug)
    }
}

/// A create refused because the project holds `max` sources already.
pub(crate) fn project_full(max: usize) -> IndexError {
    IndexError::LimitReached(format!(
        "the project holds the most sources it may ({max}): delete one first"
    ))
}

/// A create refused because the slug is taken in its project.
pub(crate) fn source_taken(project: &str, slug: &str) -> IndexError {
    IndexError::AlreadyExists(described(project, slug))
}

/// How a source is named in an error.
pub(crate) fn described(project: &str, slug: &str) -> String {
    format!("source {slug:?} of project {project:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(slug: &str) -> SourceRecord {
        SourceRecord {
            id: format!("p/{slug}.0000000000000001"),
            project: "p".into(),
            slug: slug.into(),
            kind: SourceKind::Local,
            root: "/srv/p".into(),
            machine_uri: None,
            scope: ScopeKind::Project,
            owner: None,
            trigger: "manual".into(),
            privacy_patterns: Vec::new(),
            exclude_globs: Vec::new(),
            recognizes_packages: false,
            status: SyncStatus::default(),
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn settings_are_the_same_exactly_when_every_field_an_administrator_sets_is() {
        let stored = source("a");
        let mut later = stored.clone();
        (later.id, later.created_at, later.updated_at) = ("p/a.02".into(), 5, 9);
        later.status.files_indexed = 7;
        assert!(
            stored.same_settings(&later),
            "id, times and status are not settings"
        );
        let changes: [fn(&mut SourceRecord); 11] = [
            |s| s.project = "q".into(),
            |s| s.slug = "b".into(),
            |s| s.kind = SourceKind::Data,
            |s| s.root = "/srv/q".into(),
            |s| s.machine_uri = Some("machine://m/x".into()),
            |s| s.scope = ScopeKind::User,
            |s| s.owner = Some("ada".into()),
            |s| s.trigger = "auto".into(),
            |s| s.privacy_patterns = vec!["agents/{agent}/**".into()],
            |s| s.exclude_globs = vec!["*.log".into()],
            |s| s.recognizes_packages = true,
        ];
        for (at, change) in changes.iter().enumerate() {
            let mut changed = stored.clone();
            change(&mut changed);
            assert!(!stored.same_settings(&changed), "change {at}");
        }
    }

    #[test]
    fn a_source_has_room_only_under_the_bound_and_with_a_free_slug() {
        let held = [source("a"), source("b")];
        // (what the project holds, the bound, the slug created, the answer)
        let cases: [(&[SourceRecord], usize, &str, Option<&str>); 6] = [
            (&[], 1, "a", None),
            (&held[..1], 2, "b", None),
            (&held, 3, "c", None),
            (&held, 2, "c", Some("limit")),
            (&held, 3, "a", Some("exists")),
            // A full project is named full even when the slug is taken, as the store
            // answers it.
            (&held, 2, "b", Some("limit")),
        ];
        for (held, max, slug, refused) in cases {
            let answer = room_for(held, &source(slug), max);
            let got = match &answer {
                Ok(()) => None,
                Err(IndexError::LimitReached(message)) => {
                    assert!(message.contains(&max.to_string()), "{message}");
                    Some("limit")
                }
                Err(IndexError::AlreadyExists(what)) => {
                    assert_eq!(what, &format!("source {slug:?} of project \"p\""));
                    Some("exists")
                }
                Err(other) => panic!("{other:?}"),
            };
            assert_eq!(got, refused, "{slug} beside {} under {max}", held.len());
        }
    }
}
