//! A per-project base (`sync.allowed_roots: [".../{project}"]`): each project's roots
//! must lie in its own folder, so an administrator of one project cannot make a source
//! of another project's files, by naming them or through a link in its own folder. A
//! shared base (no placeholder) lets any project's root lie anywhere under it.

mod support;

use neuralis_bus::InProcessBus;
use neuralis_proto::sync::v1 as pb;
use neuralis_sync::SyncError;
use std::path::Path;
use std::sync::Arc;
use support::{Harness, Setup, client, local_spec};

async fn started(base: &Path) -> Harness {
    let mut setup = Setup::with_bus(Arc::new(InProcessBus::default()));
    setup.config.allowed_roots = vec![base.join("{project}")];
    support::start(setup).await
}

/// An administrator of `project` creates a source over `root`.
async fn create(
    harness: &Harness,
    project: &str,
    root: &Path,
) -> Result<pb::CreateSourceResponse, SyncError> {
    let spec = local_spec(project, "repo", root, "manual");
    let request = pb::CreateSourceRequest { source: Some(spec) };
    let admin = client::token("owner", Some(project));
    harness.client.create_source(&admin, request).await
}

fn refused_root(result: Result<pb::CreateSourceResponse, SyncError>) -> bool {
    matches!(result, Err(SyncError::InvalidArgument { ref field, .. }) if field == "source.root")
}

#[tokio::test]
async fn an_administrator_cannot_make_a_source_of_another_projects_folder() {
    let base = tempfile::tempdir().expect("tempdir");
    let base = std::fs::canonicalize(base.path()).expect("canonical");
    for folder in ["p1/repo", "p2"] {
        std::fs::create_dir_all(base.join(folder)).expect("dir");
    }
    std::os::unix::fs::symlink(base.join("p1/repo"), base.join("p2/link")).expect("link");
    let harness = started(&base).await;
    assert!(
        refused_root(create(&harness, "p2", &base.join("p1/repo")).await),
        "p1's folder, named"
    );
    assert!(
        refused_root(create(&harness, "p2", &base.join("p2/link")).await),
        "p1's folder, through a link in p2's"
    );
    assert!(
        refused_root(create(&harness, "p2", &base.join("p2")).await),
        "p2's own folder holds every source of p2: not a root"
    );
    create(&harness, "p1", &base.join("p1/repo"))
        .await
        .expect("p1's own folder");
}
