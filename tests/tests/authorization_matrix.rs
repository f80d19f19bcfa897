//! The authorization matrix (issue 9, "Done when"): over gRPC, in both shapes, every RPC
//! the servers serve (read by reflection, never from a list kept here) is called with
//! every kind of credential, and each cell is held to the rule of the method's row in
//! `neuralis-authz`:
//!
//! - UNAUTHENTICATED only for a missing or bad credential;
//! - PERMISSION_DENIED for a verified principal without the right (another project, a
//!   member on an administrator's call, a caller token where a service credential is
//!   required, a service credential on a caller's call);
//! - discovery answers the empty answer instead;
//! - and no refused or empty cell shows a file name or content.
//!
//! An RPC without a row, or without a request here, fails the test. The index feed is
//! never on a public port.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use neuralis_authz::{Binding, Row, Who, tables};
use neuralis_policy::BearerToken;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as sync;
use neuralis_tests::fixture::{self, REPO, read_policy, register};
use neuralis_tests::raw::{self, Outcome, Rpc};
use neuralis_tests::{Cluster, Mode};
use prost::Message;
use tonic::Code;
use tonic::transport::{Channel, Endpoint};

const NODE: &str = env!("CARGO_BIN_EXE_neuralis-node");
const P: &str = "proj";
const OTHER: &str = "other";
/// What no refused or empty answer may carry: names and content of the source's files.
const MARKERS: [&str; 4] = [".claude/", "SKILL.md", "Read the diff first", "diff.sh"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_answers_every_credential_by_its_rule_all_in_one() {
    matrix(Mode::AllInOne).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_answers_every_credential_by_its_rule_split() {
    matrix(Mode::Split).await;
}

/// The columns of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Credential {
    NoToken,
    BadlySigned,
    Expired,
    OtherProject,
    Member,
    Administrator,
    Service,
    PlatformAdministrator,
}

const CREDENTIALS: [Credential; 8] = [
    Credential::NoToken,
    Credential::BadlySigned,
    Credential::Expired,
    Credential::OtherProject,
    Credential::Member,
    Credential::Administrator,
    Credential::Service,
    Credential::PlatformAdministrator,
];

fn token(cluster: &Cluster, credential: Credential) -> Option<String> {
    Some(match credential {
        Credential::NoToken => return None,
        Credential::BadlySigned => cluster.forged_token(P),
        Credential::Expired => cluster.expired_token(P),
        Credential::OtherProject => cluster.token("eve", "owner", None, OTHER),
        Credential::Member => cluster.token("ada", "member", None, P),
        Credential::Administrator => cluster.token("ops", "owner", None, P),
        Credential::Service => cluster.service_credential("discovery"),
        Credential::PlatformAdministrator => cluster.platform_token("root", "owner"),
    })
}

/// What a cell must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Unauthenticated,
    PermissionDenied,
    /// The call runs (its own answer: OK, NOT_FOUND, ALREADY_EXISTS).
    Allowed,
    /// Discovery's answer to anyone who is not a caller of the project.
    Empty,
}

/// The rule of `row` applied to `credential` (the requests below act in project P).
fn expect(row: &Row, credential: Credential) -> Expect {
    use Credential::*;
    let verified_caller = matches!(
        credential,
        OtherProject | Member | Administrator | PlatformAdministrator
    );
    if row.who == Who::CallersOrEmpty {
        return match credential {
            Member | Administrator | PlatformAdministrator => Expect::Allowed,
            _ => Expect::Empty,
        };
    }
    if matches!(credential, NoToken | BadlySigned | Expired) {
        return Expect::Unauthenticated;
    }
    let allowed = match row.who {
        Who::Services => credential == Service,
        Who::Callers | Who::Administrators => {
            let role = row.who == Who::Callers || credential != Member;
            let project = match row.binding {
                Binding::Unbound => true,
                Binding::Platform => credential == PlatformAdministrator,
                _ => credential != OtherProject,
            };
            verified_caller && role && project
        }
        Who::CallersOrEmpty => unreachable!(),
    };
    if allowed {
        Expect::Allowed
    } else {
        Expect::PermissionDenied
    }
}

