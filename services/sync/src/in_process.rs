//! The sync APIs in process: the all-in-one process (discovery reading the feed, the
//! demo administering sources) calls the handlers through the same gates as a gRPC
//! call, so a credential is decided the same way on both paths.

use std::sync::Arc;

use neuralis_authz::Gate;
use neuralis_authz::tables::{index_feed, sources};
use neuralis_identity::BearerToken;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;

use crate::api::{IndexFeedApi, SourceApi, SyncStream};
use crate::{LocalSync, SyncError};

/// The handlers behind a gate.
pub struct InProcess {
    gate: Gate,
    local: Arc<LocalSync>,
}

impl InProcess {
    /// `local`'s handlers, every call decided by `gate`.
    pub fn new(gate: Gate, local: Arc<LocalSync>) -> Self {
        InProcess { gate, local }
    }
}

/// Decides the call against its rule, then runs the handler with the permit.
macro_rules! admitted {
    ($self:ident, $path:expr, $method:ident, $token:ident, $request:ident) => {{
        let permit = $self.gate.admit_bearer($path, $token)?;
        $self.local.$method(&permit, $request).await
    }};
}

#[async_trait::async_trait]
impl SourceApi for InProcess {
    async fn create_source(
        &self,
        token: &BearerToken,
        request: pb::CreateSourceRequest,
    ) -> Result<pb::CreateSourceResponse, SyncError> {
        admitted!(self, sources::CREATE_SOURCE, create_source, token, request)
    }

    async fn get_source(
        &self,
        token: &BearerToken,
        request: pb::GetSourceRequest,
    ) -> Result<pb::GetSourceResponse, SyncError> {
        admitted!(self, sources::GET_SOURCE, get_source, token, request)
    }

    async fn list_sources(
        &self,
        token: &BearerToken,
        request: pb::ListSourcesRequest,
    ) -> Result<pb::ListSourcesResponse, SyncError> {
        admitted!(self, sources::LIST_SOURCES, list_sources, token, request)
    }

    async fn update_source(
        &self,
        token: &BearerToken,
        request: pb::UpdateSourceRequest,
    ) -> Result<pb::UpdateSourceResponse, SyncError> {
        admitted!(self, sources::UPDATE_SOURCE, update_source, token, request)
    }

    async fn delete_source(
        &self,
        token: &BearerToken,
        request: pb::DeleteSourceRequest,
    ) -> Result<pb::DeleteSourceResponse, SyncError> {
        admitted!(self, sources::DELETE_SOURCE, delete_source, token, request)
    }

    async fn sync_source(
        &self,
        token: &BearerToken,
        request: pb::SyncSourceRequest,
    ) -> Result<SyncStream<pb::SyncSourceResponse>, SyncError> {
        admitted!(self, sources::SYNC_SOURCE, sync_source, token, request)
    }
}

#[async_trait::async_trait]
impl IndexFeedApi for InProcess {
    async fn list_project_sources(
        &self,
        credential: &BearerToken,
        request: feed::ListProjectSourcesRequest,
    ) -> Result<feed::ListProjectSourcesResponse, SyncError> {
        admitted!(
            self,
            index_feed::LIST_PROJECT_SOURCES,
            list_project_sources,
            credential,
            request
        )
    }

    async fn list_entries(
        &self,
        credential: &BearerToken,
        request: feed::ListEntriesRequest,
    ) -> Result<SyncStream<feed::ListEntriesResponse>, SyncError> {
        admitted!(
            self,
            index_feed::LIST_ENTRIES,
            list_entries,
            credential,
            request
        )
    }

    async fn get_revision(
        &self,
        credential: &BearerToken,
        request: feed::GetRevisionRequest,
    ) -> Result<feed::GetRevisionResponse, SyncError> {
        admitted!(
            self,
            index_feed::GET_REVISION,
            get_revision,
            credential,
            request
        )
    }

    async fn read_file(
        &self,
        credential: &BearerToken,
        request: feed::ReadDecidedFileRequest,
    ) -> Result<feed::ReadDecidedFileResponse, SyncError> {
        admitted!(
            self,
            index_feed::READ_DECIDED_FILE,
            read_file,
            credential,
            request
        )
    }

    async fn search(
        &self,
        credential: &BearerToken,
        request: feed::SearchChunksRequest,
    ) -> Result<feed::SearchChunksResponse, SyncError> {
        admitted!(self, index_feed::SEARCH_CHUNKS, search, credential, request)
    }
}
