//! Domain values to `neuralis.discovery.v1` messages.

use neuralis_assembly::{FileState, FileView, Origin, PackageView};
use neuralis_layout::Category;
use neuralis_proto::common::v1 as common;
use neuralis_proto::discovery::v1 as pb;

use crate::base::ports::{ContestedTool, PackageValidation, ToolEntry};

/// Takes the view apart: an answer is converted once and dropped, so its strings move
/// into the message instead of being copied.
pub(crate) fn package(view: PackageView) -> pb::Package {
    let (origin, source_slug, package_id) = match view.origin {
        Origin::Installed { package_id } => {
            (common::PackageOrigin::Installed, String::new(), package_id)
        }
        Origin::Source { slug } => (common::PackageOrigin::Source, slug, String::new()),
    };
    pb::Package {
        name: view.name,
        key: view.key,
        origin: origin as i32,
        source_slug,
        root: view.root,
        rule: rule(view.rule.as_deref()) as i32,
        package_id,
        enabled: view.enabled,
        files: view.files.into_iter().map(file).collect(),
        policy_key: view.policy_key,
    }
}

fn rule(label: Option<&str>) -> pb::RootRule {
    match label {
        Some("manifest") => pb::RootRule::Manifest,
        Some("marker") => pb::RootRule::Marker,
        Some("category") => pb::RootRule::Category,
        Some("bare-skill") => pb::RootRule::BareSkill,
        Some("source-root") => pb::RootRule::SourceRoot,
        _ => pb::RootRule::Unspecified,
    }
}

pub(crate) fn category(category: Category) -> common::Category {
    match category {
        Category::Skill => common::Category::Skill,
        Category::Instruction => common::Category::Instruction,
        Category::Rule => common::Category::Rule,
        Category::Agent => common::Category::Agent,
        Category::Docs => common::Category::Docs,
        Category::Command => common::Category::Command,
    }
}

pub(crate) fn state(state: FileState) -> pb::FileState {
    match state {
        FileState::Active => pb::FileState::Active,
        FileState::OptIn => pb::FileState::OptIn,
        FileState::Disabled => pb::FileState::Disabled,
        FileState::Manual => pb::FileState::Manual,
    }
}

pub(crate) fn file(view: FileView) -> pb::PackageFile {
    pb::PackageFile {
        path: view.path,
        category: category(view.category) as i32,
        id: view.id,
        title: view.title,
        description: view.description.unwrap_or_default(),
        state: state(view.state) as i32,
        identity: view.identity,
        default_enabled: view.default_enabled,
        files: view.bundle,
        activation_id: view.activation_id,
        allowed_tools: view.allowed_tools,
        // Filled from the inventory's rows by `flags::fill`.
        content_flags: Vec::new(),
        flagged_files: Vec::new(),
    }
}

pub(crate) fn hydrated(
    package: &PackageView,
    file: &FileView,
    content: String,
) -> pb::HydratedFile {
    pb::HydratedFile {
        package_name: package.name.clone(),
        path: file.path.clone(),
        category: category(file.category) as i32,
        id: file.id.clone(),
        title: file.title.clone(),
        content,
    }
}

/// A file left out: `size` is what kept it out (its indexed size when it was not read,
/// the bytes read when it grew past the budget).
pub(crate) fn omitted(package: &PackageView, file: usize, size: u64) -> pb::OmittedFile {
    let file = &package.files[file];
    pb::OmittedFile {
        package_name: package.name.clone(),
        path: file.path.clone(),
        size_bytes: size,
    }
}

pub(crate) fn tools(tools: Vec<ToolEntry>, contested: Vec<ContestedTool>) -> pb::ListToolsResponse {
    pb::ListToolsResponse {
        tools: tools
            .into_iter()
            .map(|t| pb::Tool {
                name: t.name,
                package_id: t.package_id,
                description: t.description,
                input_schema_json: t.input_schema_json,
            })
            .collect(),
        contested: contested
            .into_iter()
            .map(|c| pb::ContestedName {
                name: c.name,
                owner: c.owner,
                claimants: c.claimants,
            })
            .collect(),
        next_page_token: String::new(),
    }
}

pub(crate) fn validation(outcome: PackageValidation) -> pb::ValidatePackageResponse {
    let issues = |list: Vec<(String, String)>| {
        list.into_iter()
            .map(|(location, message)| pb::ValidationIssue { location, message })
            .collect()
    };
    pb::ValidatePackageResponse {
        accepted: outcome.accepted,
        errors: issues(outcome.errors),
        warnings: issues(outcome.warnings),
    }
}