/// Whether `outcome` is what `expected` allows; a message for the failure list if not.
fn judge(expected: Expect, outcome: &Outcome) -> Result<(), String> {
    let leaks = MARKERS.iter().find(|marker| outcome.shows(marker));
    let code_ok = match expected {
        Expect::Unauthenticated => outcome.code == Code::Unauthenticated,
        Expect::PermissionDenied => outcome.code == Code::PermissionDenied,
        Expect::Allowed => matches!(
            outcome.code,
            Code::Ok | Code::NotFound | Code::AlreadyExists
        ),
        Expect::Empty => matches!(outcome.code, Code::Ok | Code::NotFound),
    };
    if !code_ok {
        return Err(format!("expected {expected:?}, got {:?}", outcome.code));
    }
    match (expected, leaks) {
        (Expect::Allowed, _) | (_, None) => Ok(()),
        (_, Some(marker)) => Err(format!("{expected:?} but the answer shows {marker:?}")),
    }
}

/// The one row of `path` across every table.
fn row_of(path: &str) -> Option<&'static Row> {
    tables::ALL.iter().find_map(|table| table.row(path))
}

async fn matrix(mode: Mode) {
    let cluster = Cluster::start(mode, NODE).await.expect("cluster");
    let admin = cluster.token("ops", "owner", None, P);
    let repo = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    fixture::write_tree(repo.path(), REPO).unwrap();
    let repo_id = register(
        &cluster,
        &admin,
        P,
        "repo",
        repo.path(),
        read_policy(vec![]),
    )
    .await
    .expect("register");
    register_conversation(&cluster, &admin).await;

    let served = served(&cluster).await;
    assert_served_services(mode, &served);
    let mut failures = Vec::new();
    for (rpc, channel) in &served {
        let Some(row) = row_of(&rpc.path) else {
            failures.push(format!("{}: no authorization row", rpc.path));
            continue;
        };
        let Some(request) = request(&rpc.path, scratch.path(), &repo_id) else {
            failures.push(format!("{}: no request in this test", rpc.path));
            continue;
        };
        for credential in CREDENTIALS {
            let outcome = raw::call(
                channel,
                rpc,
                request.clone(),
                token(&cluster, credential).as_deref(),
            )
            .await;
            if let Err(why) = judge(expect(row, credential), &outcome) {
                failures.push(format!("{} with {credential:?}: {why}", rpc.path));
            }
            if rpc.path == tables::discovery::LIST_PACKAGES
                && credential == Credential::Member
                && !outcome.shows(".claude/skills/review/SKILL.md")
            {
                failures
                    .push("the member's own listing is empty: the matrix proves nothing".into());
            }
        }
    }
    failures.extend(feed_is_not_public(&cluster).await);
    assert!(failures.is_empty(), "{mode:?}:\n{}", failures.join("\n"));
    cluster.stop().await.unwrap();
}

async fn register_conversation(cluster: &Cluster, admin: &str) {
    let request = policy::RegisterConversationRequest {
        conversation_id: "c1".into(),
        project_id: P.into(),
        parent_conversation_id: String::new(),
    };
    cluster
        .policy
        .register_conversation(BearerToken::new(Some(admin.into())), request)
        .await
        .expect("conversation");
}

fn channel(addr: std::net::SocketAddr) -> Channel {
    Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect_lazy()
}

/// Every RPC every endpoint of the cluster serves, with the channel that reaches it.
async fn served(cluster: &Cluster) -> Vec<(Rpc, Channel)> {
    let addrs: BTreeSet<_> = cluster.addrs.values().copied().collect();
    let mut served = Vec::new();
    for addr in addrs {
        let channel = channel(addr);
        for rpc in raw::served(&channel).await.expect("reflection") {
            served.push((rpc, channel.clone()));
        }
    }
    served
}

