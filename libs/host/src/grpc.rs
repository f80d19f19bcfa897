//! Serving: health that means something, reflection of exactly the mounted services,
//! trace context on every call, and a drain on shutdown.

use std::net::SocketAddr;

use tonic::service::Routes;
use tonic::transport::ServerTlsConfig;
use tonic::transport::server::TcpIncoming;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use crate::rpc::ServerLayer;
use crate::shutdown::Shutdown;

/// Why a server could not be built or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("reflection: {0}")]
    Reflection(String),
    #[error("grpc server: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("listener: {0}")]
    Listener(#[from] std::io::Error),
}

/// The standard `grpc.health.v1` service. Every named service starts NOT_SERVING;
/// the owner flips it to SERVING once its stores are reachable ([`Health::serving`]).
#[derive(Clone)]
pub struct Health {
    reporter: HealthReporter,
    /// The last status set per service: the reporter notifies `Watch` streams on every
    /// set, even of the same status, so a readiness loop re-asserting SERVING would
    /// send watchers a stream of repeats. Only a change is passed on.
    last: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, ServingStatus>>>,
}

impl Health {
    /// A health service plus its tonic server, with `services` (and the overall "")
    /// registered as NOT_SERVING.
    pub async fn new(
        services: &[&str],
    ) -> (
        Self,
        tonic_health::pb::health_server::HealthServer<impl tonic_health::pb::health_server::Health>,
    ) {
        let (reporter, server) = tonic_health::server::health_reporter();
        let health = Self {
            reporter,
            last: Default::default(),
        };
        health.set_all(services, ServingStatus::NotServing).await;
        (health, server)
    }

    /// Marks `service` SERVING (and the overall status with it when all are).
    pub async fn serving(&self, service: &str) {
        self.set(service, ServingStatus::Serving).await;
    }

    /// Marks `service` NOT_SERVING (a store went away, or the server is draining).
    pub async fn not_serving(&self, service: &str) {
        self.set(service, ServingStatus::NotServing).await;
    }

    /// Sets every service in `services` and the overall "" status.
    pub async fn set_all(&self, services: &[&str], status: ServingStatus) {
        for service in services.iter().copied().chain(std::iter::once("")) {
            self.set(service, status).await;
        }
    }

    /// Sets `service`'s status when it differs from the last one set.
    async fn set(&self, service: &str, status: ServingStatus) {
        let changed = match self.last.lock() {
            Ok(mut last) => last.insert(service.to_owned(), status) != Some(status),
            // A poisoned map only loses the de-duplication: pass the status on.
            Err(_) => true,
        };
        if changed {
            self.reporter.set_service_status(service, status).await;
        }
    }
}

/// Adds reflection v1 and v1alpha (grpcurl and grpcio speak only v1alpha), listing
/// exactly `service_names` plus health.
pub fn add_reflection(routes: Routes, service_names: &[&str]) -> Result<Routes, ServeError> {
    let builder = || {
        let mut builder = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(neuralis_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .with_service_name("grpc.health.v1.Health");
        for name in service_names {
            builder = builder.with_service_name(*name);
        }
        builder
    };
    let v1 = builder()
        .build_v1()
        .map_err(|e| ServeError::Reflection(e.to_string()))?;
    let v1alpha = builder()
        .build_v1alpha()
        .map_err(|e| ServeError::Reflection(e.to_string()))?;
    Ok(routes.add_service(v1).add_service(v1alpha))
}

/// How often a server pings each connection.
const SERVER_KEEPALIVE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(30);
/// A ping unanswered this long closes the connection.
const SERVER_KEEPALIVE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Serves `routes` on an already-bound listener until `shutdown` drains. Binding
/// first (tests bind `127.0.0.1:0`) means no port race.
pub async fn serve(
    listener: tokio::net::TcpListener,
    routes: Routes,
    shutdown: Shutdown,
) -> Result<(), ServeError> {
    serve_tls(listener, routes, shutdown, None).await
}

/// [`serve`] with TLS (and mutual TLS when the configuration names a client CA) on
/// the port, when `tls` is given.
pub async fn serve_tls(
    listener: tokio::net::TcpListener,
    routes: Routes,
    shutdown: Shutdown,
    tls: Option<ServerTlsConfig>,
) -> Result<(), ServeError> {
    let addr: SocketAddr = listener.local_addr()?;
    tracing::info!(%addr, tls = tls.is_some(), "serving grpc");
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    // Pings find a peer that vanished without closing (a killed pod, a cut network)
    // so its streams and connection are released.
    let mut server = tonic::transport::Server::builder()
        .http2_keepalive_interval(Some(SERVER_KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(SERVER_KEEPALIVE_TIMEOUT));
    if let Some(tls) = tls {
        server = server.tls_config(tls)?;
    }
    server
        .layer(ServerLayer::new(shutdown.clone()))
        .add_routes(routes)
        .serve_with_incoming_shutdown(incoming, shutdown.drained())
        .await?;
    tracing::info!(%addr, "grpc server stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_check_response::ServingStatus as Wire;
    use tonic_health::pb::health_client::HealthClient;

    #[tokio::test]
    async fn health_starts_not_serving_and_turns_serving_when_told() {
        let (health, service) = Health::new(&["neuralis.test.v1.Test"]).await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shutdown = Shutdown::new();
        let server = tokio::spawn(serve(listener, Routes::new(service), shutdown.clone()));
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut client = HealthClient::new(channel);
        let check = |service: &str| HealthCheckRequest {
            service: service.into(),
        };
        let status = client
            .check(check("neuralis.test.v1.Test"))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(status.status(), Wire::NotServing);
        health.serving("neuralis.test.v1.Test").await;
        let status = client
            .check(check("neuralis.test.v1.Test"))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(status.status(), Wire::Serving);
        health.not_serving("neuralis.test.v1.Test").await;
        let status = client
            .check(check("neuralis.test.v1.Test"))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(status.status(), Wire::NotServing);
        shutdown.trigger();
        server.await.unwrap().unwrap();
    }
}
