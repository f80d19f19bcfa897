//! A call whose connection breaks under it is read as lost in transport (and so as
//! UNAVAILABLE by the services' clients): against a bare HTTP/2 server on
//! `127.0.0.1:0` that takes the call and then goes away, or resets its stream, with a
//! real tonic client. A server's own answer, even INTERNAL, is not.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;

use neuralis_host::lost;
use tokio::net::TcpListener;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

/// What the bare server does with the one call it takes.
#[derive(Clone, Copy, Debug)]
enum Then {
    /// Closes the connection without a word.
    GoesAway,
    /// Resets the call's stream with INTERNAL_ERROR.
    ResetsTheStream,
    /// Answers with gRPC status INTERNAL (code 13) in trailers-only headers.
    AnswersInternal,
}

async fn bare_server(then: Then) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let mut connection = h2::server::handshake(socket).await.unwrap();
        let (_request, mut respond) = connection.accept().await.unwrap().unwrap();
        match then {
            Then::GoesAway => drop(connection),
            Then::ResetsTheStream => {
                respond.send_reset(h2::Reason::INTERNAL_ERROR);
                // Keep the connection driven until the client has read the reset.
                while connection.accept().await.is_some() {}
            }
            Then::AnswersInternal => {
                let answer = http::Response::builder()
                    .header("content-type", "application/grpc")
                    .header("grpc-status", "13")
                    .header("grpc-message", "boom")
                    .body(())
                    .unwrap();
                respond.send_response(answer, true).unwrap();
                while connection.accept().await.is_some() {}
            }
        }
    });
    address
}

async fn call(address: SocketAddr) -> tonic::Status {
    let channel = Channel::from_shared(format!("http://{address}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    HealthClient::new(channel)
        .check(HealthCheckRequest::default())
        .await
        .expect_err("no answer that is a health check")
}

#[tokio::test]
async fn a_call_whose_connection_breaks_is_lost_in_transport() {
    for then in [Then::GoesAway, Then::ResetsTheStream] {
        let status = call(bare_server(then).await).await;
        assert!(lost::in_transport(&status), "{then:?}: {status:?}");
    }
}

#[tokio::test]
async fn a_servers_internal_answer_is_not_lost_in_transport() {
    let status = call(bare_server(Then::AnswersInternal).await).await;
    assert_eq!(status.code(), tonic::Code::Internal, "{status:?}");
    assert!(!lost::in_transport(&status), "{status:?}");
}