/// Every service of the contract is served somewhere, the feed only in split mode (on
/// sync's internal listener).
fn assert_served_services(mode: Mode, served: &[(Rpc, Channel)]) {
    let services: BTreeSet<&str> = served
        .iter()
        .filter_map(|(rpc, _)| rpc.path.trim_start_matches('/').split('/').next())
        .collect();
    let mut expected: BTreeSet<&str> = tables::ALL.iter().map(|t| t.service).collect();
    if mode == Mode::AllInOne {
        expected.remove(tables::index_feed::SERVICE);
    }
    assert_eq!(services, expected);
}

/// The feed's RPCs (from the compiled contract) on every public port: UNIMPLEMENTED,
/// even with a service credential.
async fn feed_is_not_public(cluster: &Cluster) -> Vec<String> {
    let set = prost_types::FileDescriptorSet::decode(neuralis_proto::FILE_DESCRIPTOR_SET).unwrap();
    let feed: Vec<Rpc> = set
        .file
        .iter()
        .flat_map(|file| raw::methods_of(file, tables::index_feed::SERVICE))
        .collect();
    assert!(!feed.is_empty());
    let public: BTreeSet<_> = ["sync", "policy", "discovery"]
        .iter()
        .map(|name| cluster.addrs[name])
        .collect();
    let credential = cluster.service_credential("discovery");
    let mut failures = Vec::new();
    for addr in public {
        let channel = channel(addr);
        for rpc in &feed {
            let request =
                request(&rpc.path, Path::new("/nonexistent"), "p/repo.0").unwrap_or_default();
            let outcome = raw::call(&channel, rpc, request, Some(&credential)).await;
            if outcome.code != Code::Unimplemented {
                failures.push(format!(
                    "{} answered {:?} on the public port {addr}",
                    rpc.path, outcome.code
                ));
            }
        }
    }
    failures
}

fn scope() -> Option<discovery::Scope> {
    fixture::scope(P, "", "")
}

