//! Channels to peers spread over every replica: a peer URL whose host resolves to
//! several addresses (a Kubernetes headless Service) is resolved again every
//! `resolve_interval`, and calls are balanced (power of two choices) over the
//! addresses it names, each reached as the URL's host (TLS name and `:authority`).
//!
//! An answer with no address, or a failed lookup, keeps the addresses already known:
//! a DNS hiccup must not empty the balancer while replicas still answer.

use std::collections::BTreeSet;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tonic::transport::channel::Change;
use tonic::transport::{Channel, Endpoint, Uri};

use crate::retry::{CallBounds, RetryBudget};
use crate::tls::{ClientTls, TlsError};

/// Calls waiting for a replica, at most, before callers wait for room.
const BUFFER: usize = 1024;

/// How peer channels are built and bounded (`peers.*` of a process's settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerOptions {
    /// Each call's deadline, and the connect timeout.
    pub timeout: Duration,
    /// How often a peer's host name is resolved again.
    pub resolve_interval: Duration,
    /// HTTP/2 pings on idle and busy connections, so a dead replica is noticed.
    pub keepalive_interval: Duration,
    /// A ping unanswered this long closes the connection.
    pub keepalive_timeout: Duration,
}

impl Default for PeerOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_millis(5_000),
            resolve_interval: Duration::from_millis(5_000),
            keepalive_interval: Duration::from_secs(20),
            keepalive_timeout: Duration::from_secs(10),
        }
    }
}

/// A channel to a peer with its calls' bounds: what the gRPC clients are built on.
#[derive(Debug, Clone)]
pub struct PeerChannel {
    /// The (balanced) channel, e.g. for health probes.
    pub channel: Channel,
    /// The deadline and retry budget of calls on it.
    pub bounds: CallBounds,
}

impl From<Channel> for PeerChannel {
    /// A bare channel: retries of idempotent reads, no deadline.
    fn from(channel: Channel) -> Self {
        Self {
            channel,
            bounds: CallBounds::default(),
        }
    }
}

/// The boxed answer of a [`Resolve`].
pub type Resolved = Pin<Box<dyn Future<Output = std::io::Result<Vec<SocketAddr>>> + Send>>;

/// Turns a host and port into the addresses of its replicas. Injectable, so tests can
/// name two local servers without DNS.
pub trait Resolve: Send + Sync + 'static {
    /// The addresses `host:port` names now.
    fn resolve(&self, host: &str, port: u16) -> Resolved;
}

/// The system resolver (DNS: a headless Service answers one address per ready pod).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, host: &str, port: u16) -> Resolved {
        let target = format!("{host}:{port}");
        Box::pin(async move { Ok(tokio::net::lookup_host(target).await?.collect()) })
    }
}

/// What changes between the addresses known and a new answer: (removed, added).
/// An empty answer changes nothing (see the module comment).
pub fn diff(
    known: &BTreeSet<SocketAddr>,
    answer: &BTreeSet<SocketAddr>,
) -> (Vec<SocketAddr>, Vec<SocketAddr>) {
    if answer.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let removed = known.difference(answer).copied().collect();
    let added = answer.difference(known).copied().collect();
    (removed, added)
}

/// A channel for `url` (`key` names it in errors): balanced over every address its
/// host resolves to when the host is a name, a single lazy connection when it is an
/// address. Must be called inside a Tokio runtime (the refresh runs as a task, until
/// every clone of the channel is dropped).
pub fn peer_channel(
    tls: &ClientTls,
    url: &str,
    key: &str,
    options: PeerOptions,
    resolver: Arc<dyn Resolve>,
) -> Result<PeerChannel, TlsError> {
    let bounds = CallBounds {
        deadline: Some(options.timeout),
        budget: RetryBudget::default(),
    };
    let origin: Uri = url
        .parse()
        .map_err(|e| TlsError::new(key, format!("{url:?} is not a URL: {e}")))?;
    // Checks the scheme and the TLS settings once, with the URL as written.
    let single = tune(tls.endpoint(url, key)?, options);
    let host = origin
        .host()
        .unwrap_or_default()
        .trim_matches(['[', ']'])
        .to_owned();
    if host.parse::<IpAddr>().is_ok() {
        return Ok(PeerChannel {
            channel: single.connect_lazy(),
            bounds,
        });
    }
    let port = origin
        .port_u16()
        .unwrap_or(if origin.scheme_str() == Some("https") {
            443
        } else {
            80
        });
    let (channel, changes) = Channel::balance_channel::<SocketAddr>(BUFFER);
    let target = Target {
        tls: tls.clone(),
        origin,
        host,
        port,
        key: key.to_owned(),
        options,
    };
    tokio::spawn(refresh(target, resolver, changes));
    Ok(PeerChannel { channel, bounds })
}

