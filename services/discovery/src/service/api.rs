//! The discovery API without tonic: the all-in-one process calls it in-process, split
//! mode calls the same trait over gRPC.

use async_trait::async_trait;
use neuralis_proto::discovery::v1 as pb;

pub use crate::base::error::{CallerToken, DiscoveryError};
pub use crate::service::watch::WatchStream;

/// One method per RPC of `neuralis.discovery.v1.DiscoveryService`, as a client calls
/// it with the caller's token. In process (`InProcessDiscovery`) and over
/// gRPC alike, the call is decided by the `discovery` table before its handler runs.
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

    /// The packages this caller may use now, then again each time they change.
    async fn watch_packages(
        &self,
        caller: CallerToken,
        request: pb::WatchPackagesRequest,
    ) -> Result<WatchStream, DiscoveryError>;
}
