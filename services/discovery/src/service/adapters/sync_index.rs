//! [`IndexPort`] over sync's index feed (services only), with discovery's service
//! credential: in process in the all-in-one process, the gRPC client of the internal
//! listener in split mode.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use futures::StreamExt;
use neuralis_access::{Scope, SourceScope};
use neuralis_identity::{BearerToken, ServiceSigner};
use neuralis_layout::FilePayload;
use neuralis_proto::common::v1 as common;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::{IndexFeedApi, SyncError};

use crate::base::error::DiscoveryError;
use crate::base::ports::{
    DecidedRow, IndexPort, IndexRow, ProjectDelta, ProjectRows, RawHit, RemovedRow, RowsSince,
    SourceInfo,
};

/// Rows a stream brought, decoded as their page arrived, before they are keyed by
/// source id.
#[derive(Default)]
struct Streamed {
    revision: u64,
    delta: bool,
    rows: Vec<Decoded>,
    removed: Vec<feed::Tombstone>,
}

/// A row decoded from its entry, its source still named by slug (`row.source_id` is
/// empty until [`keyed`]).
struct Decoded {
    slug: String,
    row: IndexRow,
}

/// The index as sync's feed serves it.
#[derive(Clone)]
pub struct SyncIndex {
    feed: Arc<dyn IndexFeedApi>,
    signer: Arc<ServiceSigner>,
}

impl SyncIndex {
    /// Reads `feed`, presenting the credential `signer` mints.
    pub fn new(feed: Arc<dyn IndexFeedApi>, signer: Arc<ServiceSigner>) -> Self {
        Self { feed, signer }
    }

    fn credential(&self) -> Result<BearerToken, DiscoveryError> {
        self.signer
            .credential()
            .map_err(|error| DiscoveryError::Internal(format!("service credential: {error}")))
    }
}

/// Sync's errors as discovery answers them: a missing file is NOT_FOUND; anything
/// else means sync could not answer, never "nothing there".
fn from_sync(error: SyncError) -> DiscoveryError {
    match error {
        SyncError::NotFound(_) => DiscoveryError::NotFound,
        SyncError::InvalidArgument { field, message } => DiscoveryError::invalid(field, message),
        SyncError::Unauthenticated | SyncError::PermissionDenied(_) => {
            tracing::error!("sync's feed refused discovery's service credential");
            DiscoveryError::Unavailable("sync refused the service credential".into())
        }
        // A search sync stopped at its budget: the caller may retry, as told.
        SyncError::ResourceExhausted {
            message,
            retry_after,
        } => DiscoveryError::ResourceExhausted {
            message,
            retry_after,
        },
        other => DiscoveryError::Unavailable(format!("sync: {other}")),
    }
}

/// The slug inside a source id (`<project>/<slug>.<hex>`, assigned by sync at create
/// and never reused; a slug holds no `.`).
fn slug_of<'a>(project: &str, source_id: &'a str) -> &'a str {
    let rest = source_id
        .strip_prefix(project)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(source_id);
    rest.split_once('.').map_or(rest, |(slug, _)| slug)
}

fn source_info(source: pb::Source) -> Option<SourceInfo> {
    // A source without its id cannot be keyed in policy: it contributes nothing.
    let id = Some(source.id).filter(|id| !id.is_empty())?;
    let spec = source.spec?;
    let scope = match common::SourceScope::try_from(spec.scope).ok()? {
        common::SourceScope::Project => Scope::Project,
        common::SourceScope::User => Scope::User,
        common::SourceScope::Agent => Scope::Agent,
        common::SourceScope::Unspecified => return None,
    };
    let owner = if spec.owner.is_empty() && scope == Scope::Project {
        spec.project.clone()
    } else {
        spec.owner
    };
    let machine = pb::SourceKind::try_from(spec.kind).ok() == Some(pb::SourceKind::Machine);
    let (root_uri, local_root) = if machine && !spec.machine_uri.is_empty() {
        (spec.machine_uri.clone(), None)
    } else {
        (
            format!("file://{}", spec.root),
            Some(PathBuf::from(&spec.root)),
        )
    };
    Some(SourceInfo {
        id,
        slug: spec.slug,
        scope: SourceScope { scope, owner },
        root_uri,
        local_root,
        privacy_patterns: spec.privacy_patterns,
        data_tree: pb::SourceKind::try_from(spec.kind).ok() == Some(pb::SourceKind::Data),
        recognizes_packages: spec.recognizes_packages,
    })
}

