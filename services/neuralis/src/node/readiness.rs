//! Readiness that follows what each service needs: discovery answers nothing useful
//! while policy or sync is unreachable, sync nothing while its index store is, and
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

async fn reachable(probe: &Probe) -> bool {
    match probe {
        Probe::Health { channel, service } => {
            let mut client = HealthClient::new(channel.clone());
            let check = client.check(HealthCheckRequest {
                service: (*service).into(),
            });
            matches!(
                tokio::time::timeout(PROBE_TIMEOUT, check).await,
                Ok(Ok(answer)) if answer.get_ref().status() == ServingStatus::Serving
            )
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
        readiness.set(dependency.check, up, true);
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
