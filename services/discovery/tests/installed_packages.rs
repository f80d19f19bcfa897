//! Installed packages in the caller's answer: first in order, never loaded twice from a
//! source that mounts their directory, and the tool catalog with contested names.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use std::path::PathBuf;
use std::sync::Arc;

use fakes::{good, harness_with};
use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
use neuralis_discovery::DiscoveryApi;
use neuralis_discovery::adapters::LoadedCatalog;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as pb;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/installed")
}

fn catalog() -> Arc<LoadedCatalog> {
    let root = fixtures();
    let roots = Roots {
        dependency_tree: Some(root.join("host")),
        drop_zone: Some(root.join("_packages")),
        trusted_dirs: vec![root.join("trusted/ops")],
    };
    let catalog = Catalog::load(&roots, ReadLimits::default(), &Extras::default()).unwrap();
    Arc::new(LoadedCatalog::new(catalog, &roots))
}

fn scope() -> Option<pb::Scope> {
    Some(pb::Scope {
        project_id: "p1".into(),
        agent_id: String::new(),
        conversation_id: String::new(),
    })
}

#[tokio::test]
async fn installed_packages_come_first_and_a_mounted_package_directory_is_not_loaded_twice() {
    let h = harness_with(catalog()).await;
    // A source mounted on the drop-zone: its `helper` folder IS the installed package.
    let zone = fixtures().join("_packages");
    h.index
        .local_roots
        .lock()
        .unwrap()
        .insert("zone".into(), zone.clone());
    for file in ["package.json", "skills/notes/SKILL.md", "rules/strict.md"] {
        let content = std::fs::read_to_string(zone.join("helper").join(file)).unwrap();
        h.index.put("zone", &format!("helper/{file}"), &content);
    }
    h.index.put(
        "zone",
        ".claude/skills/local/SKILL.md",
        "---\nname: local\n---\n",
    );
    let answer = h
        .discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let origins: Vec<(i32, String)> = answer
        .packages
        .iter()
        .map(|p| (p.origin, p.name.clone()))
        .collect();
    let first_source = origins
        .iter()
        .position(|(o, _)| *o == common::PackageOrigin::Source as i32)
        .unwrap();
    assert!(first_source > 0, "installed packages exist: {origins:?}");
    assert!(
        origins[..first_source]
            .iter()
            .all(|(o, _)| *o == common::PackageOrigin::Installed as i32),
        "{origins:?}"
    );
    let source_names: Vec<&str> = origins[first_source..]
        .iter()
        .map(|(_, n)| n.as_str())
        .collect();
    assert_eq!(
        source_names,
        [".claude"],
        "the helper directory contributes nothing from the source"
    );
}

