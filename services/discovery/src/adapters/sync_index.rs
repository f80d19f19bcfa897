//! [`IndexPort`] over the sync service's tonic-free API: the in-process `LocalSync` in
//! the all-in-one process, the gRPC client in split mode.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use futures::StreamExt;
use neuralis_access::{Scope, SourceScope};
use neuralis_layout::FilePayload;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::{SyncApi, SyncError};

use crate::api::DiscoveryError;
use crate::ports::{IndexPort, IndexRow, ProjectRows, SourceInfo};

/// The index as sync serves it.
#[derive(Clone)]
pub struct SyncIndex {
    sync: Arc<dyn SyncApi>,
}

impl SyncIndex {
    pub fn new(sync: Arc<dyn SyncApi>) -> Self {
        Self { sync }
    }
}

/// Sync's errors as discovery answers them: a missing file is NOT_FOUND; anything
/// else means sync could not answer, never "nothing there".
fn from_sync(error: SyncError) -> DiscoveryError {
    match error {
        SyncError::NotFound(_) => DiscoveryError::NotFound,
        SyncError::InvalidArgument { field, message } => DiscoveryError::invalid(field, message),
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
        let request = pb::ListSourcesRequest {
            project: project.to_owned(),
        };
        let response = self.sync.list_sources(request).await.map_err(from_sync)?;
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
        let mut pages = self.sync.list_entries(request).await.map_err(from_sync)?;
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
            .sync
            .get_revision(request)
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
            .sync
            .read_file(request)
            .await
            .map_err(from_sync)?
            .content)
    }
}
