use super::*;
use proptest::prelude::*;

fn rules(protected: &[&str], allowed: &[&str], require_allowed: bool) -> RootRules {
    RootRules {
        protected: protected.iter().map(PathBuf::from).collect(),
        allowed: allowed.iter().map(PathBuf::from).collect(),
        require_allowed,
    }
}

fn check(root: &str, rules: &RootRules) -> Result<(), RootRefusal> {
    check_root(root, Path::new(root), rules)
}

#[test]
fn a_root_is_refused_when_it_could_serve_what_the_server_keeps() {
    use RootRefusal::*;
    let data = rules(&["/srv/neuralis/data", "/keys"], &[], false);
    let cases: &[(&str, Result<(), RootRefusal>)] = &[
        ("/", Err(FilesystemRoot)),
        ("/etc", Err(SystemDirectory)),
        ("/etc/x", Err(SystemDirectory)),
        ("/proc/1/root", Err(SystemDirectory)),
        ("/usr/share/doc", Err(SystemDirectory)),
        ("/var/lib/app", Err(SystemDirectory)),
        ("/root", Err(SystemDirectory)),
        ("/lib64", Err(SystemDirectory)),
        ("/srv/neuralis/data", Err(ServerData)),
        ("/srv/neuralis/data/sub", Err(ServerData)),
        ("/srv/neuralis", Err(ServerData)),
        ("/srv", Err(ServerData)),
        ("/keys", Err(ServerData)),
        ("/srv/neuralis/data-other", Ok(())),
        ("/etcetera", Ok(())),
        ("/home/alice/repo", Ok(())),
        ("relative/repo", Err(NotAbsolute)),
        ("", Err(NotAbsolute)),
        ("/home/alice/../../etc", Err(RelativeSegment)),
        ("/home/./alice", Err(RelativeSegment)),
        ("/home/alice/..", Err(RelativeSegment)),
    ];
    for (root, expected) in cases {
        assert_eq!(check(root, &data), *expected, "{root:?}");
    }
}

/// A base itself is refused too: it holds every source's folder (the chart mounts each
/// project's volumes under `/srv/sources`), so a source over it reads them all.
#[test]
fn allowed_roots_bound_where_a_root_may_lie_and_a_base_is_no_root() {
    use RootRefusal::*;
    let bounded = rules(&["/data/neuralis"], &["/data/sources", "/mnt/repos"], true);
    let cases: &[(&str, Result<(), RootRefusal>)] = &[
        ("/data/sources", Err(AllowedBase)),
        ("/mnt/repos", Err(AllowedBase)),
        ("/data/sources/team/repo", Ok(())),
        ("/mnt/repos/x", Ok(())),
        ("/data/sources-other", Err(OutsideAllowedRoots)),
        ("/home/alice", Err(OutsideAllowedRoots)),
        ("/data", Err(ServerData)),
        ("/etc/sources", Err(SystemDirectory)),
    ];
    for (root, expected) in cases {
        assert_eq!(check(root, &bounded), *expected, "{root:?}");
    }
    let split_without_bases = rules(&[], &[], true);
    assert_eq!(
        check("/home/alice/repo", &split_without_bases),
        Err(NoAllowedRoots)
    );
    assert!(
        NoAllowedRoots.to_string().contains(ALLOWED_ROOTS_SETTING),
        "the error names the setting"
    );
}

#[test]
fn a_link_is_judged_by_its_name_and_by_its_target() {
    let open = RootRules::default();
    // A harmless name resolving into /etc, and a system name resolving elsewhere.
    assert_eq!(
        check_root("/home/alice/cfg", Path::new("/etc"), &open),
        Err(RootRefusal::SystemDirectory)
    );
    assert_eq!(
        check_root("/etc/alias", Path::new("/home/alice"), &open),
        Err(RootRefusal::SystemDirectory)
    );
    let data = rules(&["/srv/data"], &[], false);
    assert_eq!(
        check_root("/home/alice/link", Path::new("/srv"), &data),
        Err(RootRefusal::ServerData)
    );
}

