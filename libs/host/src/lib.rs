//! What every Neuralis server needs, written once: layered configuration
//! ([`settings`]), structured logs and OpenTelemetry traces ([`telemetry`]), W3C trace
//! context across the three services ([`propagation`]), health and reflection
//! ([`grpc`]), graceful shutdown with a deadline ([`shutdown`]), TLS from PEM files ([`tls`]),
//! a span, a latency histogram and a log line per call ([`rpc`]), calls to peers
//! balanced over their replicas with deadlines and budgeted retries ([`peer`],
//! [`retry`]), a call lost in transport read as UNAVAILABLE ([`lost`]), and the admin
//! port with `/metrics`, `/livez` and `/readyz` ([`admin`]).
#![forbid(unsafe_code)]

pub mod admin;
pub mod grpc;
pub mod lost;
pub mod peer;
pub mod propagation;
pub mod retry;
pub mod rpc;
pub mod settings;
pub mod share;
pub mod shutdown;
pub mod telemetry;
pub mod tls;
pub mod vocabulary;

pub use settings::{SettingsError, load_settings};
pub use shutdown::Shutdown;
