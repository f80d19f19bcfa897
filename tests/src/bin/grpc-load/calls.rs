//! The project under load and the calls made against it: a no-op (health Check on the
//! same server), `ListPackages` and `ActivateSkill` as a member acting as an agent, and
//! policy `Evaluate` as discovery sends it (its service credential, the project's
//! candidates in one batch).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use futures::StreamExt;
use neuralis::node::keys::{TokenFor, mint_token};
use neuralis_host::peer::{PeerOptions, Resolve, Resolved, peer_channel};
use neuralis_host::tls::ClientTls;
use neuralis_identity::{BearerToken, KeySource, Secret, ServiceIdentityConfig, ServiceSigner};
use neuralis_policy::{PolicyApi, PolicyGrpcClient};
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;
use neuralis_sync::SourceApi;
use neuralis_sync::grpc::SourceGrpcClient;
use neuralis_tests::process::{SECRET, SERVICE_SECRET};
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

pub const PROJECT: &str = "load";
const AGENT: &str = "a1";

/// Writes the project: `tools` tool folders (two skills, a rule and a doc each) and
/// `filler` ordinary source files beside them; returns the files written.
pub fn write_tree(root: &Path, tools: usize, filler: usize) -> Result<usize> {
    let mut files = 0;
    let mut put = |path: String, body: String| -> Result<()> {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap_or(root))?;
        std::fs::write(path, body)?;
        files += 1;
        Ok(())
    };
    for i in 0..tools {
        for k in 0..2 {
            // The folder is named as the skill, so a bare id finds it.
            put(
                format!("tools/t{i}/skills/t{i}-s{k}/SKILL.md"),
                format!("---\nname: t{i}-s{k}\ndescription: skill {k} of tool {i}\n---\nDo it.\n"),
            )?;
        }
        put(
            format!("tools/t{i}/rules/r.md"),
            format!("---\nname: t{i}-rule\n---\nA rule.\n"),
        )?;
        put(
            format!("tools/t{i}/docs/d.md"),
            format!("---\nname: t{i}-doc\n---\nA doc.\n"),
        )?;
    }
    for j in 0..filler {
        put(
            format!("src/m{}/f{j}.rs", j / 100),
            format!("pub fn f{j}() -> u32 {{ {j} }}\n"),
        )?;
    }
    Ok(files)
}

/// A caller token signed with the key every process of the run verifies.
pub fn token(subject: &str, role: &str, agent: Option<&str>) -> Result<String> {
    mint_token(
        &Secret::new(SECRET.to_owned()),
        TokenFor {
            subject: subject.into(),
            role: role.into(),
            agent: agent.map(str::to_owned),
            project: Some(PROJECT.into()),
            ttl_seconds: 3600,
            ..TokenFor::default()
        },
    )
}

/// Registers `root` as a source of the project, readable by every member, and syncs
/// it; returns the source id.
pub async fn register(sync_addr: SocketAddr, root: &Path) -> Result<String> {
    let owner = BearerToken::new(Some(token("ops", "owner", None)?));
    let channel = Endpoint::from_shared(format!("http://{sync_addr}"))?.connect_lazy();
    let sources = SourceGrpcClient::new(channel.clone());
    let spec = sync::SourceSpec {
        project: PROJECT.into(),
        slug: "repo".into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    };
    let created = sources
        .create_source(&owner, sync::CreateSourceRequest { source: Some(spec) })
        .await?;
    let id = created.source.map(|s| s.id).unwrap_or_default();
    Ok(id)
}

/// Stores the read-everything policy of `source_id` through `policy_addr`, then syncs.
pub async fn put_policy_and_sync(
    sync_addr: SocketAddr,
    policy_addr: SocketAddr,
    source_id: &str,
) -> Result<()> {
    let owner = BearerToken::new(Some(token("ops", "owner", None)?));
    let channel = Endpoint::from_shared(format!("http://{policy_addr}"))?.connect_lazy();
    PolicyGrpcClient::new(channel, 32 << 20)
        .put_source_policy(
            owner.clone(),
            policy::PutSourcePolicyRequest {
                source_id: source_id.into(),
                policy: Some(policy::UriPolicy {
                    hide_flagged_files: false,
                    default_capabilities: Some(policy::Capabilities {
                        read: true,
                        write: false,
                        exec: false,
                    }),
                    paths: vec![],
                }),
            },
        )
        .await?;
    let channel = Endpoint::from_shared(format!("http://{sync_addr}"))?.connect_lazy();
    let mut progress = SourceGrpcClient::new(channel)
        .sync_source(
            &owner,
            sync::SyncSourceRequest {
                project: PROJECT.into(),
                slug: "repo".into(),
            },
        )
        .await?;
    while let Some(update) = progress.next().await {
        update.context("sync run")?;
    }
    Ok(())
}

/// Addresses named once, for a client balanced over several replicas.
struct Fixed(Vec<SocketAddr>);

impl Resolve for Fixed {
    fn resolve(&self, _host: &str, _port: u16) -> Resolved {
        let addrs = self.0.clone();
        Box::pin(async move { Ok(addrs) })
    }
}

