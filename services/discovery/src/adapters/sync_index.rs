//! [`IndexPort`] over sync's index feed (services only), with discovery's service
//! credential: in process in the all-in-one process, the gRPC client of the internal
//! listener in split mode.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use futures::StreamExt;
use neuralis_access::{Scope, SourceScope};
use neuralis_identity::{BearerToken, ServiceSigner};
use neuralis_layout::FilePayload;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::{IndexFeedApi, SyncError};

use crate::api::DiscoveryError;
use crate::ports::{IndexPort, IndexRow, ProjectRows, RawHit, SourceInfo};

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
        other => DiscoveryError::Unavailable(format!("sync: {other}")),
    }
}

/// The id policy and the inventory know a source by: `<project>/<slug>`, since a slug
/// is unique only within its project.
pub fn source_id(project: &str, slug: &str) -> String {
    format!("{project}/{slug}")
}

fn slug_of<'a>(project: &str, source_id: &'a str) -> &'a str {
    source_id
        .strip_prefix(project)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(source_id)
}

fn source_info(source: pb::Source) -> Option<SourceInfo> {
    let spec = source.spec?;
    let scope = match pb::SourceScope::try_from(spec.scope).ok()? {
        pb::SourceScope::Project => Scope::Project,
        pb::SourceScope::User => Scope::User,
        pb::SourceScope::Agent => Scope::Agent,
        pb::SourceScope::Unspecified => return None,
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
        id: source_id(&spec.project, &spec.slug),
        slug: spec.slug,
        scope: SourceScope { scope, owner },
        root_uri,
        local_root,
        privacy_patterns: spec.privacy_patterns,
    })
}

fn index_row(project: &str, entry: pb::Entry) -> Option<IndexRow> {
    let payload: FilePayload = match serde_json::from_str(&entry.payload_json) {
        Ok(payload) => payload,
        Err(error) => {
            // A row whose payload cannot be read contributes nothing (fail closed).
            tracing::warn!(%error, "index row with an unreadable payload skipped");
            return None;
        }
    };
    let private_owner = Some(entry.privacy_owner).filter(|o| !o.is_empty());
    Some(IndexRow {
        source_id: source_id(project, &entry.source),
        path: entry.path,
        size: entry.size,
        payload,
        private_owner,
    })
}

#[async_trait]
impl IndexPort for SyncIndex {
    async fn sources(&self, project: &str) -> Result<Vec<SourceInfo>, DiscoveryError> {
        let request = pb::ListProjectSourcesRequest {
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
        let request = pb::ListEntriesRequest {
            project: project.to_owned(),
        };
        let mut pages = self
            .feed
            .list_entries(&self.credential()?, request)
            .await
            .map_err(from_sync)?;
        let mut rows = ProjectRows::default();
        while let Some(page) = pages.next().await {
            let page = page.map_err(from_sync)?;
            rows.revision = page.revision;
            rows.rows.extend(
                page.entries
                    .into_iter()
                    .filter_map(|e| index_row(project, e)),
            );
        }
        Ok(rows)
    }

    async fn revision(&self, project: &str) -> Result<u64, DiscoveryError> {
        let request = pb::GetRevisionRequest {
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
    ) -> Result<Vec<u8>, DiscoveryError> {
        let request = pb::ReadFileRequest {
            project: project.to_owned(),
            source: slug_of(project, source_id).to_owned(),
            path: path.to_owned(),
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
        let request = pb::SearchRequest {
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
