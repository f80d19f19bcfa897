//! Before the load: the source tree, its registration, the URI policy that hides one
//! bundle file from the load caller, the first sync, and a check that discovery
//! answers as expected (the skill at generation 0, the hidden file absent).

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use neuralis::node::keys::{TokenFor, mint_token};
use neuralis_identity::Secret;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as pb;
use neuralis_proto::discovery::v1::discovery_service_client::DiscoveryServiceClient;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::policy::v1::policy_service_client::PolicyServiceClient;
use neuralis_proto::sync::v1 as sync;
use neuralis_proto::sync::v1::source_service_client::SourceServiceClient;
use neuralis_tests::fixture::{REPO, write_tree};
use neuralis_tests::process::SECRET;
use tonic::transport::{Channel, Endpoint};

use crate::deploy::Deployment;
use crate::load::{self, HIDDEN, PROJECT, SKILL, SLUG, Target};

fn token(subject: &str, role: &str, agent: Option<&str>) -> Result<String> {
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

fn channel(addr: impl std::fmt::Display) -> Result<Channel> {
    Ok(Endpoint::from_shared(format!("http://{addr}"))?
        .connect_timeout(Duration::from_secs(2))
        .connect_lazy())
}

fn bearer<T>(message: T, token: &str) -> Result<tonic::Request<T>> {
    let mut request = tonic::Request::new(message);
    request.set_timeout(Duration::from_secs(10));
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse()?);
    Ok(request)
}

/// Registers the source and waits until discovery answers the load caller correctly.
pub async fn prepare(deployment: &Deployment) -> Result<Target> {
    let root = deployment.dir().join("tree");
    let scratch = deployment.dir().join("scratch");
    std::fs::create_dir_all(&scratch)?;
    write_tree(&root, REPO)?;
    write_tree(
        &root,
        &[
            (SKILL, load::skill_text(0).as_str()),
            (HIDDEN, load::hidden_text().as_str()),
        ],
    )?;
    let target = Target {
        discovery: channel(deployment.discovery)?,
        sources: channel(deployment.sync)?,
        member: token("ada", "member", Some("a1"))?,
        admin: token("ops", "owner", None)?,
        skill_id: String::new(),
        root: root.clone(),
        scratch,
    };
    let spec = sync::SourceSpec {
        project: PROJECT.into(),
        slug: SLUG.into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    };
    let created = SourceServiceClient::new(target.sources.clone())
        .create_source(bearer(
            sync::CreateSourceRequest { source: Some(spec) },
            &target.admin,
        )?)
        .await
        .context("CreateSource")?;
    let source_id = created
        .into_inner()
        .source
        .map(|s| s.id)
        .unwrap_or_default();
    let hide = policy::PathRule {
        pattern: HIDDEN.into(),
        read: Some(false),
        roles: vec!["member".into()],
        ..Default::default()
    };
    let uri_policy = policy::UriPolicy {
        hide_flagged_files: false,
        default_capabilities: Some(policy::Capabilities {
            read: true,
            write: false,
            exec: false,
        }),
        paths: vec![hide],
    };
    let policy_addr = format!("127.0.0.1:{}", deployment.policy_port);
    PolicyServiceClient::new(channel(policy_addr)?)
        .put_source_policy(bearer(
            policy::PutSourcePolicyRequest {
                source_id,
                policy: Some(uri_policy),
            },
            &target.admin,
        )?)
        .await
        .context("PutSourcePolicy")?;
    load::sync_source(&target)
        .await
        .map_err(|code| anyhow::anyhow!("first SyncSource: {code}"))?;
    let skill_id = ready(&target).await?;
    Ok(Target { skill_id, ..target })
}

/// Waits for discovery to list the skill at generation 0 without the hidden file;
/// returns the skill's id.
async fn ready(target: &Target) -> Result<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = String::from("no answer");
    while Instant::now() < deadline {
        let request = pb::ListPackagesRequest {
            scope: Some(pb::Scope {
                project_id: PROJECT.into(),
                agent_id: "a1".into(),
                conversation_id: String::new(),
            }),
            page_size: 100,
            ..Default::default()
        };
        match DiscoveryServiceClient::new(target.discovery.clone())
            .list_packages(bearer(request, &target.member)?)
            .await
        {
            Ok(answer) => {
                let files: Vec<pb::PackageFile> = answer
                    .into_inner()
                    .packages
                    .into_iter()
                    .flat_map(|p| p.files)
                    .collect();
                if files.iter().any(|f| {
                    f.path.contains("hidden-ledger")
                        || f.files.iter().any(|e| e.contains("hidden-ledger"))
                }) {
                    bail!("the hidden file is listed before any fault: the setup is wrong");
                }
                if let Some(skill) = files.iter().find(|f| f.path == SKILL) {
                    return Ok(skill.id.clone());
                }
                last = format!("{} files, no {SKILL}", files.len());
            }
            Err(status) => last = format!("{status}"),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    bail!("discovery never answered the skill: {last}")
}
