//! Readiness that follows what each service needs: discovery answers nothing while
//! policy is unreachable (no answer is decided without it) but keeps answering warm
//! listings while sync is (issue 26: nothing writes without sync, reads of file bytes
//! answer UNAVAILABLE for their project), sync nothing while its index store is, and
//! policy nothing while its access store is, so
//! each reports NOT_SERVING (gRPC health and `/readyz`) until what it needs answers
//! again; every service turns NOT_SERVING as soon as the process starts stopping.

use std::sync::Arc;
use std::time::Duration;

use neuralis_access_store::AccessStore;
use neuralis_host::Shutdown;
use neuralis_host::admin::Readiness;
use neuralis_host::grpc::Health;
use neuralis_index::IndexStore;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// How a dependency is probed.
#[derive(Clone)]
pub(crate) enum Probe {
    /// A peer's `grpc.health.v1` status for `service`.
    Health {
        channel: Channel,
        service: &'static str,
    },
    /// The index store answers a read.
    IndexStore(Arc<dyn IndexStore>),
    /// The access store answers a read.
    AccessStore(Arc<dyn AccessStore>),
}

/// Something services of this process need in order to answer.
#[derive(Clone)]
pub(crate) struct Dependency {
    /// The readiness check's name (`policy`, `sync`, `index_store`, `access_store`).
    pub check: &'static str,
    /// The services of this process that cannot answer without it.
    pub needed_by: Vec<&'static str>,
    pub probe: Probe,
}

/// How long one probe may take before the dependency counts as unreachable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The pause between two checks of one probe while no replica has answered SERVING.
const PROBE_PAUSE: Duration = Duration::from_millis(50);

/// One health check: whether the replica the channel picked answers SERVING.
async fn serving(channel: &Channel, service: &str) -> bool {
    let mut client = HealthClient::new(channel.clone());
    let check = client.check(HealthCheckRequest {
        service: service.into(),
    });
    matches!(check.await, Ok(answer) if answer.get_ref().status() == ServingStatus::Serving)
}

async fn reachable(probe: &Probe) -> bool {
    match probe {
        // Over a balanced channel one check reaches one replica, and a peer is up
        // while any replica serves: a dead replica still named by DNS (until its
        // address is dropped) must not make the peer flap, so ask again until a
        // replica answers SERVING or the probe's time is up.
        Probe::Health { channel, service } => {
            let until_one_serves = async {
                while !serving(channel, service).await {
                    tokio::time::sleep(PROBE_PAUSE).await;
                }
            };
            tokio::time::timeout(PROBE_TIMEOUT, until_one_serves)
                .await
                .is_ok()
        }
        // A project name no source can have: one indexed read, no rows.
        Probe::IndexStore(store) => matches!(
            tokio::time::timeout(PROBE_TIMEOUT, store.revision("")).await,
            Ok(Ok(_))
        ),
        // A source id no source can have: one indexed read, no row.
        Probe::AccessStore(store) => matches!(
            tokio::time::timeout(PROBE_TIMEOUT, store.source("")).await,
            Ok(Ok(_))
        ),
    }
}