/// A well-formed request of every RPC, acting in project P; none changes what a later
/// cell depends on (a scratch source, a clear of an override that was never set).
fn request(path: &str, scratch: &Path, repo_id: &str) -> Option<Vec<u8>> {
    use tables::{discovery as d, index_feed as f, policy as p, sources as s};
    let source_id = repo_id.to_owned();
    let spec = sync::SourceSpec {
        project: P.into(),
        slug: "matrix".into(),
        kind: sync::SourceKind::Local as i32,
        root: scratch.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    };
    let named = |slug: &str| (P.to_owned(), slug.to_owned());
    Some(match path {
        s::CREATE_SOURCE => sync::CreateSourceRequest { source: Some(spec) }.encode_to_vec(),
        s::UPDATE_SOURCE => sync::UpdateSourceRequest { source: Some(spec) }.encode_to_vec(),
        s::GET_SOURCE => {
            let (project, slug) = named("repo");
            sync::GetSourceRequest { project, slug }.encode_to_vec()
        }
        s::LIST_SOURCES => sync::ListSourcesRequest {
            project: P.into(),
            ..Default::default()
        }
        .encode_to_vec(),
        s::DELETE_SOURCE => {
            let (project, slug) = named("never-created");
            sync::DeleteSourceRequest { project, slug }.encode_to_vec()
        }
        s::SYNC_SOURCE => {
            let (project, slug) = named("repo");
            sync::SyncSourceRequest { project, slug }.encode_to_vec()
        }
        f::LIST_PROJECT_SOURCES => {
            feed::ListProjectSourcesRequest { project: P.into() }.encode_to_vec()
        }
        f::LIST_ENTRIES => feed::ListEntriesRequest {
            project: P.into(),
            ..Default::default()
        }
        .encode_to_vec(),
        f::GET_REVISION => feed::GetRevisionRequest { project: P.into() }.encode_to_vec(),
        f::READ_DECIDED_FILE => feed::ReadDecidedFileRequest {
            project: P.into(),
            source: "repo".into(),
            path: ".claude/skills/review/SKILL.md".into(),
            ..Default::default()
        }
        .encode_to_vec(),
        f::SEARCH_CHUNKS => feed::SearchChunksRequest {
            project: P.into(),
            query: "diff".into(),
            limit: 5,
        }
        .encode_to_vec(),
        p::PUT_SOURCE_POLICY => policy::PutSourcePolicyRequest {
            source_id,
            policy: Some(read_policy(vec![])),
        }
        .encode_to_vec(),
        p::GET_SOURCE_POLICY => policy::GetSourcePolicyRequest { source_id }.encode_to_vec(),
        p::SET_SOURCE_ENABLED => policy::SetSourceEnabledRequest {
            source_id,
            enabled: true,
        }
        .encode_to_vec(),
        p::PUT_ROLE_GRANTS => policy::PutRoleGrantsRequest {
            grantor: policy::GrantorKind::Package as i32,
            package_id: "matrix-package".into(),
            grants: Vec::new(),
            project_id: P.into(),
        }
        .encode_to_vec(),
        p::SET_PACKAGE_ENABLED => policy::SetPackageEnabledRequest {
            project_id: P.into(),
            package_key: "matrix/none".into(),
            enabled: true,
            reset: false,
        }
        .encode_to_vec(),
        p::SET_FILE_OVERRIDE => policy::SetFileOverrideRequest {
            scope: policy::OverrideScope::Conversation as i32,
            owner_id: "c1".into(),
            package_key: "repo/claude".into(),
            file_path: ".claude/rules/style.md".into(),
            state: policy::OverrideState::Clear as i32,
            project_id: P.into(),
        }
        .encode_to_vec(),
        p::REGISTER_CONVERSATION => policy::RegisterConversationRequest {
            conversation_id: "c1".into(),
            project_id: P.into(),
            parent_conversation_id: String::new(),
        }
        .encode_to_vec(),
        p::EVALUATE => policy::EvaluateRequest {
            project_id: P.into(),
            caller: Some(policy::CallerScope {
                subject: "ada".into(),
                role: "member".into(),
                project_id: P.into(),
                ..Default::default()
            }),
            ..Default::default()
        }
        .encode_to_vec(),
        // A source never created: forgetting it changes nothing a later cell reads.
        p::FORGET_SOURCE => policy::ForgetSourceRequest {
            source_id: format!("{P}/never-created.0000000000000000"),
        }
        .encode_to_vec(),
        // A source never created: re-keying it moves nothing a later cell reads.
        p::REKEY_PACKAGES => policy::RekeyPackagesRequest {
            source_id: format!("{P}/never-created.0000000000000000"),
            moves: Vec::new(),
        }
        .encode_to_vec(),
        // No package: attaching nothing changes nothing a later cell reads.
        p::ATTACH_PACKAGES => policy::AttachPackagesRequest {
            packages: Vec::new(),
            complete: false,
        }
        .encode_to_vec(),
        // A member's view of a real file, explained: reads only.
        p::EXPLAIN_ACCESS => policy::ExplainAccessRequest {
            project_id: P.into(),
            caller: Some(policy::CallerScope {
                role: "member".into(),
                ..Default::default()
            }),
            source: Some(policy::SourceHeader {
                source_id: source_id.clone(),
                scope: common::SourceScope::Project as i32,
                owner: P.into(),
                data_tree: false,
            }),
            package: Some(policy::PackageCandidate {
                key: "repo/claude".into(),
                origin: common::PackageOrigin::Source as i32,
                source_id,
                root: ".claude".into(),
                ..Default::default()
            }),
            file: Some(policy::FileCandidate {
                path: ".claude/skills/review/SKILL.md".into(),
                category: common::Category::Skill as i32,
                default_enabled: true,
                ..Default::default()
            }),
            ..Default::default()
        }
        .encode_to_vec(),
        d::LIST_PACKAGES => discovery::ListPackagesRequest {
            scope: scope(),
            ..Default::default()
        }
        .encode_to_vec(),
        d::WATCH_PACKAGES => discovery::WatchPackagesRequest {
            scope: scope(),
            ..Default::default()
        }
        .encode_to_vec(),
        d::RENDER_OVERVIEW => discovery::RenderOverviewRequest {
            scope: scope(),
            ..Default::default()
        }
        .encode_to_vec(),
        d::ACTIVATE_SKILL => discovery::ActivateSkillRequest {
            scope: scope(),
            skill_id: "review".into(),
        }
        .encode_to_vec(),
        d::HYDRATE => discovery::HydrateRequest {
            scope: scope(),
            budget_bytes: 0,
        }
        .encode_to_vec(),
        d::LIST_TOOLS => discovery::ListToolsRequest {
            scope: scope(),
            ..Default::default()
        }
        .encode_to_vec(),
        d::READ_FILE => discovery::ReadFileRequest {
            scope: scope(),
            source_slug: "repo".into(),
            package_id: String::new(),
            path: ".claude/skills/review/SKILL.md".into(),
        }
        .encode_to_vec(),
        d::SEARCH => discovery::SearchRequest {
            scope: scope(),
            query: "diff".into(),
            limit: 5,
        }
        .encode_to_vec(),
        d::VALIDATE_PACKAGE => discovery::ValidatePackageRequest {
            files: vec![discovery::PackageFileContent {
                path: "package.json".into(),
                content: br#"{"name": "matrix", "version": "1.0.0"}"#.to_vec(),
            }],
            trust: discovery::Trust::Untrusted as i32,
        }
        .encode_to_vec(),
        _ => return None,
    })
}

