//! Readiness that follows what each service needs: discovery answers nothing useful
//! while policy or sync is unreachable, so it reports NOT_SERVING (gRPC health and
//! `/readyz`) until both answer their own health check again; every service turns
//! NOT_SERVING as soon as the process starts stopping.

use std::time::Duration;

use neuralis_host::Shutdown;
use neuralis_host::admin::Readiness;
use neuralis_host::grpc::Health;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// A service this process calls, and the health name it answers for.
#[derive(Clone)]
pub(crate) struct Peer {
    /// The readiness check's name (`policy`, `sync`).
    pub check: &'static str,
    pub channel: Channel,
    /// The `grpc.health.v1` service name to ask for.
    pub service: &'static str,
}

/// How long one peer probe may take before the peer counts as unreachable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

async fn reachable(peer: &Peer) -> bool {
    let mut client = HealthClient::new(peer.channel.clone());
    let check = client.check(HealthCheckRequest {
        service: peer.service.into(),
    });
    matches!(
        tokio::time::timeout(PROBE_TIMEOUT, check).await,
        Ok(Ok(answer)) if answer.get_ref().status() == ServingStatus::Serving
    )
}

/// Probes `peers` once, records each in `readiness`, and sets `dependent` and the
/// overall status accordingly (the other services of the process need no peer).
async fn probe_once(
    peers: &[Peer],
    readiness: &Readiness,
    health: &Health,
    dependent: &'static str,
    shutdown: &Shutdown,
) {
    let mut ok = true;
    for peer in peers {
        let up = reachable(peer).await;
        if !up {
            tracing::warn!(peer = peer.check, "peer unreachable; not serving");
        }
        readiness.set(peer.check, up, true);
        ok &= up;
    }
    if shutdown.is_stopping() {
        return;
    }
    if ok {
        health.serving(dependent).await;
        health.serving("").await;
    } else {
        health.not_serving(dependent).await;
        health.not_serving("").await;
    }
}

/// Marks every service SERVING, except `dependent` (discovery) which follows its
/// peers, probed now and then every `interval`; everything turns NOT_SERVING when
/// `shutdown` starts stopping.
pub(crate) async fn follow(
    names: Vec<&'static str>,
    dependent: Option<&'static str>,
    peers: Vec<Peer>,
    health: Health,
    readiness: Readiness,
    shutdown: Shutdown,
    interval: Duration,
) {
    for name in names.iter().filter(|n| Some(**n) != dependent) {
        health.serving(name).await;
    }
    match dependent {
        Some(dependent) if !peers.is_empty() => {
            probe_once(&peers, &readiness, &health, dependent, &shutdown).await;
            let (health_task, readiness_task, shutdown_task) =
                (health.clone(), readiness.clone(), shutdown.clone());
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(interval);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tokio::select! {
                        _ = shutdown_task.stopping() => return,
                        _ = tick.tick() => {}
                    }
                    probe_once(
                        &peers,
                        &readiness_task,
                        &health_task,
                        dependent,
                        &shutdown_task,
                    )
                    .await;
                }
            });
        }
        Some(dependent) => {
            health.serving(dependent).await;
            health.serving("").await;
        }
        None => health.serving("").await,
    }
    tokio::spawn(async move {
        shutdown.stopping().await;
        tracing::info!("stopping: every service NOT_SERVING");
        health
            .set_all(&names, tonic_health::ServingStatus::NotServing)
            .await;
    });
}
