//! The one-call constructor the `neuralis serve` binary mounts.

use std::sync::Arc;

use neuralis_access_store::StoreError;
use neuralis_identity::{IdentityError, Verifier};
use neuralis_proto::policy::v1::policy_service_server::PolicyServiceServer;

use crate::grpc::PolicyGrpcServer;
use crate::{LocalPolicy, PolicyConfig};

/// Why the service could not start. Both name the configuration field at fault.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The identity section cannot make a verifier.
    #[error("policy.identity: {0}")]
    Identity(#[from] IdentityError),
    /// The store cannot be opened or migrated.
    #[error("policy.store: {0}")]
    Store(#[from] StoreError),
}

/// The policy service, ready to serve in-process or over gRPC.
pub struct PolicyService {
    local: Arc<LocalPolicy>,
    max_message_bytes: usize,
}

impl PolicyService {
    /// Builds the verifier, opens the store and runs its migrations.
    pub async fn from_config(config: &PolicyConfig) -> Result<Self, StartError> {
        let verifier = Arc::new(Verifier::from_config(&config.identity)?);
        let store = neuralis_access_store::open(&config.store).await?;
        let local = Arc::new(LocalPolicy::new(store, verifier, &config.admin_roles));
        Ok(PolicyService {
            local,
            max_message_bytes: config.max_message_bytes,
        })
    }

    /// The in-process implementation (the all-in-one binary calls it directly).
    pub fn local(&self) -> Arc<LocalPolicy> {
        self.local.clone()
    }

    /// The tonic service to mount.
    pub fn into_server(self) -> PolicyServiceServer<PolicyGrpcServer<LocalPolicy>> {
        PolicyGrpcServer::service(self.local)
            .max_decoding_message_size(self.max_message_bytes)
            .max_encoding_message_size(self.max_message_bytes)
    }
}
