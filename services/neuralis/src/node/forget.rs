//! Sync's [`AccessForgetter`] on top of policy: `DeleteSource` asks policy to forget the
//! source's access state first (DESIGN.md section 5). In process when this process runs
//! policy, over gRPC otherwise; either way the call carries sync's own service
//! credential and passes policy's gate like any other.

use std::sync::Arc;

use neuralis_identity::ServiceSigner;
use neuralis_policy::PolicyApi;
use neuralis_proto::policy::v1 as pb;
use neuralis_sync::{AccessForgetter, ForgetError};

/// Forgets through policy's API, presenting sync's service credential.
pub(crate) struct PolicyForgetter {
    policy: Arc<dyn PolicyApi>,
    signer: Arc<ServiceSigner>,
}

impl PolicyForgetter {
    pub(crate) fn new(policy: Arc<dyn PolicyApi>, signer: Arc<ServiceSigner>) -> Self {
        Self { policy, signer }
    }
}

#[async_trait::async_trait]
impl AccessForgetter for PolicyForgetter {
    async fn forget_source(&self, source_id: &str) -> Result<(), ForgetError> {
        let credential = self
            .signer
            .credential()
            .map_err(|error| ForgetError(format!("service credential: {error}")))?;
        let request = pb::ForgetSourceRequest {
            source_id: source_id.to_owned(),
        };
        self.policy
            .forget_source(credential, request)
            .await
            .map(|_| ())
            .map_err(|error| ForgetError(error.to_string()))
    }
}