/// One channel to `addrs`: a plain one for one address, balanced (as discovery's own
/// peer channel is) over several.
pub fn channel(addrs: &[SocketAddr]) -> Result<Channel> {
    if let [one] = addrs {
        return Ok(Endpoint::from_shared(format!("http://{one}"))?.connect_lazy());
    }
    let options = PeerOptions {
        timeout: Duration::from_secs(10),
        ..PeerOptions::default()
    };
    let peer = peer_channel(
        &ClientTls::default(),
        "http://policy-replicas.load:7400",
        "policy",
        options,
        Arc::new(Fixed(addrs.to_vec())),
    )?;
    Ok(peer.channel)
}

fn with_bearer<T>(message: T, token: &str, timeout: Duration) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Ok(value) = MetadataValue::try_from(format!("Bearer {token}")) {
        request.metadata_mut().insert("authorization", value);
    }
    request.set_timeout(timeout);
    request
}

/// The no-op: `grpc.health.v1.Health/Check` of the whole server.
pub async fn noop(channel: Channel, timeout: Duration) -> Result<(), tonic::Status> {
    let mut request = tonic::Request::new(HealthCheckRequest {
        service: String::new(),
    });
    request.set_timeout(timeout);
    HealthClient::new(channel).check(request).await.map(drop)
}

fn scope() -> Option<discovery::Scope> {
    Some(discovery::Scope {
        project_id: PROJECT.into(),
        agent_id: AGENT.into(),
        conversation_id: String::new(),
    })
}

/// The member's token (acting as agent `a1`).
pub fn member() -> Result<String> {
    token("ada", "member", Some(AGENT))
}

pub async fn list_packages(
    channel: Channel,
    token: Arc<str>,
    timeout: Duration,
) -> Result<(), tonic::Status> {
    let request = discovery::ListPackagesRequest {
        scope: scope(),
        ..Default::default()
    };
    discovery::discovery_service_client::DiscoveryServiceClient::new(channel)
        .list_packages(with_bearer(request, &token, timeout))
        .await
        .map(drop)
}

/// Activates skill `n % (2 * tools)` by its bare id.
pub async fn activate_skill(
    channel: Channel,
    token: Arc<str>,
    timeout: Duration,
    n: usize,
    tools: usize,
) -> Result<(), tonic::Status> {
    let skill = n % (2 * tools.max(1));
    let request = discovery::ActivateSkillRequest {
        scope: scope(),
        skill_id: format!("t{}-s{}", skill / 2, skill % 2),
    };
    discovery::discovery_service_client::DiscoveryServiceClient::new(channel)
        .activate_skill(with_bearer(request, &token, timeout))
        .await
        .map(drop)
}

/// Discovery's service credential (what authorizes `Evaluate`).
pub fn discovery_credential() -> Result<String> {
    let config = ServiceIdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new(SERVICE_SECRET.to_owned()),
        },
        ..ServiceIdentityConfig::default()
    };
    let signer = ServiceSigner::from_config(&config, "discovery")?;
    Ok(signer
        .credential()?
        .expose()
        .map(str::to_owned)
        .unwrap_or_default())
}

/// The batch discovery sends for a `ListPackages` of the project: every tool package
/// and its four files, for the member acting as the agent.
pub fn evaluate_batch(source_id: &str, tools: usize) -> policy::EvaluateRequest {
    let mut packages = Vec::with_capacity(tools);
    let mut files = Vec::with_capacity(tools * 4);
    for i in 0..tools {
        packages.push(policy::PackageCandidate {
            key: format!("{source_id}/tools/t{i}"),
            origin: common::PackageOrigin::Source as i32,
            source_id: source_id.into(),
            root: format!("tools/t{i}"),
            ..Default::default()
        });
        let members = [
            (format!("skills/t{i}-s0/SKILL.md"), common::Category::Skill),
            (format!("skills/t{i}-s1/SKILL.md"), common::Category::Skill),
            ("rules/r.md".to_owned(), common::Category::Rule),
            ("docs/d.md".to_owned(), common::Category::Docs),
        ];
        for (path, category) in members {
            files.push(policy::FileCandidate {
                package_index: i as u32,
                path: format!("tools/t{i}/{path}"),
                category: category as i32,
                default_enabled: category != common::Category::Rule,
                ..Default::default()
            });
        }
    }
    policy::EvaluateRequest {
        project_id: PROJECT.into(),
        conversation_id: String::new(),
        sources: vec![policy::SourceHeader {
            source_id: source_id.into(),
            scope: common::SourceScope::Project as i32,
            owner: PROJECT.into(),
            data_tree: false,
        }],
        packages,
        files,
        caller: Some(policy::CallerScope {
            subject: "ada".into(),
            role: "member".into(),
            agent_id: AGENT.into(),
            project_id: PROJECT.into(),
            ..Default::default()
        }),
    }
}

pub async fn evaluate(
    channel: Channel,
    credential: Arc<str>,
    batch: Arc<policy::EvaluateRequest>,
    timeout: Duration,
) -> Result<(), tonic::Status> {
    let request = with_bearer((*batch).clone(), &credential, timeout);
    policy::policy_service_client::PolicyServiceClient::new(channel)
        .max_decoding_message_size(32 << 20)
        .evaluate(request)
        .await
        .map(drop)
}