/// The stored text of a plain file's payload (the layout core's default, as the sync
/// encodes it): most rows carry exactly it, and a row whose text is it decodes to the
/// default without a parse.
static PLAIN_PAYLOAD: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    serde_json::to_value(FilePayload::default())
        .map(|value| value.to_string())
        .unwrap_or_default()
});

fn payload_of(text: &str) -> Result<FilePayload, serde_json::Error> {
    if text == PLAIN_PAYLOAD.as_str() {
        return Ok(FilePayload::default());
    }
    serde_json::from_str(text)
}

/// A row decoded from its entry; `None` when its payload cannot be read.
fn decoded(entry: feed::Entry) -> Option<Decoded> {
    let payload = match payload_of(&entry.payload_json) {
        Ok(payload) => payload,
        Err(error) => {
            // A row whose payload cannot be read contributes nothing (fail closed).
            tracing::warn!(%error, "index row with an unreadable payload skipped");
            return None;
        }
    };
    let real_path = Some(entry.real_path).filter(|p| !p.is_empty());
    // A hash that cannot be read gives no fingerprint: the row is listed as decided,
    // but its content is never served (fail closed).
    let fingerprint = neuralis_connector::fingerprint_of_hash(&entry.content_hash).unwrap_or(0);
    let row = IndexRow {
        source_id: String::new(),
        path: entry.path,
        size: entry.size,
        payload,
        real_path,
        // A flag this version does not know is left out (shown to nobody).
        content_flags: neuralis_content_flags::FlagSet::from_names(
            entry.content_flags.iter().map(String::as_str),
        ),
        fingerprint,
    };
    Some(Decoded {
        slug: entry.source,
        row,
    })
}

/// A decoded row keyed by its source's id; a row of a source not listed (deleted
/// since, or created after the listing) is dropped.
fn keyed(ids: &HashMap<String, String>, decoded: Decoded) -> Option<IndexRow> {
    let mut row = decoded.row;
    row.source_id.clone_from(ids.get(&decoded.slug)?);
    Some(row)
}

fn ids_of(sources: impl IntoIterator<Item = SourceInfo>) -> HashMap<String, String> {
    sources
        .into_iter()
        .map(|source| (source.slug, source.id))
        .collect()
}

/// Whether the sources a request listed before reading a delta key its rows as a
/// listing after the read would (then the second listing is skipped: it cost one more
/// read of the source records per delta). True when every row names a listed slug and
/// no whole source was deleted since the revision the delta starts from: a source
/// deleted (and perhaps created again under a new id) leaves a tombstone in every
/// delta from an older revision, and one created since has a slug the listing lacks.
/// A delta older than the retained tombstones is never a delta (sync answers in full).
fn keys_every_row(streamed: &Streamed, listed: &[SourceInfo]) -> bool {
    let is_listed = |slug: &str| listed.iter().any(|source| source.slug == slug);
    streamed.removed.iter().all(|t| !t.path.is_empty())
        && streamed.rows.iter().all(|decoded| is_listed(&decoded.slug))
}