/// Whether each of `names` can serve, given which dependencies answered: a service is
/// serving when every dependency it needs is up. The overall status (`""`) is last:
/// serving when every service is.
pub(crate) fn statuses(
    names: &[&'static str],
    dependencies: &[(&Dependency, bool)],
) -> Vec<(&'static str, bool)> {
    let mut found: Vec<(&'static str, bool)> = names
        .iter()
        .map(|name| {
            let up = dependencies
                .iter()
                .filter(|(dependency, _)| dependency.needed_by.contains(name))
                .all(|(_, up)| *up);
            (*name, up)
        })
        .collect();
    let all = found.iter().all(|(_, up)| *up);
    found.push(("", all));
    found
}

/// Probes every dependency once and sets health and readiness from the answers.
async fn probe_once(
    names: &[&'static str],
    dependencies: &[Dependency],
    readiness: &Readiness,
    health: &Health,
    shutdown: &Shutdown,
) {
    let mut answers = Vec::with_capacity(dependencies.len());
    for dependency in dependencies {
        let up = reachable(&dependency.probe).await;
        if !up {
            tracing::warn!(
                dependency = dependency.check,
                "dependency unreachable; not serving"
            );
        }
        // Reported either way; only what some service here cannot answer without
        // gates readiness (discovery answers warm listings with sync away).
        readiness.set(dependency.check, up, !dependency.needed_by.is_empty());
        answers.push((dependency, up));
    }
    if shutdown.is_stopping() {
        return;
    }
    for (name, up) in statuses(names, &answers) {
        if up {
            health.serving(name).await;
        } else {
            health.not_serving(name).await;
        }
    }
}

/// Sets every service's health from its dependencies, probed now and then every
/// `interval`; everything turns NOT_SERVING when `shutdown` starts stopping.
pub(crate) async fn follow(
    names: Vec<&'static str>,
    dependencies: Vec<Dependency>,
    health: Health,
    readiness: Readiness,
    shutdown: Shutdown,
    interval: Duration,
) {
    probe_once(&names, &dependencies, &readiness, &health, &shutdown).await;
    if !dependencies.is_empty() {
        let (names, health, readiness, shutdown) = (
            names.clone(),
            health.clone(),
            readiness.clone(),
            shutdown.clone(),
        );
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = shutdown.stopping() => return,
                    _ = tick.tick() => {}
                }
                probe_once(&names, &dependencies, &readiness, &health, &shutdown).await;
            }
        });
    }
    tokio::spawn(async move {
        shutdown.stopping().await;
        tracing::info!("stopping: every service NOT_SERVING");
        health
            .set_all(&names, tonic_health::ServingStatus::NotServing)
            .await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dependency(check: &'static str, needed_by: &[&'static str]) -> Dependency {
        Dependency {
            check,
            needed_by: needed_by.to_vec(),
            probe: Probe::Health {
                channel: tonic::transport::Endpoint::from_static("http://127.0.0.1:1")
                    .connect_lazy(),
                service: "x",
            },
        }
    }

    /// Resolves to the addresses it holds.
    struct Fixed(Vec<std::net::SocketAddr>);

    impl neuralis_host::peer::Resolve for Fixed {
        fn resolve(&self, _host: &str, _port: u16) -> neuralis_host::peer::Resolved {
            let found = self.0.clone();
            Box::pin(async move { Ok(found) })
        }
    }

    /// A health server answering SERVING for `service`, on an ephemeral port.
    async fn serving_replica(service: &'static str) -> std::net::SocketAddr {
        let (reporter, server) = tonic_health::server::health_reporter();
        reporter
            .set_service_status(service, tonic_health::ServingStatus::Serving)
            .await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _keep = reporter;
            tonic::transport::Server::builder()
                .add_service(server)
                .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener))
                .await
        });
        addr
    }

    #[tokio::test]
    async fn a_peer_stays_reachable_while_one_of_two_replicas_is_dead() {
        let live = serving_replica("policy").await;
        // An address nothing listens on: bound, then released.
        let dead = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let options = neuralis_host::peer::PeerOptions {
            timeout: Duration::from_millis(500),
            resolve_interval: Duration::from_secs(60),
            ..Default::default()
        };
        let peer = neuralis_host::peer::peer_channel(
            &neuralis_host::tls::ClientTls::default(),
            "http://policy-replicas.test:7400",
            "peers.policy_url",
            options,
            Arc::new(Fixed(vec![live, dead])),
        )
        .unwrap();
        let probe = Probe::Health {
            channel: peer.channel,
            service: "policy",
        };
        for round in 0..20 {
            assert!(reachable(&probe).await, "probe {round} saw the peer down");
        }
    }

    #[tokio::test]
    async fn a_peer_with_no_serving_replica_is_unreachable() {
        let dead = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let probe = Probe::Health {
            channel: tonic::transport::Endpoint::from_shared(format!("http://{dead}"))
                .unwrap()
                .connect_lazy(),
            service: "policy",
        };
        assert!(!reachable(&probe).await);
    }

    #[tokio::test]
    async fn a_service_serves_only_while_everything_it_needs_answers() {
        let policy = dependency("policy", &["discovery"]);
        let sync = dependency("sync", &["discovery"]);
        let index = dependency("index_store", &["sync", "discovery"]);
        let names = ["sync", "discovery", "policy"];
        // (which of the three answer, then the status of each service name).
        type Case<'a> = (&'a [bool; 3], &'a [(&'a str, bool)]);
        let cases: [Case; 4] = [
            (
                &[true, true, true],
                &[
                    ("sync", true),
                    ("discovery", true),
                    ("policy", true),
                    ("", true),
                ],
            ),
            (
                &[false, true, true],
                &[
                    ("sync", true),
                    ("discovery", false),
                    ("policy", true),
                    ("", false),
                ],
            ),
            (
                &[true, true, false],
                &[
                    ("sync", false),
                    ("discovery", false),
                    ("policy", true),
                    ("", false),
                ],
            ),
            (
                &[true, false, true],
                &[
                    ("sync", true),
                    ("discovery", false),
                    ("policy", true),
                    ("", false),
                ],
            ),
        ];
        for (up, want) in cases {
            let answers = [(&policy, up[0]), (&sync, up[1]), (&index, up[2])];
            let got = statuses(&names, &answers);
            assert_eq!(got, want.to_vec(), "{up:?}");
        }
        assert_eq!(
            statuses(&["policy"], &[]),
            vec![("policy", true), ("", true)]
        );
    }
}
