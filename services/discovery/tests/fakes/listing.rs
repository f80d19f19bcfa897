//! What most tests ask discovery and write into the fake index: the whole listing of
//! project `p1`, and files with nothing but a name in their frontmatter.

use neuralis_discovery::{CallerToken, DiscoveryApi};
use neuralis_proto::discovery::v1 as pb;

use super::Harness;

/// `ListPackages` for project `p1`, with no agent or conversation: every page.
pub fn list_request() -> pb::ListPackagesRequest {
    pb::ListPackagesRequest {
        scope: Some(pb::Scope {
            project_id: "p1".into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The packages `caller` is listed.
pub async fn packages(h: &Harness, caller: CallerToken) -> Vec<pb::Package> {
    h.discovery
        .list_packages(caller, list_request())
        .await
        .unwrap()
        .packages
}

/// The body of a file whose frontmatter names it `name`.
pub fn named(name: &str) -> String {
    format!("---\nname: {name}\n---\n")
}
