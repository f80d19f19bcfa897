//! Structured logs and OpenTelemetry traces.
//!
//! Logs go to stderr as JSON (the default for servers, each line with the `trace_id`
//! and `span_id` of the call it belongs to) or as readable text. The W3C trace context
//! propagator is always installed, so a call that crosses discovery → policy → sync is
//! one trace; spans are exported in batches when an OTLP endpoint is configured (the
//! setting, or the standard `OTEL_EXPORTER_OTLP_ENDPOINT`), under the process's
//! service name (`OTEL_SERVICE_NAME` wins).

use std::sync::{Arc, OnceLock};

use opentelemetry::trace::{TraceContextExt as _, TracerProvider as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider};
use serde::{Deserialize, Serialize};
use tracing::dispatcher::WeakDispatch;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
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

/// The OpenTelemetry `service.name` of a process: `OTEL_SERVICE_NAME` when set, else
/// `default` (`neuralis` for all-in-one, `neuralis-discovery`, … for one service).
pub fn service_name(default: &str) -> String {
    std::env::var("OTEL_SERVICE_NAME")
        .ok()
        .filter(|name| !name.trim().is_empty())
        .unwrap_or_else(|| default.to_owned())
}

/// The collector endpoint: the setting, else the standard `OTEL_EXPORTER_OTLP_*`
/// variables; none when `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
fn endpoint(settings: &TelemetrySettings) -> Option<String> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || var("OTEL_TRACES_EXPORTER").is_some_and(|v| v.eq_ignore_ascii_case("none"))
    {
        return None;
    }
    settings
        .otlp_endpoint
        .clone()
        .or_else(|| var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
        .or_else(|| var("OTEL_EXPORTER_OTLP_ENDPOINT"))
}

/// Installs the global subscriber. Call once, inside a tokio runtime when an OTLP
/// endpoint is set. Spans are always built and trace context always propagated (so
/// log lines carry trace and span ids and a caller's trace continues); they are
/// exported only when a collector is configured.
pub fn init(
    service_name: &str,
    settings: &TelemetrySettings,
) -> Result<TelemetryGuard, TelemetryError> {
    settings.check()?;
    // The call spans (target `neuralis_host::rpc`) stay on whatever the log filter
    // says, so traces and the trace ids of log lines never depend on the log level;
    // the `rpc finished` lines have their own target (`neuralis::rpc`) and follow it.
    let filter = EnvFilter::try_new(format!("{},neuralis_host::rpc=info", settings.log_filter))
        .map_err(|e| TelemetryError::Filter(e.to_string()))?;
    let dispatch: Arc<OnceLock<WeakDispatch>> = Arc::default();
    let fmt_layer = match settings.log_format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .event_format(TraceIds {
                inner: tracing_subscriber::fmt::format().json(),
                dispatch: dispatch.clone(),
            })
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .boxed(),
    };
    let endpoint = endpoint(settings);
    let tls = match &endpoint {
        Some(endpoint) => settings.exporter_tls(endpoint)?,
        None => None,
    };
    let provider = tracer_provider(
        &self::service_name(service_name),
        endpoint.as_deref(),
        tls,
        settings.otlp_queue_size,
    )?;
    let otel_layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("neuralis"));
    tracing_subscriber::registry()
        .with(filter)
        .with(fmt_layer)
        .with(otel_layer)
        .try_init()
        .map_err(|_| TelemetryError::AlreadyInstalled)?;
    tracing::dispatcher::get_default(|current| {
        let _ = dispatch.set(current.downgrade());
    });
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    Ok(TelemetryGuard {
        provider: Some(provider),
    })
}

fn tracer_provider(
    service_name: &str,
    endpoint: Option<&str>,
    tls: Option<tonic::transport::ClientTlsConfig>,
    queue: usize,
) -> Result<SdkTracerProvider, TelemetryError> {
    use opentelemetry_otlp::{WithExportConfig, WithTonicConfig};
    let mut provider = SdkTracerProvider::builder().with_resource(
        Resource::builder()
            .with_service_name(service_name.to_string())
            .build(),
    );
    if let Some(endpoint) = endpoint {
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
        provider = provider.with_span_processor(batch);
    }
    Ok(provider.build())
}

/// The JSON line of an event, with the `trace_id` and `span_id` of the span it was
/// logged in (when it was logged in one).
struct TraceIds<F> {
    inner: F,
    dispatch: Arc<OnceLock<WeakDispatch>>,
}

impl<S, N, F> FormatEvent<S, N> for TraceIds<F>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let mut line = String::new();
        self.inner
            .format_event(ctx, Writer::new(&mut line), event)?;
        let ids = ctx.lookup_current().and_then(|span| {
            let dispatch = self.dispatch.get()?.upgrade()?;
            let context = tracing_opentelemetry::get_otel_context(&span.id(), &dispatch)?;
            let span_context = context.span().span_context().clone();
            span_context
                .is_valid()
                .then(|| (span_context.trace_id(), span_context.span_id()))
        });
        match (ids, line.trim_end().strip_suffix('}')) {
            (Some((trace_id, span_id)), Some(open)) => writeln!(
                writer,
                "{open},\"trace_id\":\"{trace_id}\",\"span_id\":\"{span_id}\"}}"
            ),
            _ => writer.write_str(&line),
        }
    }
}
