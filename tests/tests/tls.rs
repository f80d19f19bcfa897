//! TLS on the gRPC ports: a client that does not trust the server's CA is refused,
//! and with a client CA configured (mutual TLS) a client without a certificate from
//! that CA is refused too. Certificates are made at test time.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::HashMap;
use std::net::SocketAddr;

use neuralis::node::{self, NodeSettings, Targets};
use neuralis_host::Shutdown;
use neuralis_host::tls::ClientTls;
use neuralis_tests::pki::Pki;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

/// An all-in-one node with TLS, requiring client certificates when `mutual`.
async fn tls_node(pki: &Pki, data: &std::path::Path, mutual: bool) -> node::Node {
    let mut env = HashMap::from([
        (
            "NEURALIS__TLS__CERT_FILE".to_owned(),
            pki.cert.display().to_string(),
        ),
        (
            "NEURALIS__TLS__KEY_FILE".to_owned(),
            pki.key.display().to_string(),
        ),
    ]);
    if mutual {
        env.insert(
            "NEURALIS__TLS__CLIENT_CA_FILE".into(),
            pki.ca.display().to_string(),
        );
    }
    let args = node::ServeArgs {
        data_dir: Some(data.to_owned()),
        ..Default::default()
    };
    let (settings, targets): (NodeSettings, Targets) = args.settings(&env).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    node::start(settings, targets, listener, Shutdown::new())
        .await
        .unwrap()
}

/// Whether a health check with `tls` (plain http when `None`) gets an answer.
async fn answers(addr: SocketAddr, tls: Option<ClientTls>) -> bool {
    let endpoint = match &tls {
        Some(tls) => tls.endpoint(&format!("https://{addr}"), "test").unwrap(),
        None => tonic::transport::Endpoint::from_shared(format!("http://{addr}")).unwrap(),
    };
    let Ok(channel) = endpoint.connect().await else {
        return false;
    };
    HealthClient::new(channel)
        .check(HealthCheckRequest::default())
        .await
        .is_ok()
}

fn client(
    ca: Option<&std::path::Path>,
    identity: Option<(&std::path::Path, &std::path::Path)>,
) -> ClientTls {
    ClientTls::load("test", ca, identity.map(|i| i.0), identity.map(|i| i.1)).unwrap()
}

#[tokio::test]
async fn a_client_without_the_ca_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::create(&dir.path().join("tls"), &[]).unwrap();
    let node = tls_node(&pki, &dir.path().join("data"), false).await;
    assert!(
        answers(node.addr, Some(client(Some(&pki.ca), None))).await,
        "a client trusting the CA is served"
    );
    assert!(
        !answers(node.addr, Some(client(None, None))).await,
        "the system roots do not trust a private CA"
    );
    assert!(
        !answers(node.addr, None).await,
        "plaintext gets no answer from a TLS port"
    );
    node.stop().await.unwrap();
}

#[tokio::test]
async fn mutual_tls_refuses_a_client_without_a_certificate_from_the_ca() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::create(&dir.path().join("tls"), &[]).unwrap();
    let node = tls_node(&pki, &dir.path().join("data"), true).await;
    let own = (pki.cert.as_path(), pki.key.as_path());
    let stranger = (pki.stranger_cert.as_path(), pki.stranger_key.as_path());
    assert!(
        answers(node.addr, Some(client(Some(&pki.ca), Some(own)))).await,
        "a certificate from the CA is served"
    );
    assert!(
        !answers(node.addr, Some(client(Some(&pki.ca), None))).await,
        "no client certificate: refused"
    );
    assert!(
        !answers(node.addr, Some(client(Some(&pki.ca), Some(stranger)))).await,
        "another CA's certificate: refused"
    );
    node.stop().await.unwrap();
}

#[tokio::test]
async fn a_plain_http_peer_is_refused_when_peer_tls_is_configured() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::create(&dir.path().join("tls"), &[]).unwrap();
    let tls = client(Some(&pki.ca), None);
    let error = tls
        .endpoint("http://neuralis-sync:7400", "peers.sync_url")
        .unwrap_err();
    assert_eq!(error.key, "peers.sync_url");
    assert!(error.message.contains("https"), "{error}");
}
