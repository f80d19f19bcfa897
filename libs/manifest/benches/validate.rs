//! Validation throughput for a realistic manifest (the fixture builtin
//! `@acme/reports`: identity, requires, an event with a data schema, credentials,
//! configSettings, uriPolicies with a floor, dataLayout, inline tools) against parsing
//! the same JSON alone, in one run.
//!
//! `cargo bench -p neuralis-manifest --bench validate`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neuralis_manifest::{Status, Trust, validate};
use serde_json::Value;
use std::hint::black_box;

const MANIFEST: &str =
    include_str!("../../../tests/fixtures/installed/host/node_modules/@acme/reports/package.json");

fn manifest_validation(c: &mut Criterion) {
    let bytes = MANIFEST.as_bytes();
    let parsed: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    assert_eq!(
        validate(&parsed, Trust::FirstParty).status,
        Status::Loads,
        "the bench manifest must be valid"
    );
    let mut group = c.benchmark_group("manifest validation");
    group.throughput(Throughput::Elements(1));
    group.bench_function("parse only (baseline)", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(bytes)).map(|v| v.is_object()))
    });
    group.bench_function("parse + validate, first-party", |b| {
        b.iter(|| {
            let doc: Value = serde_json::from_slice(black_box(bytes)).unwrap_or(Value::Null);
            validate(&doc, Trust::FirstParty).status
        })
    });
    group.bench_function("parse + validate, untrusted", |b| {
        b.iter(|| {
            let doc: Value = serde_json::from_slice(black_box(bytes)).unwrap_or(Value::Null);
            validate(&doc, Trust::Untrusted).status
        })
    });
    group.finish();
    // Where the time goes: compiling one JSON Schema (each tool inputSchema, event
    // dataSchema and connector configSchema is compiled once at validation).
    let schema = parsed["neuralis"]["events"][0]["dataSchema"].clone();
    c.bench_function("schema check of one event dataSchema", |b| {
        b.iter(|| neuralis_manifest::schema::schema_problem(black_box(&schema)).is_none())
    });
}

criterion_group!(benches, manifest_validation);
criterion_main!(benches);
