//! Calls that must be refused, and what a refusal may cost on the wire (issue 25,
//! bounded fields): shared by `bounded_fields.rs`, `refused_values.rs` and
//! `validate_flood.rs`.

use std::net::SocketAddr;

use neuralis_proto::common::v1 as common;
use neuralis_proto::sync::v1 as sync;
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// The project the refusal scenarios act in.
pub const PROJECT: &str = "proj";

/// `message` with the caller's bearer token.
pub fn request<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Ok(value) = format!("Bearer {token}").parse() {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// A plaintext channel to `addr` (connects lazily).
pub fn channel(addr: SocketAddr) -> Channel {
    crate::cluster::channel(addr, None).expect("a channel")
}

/// What a status puts in the trailers: `grpc-message` and `grpc-status-details-bin`
/// (base64 of the encoded `google.rpc.Status`).
pub fn wire_bytes(status: &Status) -> usize {
    status.message().len() + status.details().len().div_ceil(3) * 4
}

/// The status of a call that must fail (OK when it did not).
pub fn refusal<T>(result: Result<tonic::Response<T>, Status>) -> Status {
    match result {
        Ok(_) => Status::new(Code::Ok, "the call succeeded"),
        Err(status) => status,
    }
}

/// The field the first `BadRequest` violation names.
pub fn field_of(status: &Status) -> Option<String> {
    status
        .get_details_bad_request()
        .and_then(|bad| bad.field_violations.into_iter().next())
        .map(|violation| violation.field)
}

/// Every case refused INVALID_ARGUMENT naming its field, each answer under 1 KB on the
/// wire; panics listing every case that was not.
pub fn check(cases: Vec<(&str, Status, &str)>) {
    let mut failures = Vec::new();
    for (name, status, field) in cases {
        let got = (status.code(), field_of(&status));
        if got != (Code::InvalidArgument, Some(field.to_owned())) {
            failures.push(format!(
                "{name}: got {got:?} ({:.200}), want {field}",
                status.message()
            ));
        }
        if wire_bytes(&status) >= 1024 {
            failures.push(format!("{name}: {} bytes on the wire", wire_bytes(&status)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A good local source `repo` of [`PROJECT`] at `root`.
pub fn spec(root: &str) -> sync::SourceSpec {
    sync::SourceSpec {
        project: PROJECT.into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: root.into(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    }
}

/// A `CreateSource` of `spec`.
pub fn create(spec: sync::SourceSpec) -> sync::CreateSourceRequest {
    sync::CreateSourceRequest { source: Some(spec) }
}
