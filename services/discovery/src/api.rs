//! The discovery API without tonic: the all-in-one process calls it in-process, split
//! mode calls the same trait over gRPC.

use async_trait::async_trait;
use neuralis_proto::discovery::v1 as pb;

/// The caller's bearer token as it arrived (or none). `Debug` never prints it.
pub use neuralis_identity::BearerToken as CallerToken;

/// Every way a discovery call can fail. Messages name fields, never a path or name
/// the caller may not see.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    /// A request field is missing or malformed.
    #[error("{field}: {message}")]
    InvalidArgument { field: String, message: String },
    /// Unknown, missing and denied are one answer.
    #[error("not found")]
    NotFound,
    /// A call that needs a verified caller had none.
    #[error("unauthenticated")]
    Unauthenticated,
    /// A verified principal without the right (a service credential on a caller call).
    #[error("permission denied: {0}")]
    PermissionDenied(String),
    /// Policy or sync could not be reached; never answered unfiltered.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// Over the caller's or the project's fair share of expensive calls, or a search
    /// that used up its work budget: answered with a `RetryInfo` of `retry_after`.
    #[error("resource exhausted: {message}")]
    ResourceExhausted {
        /// What was exhausted (never a name of the caller's).
        message: String,
        /// When the caller may try again.
        retry_after: std::time::Duration,
    },
    /// A defect on our side.
    #[error("internal: {0}")]
    Internal(String),
}

impl DiscoveryError {
    /// An invalid field.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidArgument {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl From<neuralis_proto::bounds::FieldError> for DiscoveryError {
    fn from(error: neuralis_proto::bounds::FieldError) -> Self {
        DiscoveryError::invalid(error.field, error.message)
    }
}

impl From<neuralis_authz::Denial> for DiscoveryError {
    fn from(denial: neuralis_authz::Denial) -> Self {
        match denial {
            neuralis_authz::Denial::Unauthenticated => DiscoveryError::Unauthenticated,
            neuralis_authz::Denial::PermissionDenied(reason) => {
                DiscoveryError::PermissionDenied(reason.into())
            }
            // In-process clients call only the methods they were compiled with.
            neuralis_authz::Denial::Unimplemented => {
                DiscoveryError::PermissionDenied("this service does not serve the method".into())
            }
        }
    }
}

impl From<neuralis_authz::Refusal> for DiscoveryError {
    fn from(refusal: neuralis_authz::Refusal) -> Self {
        match refusal {
            neuralis_authz::Refusal::Unverified => DiscoveryError::Unauthenticated,
            other => DiscoveryError::PermissionDenied(other.reason().into()),
        }
    }
}

/// One method per RPC of `neuralis.discovery.v1.DiscoveryService`, as a client calls
/// it with the caller's token. In process ([`crate::InProcessDiscovery`]) and over gRPC
/// alike, the call is decided by the `discovery` table before its handler runs.
#[async_trait]
pub trait DiscoveryApi: Send + Sync + 'static {
    /// The packages this caller may use.
    async fn list_packages(
        &self,
        caller: CallerToken,
        request: pb::ListPackagesRequest,
    ) -> Result<pb::ListPackagesResponse, DiscoveryError>;

    /// The `<packages>` overview block.
    async fn render_overview(
        &self,
        caller: CallerToken,
        request: pb::RenderOverviewRequest,
    ) -> Result<pb::RenderOverviewResponse, DiscoveryError>;

    /// Activates one skill.
    async fn activate_skill(
        &self,
        caller: CallerToken,
        request: pb::ActivateSkillRequest,
    ) -> Result<pb::ActivateSkillResponse, DiscoveryError>;

    /// Hydrates the prompt-injected files under a budget.
    async fn hydrate(
        &self,
        caller: CallerToken,
        request: pb::HydrateRequest,
    ) -> Result<pb::HydrateResponse, DiscoveryError>;

    /// The tool catalog for this caller.
    async fn list_tools(
        &self,
        caller: CallerToken,
        request: pb::ListToolsRequest,
    ) -> Result<pb::ListToolsResponse, DiscoveryError>;

    /// Validates one installed package's files (any verified caller).
    async fn validate_package(
        &self,
        caller: CallerToken,
        request: pb::ValidatePackageRequest,
    ) -> Result<pb::ValidatePackageResponse, DiscoveryError>;

    /// One file this caller may read now (NOT_FOUND otherwise, alike).
    async fn read_file(
        &self,
        caller: CallerToken,
        request: pb::ReadFileRequest,
    ) -> Result<pb::ReadFileResponse, DiscoveryError>;

    /// Search over the files this caller may read now.
    async fn search(
        &self,
        caller: CallerToken,
        request: pb::SearchRequest,
    ) -> Result<pb::SearchResponse, DiscoveryError>;
}
