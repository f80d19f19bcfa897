//! Issue 25 item 5: what the gate logs and counts about a refusal.
//!
//! This test is alone in its binary on purpose. `tracing` caches each callsite's interest
//! once per process, computed against the subscriber of whichever thread reaches it first;
//! a sibling test calling the gate with no subscriber installed would cache `never` and
//! silence the lines this test captures (seen once in CI). With one test per process, the
//! only thread that reaches the gate's callsites is the one holding the capture.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use neuralis_authz::{Binding, Gate, Row, Table, Verifiers, Who};
use neuralis_identity::{
    IdentityConfig, KeySource, Secret, ServiceIdentityConfig, ServiceVerifier, Verifier,
};

static TABLE: Table = Table {
    service: "test.v1.Test",
    rows: &[
        Row {
            method: "/test.v1.Test/Callers",
            who: Who::Callers,
            binding: Binding::Project("project"),
        },
        Row {
            method: "/test.v1.Test/Empty",
            who: Who::CallersOrEmpty,
            binding: Binding::Project("project"),
        },
    ],
};

fn gate() -> Gate {
    let callers = Verifier::from_config(&IdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new("the-caller-secret-of-at-least-32-bytes"),
        },
        ..IdentityConfig::default()
    })
    .unwrap();
    let services = ServiceVerifier::from_config(&ServiceIdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new("the-service-secret-of-at-least-32-bytes"),
        },
        ..ServiceIdentityConfig::default()
    })
    .unwrap();
    let verifiers = Verifiers::new(Arc::new(callers), Arc::new(services), &["owner".to_owned()]);
    Gate::new(&TABLE, Arc::new(verifiers))
}

/// Log lines written while the test runs.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A path is the caller's text. A token sent as the method name never reaches the log
/// (the line says `unknown`); a served method is named; and every refusal and unverified
/// call is counted by a reason from a closed vocabulary.
#[test]
fn refusals_are_logged_without_caller_text_and_counted_by_reason() {
    let logs = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer({
            let logs = logs.clone();
            move || logs.clone()
        })
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let gate = gate();
    let smuggled = "/test.v1.Test/eyJhbGciOiJIUzI1NiJ9.a-token-sent-as-the-method";
    assert!(gate.admit(smuggled, None).is_err());
    assert!(gate.admit("/test.v1.Test/Callers", None).is_err());
    let unverified = gate.admit("/test.v1.Test/Empty", Some("forged")).unwrap();
    assert!(!unverified.is_verified());
    let logs = String::from_utf8_lossy(&logs.0.lock().unwrap()).into_owned();
    assert!(!logs.contains("a-token-sent"), "{logs}");
    assert!(logs.contains(r#"method="unknown""#), "{logs}");
    assert!(
        logs.contains(r#"method="Callers""#),
        "a served method is named: {logs}"
    );
    let metrics = neuralis_metrics::render();
    for line in [
        r#"neuralis_auth_refusals_total{service="test.v1.Test",outcome="unauthenticated",reason="unknown_method"}"#,
        r#"neuralis_auth_refusals_total{service="test.v1.Test",outcome="unauthenticated",reason="missing_credential"}"#,
        r#"neuralis_auth_refusals_total{service="test.v1.Test",outcome="unverified",reason="invalid_credential"}"#,
    ] {
        assert!(metrics.contains(line), "{line} in {metrics}");
    }
    assert!(!metrics.contains("a-token-sent"));
}
