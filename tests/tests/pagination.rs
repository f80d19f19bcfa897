//! Pagination of list calls (issue 12, "polyglot API"): over gRPC, paging through
//! `ListSources` and `ListPackages` with a small `page_size` answers every item exactly once, in the
//! order of the unpaged answer; `page_size` 0 answers everything; a negative size or a
//! token the service never issued is INVALID_ARGUMENT naming the field.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use neuralis_proto::common::v1 as common;
use neuralis_proto::details;
use neuralis_proto::discovery::v1 as discovery;
use neuralis_proto::sync::v1 as sync;
use neuralis_tests::Cluster;
use neuralis_tests::fixture;
use sync::source_service_client::SourceServiceClient;
use tonic::Code;
use tonic::transport::Channel;

const P: &str = "proj";

fn request<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    request
}

async fn list(
    client: &mut SourceServiceClient<Channel>,
    token: &str,
    page_size: i32,
    page_token: &str,
) -> Result<sync::ListSourcesResponse, tonic::Status> {
    let message = sync::ListSourcesRequest {
        project: P.into(),
        page_size,
        page_token: page_token.into(),
    };
    client
        .list_sources(request(message, token))
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paging_through_list_sources_answers_every_source_once_in_order() {
    let cluster = Cluster::all_in_one(Default::default()).await.unwrap();
    let admin = cluster.token("ops", "owner", None, P);
    let channel = neuralis_tests::cluster::channel(cluster.addrs["sync"], None).unwrap();
    let mut client = SourceServiceClient::new(channel);
    let roots = tempfile::tempdir().unwrap();
    for i in 0..5 {
        let root = roots.path().join(format!("r{i}"));
        std::fs::create_dir_all(&root).unwrap();
        let spec = sync::SourceSpec {
            project: P.into(),
            slug: format!("repo-{i}"),
            kind: sync::SourceKind::Local as i32,
            root: root.display().to_string(),
            scope: common::SourceScope::Project as i32,
            trigger: "manual".into(),
            ..Default::default()
        };
        let create = sync::CreateSourceRequest { source: Some(spec) };
        client.create_source(request(create, &admin)).await.unwrap();
    }
    let everything = list(&mut client, &admin, 0, "").await.unwrap();
    assert_eq!(everything.sources.len(), 5);
    assert!(everything.next_page_token.is_empty());

    for size in [1, 2, 3, 5, 6] {
        let (mut seen, mut token, mut pages) = (Vec::new(), String::new(), 0);
        loop {
            let page = list(&mut client, &admin, size, &token).await.unwrap();
            assert!(page.sources.len() <= size as usize);
            seen.extend(page.sources);
            pages += 1;
            if page.next_page_token.is_empty() {
                break;
            }
            token = page.next_page_token;
        }
        assert_eq!(seen, everything.sources, "page size {size}");
        assert_eq!(pages, 5usize.div_ceil(size as usize), "page size {size}");
    }

    for (size, token, field) in [(-1, "", "page_size"), (2, "not-a-token", "page_token")] {
        let status = list(&mut client, &admin, size, token).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(details::field_of(&status).as_deref(), Some(field));
    }
    cluster.stop().await.unwrap();
}

const SKILL: &str = "---\nname: review\ndescription: Reviews code\n---\nRead the diff.\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paging_through_list_packages_answers_every_package_once_in_order() {
    let cluster = Cluster::all_in_one(Default::default()).await.unwrap();
    let admin = cluster.token("ops", "owner", None, P);
    let member = cluster.token("ada", "member", Some("agent"), P);
    let root = tempfile::tempdir().unwrap();
    let files: Vec<(String, &str)> = (0..4)
        .map(|i| (format!("pkg{i}/.claude/skills/s{i}/SKILL.md"), SKILL))
        .collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), *c)).collect();
    fixture::write_tree(root.path(), &files).unwrap();
    let policy = fixture::read_policy(Vec::new());
    fixture::register(&cluster, &admin, P, "repo", root.path(), policy)
        .await
        .unwrap();
    let channel = neuralis_tests::cluster::channel(cluster.addrs["discovery"], None).unwrap();
    let mut client = discovery::discovery_service_client::DiscoveryServiceClient::new(channel);
    let mut list = async |page_size: i32, page_token: &str| {
        let message = discovery::ListPackagesRequest {
            scope: fixture::scope(P, "agent", ""),
            page_size,
            page_token: page_token.into(),
        };
        client
            .list_packages(request(message, &member))
            .await
            .map(tonic::Response::into_inner)
    };
    let everything = list(0, "").await.unwrap();
    assert!(everything.packages.len() >= 4, "{:?}", everything.packages);
    for size in [1, 3] {
        let (mut seen, mut token) = (Vec::new(), String::new());
        loop {
            let page = list(size, &token).await.unwrap();
            assert!(page.packages.len() <= size as usize);
            seen.extend(page.packages);
            if page.next_page_token.is_empty() {
                break;
            }
            token = page.next_page_token;
        }
        assert_eq!(seen, everything.packages, "page size {size}");
    }
    let status = list(1, "1.zz").await.unwrap_err();
    assert_eq!(details::field_of(&status).as_deref(), Some("page_token"));
    cluster.stop().await.unwrap();
}