/// The expectations, by table: a row per RPC, a column per credential. Kept beside the
/// matrix so a change of a rule shows here as well as in the table.
#[test]
fn the_expectations_read_as_the_rules_say() {
    let column =
        |row: &Row| -> Vec<Expect> { CREDENTIALS.iter().map(|c| expect(row, *c)).collect() };
    use Expect::*;
    let evaluate = row_of(tables::policy::EVALUATE).unwrap();
    assert_eq!(
        column(evaluate),
        [
            Unauthenticated,
            Unauthenticated,
            Unauthenticated,
            PermissionDenied,
            PermissionDenied,
            PermissionDenied,
            Allowed,
            PermissionDenied
        ],
        "a caller token never opens Evaluate"
    );
    let create = row_of(tables::sources::CREATE_SOURCE).unwrap();
    assert_eq!(
        column(create),
        [
            Unauthenticated,
            Unauthenticated,
            Unauthenticated,
            PermissionDenied,
            PermissionDenied,
            Allowed,
            PermissionDenied,
            Allowed
        ],
        "administrators of the project, or platform-wide"
    );
    let list = row_of(tables::discovery::LIST_PACKAGES).unwrap();
    assert_eq!(
        column(list),
        [Empty, Empty, Empty, Empty, Allowed, Allowed, Empty, Allowed]
    );
    let grants = row_of(tables::policy::PUT_ROLE_GRANTS).unwrap();
    assert_eq!(
        column(grants),
        [
            Unauthenticated,
            Unauthenticated,
            Unauthenticated,
            PermissionDenied,
            PermissionDenied,
            Allowed,
            PermissionDenied,
            Allowed
        ],
        "role grants of project P: its administrators, or platform-wide"
    );
    let rows: BTreeMap<&str, usize> = tables::ALL
        .iter()
        .map(|t| (t.service, t.rows.len()))
        .collect();
    assert!(rows.values().all(|n| *n > 0));
}
