//! The fixture tree of installed packages (`tests/fixtures/installed/`) loads with the
//! expected trust tiers, sanitization, overrides and tool claimants.
//!
//! - `host/`: the host's dependency tree. `@acme/reports` is a builtin (first-party);
//!   `ref-docs` is reference-only; `left-pad` has no neuralis block; `@acme/hidden-exports`
//!   hides `./package.json` behind its exports map; `@acme/zz-dup-config` declares a
//!   config key `@acme/reports` already owns.
//! - `_packages/`: the drop-zone. `helper` is untrusted and declares first-party-only
//!   fields; `bad` declares a reserved credential id and a traversal.
//! - `trusted/ops`: a directory an administrator added.

use neuralis_catalog::{Catalog, Claimant, Extras, InstallClass, ReadLimits, Roots};
use neuralis_layout::{Category, Trust};
use std::path::PathBuf;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/installed")
}

fn catalog() -> Catalog {
    let root = fixture();
    let roots = Roots {
        dependency_tree: Some(root.join("host")),
        drop_zone: Some(root.join("_packages")),
        trusted_dirs: vec![root.join("trusted/ops")],
    };
    let extras = Extras {
        platform_tools: vec![
            ("@neuralis/platform".into(), "search".into()),
            ("@neuralis/platform".into(), "read_file".into()),
        ],
        mcp_tools: vec![("github".into(), "helper_only".into())],
        stored_credentials: vec!["manual.key".into()],
    };
    Catalog::load(&roots, ReadLimits::default(), &extras).expect("fixture readable")
}

#[test]
fn packages_load_with_the_trust_of_their_install_class() {
    let catalog = catalog();
    let loaded: Vec<(&str, Trust, InstallClass)> = catalog
        .packages()
        .iter()
        .map(|p| (p.id.as_str(), p.trust, p.class))
        .collect();
    assert_eq!(
        loaded,
        [
            ("@acme/reports", Trust::FirstParty, InstallClass::Builtin),
            ("ops", Trust::Trusted, InstallClass::Trusted),
            ("helper", Trust::Untrusted, InstallClass::Project),
        ]
    );
    // a self-declared first-party in helper changed nothing, and reports' "untrusted"
    // self-declaration did not lower the builtin either: the host assigns trust.
    assert_eq!(
        catalog.package("helper").expect("helper").manifest.trust,
        Trust::Untrusted
    );
}

#[test]
fn a_dependency_loads_iff_it_has_a_neuralis_block_and_reference_only_opts_out() {
    let catalog = catalog();
    let skipped: Vec<(&str, &str)> = catalog
        .skipped()
        .iter()
        .map(|s| (s.root.as_str(), s.reason.as_str()))
        .collect();
    assert!(skipped.iter().any(
        |(root, reason)| *root == "node_modules/left-pad" && reason.contains("neuralis block")
    ));
    assert!(
        skipped
            .iter()
            .any(|(root, reason)| *root == "node_modules/ref-docs"
                && reason.contains("referenceOnly"))
    );
}

#[test]
fn rejected_packages_name_every_error() {
    let catalog = catalog();
    let rejected = |root: &str| {
        catalog
            .rejected()
            .iter()
            .find(|r| r.root == root)
            .unwrap_or_else(|| panic!("{root} rejected"))
    };
    let hidden = rejected("node_modules/@acme/hidden-exports");
    assert_eq!(hidden.errors[0].pointer, "/exports");
    let dup = rejected("node_modules/@acme/zz-dup-config");
    assert!(
        dup.errors[0]
            .message
            .contains("already owned by @acme/reports"),
        "{:?}",
        dup.errors
    );
    let bad = rejected("_packages/bad");
    let pointers: Vec<&str> = bad.errors.iter().map(|e| e.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/neuralis/credentials/0/id",
            "/neuralis/dataLayout/directories/0"
        ]
    );
    assert_eq!(catalog.rejected().len(), 3);
}

#[test]
fn first_party_only_fields_of_an_untrusted_package_are_dropped_with_warnings() {
    let catalog = catalog();
    let helper = catalog.package("helper").expect("helper loads");
    assert!(helper.manifest.provides.is_empty());
    assert!(helper.manifest.app.module.is_none());
    assert!(helper.manifest.events.is_empty());
    assert!(helper.manifest.config_settings.is_empty());
    assert!(helper.manifest.data_layout.machine_written.is_empty());
    let warned: Vec<&str> = helper.warnings.iter().map(|w| w.pointer.as_str()).collect();
    for pointer in [
        "/neuralis/access/trust",
        "/neuralis/provides",
        "/neuralis/app/module",
        "/neuralis/events",
        "/neuralis/configSettings",
        "/neuralis/dataLayout/machineWritten",
    ] {
        assert!(warned.contains(&pointer), "{pointer} in {warned:?}");
    }
    // its dropped configSettings never collided with @acme/reports' key
    assert_eq!(
        catalog
            .config()
            .get("maxAgentSteps")
            .map(|o| o.owner.as_str()),
        Some("@acme/reports")
    );
}

