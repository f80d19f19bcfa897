//! A TCP proxy in front of Redis whose connections a test can cut, to see how a
//! subscription behaves when its connection drops.

use std::sync::{Arc, Mutex};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

pub struct Proxy {
    address: std::net::SocketAddr,
    pipes: Arc<Mutex<Vec<JoinHandle<()>>>>,
    acceptor: JoinHandle<()>,
}

impl Proxy {
    /// Starts forwarding a free loopback port to `upstream`.
    pub async fn start(upstream: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let pipes: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let registry = Arc::clone(&pipes);
        let acceptor = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let pipe = tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                registry.lock().expect("lock").push(pipe);
            }
        });
        Self {
            address,
            pipes,
            acceptor,
        }
    }

    pub fn url(&self) -> String {
        format!("redis://{}", self.address)
    }

    /// Drops every open connection; new ones are still accepted.
    pub fn cut_every_connection(&self) {
        for pipe in self.pipes.lock().expect("lock").drain(..) {
            pipe.abort();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.acceptor.abort();
        self.cut_every_connection();
    }
}
