//! The test's view of a sync server: both services on one channel, each call presenting
//! the credential its rule asks for (an administrator's token for the administration of
//! sources, a service credential for the feed) unless a test names another.

use neuralis_identity::{
    BearerToken, Claims, IdentityConfig, KeySource, Secret, ServiceIdentityConfig, ServiceSigner,
    ServiceVerifier, Verifier, mint,
};
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::grpc::{IndexFeedGrpcClient, SourceGrpcClient};
use neuralis_sync::{IndexFeedApi, SourceApi, SyncError, SyncStream};
use std::sync::Arc;

pub const CALLER_SECRET: &str = "sync-test-caller-secret-of-32-bytes!!";
pub const SERVICE_SECRET: &str = "sync-test-service-secret-of-32-bytes!";

/// The verifiers every test server decides with (administrators: `owner`).
pub fn verifiers() -> Arc<neuralis_authz::Verifiers> {
    let callers = Verifier::from_config(&IdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(CALLER_SECRET),
        },
        ..IdentityConfig::default()
    })
    .expect("caller verifier");
    let services = ServiceVerifier::from_config(&service_identity()).expect("service verifier");
    Arc::new(neuralis_authz::Verifiers::new(
        Arc::new(callers),
        Arc::new(services),
        &["owner".to_owned()],
    ))
}

fn service_identity() -> ServiceIdentityConfig {
    ServiceIdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SERVICE_SECRET),
        },
        ..ServiceIdentityConfig::default()
    }
}

/// A caller token: `role`, bound to `project` (none: platform-wide).
pub fn token(role: &str, project: Option<&str>) -> BearerToken {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let claims = Claims {
        sub: "ada".into(),
        role: role.into(),
        features: Vec::new(),
        agent: None,
        project: project.map(str::to_owned),
        conversation: None,
        platform: project.is_none(),
        exp: now + 600,
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    };
    let token = mint(&Secret::new(CALLER_SECRET), &claims).expect("minted");
    BearerToken::new(Some(token.expose().to_owned()))
}

/// A service credential (what discovery presents).
pub fn service() -> BearerToken {
    ServiceSigner::from_config(&service_identity(), "discovery")
        .expect("signer")
        .credential()
        .expect("credential")
}

/// A platform-wide administrator: the default caller of the administration calls.
pub fn admin() -> BearerToken {
    token("owner", None)
}

/// Both services' clients.
#[derive(Clone)]
pub struct Client {
    pub sources: SourceGrpcClient,
    pub feed: IndexFeedGrpcClient,
}

impl Client {
    pub async fn create_source(
        &self,
        token: &BearerToken,
        request: pb::CreateSourceRequest,
    ) -> Result<pb::CreateSourceResponse, SyncError> {
        self.sources.create_source(token, request).await
    }

    pub async fn get_source(
        &self,
        request: pb::GetSourceRequest,
    ) -> Result<pb::GetSourceResponse, SyncError> {
        self.sources.get_source(&admin(), request).await
    }

    pub async fn sync_source(
        &self,
        token: &BearerToken,
        request: pb::SyncSourceRequest,
    ) -> Result<SyncStream<pb::SyncSourceResponse>, SyncError> {
        self.sources.sync_source(token, request).await
    }

    pub async fn delete_source(
        &self,
        token: &BearerToken,
        request: pb::DeleteSourceRequest,
    ) -> Result<pb::DeleteSourceResponse, SyncError> {
        self.sources.delete_source(token, request).await
    }

    pub async fn list_entries(
        &self,
        request: feed::ListEntriesRequest,
    ) -> Result<SyncStream<feed::ListEntriesResponse>, SyncError> {
        self.feed.list_entries(&service(), request).await
    }

    pub async fn get_revision(
        &self,
        request: feed::GetRevisionRequest,
    ) -> Result<feed::GetRevisionResponse, SyncError> {
        self.feed.get_revision(&service(), request).await
    }

    pub async fn read_file(
        &self,
        request: feed::ReadDecidedFileRequest,
    ) -> Result<feed::ReadDecidedFileResponse, SyncError> {
        self.feed.read_file(&service(), request).await
    }

    pub async fn search(
        &self,
        request: feed::SearchChunksRequest,
    ) -> Result<feed::SearchChunksResponse, SyncError> {
        self.feed.search(&service(), request).await
    }
}