#[tokio::test]
async fn the_tool_catalog_lists_every_contested_name_with_its_claimants() {
    let h = harness_with(catalog()).await;
    let tools = h
        .discovery
        .list_tools(
            good(),
            pb::ListToolsRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let search = tools
        .contested
        .iter()
        .find(|c| c.name == "search")
        .expect("search is contested");
    assert!(search.claimants.len() >= 2, "{search:?}");
    assert_eq!(
        search.claimants[0], search.owner,
        "the owner is listed first"
    );
    let answering: Vec<&str> = tools
        .tools
        .iter()
        .filter(|t| t.name == "search")
        .map(|t| t.package_id.as_str())
        .collect();
    assert_eq!(
        answering,
        [search.owner.as_str()],
        "one claimant answers the name"
    );
    let unverified = h
        .discovery
        .list_tools(
            neuralis_discovery::CallerToken::new(None),
            pb::ListToolsRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(unverified.tools.is_empty() && unverified.contested.is_empty());
}

#[tokio::test]
async fn paging_through_list_tools_answers_every_tool_once_in_order() {
    let h = harness_with(catalog()).await;
    let list = |page_size: i32, page_token: String| pb::ListToolsRequest {
        scope: scope(),
        page_size,
        page_token,
    };
    let all = h
        .discovery
        .list_tools(good(), list(0, String::new()))
        .await
        .unwrap();
    assert!(all.tools.len() >= 2, "{:?}", all.tools);
    let (mut seen, mut token) = (Vec::new(), String::new());
    loop {
        let page = h
            .discovery
            .list_tools(good(), list(1, token))
            .await
            .unwrap();
        assert!(page.tools.len() <= 1);
        assert_eq!(
            page.contested, all.contested,
            "contested is answered on every page"
        );
        seen.extend(page.tools);
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(seen, all.tools);
}

#[tokio::test]
async fn read_file_reads_an_installed_packages_file_by_package_id_and_policy_key() {
    let h = harness_with(catalog()).await;
    let answer = h
        .discovery
        .list_packages(
            good(),
            pb::ListPackagesRequest {
                scope: scope(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let (package, file) = answer
        .packages
        .iter()
        .filter(|p| p.origin == common::PackageOrigin::Installed as i32)
        .find_map(|p| {
            let active = p
                .files
                .iter()
                .find(|f| f.state() == pb::FileState::Active)?;
            Some((p, active))
        })
        .expect("an installed package with an active file");
    assert_eq!(
        package.policy_key, package.package_id,
        "installed: keyed by id"
    );
    let request = |source_slug: &str, package_id: &str| pb::ReadFileRequest {
        scope: scope(),
        source_slug: source_slug.into(),
        package_id: package_id.into(),
        path: file.path.clone(),
    };
    let read = h
        .discovery
        .read_file(good(), request("", &package.package_id))
        .await
        .unwrap();
    assert!(!read.content.is_empty());
    // The same path named as a source's file is another file: not found.
    let elsewhere = h
        .discovery
        .read_file(good(), request(&package.package_id, ""))
        .await;
    assert_eq!(elsewhere, Err(neuralis_discovery::DiscoveryError::NotFound));
}

/// A drop zone (`<dir>/_packages`) holding a copy of the fixture package `helper`:
/// the temporary directory, the zone and the package's directory.
fn drop_zone_with_helper() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let zone = dir.path().join("_packages");
    let helper = zone.join("helper");
    let fixture = fixtures().join("_packages/helper");
    for file in ["package.json", "rules/strict.md", "skills/notes/SKILL.md"] {
        std::fs::create_dir_all(helper.join(file).parent().unwrap()).unwrap();
        std::fs::copy(fixture.join(file), helper.join(file)).unwrap();
    }
    (dir, zone, helper)
}

/// An installed package's files are read as a source's are: no link followed. A file
/// swapped for a link after the load (to another file of the package, or outside it)
/// reads nothing; a file the load found behind an in-package link is read at its real
/// path.
#[test]
fn an_installed_file_swapped_for_a_link_after_the_load_reads_nothing() {
    use neuralis_discovery::ports::InstalledCatalog;
    let (dir, zone, helper) = drop_zone_with_helper();
    std::os::unix::fs::symlink(
        helper.join("rules/strict.md"),
        helper.join("rules/alias.md"),
    )
    .unwrap();
    let secret = dir.path().join("secret.md");
    std::fs::write(&secret, "zqoutside").unwrap();
    let roots = Roots {
        drop_zone: Some(zone),
        ..Roots::default()
    };
    let catalog = Catalog::load(&roots, ReadLimits::default(), &Extras::default()).unwrap();
    let loaded = LoadedCatalog::new(catalog, &roots);
    let id = loaded.packages()[0].package_id.clone();
    let strict = std::fs::read(helper.join("rules/strict.md")).unwrap();
    assert_eq!(loaded.read(&id, "rules/strict.md").unwrap(), strict);
    assert_eq!(loaded.read(&id, "rules/alias.md").unwrap(), strict);

    // A link to another file of the package (one the caller's answer may not hold),
    // then out of the package: nothing either way.
    for target in [helper.join("skills/notes/SKILL.md"), secret] {
        std::fs::remove_file(helper.join("rules/strict.md")).unwrap();
        std::os::unix::fs::symlink(&target, helper.join("rules/strict.md")).unwrap();
        for path in ["rules/strict.md", "rules/alias.md"] {
            let read = loaded.read(&id, path);
            let refused = Err(neuralis_discovery::DiscoveryError::NotFound);
            assert_eq!(read, refused, "{path} -> {}", target.display());
        }
    }
    std::fs::remove_dir_all(helper.join("skills/notes")).unwrap();
    std::os::unix::fs::symlink(dir.path(), helper.join("skills/notes")).unwrap();
    let read = loaded.read(&id, "skills/notes/secret.md");
    assert_eq!(read, Err(neuralis_discovery::DiscoveryError::NotFound));
}

/// The attacker writes in the drop zone: after the load it moves a package's directory
/// away and puts a link in its place, to a folder holding a file of the same name (any
/// folder the server can read, its own data directory included), or a new directory of
/// that name. The package's files are read from the directory the load listed, never
/// through its name again: every read is not found.
#[test]
fn an_installed_package_directory_swapped_after_the_load_reads_nothing() {
    use neuralis_discovery::ports::InstalledCatalog;
    let (dir, zone, helper) = drop_zone_with_helper();
    let elsewhere = dir.path().join("server-data");
    std::fs::create_dir_all(elsewhere.join("rules")).unwrap();
    std::fs::write(elsewhere.join("rules/strict.md"), "zqserversecret").unwrap();
    let roots = Roots {
        drop_zone: Some(zone),
        ..Roots::default()
    };
    let catalog = Catalog::load(&roots, ReadLimits::default(), &Extras::default()).unwrap();
    let loaded = LoadedCatalog::new(catalog, &roots);
    let id = loaded.packages()[0].package_id.clone();
    assert!(
        loaded.read(&id, "rules/strict.md").is_ok(),
        "read before the swap"
    );

    std::fs::rename(&helper, dir.path().join("moved")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &helper).unwrap();
    let read = loaded.read(&id, "rules/strict.md");
    assert_eq!(read, Err(neuralis_discovery::DiscoveryError::NotFound));

    // A new directory of the same name, holding a file of the same name: not the one
    // listed either.
    std::fs::remove_file(&helper).unwrap();
    std::fs::create_dir_all(helper.join("rules")).unwrap();
    std::fs::write(helper.join("rules/strict.md"), "zqswapped").unwrap();
    let read = loaded.read(&id, "rules/strict.md");
    assert_eq!(read, Err(neuralis_discovery::DiscoveryError::NotFound));
}

/// The same swap between the catalog's load and its wrap (when discovery opens each
/// package's reader): the reader followed the link and served the other folder's
/// files under the dropped package's id. Now the package gets no reader at all.
#[test]
fn a_dropped_package_swapped_for_a_link_between_load_and_wrap_reads_nothing() {
    use neuralis_discovery::ports::InstalledCatalog;
    let (dir, zone, helper) = drop_zone_with_helper();
    let elsewhere = dir.path().join("other-project");
    std::fs::create_dir_all(elsewhere.join("rules")).unwrap();
    std::fs::write(elsewhere.join("rules/strict.md"), "zqotherproject").unwrap();
    let roots = Roots {
        drop_zone: Some(zone),
        ..Roots::default()
    };
    let catalog = Catalog::load(&roots, ReadLimits::default(), &Extras::default()).unwrap();
    std::fs::rename(&helper, dir.path().join("moved")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &helper).unwrap();
    let loaded = LoadedCatalog::new(catalog, &roots);
    let package = &loaded.packages()[0];
    assert!(package.sizes.is_empty(), "{:?}", package.sizes);
    let read = loaded.read(&package.package_id, "rules/strict.md");
    assert_eq!(read, Err(neuralis_discovery::DiscoveryError::NotFound));
}

/// A flagged source's zone, read as the path its root gate resolved, swapped whole for
/// a link to another project's zone (holding a package of the same folder name) between
/// the load and the wrap: resolved a second time at the wrap, the link was followed and
/// the other folder listed under the package's id.
#[test]
fn a_resolved_zone_swapped_for_a_link_between_load_and_wrap_reads_nothing() {
    use neuralis_discovery::ports::InstalledCatalog;
    let (dir, zone, _helper) = drop_zone_with_helper();
    let zone = std::fs::canonicalize(zone).unwrap();
    let other = dir.path().join("other-project");
    std::fs::create_dir_all(other.join("helper/rules")).unwrap();
    std::fs::write(other.join("helper/rules/strict.md"), "zqotherproject").unwrap();
    let roots = Roots {
        drop_zone: Some(zone.clone()),
        ..Roots::default()
    };
    let catalog =
        Catalog::load_resolved_zone(&zone, ReadLimits::default(), &Extras::default()).unwrap();
    std::fs::rename(&zone, dir.path().join("moved")).unwrap();
    std::os::unix::fs::symlink(&other, &zone).unwrap();
    let loaded = LoadedCatalog::of_resolved_zone(catalog, &roots);
    let package = &loaded.packages()[0];
    assert!(package.sizes.is_empty(), "{:?}", package.sizes);
    let read = loaded.read(&package.package_id, "rules/strict.md");
    assert_eq!(read, Err(neuralis_discovery::DiscoveryError::NotFound));
}
