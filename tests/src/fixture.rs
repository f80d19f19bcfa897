//! Source trees written for one scenario, and the calls that register them.

use std::path::Path;

use anyhow::Result;
use futures::StreamExt;
use neuralis_policy::BearerToken;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::policy::v1 as policy;
use neuralis_proto::sync::v1 as sync;

use crate::Cluster;

/// A repository with a `.claude/` folder: a skill with a script, an opt-in rule, an
/// instruction, a doc, and a skill gated behind the `beta` feature.
pub const REPO: &[(&str, &str)] = &[
    (
        ".claude/skills/review/SKILL.md",
        "---\nname: review\ndescription: Reviews a change\n---\nRead the diff first.\n",
    ),
    (
        ".claude/skills/review/scripts/diff.sh",
        "#!/bin/sh\ngit diff --stat\n",
    ),
    (
        ".claude/skills/canary/SKILL.md",
        "---\nname: canary\nrequiredFeatures: [beta]\n---\nShip to one percent.\n",
    ),
    (
        ".claude/rules/style.md",
        "---\nname: style\n---\nPrefer short functions.\n",
    ),
    (
        ".claude/instructions/tone.md",
        "---\nname: tone\n---\nBe direct.\n",
    ),
    (
        ".claude/docs/guide.md",
        "---\nname: guide\n---\nHow we work.\n",
    ),
];

/// Writes `files` under `root`.
pub fn write_tree(root: &Path, files: &[(&str, &str)]) -> Result<()> {
    for (path, content) in files {
        let path = root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, content)?;
    }
    Ok(())
}

/// A read-everything policy, optionally with extra rules.
pub fn read_policy(paths: Vec<policy::PathRule>) -> policy::UriPolicy {
    policy::UriPolicy {
        hide_flagged_files: false,
        default_capabilities: Some(policy::Capabilities {
            read: true,
            write: false,
            exec: false,
        }),
        paths,
    }
}

/// The policy-store id of a source: the id sync assigned at create (never reused).
pub async fn source_id(
    cluster: &Cluster,
    admin: &str,
    project: &str,
    slug: &str,
) -> Result<String> {
    let request = sync::GetSourceRequest {
        project: project.into(),
        slug: slug.into(),
    };
    let found = cluster
        .sources
        .get_source(&BearerToken::new(Some(admin.to_owned())), request)
        .await?;
    Ok(found.source.map(|source| source.id).unwrap_or_default())
}

/// Registers `root` as source `slug` of `project`, stores `uri_policy`, and syncs it;
/// returns the source's id.
pub async fn register(
    cluster: &Cluster,
    admin: &str,
    project: &str,
    slug: &str,
    root: &Path,
    uri_policy: policy::UriPolicy,
) -> Result<String> {
    let caller = BearerToken::new(Some(admin.to_owned()));
    let spec = sync::SourceSpec {
        project: project.into(),
        slug: slug.into(),
        kind: sync::SourceKind::Local as i32,
        root: root.display().to_string(),
        scope: common::SourceScope::Project as i32,
        trigger: "manual".into(),
        ..Default::default()
    };
    let created = cluster
        .sources
        .create_source(&caller, sync::CreateSourceRequest { source: Some(spec) })
        .await?;
    put_policy(cluster, admin, project, slug, uri_policy).await?;
    resync(cluster, admin, project, slug).await?;
    Ok(created.source.map(|source| source.id).unwrap_or_default())
}

/// Replaces a source's URI policy.
pub async fn put_policy(
    cluster: &Cluster,
    admin: &str,
    project: &str,
    slug: &str,
    uri_policy: policy::UriPolicy,
) -> Result<()> {
    let request = policy::PutSourcePolicyRequest {
        source_id: source_id(cluster, admin, project, slug).await?,
        policy: Some(uri_policy),
    };
    cluster
        .policy
        .put_source_policy(BearerToken::new(Some(admin.into())), request)
        .await?;
    Ok(())
}

/// Syncs a source and waits for the run to finish.
pub async fn resync(cluster: &Cluster, admin: &str, project: &str, slug: &str) -> Result<()> {
    let caller = BearerToken::new(Some(admin.to_owned()));
    let request = sync::SyncSourceRequest {
        project: project.into(),
        slug: slug.into(),
    };
    let mut progress = cluster.sources.sync_source(&caller, request).await?;
    while let Some(update) = progress.next().await {
        update?;
    }
    Ok(())
}

/// The scope of a discovery call.
pub fn scope(project: &str, agent: &str, conversation: &str) -> Option<discovery::Scope> {
    Some(discovery::Scope {
        project_id: project.into(),
        agent_id: agent.into(),
        conversation_id: conversation.into(),
    })
}

/// `(path, state)` of every file a caller sees, in answer order.
pub async fn visible(
    cluster: &Cluster,
    token: &str,
    scope: Option<discovery::Scope>,
) -> Result<Vec<(String, discovery::FileState)>> {
    let caller = neuralis_discovery::CallerToken::new(Some(token.into()));
    let answer = cluster
        .discovery
        .list_packages(
            caller,
            discovery::ListPackagesRequest {
                scope,
                ..Default::default()
            },
        )
        .await?;
    Ok(answer
        .packages
        .into_iter()
        .flat_map(|p| p.files)
        .map(|f| {
            (
                f.path,
                discovery::FileState::try_from(f.state)
                    .unwrap_or(discovery::FileState::Unspecified),
            )
        })
        .collect())
}

/// The state of one path in an answer, if visible.
pub fn state_of(
    answer: &[(String, discovery::FileState)],
    path: &str,
) -> Option<discovery::FileState> {
    answer.iter().find(|(p, _)| p == path).map(|(_, s)| *s)
}
