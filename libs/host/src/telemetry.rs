//! Structured logs and OpenTelemetry traces.
//!
//! Logs go to stderr as JSON (the default for servers) or as readable text. When an
//! OTLP endpoint is configured, spans are exported in batches and the W3C trace
//! context propagator is installed, so a call that crosses discovery → policy → sync
//! is one trace.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider};
use serde::{Deserialize, Serialize};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// One JSON object per line (servers).
    #[default]
    Json,
    /// Human-readable lines (a terminal).
    Text,
}

/// Telemetry settings (the `telemetry` section of the configuration).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelemetrySettings {
    /// `json` or `text`.
    pub log_format: LogFormat,
    /// A `tracing` filter such as `info` or `neuralis=debug,info`.
    pub log_filter: String,
    /// OTLP/gRPC collector endpoint (e.g. `http://otel-collector:4317`, or
    /// `https://...` for TLS); traces are exported only when set.
    pub otlp_endpoint: Option<String>,
    /// The CA that signed an `https://` collector's certificate (PEM); the system
    /// roots when unset.
    pub otlp_ca_file: Option<std::path::PathBuf>,
    /// Spans kept in memory while the exporter is busy; older ones are dropped rather
    /// than slowing requests.
    pub otlp_queue_size: usize,
}

impl Default for TelemetrySettings {
    fn default() -> Self {
        Self {
            log_format: LogFormat::Json,
            log_filter: "info".into(),
            otlp_endpoint: None,
            otlp_ca_file: None,
            otlp_queue_size: 4096,
        }
    }
}

/// Keeps the trace exporter alive; flushes it on drop.
#[must_use = "dropping the guard stops trace export"]
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take() {
            let _ = provider.shutdown();
        }
    }
}

/// Why telemetry could not start.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("telemetry.log_filter: {0}")]
    Filter(String),
    #[error("telemetry.otlp_endpoint: {0}")]
    Exporter(String),
    #[error("{0}")]
    Tls(#[from] crate::tls::TlsError),
    #[error("telemetry: a global subscriber is already installed")]
    AlreadyInstalled,
}

impl TelemetrySettings {
    /// Checks every setting without installing anything (for `config check` and the
    /// start of `serve`): the filter parses, the endpoint is an http(s) URL, a CA file
    /// holds a certificate.
    pub fn check(&self) -> Result<(), TelemetryError> {
        EnvFilter::try_new(&self.log_filter).map_err(|e| TelemetryError::Filter(e.to_string()))?;
        if let Some(endpoint) = &self.otlp_endpoint {
            self.exporter_tls(endpoint)?;
        }
        Ok(())
    }

    /// The TLS of the exporter's channel: `None` for `http://`, the configured CA (or
    /// the system roots) for `https://`.
    fn exporter_tls(
        &self,
        endpoint: &str,
    ) -> Result<Option<tonic::transport::ClientTlsConfig>, TelemetryError> {
        let uri: http::Uri = endpoint
            .parse()
            .map_err(|e| TelemetryError::Exporter(format!("{endpoint:?}: {e}")))?;
        match uri.scheme_str() {
            Some("http") if self.otlp_ca_file.is_some() => Err(TelemetryError::Exporter(format!(
                "{endpoint:?} is plain http while telemetry.otlp_ca_file is set: use https://"
            ))),
            Some("http") => Ok(None),
            Some("https") => {
                let mut config = tonic::transport::ClientTlsConfig::new();
                config = match &self.otlp_ca_file {
                    Some(path) => {
                        let pem = std::fs::read(path).map_err(|e| crate::tls::TlsError {
                            key: "telemetry.otlp_ca_file".into(),
                            message: format!("cannot read {}: {e}", path.display()),
                        })?;
                        config.ca_certificate(tonic::transport::Certificate::from_pem(pem))
                    }
                    None => config.with_native_roots(),
                };
                Ok(Some(config))
            }
            _ => Err(TelemetryError::Exporter(format!(
                "{endpoint:?}: expected an http:// or https:// URL"
            ))),
        }
    }
}

/// Installs the global subscriber. Call once, inside a tokio runtime when an OTLP
/// endpoint is set.
pub fn init(
    service_name: &str,
    settings: &TelemetrySettings,
) -> Result<TelemetryGuard, TelemetryError> {
    settings.check()?;
    let filter = EnvFilter::try_new(&settings.log_filter)
        .map_err(|e| TelemetryError::Filter(e.to_string()))?;
    let fmt_layer = match settings.log_format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .boxed(),
    };
    let provider = match &settings.otlp_endpoint {
        Some(endpoint) => Some(tracer_provider(
            service_name,
            endpoint,
            settings.exporter_tls(endpoint)?,
            settings.otlp_queue_size,
        )?),
        None => None,
    };
    let otel_layer = provider
        .as_ref()
        .map(|p| tracing_opentelemetry::layer().with_tracer(p.tracer("neuralis")));
    tracing_subscriber::registry()
        .with(filter)
        .with(fmt_layer)
        .with(otel_layer)
        .try_init()
        .map_err(|_| TelemetryError::AlreadyInstalled)?;
    if provider.is_some() {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    }
    Ok(TelemetryGuard { provider })
}

fn tracer_provider(
    service_name: &str,
    endpoint: &str,
    tls: Option<tonic::transport::ClientTlsConfig>,
    queue: usize,
) -> Result<SdkTracerProvider, TelemetryError> {
    use opentelemetry_otlp::{WithExportConfig, WithTonicConfig};
    let mut builder = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(endpoint);
    if let Some(tls) = tls {
        builder = builder.with_tls_config(tls);
    }
    let exporter = builder
        .build()
        .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
    let batch = BatchSpanProcessor::builder(exporter)
        .with_batch_config(
            BatchConfigBuilder::default()
                .with_max_queue_size(queue)
                .build(),
        )
        .build();
    Ok(SdkTracerProvider::builder()
        .with_span_processor(batch)
        .with_resource(
            Resource::builder()
                .with_service_name(service_name.to_string())
                .build(),
        )
        .build())
}