/// What the refresh task needs to build one replica's endpoint.
struct Target {
    tls: ClientTls,
    origin: Uri,
    host: String,
    port: u16,
    key: String,
    options: PeerOptions,
}

impl Target {
    /// The endpoint of one replica: connect to `addr`, speak to it as the URL's host.
    fn endpoint(&self, addr: SocketAddr) -> Result<Endpoint, TlsError> {
        let scheme = self.origin.scheme_str().unwrap_or("http");
        let url = format!("{scheme}://{addr}");
        let endpoint = self.tls.endpoint_for(&url, &self.key, Some(&self.host))?;
        Ok(tune(endpoint, self.options).origin(self.origin.clone()))
    }
}

/// Timeouts and keepalive every peer endpoint gets.
fn tune(endpoint: Endpoint, options: PeerOptions) -> Endpoint {
    endpoint
        .connect_timeout(options.timeout)
        .tcp_nodelay(true)
        .http2_keep_alive_interval(options.keepalive_interval)
        .keep_alive_timeout(options.keepalive_timeout)
        .keep_alive_while_idle(true)
}

/// Resolves the target every interval and tells the balancer what changed, until the
/// channel is gone.
async fn refresh(
    target: Target,
    resolver: Arc<dyn Resolve>,
    changes: tokio::sync::mpsc::Sender<Change<SocketAddr, Endpoint>>,
) {
    let mut known = BTreeSet::new();
    let mut ticks = tokio::time::interval(target.options.resolve_interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if changes.is_closed() {
            return;
        }
        let answer: BTreeSet<SocketAddr> = match resolver.resolve(&target.host, target.port).await {
            Ok(addrs) => addrs.into_iter().collect(),
            Err(error) => {
                tracing::warn!(peer = %target.key, %error, "resolving a peer failed; keeping its known replicas");
                continue;
            }
        };
        let (removed, added) = diff(&known, &answer);
        for addr in removed {
            if changes.send(Change::Remove(addr)).await.is_err() {
                return;
            }
            known.remove(&addr);
        }
        for addr in added {
            let endpoint = match target.endpoint(addr) {
                Ok(endpoint) => endpoint,
                Err(error) => {
                    tracing::warn!(peer = %target.key, %error, "a replica's endpoint cannot be built");
                    continue;
                }
            };
            if changes.send(Change::Insert(addr, endpoint)).await.is_err() {
                return;
            }
            known.insert(addr);
        }
        if !answer.is_empty() {
            tracing::debug!(peer = %target.key, replicas = known.len(), "peer replicas");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(addrs: &[&str]) -> BTreeSet<SocketAddr> {
        addrs.iter().map(|a| a.parse().unwrap()).collect()
    }

    fn addrs(list: &[&str]) -> Vec<SocketAddr> {
        list.iter().map(|a| a.parse().unwrap()).collect()
    }

    #[test]
    fn an_answer_becomes_removals_and_insertions() {
        let a = "10.0.0.1:7400";
        let b = "10.0.0.2:7400";
        let c = "10.0.0.3:7400";
        // (known, answer, removed, added)
        let cases: [[&[&str]; 4]; 6] = [
            [&[], &[a, b], &[], &[a, b]],
            [&[a, b], &[a, b], &[], &[]],
            [&[a, b], &[b], &[a], &[]],
            [&[a], &[b, c], &[a], &[b, c]],
            [&[a, b], &[a, b, c], &[], &[c]],
            // An empty answer keeps what is known.
            [&[a, b], &[], &[], &[]],
        ];
        for [known, answer, removed, added] in cases {
            let (r, i) = diff(&set(known), &set(answer));
            assert_eq!(
                (r, i),
                (addrs(removed), addrs(added)),
                "{known:?} -> {answer:?}"
            );
        }
    }

    #[test]
    fn a_port_change_is_a_new_replica() {
        let (removed, added) = diff(&set(&["10.0.0.1:7400"]), &set(&["10.0.0.1:7401"]));
        assert_eq!(removed, addrs(&["10.0.0.1:7400"]));
        assert_eq!(added, addrs(&["10.0.0.1:7401"]));
    }

    #[tokio::test]
    async fn a_replica_is_reached_by_its_address() {
        let target = Target {
            tls: ClientTls::default(),
            origin: "http://policy-headless:7400".parse().unwrap(),
            host: "policy-headless".into(),
            port: 7400,
            key: "peers.policy_url".into(),
            options: PeerOptions::default(),
        };
        let endpoint = target.endpoint("10.1.2.3:7400".parse().unwrap()).unwrap();
        assert_eq!(endpoint.uri().to_string(), "http://10.1.2.3:7400/");
    }
}