#[test]
fn non_first_party_contributions_are_sanitized() {
    let catalog = catalog();
    let helper = catalog.package("helper").expect("helper");
    let strict = helper
        .contributions
        .files
        .iter()
        .find(|c| c.id == "strict")
        .expect("strict");
    assert_eq!(
        (strict.category, strict.downgraded_from),
        (Category::Docs, Some(Category::Rule))
    );
    let notes = helper
        .contributions
        .files
        .iter()
        .find(|c| c.id == "notes")
        .expect("notes skill");
    assert!(!notes.overwrite);
    assert_eq!(notes.activation_target.as_deref(), Some("workspace"));
    // first-party keeps its rule a rule
    let reports = catalog.package("@acme/reports").expect("reports");
    let style = reports
        .contributions
        .files
        .iter()
        .find(|c| c.id == "report-style")
        .expect("rule");
    assert_eq!(style.category, Category::Rule);
}

/// Seed 001's directory contract by trust tier (issue 10): a first-party installed
/// package's `rules/*.md` are always-on rule contributions (`default_enabled`), a
/// non-first-party package's rules are docs, listed and never injected.
#[test]
fn first_party_installed_rules_are_always_on_and_others_are_docs() {
    let catalog = catalog();
    let reports = catalog.package("@acme/reports").expect("reports");
    let style = reports
        .contributions
        .files
        .iter()
        .find(|c| c.id == "report-style")
        .expect("rule");
    assert_eq!(
        (style.category, style.default_enabled),
        (Category::Rule, true)
    );
    let helper = catalog.package("helper").expect("helper");
    let strict = helper
        .contributions
        .files
        .iter()
        .find(|c| c.id == "strict")
        .expect("strict");
    assert_eq!(strict.category, Category::Docs);
    assert_eq!(strict.invocation, neuralis_layout::Invocation::Manual);
}

#[test]
fn the_directory_contract_is_discovered_and_files_override_inline_entries() {
    let catalog = catalog();
    let reports = catalog.package("@acme/reports").expect("reports");
    let tools: Vec<(&str, &str)> = reports
        .tools
        .iter()
        .map(|t| (t.name.as_str(), t.description.as_str()))
        .collect();
    assert_eq!(tools.len(), 3);
    assert!(tools.contains(&(
        "release_status",
        "Report the status of a release (file definition: overrides the inline one)"
    )));
    assert!(tools.contains(&("release_notes", "Inline only: passes through")));
    assert_eq!(reports.commands[0].id, "review");
    let ada = &reports.team[0];
    assert_eq!(
        (
            ada.member.slug.as_str(),
            ada.identity.len(),
            ada.files.len()
        ),
        ("ada", 1, 1)
    );
    let contributions: Vec<(&str, Category)> = reports
        .contributions
        .files
        .iter()
        .map(|c| (c.path.as_str(), c.category))
        .collect();
    assert_eq!(
        contributions,
        [
            ("docs/guide.md", Category::Docs),
            ("rules/style.md", Category::Rule),
            ("skills/deploy/SKILL.md", Category::Skill)
        ]
    );
    let deploy = &reports.contributions.files[2];
    assert_eq!(deploy.bundle, ["SKILL.md", "scripts/run.sh"]);
}

#[test]
fn tool_claimants_follow_the_global_rule() {
    let catalog = catalog();
    let ids = |name: &str| {
        catalog
            .claimants(name)
            .iter()
            .map(Claimant::id)
            .collect::<Vec<_>>()
    };
    // first-party claimants first (between them the smaller id), then packages, then MCP
    assert_eq!(
        ids("search"),
        ["@acme/reports", "@neuralis/platform", "helper", "ops"]
    );
    assert_eq!(
        catalog.resolve_tool("search", |_| true).map(Claimant::id),
        Some("@acme/reports")
    );
    // a claimant the caller cannot use drops out before the rule runs
    let without_builtins = |id: &str| !id.starts_with('@');
    assert_eq!(
        catalog
            .resolve_tool("search", without_builtins)
            .map(Claimant::id),
        Some("helper")
    );
    // any package before an MCP server; the loser keeps its other tools
    assert_eq!(
        catalog
            .resolve_tool("helper_only", |_| true)
            .map(Claimant::id),
        Some("helper")
    );
    assert_eq!(
        catalog
            .resolve_tool("helper_only", |id| id == "github")
            .map(Claimant::id),
        Some("github")
    );
    assert_eq!(
        catalog
            .resolve_tool("release_status", |_| true)
            .map(Claimant::id),
        Some("@acme/reports")
    );
    let contested: Vec<String> = catalog.contested().into_iter().map(|c| c.name).collect();
    assert_eq!(contested, ["helper_only", "search"]);
    assert_eq!(
        catalog.collision_report(),
        [
            "tool helper_only owned by helper shadows github",
            "tool search owned by @acme/reports shadows @neuralis/platform, helper, ops"
        ]
    );
}

#[test]
fn the_credentials_catalog_is_the_union_of_packages_skills_and_stored_ids() {
    let catalog = catalog();
    let ids: Vec<&str> = catalog
        .credentials()
        .rows()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "acme.apiKey",
            "acme.deployToken",
            "helper.key",
            "helper.skillKey",
            "manual.key"
        ]
    );
    let member: Vec<&str> = catalog
        .credentials()
        .member_view(|p| p == "helper")
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(member, ["helper.key", "helper.skillKey"]);
}

#[test]
fn host_service_contracts_come_from_first_party_packages_only() {
    let catalog = catalog();
    // the builtin's OAuth prefix registers; helper's runtime claim was dropped (untrusted)
    assert_eq!(
        catalog
            .services()
            .provider("oauth-callback:acme_")
            .map(|p| p.package.as_str()),
        Some("@acme/reports")
    );
    assert!(catalog.services().provider("runtime").is_none());
    assert_eq!(catalog.services().missing_required().len(), 2);
}
