//! The discovery API without tonic: the all-in-one process calls it in-process, split
//! mode calls the same trait over gRPC.

use async_trait::async_trait;
use neuralis_proto::discovery::v1 as pb;

/// The caller's bearer token as it arrived. Never printed: `Debug` redacts it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CallerToken(Option<String>);

impl CallerToken {
    /// A token (or none).
    pub fn new(token: Option<String>) -> Self {
        Self(token.filter(|t| !t.is_empty()))
    }

    /// The raw token, to forward to policy or to verify.
    pub fn expose(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl std::fmt::Debug for CallerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "CallerToken(<redacted>)"
        } else {
            "CallerToken(none)"
        })
    }
}

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
    /// Policy or sync could not be reached; never answered unfiltered.
    #[error("unavailable: {0}")]
    Unavailable(String),
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

/// One method per RPC of `neuralis.discovery.v1.DiscoveryService`.
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

    /// Validates one installed package's files.
    async fn validate_package(
        &self,
        request: pb::ValidatePackageRequest,
    ) -> Result<pb::ValidatePackageResponse, DiscoveryError>;
}
