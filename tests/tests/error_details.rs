//! Machine-readable errors (DESIGN.md section 6, issue 12 "polyglot API"): over gRPC,
//! every refused call of every service carries a `google.rpc.Status` with an
//! `ErrorInfo` (stable reason, domain `neuralis.dev`), and a bad request a `BadRequest`
//! naming the field. The attacker's calls: no token, a member on an administrator's
//! call, a caller token on a services-only call, a request that does
//! not decode. No reason or field names a denied path. (Discovery answers a caller
//! without a good token with the empty answer, not an error: DESIGN.md section 5.)

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use neuralis_proto::common::v1 as common;
use neuralis_proto::details::DOMAIN;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;
use neuralis_tests::{Cluster, Mode};
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use discovery::discovery_service_client::DiscoveryServiceClient;
use policy::policy_service_client::PolicyServiceClient;
use sync::source_service_client::SourceServiceClient;

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";

/// One refused call: what it is, and the code, reason and field it must carry.
struct Case {
    name: &'static str,
    status: Status,
    code: Code,
    reason: &'static str,
    field: Option<&'static str>,
}

fn request<T>(message: T, token: Option<&str>) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(value) = token.and_then(|t| format!("Bearer {t}").parse().ok()) {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

fn spec(root: &str, trigger: &str) -> Option<sync::SourceSpec> {
    Some(sync::SourceSpec {
        project: P.into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: root.into(),
        scope: common::SourceScope::Project as i32,
        trigger: trigger.into(),
        ..Default::default()
    })
}

/// A `GetSourceRequest` whose `project` (field 1) is not UTF-8, sent as raw bytes.
#[derive(Clone, PartialEq, prost::Message)]
struct NotUtf8 {
    #[prost(bytes = "vec", tag = "1")]
    project: Vec<u8>,
}

async fn undecodable(channel: &Channel, token: &str) -> Status {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.unwrap();
    let codec = tonic_prost::ProstCodec::<NotUtf8, sync::GetSourceResponse>::default();
    let path = "/neuralis.sync.v1.SourceService/GetSource".parse().unwrap();
    let message = request(
        NotUtf8 {
            project: vec![0xff, 0xfe],
        },
        Some(token),
    );
    grpc.unary(message, path, codec).await.unwrap_err()
}

/// The status of a call that must fail.
fn err<T>(result: Result<tonic::Response<T>, Status>) -> Status {
    result
        .err()
        .unwrap_or_else(|| Status::new(Code::Ok, "the call succeeded"))
}

async fn cases(cluster: &Cluster, scratch: &std::path::Path) -> Vec<Case> {
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", None, P);
    let chan = |name: &str| neuralis_tests::cluster::channel(cluster.addrs[name], None).unwrap();
    let mut sources = SourceServiceClient::new(chan("sync"));
    let mut policies = PolicyServiceClient::new(chan("policy"));
    let mut packages = DiscoveryServiceClient::new(chan("discovery"));
    let good_root = scratch.display().to_string();
    let create = |root: &str, trigger: &str| sync::CreateSourceRequest {
        source: spec(root, trigger),
    };
    let get = sync::GetSourceRequest {
        project: P.into(),
        slug: "nothing-here".into(),
    };
    let forget = policy::ForgetSourceRequest {
        source_id: format!("{P}/repo.0000000000000000"),
    };
    let list = |project: &str| discovery::ListPackagesRequest {
        scope: Some(discovery::Scope {
            project_id: project.into(),
            agent_id: "a".into(),
            conversation_id: "c".into(),
        }),
        ..Default::default()
    };
    vec![
        Case {
            name: "sync: no token",
            status: err(sources
                .create_source(request(create(&good_root, "manual"), None))
                .await),
            code: Code::Unauthenticated,
            reason: "UNAUTHENTICATED",
            field: None,
        },
        Case {
            name: "sync: a member on an administrator's call",
            status: err(sources
                .create_source(request(create(&good_root, "manual"), Some(&member)))
                .await),
            code: Code::PermissionDenied,
            reason: "PERMISSION_DENIED",
            field: None,
        },
        Case {
            name: "sync: a bad trigger",
            status: err(sources
                .create_source(request(create(&good_root, "interval:0s"), Some(&admin)))
                .await),
            code: Code::InvalidArgument,
            reason: "INVALID_ARGUMENT",
            field: Some("source.trigger"),
        },
        Case {
            name: "sync: a system directory as root",
            status: err(sources
                .create_source(request(create("/etc", "manual"), Some(&admin)))
                .await),
            code: Code::InvalidArgument,
            reason: "SOURCE_ROOT_REFUSED",
            field: Some("source.root"),
        },
        Case {
            name: "sync: an unknown source",
            status: err(sources.get_source(request(get, Some(&admin))).await),
            code: Code::NotFound,
            reason: "NOT_FOUND",
            field: None,
        },
        Case {
            name: "sync: a request that does not decode",
            status: undecodable(&chan("sync"), &admin).await,
            code: Code::InvalidArgument,
            reason: "REQUEST_UNDECODABLE",
            field: Some("project"),
        },
        Case {
            name: "policy: no token",
            status: err(policies.forget_source(request(forget.clone(), None)).await),
            code: Code::Unauthenticated,
            reason: "UNAUTHENTICATED",
            field: None,
        },
        Case {
            name: "policy: a caller token on a services-only call",
            status: err(policies.forget_source(request(forget, Some(&admin))).await),
            code: Code::PermissionDenied,
            reason: "PERMISSION_DENIED",
            field: None,
        },
        Case {
            name: "policy: an unknown source",
            status: err(policies
                .get_source_policy(request(
                    policy::GetSourcePolicyRequest {
                        source_id: format!("{P}/no-id"),
                    },
                    Some(&admin),
                ))
                .await),
            code: Code::NotFound,
            reason: "NOT_FOUND",
            field: None,
        },
        Case {
            name: "policy: a policy missing",
            status: err(policies
                .put_source_policy(request(
                    policy::PutSourcePolicyRequest {
                        source_id: format!("{P}/repo.0000000000000000"),
                        policy: None,
                    },
                    Some(&admin),
                ))
                .await),
            code: Code::InvalidArgument,
            reason: "INVALID_ARGUMENT",
            field: Some("policy"),
        },
        Case {
            name: "discovery: an unknown skill",
            status: err(packages
                .activate_skill(request(
                    discovery::ActivateSkillRequest {
                        scope: list(P).scope,
                        skill_id: "no-such-skill".into(),
                    },
                    Some(&member),
                ))
                .await),
            code: Code::NotFound,
            reason: "NOT_FOUND",
            field: None,
        },
        Case {
            name: "discovery: no project",
            status: err(packages
                .list_packages(request(list(""), Some(&member)))
                .await),
            code: Code::InvalidArgument,
            reason: "INVALID_ARGUMENT",
            field: Some("scope.project_id"),
        },
    ]
}

async fn every_refusal_carries_its_reason(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in cases(&cluster, scratch.path()).await {
        let status = &case.status;
        let info = status.get_details_error_info();
        let field = status
            .get_details_bad_request()
            .and_then(|bad| bad.field_violations.into_iter().next())
            .map(|violation| violation.field);
        let got = (
            status.code(),
            info.as_ref()
                .map(|i| (i.reason.as_str(), i.domain.as_str())),
            field.as_deref(),
        );
        let want = (case.code, Some((case.reason, DOMAIN)), case.field);
        if got != want {
            failures.push(format!(
                "{}: got {got:?} ({}), want {want:?}",
                case.name,
                status.message()
            ));
        }
        if info.is_some_and(|i| i.reason.contains('/') || !i.metadata.is_empty()) {
            failures.push(format!(
                "{}: the ErrorInfo carries more than a reason",
                case.name
            ));
        }
    }
    cluster.stop().await.unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_carries_an_error_info_reason_and_a_bad_request_field_all_in_one() {
    every_refusal_carries_its_reason(Mode::AllInOne).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_carries_an_error_info_reason_and_a_bad_request_field_split() {
    every_refusal_carries_its_reason(Mode::Split).await;
}
