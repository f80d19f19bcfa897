//! `neuralis packages watch`: prints the caller's packages, then each change.

use anyhow::Result;
use futures::StreamExt as _;
use neuralis_discovery::grpc::DiscoveryGrpcClient;
use neuralis_discovery::{CallerToken, DiscoveryApi};
use neuralis_proto::discovery::v1 as pb;
use serde_json::json;

use super::render::{package_json, tree};
use crate::cmd::client::ClientArgs;

/// Prints every message of the stream until it ends; JSON mode prints one object per
/// message.
pub(super) async fn follow(
    api: &DiscoveryGrpcClient,
    caller: CallerToken,
    request: pb::WatchPackagesRequest,
    out: &ClientArgs,
) -> Result<()> {
    let mut stream = api
        .watch_packages(caller, request)
        .await
        .map_err(|e| out.explain(e))?;
    while let Some(message) = stream.next().await {
        let message = message.map_err(|e| out.explain(e))?;
        let value = json!({
            "revision": message.revision,
            "packages": message.packages.iter().map(package_json).collect::<Vec<_>>(),
        });
        out.emit(&value, || {
            format!(
                "revision {} ({} packages)\n{}",
                message.revision,
                message.packages.len(),
                tree(&message.packages)
            )
        })?;
    }
    Ok(())
}