impl SyncIndex {
    /// `ListEntries`, in full or since a revision (with the sources the request listed
    /// before it), rows keyed by source id.
    async fn entries(
        &self,
        project: &str,
        since: Option<(u64, &[SourceInfo])>,
    ) -> Result<RowsSince, DiscoveryError> {
        let request = feed::ListEntriesRequest {
            project: project.to_owned(),
            since_revision: since.map(|(revision, _)| revision),
        };
        let mut pages = self
            .feed
            .list_entries(&self.credential()?, request)
            .await
            .map_err(from_sync)?;
        let mut streamed = Streamed::default();
        while let Some(page) = pages.next().await {
            let page = page.map_err(from_sync)?;
            streamed.revision = page.revision;
            streamed.delta = page.delta;
            // Decoded while the next page is read: the store reads ahead of this loop.
            streamed
                .rows
                .extend(page.entries.into_iter().filter_map(decoded));
            streamed.removed.extend(page.removed);
        }
        // Rows name their source by slug; policy knows it by id. The sources are listed
        // after the rows, so a source created before the rows were read is listed: its
        // rows are kept (a delta never brings them again). A source deleted since the
        // read drops its rows, and its tombstone comes with the next delta.
        let listed = since.map(|(_, listed)| listed).unwrap_or_default();
        let ids: HashMap<String, String> = if streamed.delta && keys_every_row(&streamed, listed) {
            ids_of(listed.iter().cloned())
        } else {
            ids_of(self.sources(project).await?)
        };
        let rows: Vec<IndexRow> = streamed
            .rows
            .into_iter()
            .filter_map(|decoded| keyed(&ids, decoded))
            .collect();
        if !streamed.delta {
            return Ok(RowsSince::Full(ProjectRows {
                revision: streamed.revision,
                rows,
            }));
        }
        let removed = streamed
            .removed
            .into_iter()
            .map(|t| {
                if t.path.is_empty() {
                    RemovedRow::Source { slug: t.source }
                } else {
                    RemovedRow::File {
                        slug: t.source,
                        path: t.path,
                    }
                }
            })
            .collect();
        Ok(RowsSince::Delta(ProjectDelta {
            revision: streamed.revision,
            rows,
            removed,
        }))
    }
}

#[async_trait]
impl IndexPort for SyncIndex {
    async fn sources(&self, project: &str) -> Result<Vec<SourceInfo>, DiscoveryError> {
        let request = feed::ListProjectSourcesRequest {
            project: project.to_owned(),
        };
        let response = self
            .feed
            .list_project_sources(&self.credential()?, request)
            .await
            .map_err(from_sync)?;
        Ok(response
            .sources
            .into_iter()
            .filter_map(source_info)
            .collect())
    }

    async fn rows(&self, project: &str) -> Result<ProjectRows, DiscoveryError> {
        match self.entries(project, None).await? {
            RowsSince::Full(rows) => Ok(rows),
            // Never without `since_revision`; a sync that answered so anyway is not
            // trusted with the whole project.
            RowsSince::Delta(_) => Err(DiscoveryError::Unavailable(
                "sync answered a full read with a delta".into(),
            )),
        }
    }

    async fn rows_since(
        &self,
        project: &str,
        since: u64,
        listed: &[SourceInfo],
    ) -> Result<RowsSince, DiscoveryError> {
        self.entries(project, Some((since, listed))).await
    }

    async fn revision(&self, project: &str) -> Result<u64, DiscoveryError> {
        let request = feed::GetRevisionRequest {
            project: project.to_owned(),
        };
        Ok(self
            .feed
            .get_revision(&self.credential()?, request)
            .await
            .map_err(from_sync)?
            .revision)
    }

    async fn read(
        &self,
        project: &str,
        source_id: &str,
        path: &str,
        decided: &DecidedRow<'_>,
    ) -> Result<Vec<u8>, DiscoveryError> {
        let request = feed::ReadDecidedFileRequest {
            project: project.to_owned(),
            source: slug_of(project, source_id).to_owned(),
            path: path.to_owned(),
            fingerprint: decided.fingerprint,
            real_path: decided.real_path.unwrap_or_default().to_owned(),
        };
        Ok(self
            .feed
            .read_file(&self.credential()?, request)
            .await
            .map_err(from_sync)?
            .content)
    }

    async fn search(
        &self,
        project: &str,
        query: &str,
        limit: u32,
    ) -> Result<Vec<RawHit>, DiscoveryError> {
        let request = feed::SearchChunksRequest {
            project: project.to_owned(),
            query: query.to_owned(),
            limit,
        };
        let response = self
            .feed
            .search(&self.credential()?, request)
            .await
            .map_err(from_sync)?;
        // The score stays here: it would tell a caller how far a held-back hit ranked.
        Ok(response
            .hits
            .into_iter()
            .map(|hit| RawHit {
                source_slug: hit.source,
                path: hit.path,
                ordinal: hit.ordinal,
                text: hit.text,
            })
            .collect())
    }
}

#[cfg(test)]
#[path = "sync_index_tests.rs"]
mod tests;
