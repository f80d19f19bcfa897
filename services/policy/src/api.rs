//! The policy API without tonic: the all-in-one process calls [`crate::LocalPolicy`]
//! in-process, split mode calls the same trait over gRPC ([`crate::PolicyGrpcClient`]).

use async_trait::async_trait;
pub use neuralis_identity::BearerToken;
use neuralis_proto::policy::v1 as pb;

/// Every way a policy call can fail. Messages name fields, never a path or a name the
/// caller may not see, and never a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// A request field is missing or malformed.
    #[error("{field}: {message}")]
    InvalidArgument {
        /// The field, e.g. `files[3].path`.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// The named record does not exist (e.g. a source, a parent conversation).
    #[error("{0} not found")]
    NotFound(String),
    /// No valid bearer token.
    #[error("unauthenticated")]
    Unauthenticated,
    /// A verified caller that may not make this call.
    #[error("permission denied: {0}")]
    PermissionDenied(String),
    /// The access store cannot be reached; nothing is answered unfiltered.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// The call would store more than a record may hold (a conversation's file
    /// overrides); removing some makes room, retrying alone does not.
    #[error("{field}: {message}")]
    LimitReached {
        /// The request field whose value would not fit.
        field: String,
        /// Which limit, and what to do.
        message: String,
    },
    /// A defect on our side.
    #[error("internal: {0}")]
    Internal(String),
}

impl PolicyError {
    /// An invalid field.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        PolicyError::InvalidArgument {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// One method per RPC of `neuralis.policy.v1.PolicyService`, as a client calls it: each
/// takes the credential to present (a caller token; a service credential for
/// `evaluate`), and the service decides it against its rule before the handler runs,
/// in process ([`crate::InProcessPolicy`]) or over gRPC alike.
#[async_trait]
pub trait PolicyApi: Send + Sync + 'static {
    /// Replaces a source's URI policy, keeping persisted floors.
    async fn put_source_policy(
        &self,
        token: BearerToken,
        request: pb::PutSourcePolicyRequest,
    ) -> Result<pb::PutSourcePolicyResponse, PolicyError>;

    /// A source's switch and persisted policy.
    async fn get_source_policy(
        &self,
        token: BearerToken,
        request: pb::GetSourcePolicyRequest,
    ) -> Result<pb::GetSourcePolicyResponse, PolicyError>;

    /// Switches a source on or off.
    async fn set_source_enabled(
        &self,
        token: BearerToken,
        request: pb::SetSourceEnabledRequest,
    ) -> Result<pb::SetSourceEnabledResponse, PolicyError>;

    /// Replaces one grantor's role grants.
    async fn put_role_grants(
        &self,
        token: BearerToken,
        request: pb::PutRoleGrantsRequest,
    ) -> Result<pb::PutRoleGrantsResponse, PolicyError>;

    /// Enables or disables a package in a project.
    async fn set_package_enabled(
        &self,
        token: BearerToken,
        request: pb::SetPackageEnabledRequest,
    ) -> Result<pb::SetPackageEnabledResponse, PolicyError>;

    /// Sets or clears one file's override at agent or conversation scope.
    async fn set_file_override(
        &self,
        token: BearerToken,
        request: pb::SetFileOverrideRequest,
    ) -> Result<pb::SetFileOverrideResponse, PolicyError>;

    /// Registers a conversation and its parent.
    async fn register_conversation(
        &self,
        token: BearerToken,
        request: pb::RegisterConversationRequest,
    ) -> Result<pb::RegisterConversationResponse, PolicyError>;

    /// Decides one batch for the caller the request names, reading the configuration
    /// afresh (services only).
    async fn evaluate(
        &self,
        token: BearerToken,
        request: pb::EvaluateRequest,
    ) -> Result<pb::EvaluateResponse, PolicyError>;

    /// Forgets everything stored about a source (services only: sync, before it deletes
    /// the source). Idempotent.
    async fn forget_source(
        &self,
        token: BearerToken,
        request: pb::ForgetSourceRequest,
    ) -> Result<pb::ForgetSourceResponse, PolicyError>;

    /// Moves a source's stored states from legacy package keys to stable ones, once per
    /// source (services only).
    async fn rekey_packages(
        &self,
        token: BearerToken,
        request: pb::RekeyPackagesRequest,
    ) -> Result<pb::RekeyPackagesResponse, PolicyError>;

    /// Attaches installed packages' access declarations (services only: discovery,
    /// when it loads the installed catalog).
    async fn attach_packages(
        &self,
        token: BearerToken,
        request: pb::AttachPackagesRequest,
    ) -> Result<pb::AttachPackagesResponse, PolicyError>;

    /// Explains how one file is decided for a described caller: the state Evaluate
    /// gives and the steps that led to it (administrators of the project).
    async fn explain_access(
        &self,
        token: BearerToken,
        request: pb::ExplainAccessRequest,
    ) -> Result<pb::ExplainAccessResponse, PolicyError>;
}

impl From<neuralis_proto::bounds::FieldError> for PolicyError {
    fn from(error: neuralis_proto::bounds::FieldError) -> Self {
        PolicyError::invalid(error.field, error.message)
    }
}

impl From<neuralis_authz::Denial> for PolicyError {
    fn from(denial: neuralis_authz::Denial) -> Self {
        match denial {
            neuralis_authz::Denial::Unauthenticated => PolicyError::Unauthenticated,
            neuralis_authz::Denial::PermissionDenied(reason) => {
                PolicyError::PermissionDenied(reason.into())
            }
            // In-process clients call only the methods they were compiled with.
            neuralis_authz::Denial::Unimplemented => {
                PolicyError::PermissionDenied("this service does not serve the method".into())
            }
        }
    }
}

impl From<neuralis_authz::Refusal> for PolicyError {
    fn from(refusal: neuralis_authz::Refusal) -> Self {
        match refusal {
            neuralis_authz::Refusal::Unverified => PolicyError::Unauthenticated,
            other => PolicyError::PermissionDenied(other.reason().into()),
        }
    }
}

impl From<neuralis_access::AccessError> for PolicyError {
    fn from(error: neuralis_access::AccessError) -> Self {
        match error {
            neuralis_access::AccessError::InvalidArgument { field, message } => {
                PolicyError::InvalidArgument { field, message }
            }
        }
    }
}

impl From<neuralis_access_store::StoreError> for PolicyError {
    fn from(error: neuralis_access_store::StoreError) -> Self {
        use neuralis_access_store::StoreError;
        match error {
            // A schema this release cannot use yet: the store is not ready for it.
            StoreError::Unavailable(message) | StoreError::Schema(message) => {
                PolicyError::Unavailable(message)
            }
            StoreError::NotFound(what) => PolicyError::NotFound(what.to_owned()),
            StoreError::Conflict { field, message } => PolicyError::invalid(field, message),
            StoreError::LimitReached { field, message } => PolicyError::LimitReached {
                field: field.to_owned(),
                message,
            },
            StoreError::Config { field, message } => {
                PolicyError::Internal(format!("store configuration {field}: {message}"))
            }
            StoreError::Internal(message) => PolicyError::Internal(message),
        }
    }
}
