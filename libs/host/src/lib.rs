//! What every Neuralis server needs, written once: layered configuration
//! ([`settings`]), structured logs and OpenTelemetry traces ([`telemetry`]), W3C trace
//! context across the three services ([`propagation`]), health and reflection
//! ([`grpc`]), and graceful shutdown with a deadline ([`shutdown`]), and TLS from PEM files ([`tls`]).
#![forbid(unsafe_code)]

pub mod grpc;
pub mod propagation;
pub mod settings;
pub mod shutdown;
pub mod telemetry;
pub mod tls;

pub use settings::{SettingsError, load_settings};
pub use shutdown::Shutdown;