#[test]
fn no_refusal_names_a_path() {
    for refusal in [
        RootRefusal::NotAbsolute,
        RootRefusal::RelativeSegment,
        RootRefusal::FilesystemRoot,
        RootRefusal::SystemDirectory,
        RootRefusal::ServerData,
        RootRefusal::OutsideAllowedRoots,
        RootRefusal::AllowedBase,
        RootRefusal::NoAllowedRoots,
    ] {
        assert!(!refusal.to_string().contains("/srv"), "{refusal}");
    }
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,6}",
        Just("etc".to_owned()),
        Just("data".to_owned()),
        Just("usr".to_owned()),
        Just("srv".to_owned()),
    ]
}

fn absolute() -> impl Strategy<Value = PathBuf> {
    prop::collection::vec(segment(), 0..5)
        .prop_map(|segments| PathBuf::from(format!("/{}", segments.join("/"))))
}

proptest! {
    /// Whatever the paths: an accepted root is not `/`, lies in no system directory,
    /// neither holds nor lies inside a protected directory, and lies under an allowed
    /// base, never being one, whenever bases are named (or required).
    #[test]
    fn an_accepted_root_never_reaches_what_the_server_keeps(
        root in absolute(),
        protected in prop::collection::vec(absolute(), 0..3),
        allowed in prop::collection::vec(absolute(), 0..3),
        require_allowed in any::<bool>(),
    ) {
        let rules = RootRules { protected, allowed, require_allowed };
        if check_resolved(&root, &rules).is_ok() {
            prop_assert!(root.parent().is_some());
            prop_assert!(SYSTEM_DIRECTORIES.iter().all(|s| !root.starts_with(s)));
            prop_assert!(rules.protected.iter().all(|p| !root.starts_with(p) && !p.starts_with(&root)));
            if !rules.allowed.is_empty() || rules.require_allowed {
                prop_assert!(rules.allowed.iter().any(|base| root.starts_with(base)));
                prop_assert!(rules.allowed.iter().all(|base| root != *base));
            }
        }
    }

    /// A root under an allowed base (inside it, not the base itself), away from the
    /// system and the server's directories, is accepted.
    #[test]
    fn a_root_under_an_allowed_base_away_from_the_server_is_accepted(
        tail in prop::collection::vec("[a-z]{1,6}", 1..4),
    ) {
        let rules = rules(&["/opt/neuralis"], &["/srv/sources"], true);
        let root = PathBuf::from("/srv/sources").join(tail.join("/"));
        prop_assert_eq!(check_resolved(&root, &rules), Ok(()));
    }
}

#[test]
fn a_base_ending_in_the_project_placeholder_is_one_folder_per_project() {
    let per = Base::parse(Path::new("/srv/sources/{project}")).unwrap();
    assert_eq!(per, Base::PerProject(PathBuf::from("/srv/sources")));
    assert_eq!(
        per.for_project("p1"),
        Some(PathBuf::from("/srv/sources/p1"))
    );
    for name in ["", ".", "..", "a/b"] {
        assert_eq!(per.for_project(name), None, "{name:?}");
    }
    let shared = Base::parse(Path::new("/srv/sources")).unwrap();
    assert_eq!(
        shared.for_project("p1"),
        Some(PathBuf::from("/srv/sources"))
    );
    for bad in [
        "/srv/{project}/x",
        "/srv/a{project}",
        "/{project}/{project}",
    ] {
        assert_eq!(Base::parse(Path::new(bad)), Err(BaseError), "{bad}");
    }
}

#[test]
fn under_a_projects_own_base_another_projects_folder_is_outside() {
    let p1 = Base::PerProject(PathBuf::from("/srv/sources"))
        .for_project("p1")
        .unwrap();
    let own = RootRules {
        protected: Vec::new(),
        allowed: vec![p1],
        require_allowed: true,
    };
    assert_eq!(check("/srv/sources/p1/repo", &own), Ok(()));
    assert_eq!(
        check("/srv/sources/p1", &own),
        Err(RootRefusal::AllowedBase)
    );
    assert_eq!(
        check("/srv/sources/p2/repo", &own),
        Err(RootRefusal::OutsideAllowedRoots)
    );
    assert_eq!(
        check("/srv/sources/p10/repo", &own),
        Err(RootRefusal::OutsideAllowedRoots),
        "a sibling whose name starts with the project's"
    );
}
