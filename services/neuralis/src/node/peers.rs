//! Reaching the services a process does not run: one lazy channel per peer, with
//! deadlines and budgeted retries, and policy's gRPC client over it.

use std::sync::Arc;

use anyhow::{Result, bail};
use neuralis_host::peer::{PeerChannel, SystemResolver, peer_channel};
use neuralis_host::tls::ClientTls;
use neuralis_policy::{PolicyApi, PolicyGrpcClient};
use tonic::transport::Channel;

use super::settings::NodeSettings;

/// Policy's gRPC client (and its channel, for health probes), for a process that calls
/// policy without running it.
pub(super) fn policy_client(
    settings: &NodeSettings,
    peers: &ClientTls,
) -> Result<(Channel, Arc<dyn PolicyApi>)> {
    let channel = peer(
        settings,
        peers,
        settings.peers.policy_url.as_deref(),
        "peers.policy_url",
    )?;
    let probe = channel.channel.clone();
    let client = PolicyGrpcClient::new(channel, settings.policy.max_message_bytes);
    Ok((probe, Arc::new(client)))
}

/// A channel to every replica of a peer, with deadlines and budgeted retries. Lazy:
/// the peer may start after us; calls answer UNAVAILABLE or DEADLINE_EXCEEDED until it
/// is up.
pub(super) fn peer(
    settings: &NodeSettings,
    tls: &ClientTls,
    url: Option<&str>,
    field: &str,
) -> Result<PeerChannel> {
    let Some(url) = url else {
        bail!("{field}: required when this process does not run that service");
    };
    Ok(peer_channel(
        tls,
        url,
        field,
        settings.peers.options(),
        Arc::new(SystemResolver),
    )?)
}
