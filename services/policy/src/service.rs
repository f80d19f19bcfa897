//! The one-call constructor the `neuralis serve` binary mounts.

use std::sync::Arc;

use neuralis_access_store::StoreError;
use neuralis_authz::{Authorized, Gate, Verifiers, tables};
use neuralis_proto::policy::v1::policy_service_server::PolicyServiceServer;

use crate::grpc::PolicyGrpcServer;
use crate::{InProcessPolicy, LocalPolicy, PolicyConfig};

/// Why the service could not start; names the configuration field at fault.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The store cannot be opened or migrated.
    #[error("policy.store: {0}")]
    Store(#[from] StoreError),
}

/// The policy service, ready to serve in-process or over gRPC, every call decided by
/// its gate.
pub struct PolicyService {
    local: Arc<LocalPolicy>,
    gate: Gate,
    max_message_bytes: usize,
}

impl PolicyService {
    /// Opens the store and runs its migrations; calls are verified with `verifiers`.
    pub async fn from_config(
        config: &PolicyConfig,
        verifiers: Arc<Verifiers>,
    ) -> Result<Self, StartError> {
        let store = neuralis_access_store::open_with(&config.store, config.migrations).await?;
        let local = LocalPolicy::new(store).verifying_callers(verifiers.callers().clone());
        Ok(Self::over(
            Arc::new(local),
            Gate::new(&tables::policy::TABLE, verifiers),
            config.max_message_bytes,
        ))
    }

    /// The service over ready handlers and gate (tests steer the store this way).
    pub fn over(local: Arc<LocalPolicy>, gate: Gate, max_message_bytes: usize) -> Self {
        PolicyService {
            local,
            gate,
            max_message_bytes,
        }
    }

    /// The in-process client (the all-in-one process calls it directly), deciding
    /// every call with the same gate as the gRPC server.
    pub fn api(&self) -> Arc<InProcessPolicy> {
        Arc::new(InProcessPolicy::new(self.gate.clone(), self.local.clone()))
    }

    /// The access store (readiness probes it: policy answers nothing without it).
    pub fn store(&self) -> Arc<dyn neuralis_access_store::AccessStore> {
        self.local.store()
    }

    /// The gate (its counts).
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The tonic service to mount, behind its authorization layer.
    pub fn into_server(self) -> Authorized<PolicyServiceServer<PolicyGrpcServer>> {
        PolicyGrpcServer::service(self.local, self.gate, self.max_message_bytes)
    }
}
