//! Helpers of the recognizesPackages tests: a tree on disk, a caller's tool catalog.

use neuralis_discovery::DiscoveryApi;
use neuralis_proto::discovery::v1 as pb;

use super::Harness;

/// Writes `tree` (path, content) under `root`.
pub fn write_tree(root: &std::path::Path, tree: &[(&str, &str)]) {
    for (path, content) in tree {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
}

/// The tool catalog of `agent` (a member of p1 holding `features`).
pub async fn tools_of(
    h: &Harness,
    agent: Option<&str>,
    features: &[&str],
) -> pb::ListToolsResponse {
    h.discovery
        .list_tools(
            super::token_with_features("ada", "member", agent, "p1", features),
            pb::ListToolsRequest {
                scope: Some(pb::Scope {
                    project_id: "p1".into(),
                    agent_id: agent.unwrap_or_default().into(),
                    conversation_id: String::new(),
                }),
                ..Default::default()
            },
        )
        .await
        .unwrap()
}
