//! W3C trace context across the services: servers continue the caller's trace,
//! clients pass theirs on. Both do nothing when no propagator is installed (tests,
//! a server without an OTLP endpoint), so they cost almost nothing there.

use opentelemetry::propagation::{Extractor, Injector};
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// Reads trace headers from an HTTP request's headers.
struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// Writes trace headers into gRPC metadata.
struct MetadataInjector<'a>(&'a mut tonic::metadata::MetadataMap);

impl Injector for MetadataInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(key), Ok(value)) = (
            tonic::metadata::MetadataKey::from_bytes(key.as_bytes()),
            tonic::metadata::MetadataValue::try_from(value.as_str()),
        ) {
            self.0.insert(key, value);
        }
    }
}

/// Makes `span` a child of the caller's span when `headers` carry a `traceparent`.
pub fn continue_trace(span: &tracing::Span, headers: &http::HeaderMap) {
    if headers.get("traceparent").is_none() {
        return;
    }
    let parent =
        opentelemetry::global::get_text_map_propagator(|p| p.extract(&HeaderExtractor(headers)));
    let _ = span.set_parent(parent);
}

/// Writes `span`'s context into an outbound request's headers.
pub fn inject(span: &tracing::Span, headers: &mut http::HeaderMap) {
    let context = span.context();
    opentelemetry::global::get_text_map_propagator(|p| {
        p.inject_context(&context, &mut HeaderInjector(headers))
    });
}

/// Writes trace headers into HTTP headers.
struct HeaderInjector<'a>(&'a mut http::HeaderMap);

impl Injector for HeaderInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(key), Ok(value)) = (
            http::HeaderName::from_bytes(key.as_bytes()),
            http::HeaderValue::try_from(value.as_str()),
        ) {
            self.0.insert(key, value);
        }
    }
}

/// A client interceptor that injects the current span's context into every call.
#[derive(Debug, Clone, Copy, Default)]
pub struct TracePropagation;

impl tonic::service::Interceptor for TracePropagation {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        let context = tracing::Span::current().context();
        opentelemetry::global::get_text_map_propagator(|p| {
            p.inject_context(&context, &mut MetadataInjector(request.metadata_mut()))
        });
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::propagation::TextMapPropagator;
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use opentelemetry_sdk::propagation::TraceContextPropagator;

    #[test]
    fn a_traceparent_round_trips_through_metadata() {
        let propagator = TraceContextPropagator::new();
        let span_context = SpanContext::new(
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
            SpanId::from_hex("00f067aa0ba902b7").unwrap(),
            TraceFlags::SAMPLED,
            true,
            TraceState::default(),
        );
        let context = opentelemetry::Context::new().with_remote_span_context(span_context.clone());
        let mut metadata = tonic::metadata::MetadataMap::new();
        propagator.inject_context(&context, &mut MetadataInjector(&mut metadata));
        let headers = metadata.into_headers();
        let extracted = propagator.extract(&HeaderExtractor(&headers));
        assert_eq!(
            extracted.span().span_context().trace_id(),
            span_context.trace_id()
        );
        assert_eq!(
            extracted.span().span_context().span_id(),
            span_context.span_id()
        );
    }

    #[test]
    fn the_interceptor_is_a_no_op_without_a_propagator() {
        let mut interceptor = TracePropagation;
        let request =
            tonic::service::Interceptor::call(&mut interceptor, tonic::Request::new(())).unwrap();
        assert!(request.metadata().get("traceparent").is_none());
    }
}
