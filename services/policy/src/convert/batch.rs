//! Evaluate batches and decisions on the wire.

use neuralis_access::{
    Caller, Decision, DecisionCode, Evaluation, EvaluationRequest, FileCandidate, FoundIn, Origin,
    PackageCandidate, Scope, SourceHeader, SourceScope,
};
use neuralis_layout::Category;
use neuralis_proto::common::v1 as common;
use neuralis_proto::policy::v1 as pb;

use super::{optional, required};
use crate::PolicyError;

/// One Evaluate call in domain terms: the batch, the requested conversation, and the
/// caller it is decided for.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluateCall {
    pub batch: EvaluationRequest,
    pub conversation: Option<String>,
    pub caller: Caller,
}

/// A wire batch as evaluation reads it.
pub fn batch_from_proto(request: pb::EvaluateRequest) -> Result<EvaluateCall, PolicyError> {
    let caller = super::caller::caller_from_proto(request.caller)?;
    let data_sources = request
        .sources
        .iter()
        .filter(|source| source.data_tree)
        .map(|source| source.source_id.clone())
        .collect();
    let batch = EvaluationRequest {
        data_sources,
        project: required(request.project_id, "project_id")?,
        sources: enumerate(request.sources, "sources", source_from_proto)?,
        packages: enumerate(request.packages, "packages", package_from_proto)?,
        files: enumerate(request.files, "files", file_from_proto)?,
    };
    Ok(EvaluateCall {
        batch,
        conversation: super::conversation_id(request.conversation_id, "conversation_id")?,
        caller,
    })
}

/// Converts every item, naming `list[index]` in an error.
fn enumerate<T, U>(
    items: Vec<T>,
    list: &str,
    convert: fn(T, &str) -> Result<U, PolicyError>,
) -> Result<Vec<U>, PolicyError> {
    items
        .into_iter()
        .enumerate()
        .map(|(at, item)| convert(item, &format!("{list}[{at}]")))
        .collect()
}

fn source_from_proto(source: pb::SourceHeader, field: &str) -> Result<SourceHeader, PolicyError> {
    let scope = match common::SourceScope::try_from(source.scope) {
        Ok(common::SourceScope::Project) => Scope::Project,
        Ok(common::SourceScope::User) => Scope::User,
        Ok(common::SourceScope::Agent) => Scope::Agent,
        _ => {
            return Err(PolicyError::invalid(
                format!("{field}.scope"),
                "must be project, user or agent",
            ));
        }
    };
    Ok(SourceHeader {
        id: required(source.source_id, &format!("{field}.source_id"))?,
        scope: SourceScope {
            scope,
            owner: required(source.owner, &format!("{field}.owner"))?,
        },
    })
}

fn package_from_proto(
    package: pb::PackageCandidate,
    field: &str,
) -> Result<PackageCandidate, PolicyError> {
    let origin = match common::PackageOrigin::try_from(package.origin) {
        Ok(common::PackageOrigin::Installed) => Origin::Installed,
        Ok(common::PackageOrigin::Source) => {
            Origin::Source(required(package.source_id, &format!("{field}.source_id"))?)
        }
        _ => {
            return Err(PolicyError::invalid(
                format!("{field}.origin"),
                "must be installed or source",
            ));
        }
    };
    // A folder with no source would be a package found nowhere: refused, not dropped.
    let found_in = match (
        optional(package.found_in_source_id),
        package.found_in_folder,
    ) {
        (Some(source), folder) => Some(FoundIn { source, folder }),
        (None, folder) if folder.is_empty() => None,
        (None, _) => {
            return Err(PolicyError::invalid(
                format!("{field}.found_in_source_id"),
                "is required with found_in_folder",
            ));
        }
    };
    Ok(PackageCandidate {
        key: required(package.key, &format!("{field}.key"))?,
        origin,
        root: package.root,
        access_feature: optional(package.access_feature),
        private_owner: optional(package.private_owner_agent),
        found_in,
    })
}

fn file_from_proto(file: pb::FileCandidate, field: &str) -> Result<FileCandidate, PolicyError> {
    let category = category_from_proto(file.category)
        .ok_or_else(|| PolicyError::invalid(format!("{field}.category"), "is not a category"))?;
    Ok(FileCandidate {
        content_flagged: file.content_flagged,
        downgraded_from: None,
        package: usize::try_from(file.package_index)
            .map_err(|_| PolicyError::invalid(format!("{field}.package_index"), "is too large"))?,
        path: file.path,
        category,
        identity: file.identity,
        default_enabled: file.default_enabled,
        required_features: file.required_features,
        private_owner: optional(file.private_owner_agent),
        real_path: optional(file.real_path),
    })
}

fn category_from_proto(value: i32) -> Option<Category> {
    Some(match common::Category::try_from(value).ok()? {
        common::Category::Skill => Category::Skill,
        common::Category::Instruction => Category::Instruction,
        common::Category::Rule => Category::Rule,
        common::Category::Agent => Category::Agent,
        common::Category::Docs => Category::Docs,
        common::Category::Command => Category::Command,
        common::Category::Unspecified => return None,
    })
}

fn category_to_proto(category: Category) -> common::Category {
    match category {
        Category::Skill => common::Category::Skill,
        Category::Instruction => common::Category::Instruction,
        Category::Rule => common::Category::Rule,
        Category::Agent => common::Category::Agent,
        Category::Docs => common::Category::Docs,
        Category::Command => common::Category::Command,
    }
}

/// A batch on the wire, decided for `caller` (for callers of the gRPC client).
pub fn batch_to_proto(
    request: &EvaluationRequest,
    conversation: Option<&str>,
    caller: &Caller,
) -> pb::EvaluateRequest {
    pb::EvaluateRequest {
        caller: Some(super::caller::caller_to_proto(caller)),
        project_id: request.project.clone(),
        conversation_id: conversation.unwrap_or_default().to_owned(),
        sources: request
            .sources
            .iter()
            .map(|source| pb::SourceHeader {
                source_id: source.id.clone(),
                scope: match source.scope.scope {
                    Scope::Project => common::SourceScope::Project,
                    Scope::User => common::SourceScope::User,
                    Scope::Agent => common::SourceScope::Agent,
                }
                .into(),
                owner: source.scope.owner.clone(),
                data_tree: request.data_sources.contains(&source.id),
            })
            .collect(),
        packages: request.packages.iter().map(package_to_proto).collect(),
        files: request.files.iter().map(file_to_proto).collect(),
    }
}

fn package_to_proto(package: &PackageCandidate) -> pb::PackageCandidate {
    let (origin, source_id) = match &package.origin {
        Origin::Installed => (common::PackageOrigin::Installed, String::new()),
        Origin::Source(id) => (common::PackageOrigin::Source, id.clone()),
    };
    let found_in = package.found_in.as_ref();
    pb::PackageCandidate {
        key: package.key.clone(),
        origin: origin.into(),
        source_id,
        root: package.root.clone(),
        access_feature: package.access_feature.clone().unwrap_or_default(),
        private_owner_agent: package.private_owner.clone().unwrap_or_default(),
        found_in_source_id: found_in.map(|f| f.source.clone()).unwrap_or_default(),
        found_in_folder: found_in.map(|f| f.folder.clone()).unwrap_or_default(),
    }
}

fn file_to_proto(file: &FileCandidate) -> pb::FileCandidate {
    pb::FileCandidate {
        content_flagged: file.content_flagged,
        // Batches are capped far below u32::MAX; a larger index is rejected on arrival.
        package_index: u32::try_from(file.package).unwrap_or(u32::MAX),
        path: file.path.clone(),
        category: category_to_proto(file.category).into(),
        identity: file.identity,
        default_enabled: file.default_enabled,
        required_features: file.required_features.clone(),
        private_owner_agent: file.private_owner.clone().unwrap_or_default(),
        real_path: file.real_path.clone().unwrap_or_default(),
        downgraded_from: file
            .downgraded_from
            .map_or(common::Category::Unspecified, category_to_proto)
            .into(),
    }
}

/// Decisions on the wire: indices and codes, nothing else.
pub fn evaluation_to_proto(evaluation: Evaluation) -> pb::EvaluateResponse {
    let decisions = |list: Vec<Decision>| {
        list.into_iter()
            .map(|decision| pb::Decision {
                index: u32::try_from(decision.index).unwrap_or(u32::MAX),
                code: code_to_proto(decision.code).into(),
            })
            .collect()
    };
    pb::EvaluateResponse {
        packages: decisions(evaluation.packages),
        files: decisions(evaluation.files),
    }
}

pub(crate) fn code_to_proto(code: DecisionCode) -> pb::DecisionCode {
    match code {
        DecisionCode::Hidden => pb::DecisionCode::Hidden,
        DecisionCode::VisibleActive => pb::DecisionCode::VisibleActive,
        DecisionCode::VisibleOptIn => pb::DecisionCode::VisibleOptIn,
        DecisionCode::VisibleDisabled => pb::DecisionCode::VisibleDisabled,
        DecisionCode::VisibleManual => pb::DecisionCode::VisibleManual,
    }
}

/// The decisions of a wire answer for `request`: exactly one per candidate, in order.
/// Anything else is a defect of the answering side; an unknown code hides (fail closed).
pub fn evaluation_from_proto(
    response: pb::EvaluateResponse,
    request: &EvaluationRequest,
) -> Result<Evaluation, PolicyError> {
    Ok(Evaluation {
        packages: decisions_from_proto(response.packages, request.packages.len())?,
        files: decisions_from_proto(response.files, request.files.len())?,
    })
}

fn decisions_from_proto(
    list: Vec<pb::Decision>,
    expected: usize,
) -> Result<Vec<Decision>, PolicyError> {
    if list.len() != expected {
        return Err(PolicyError::Internal(
            "policy answered a different batch".into(),
        ));
    }
    list.into_iter()
        .enumerate()
        .map(|(at, decision)| {
            if usize::try_from(decision.index).ok() != Some(at) {
                return Err(PolicyError::Internal("policy answered out of order".into()));
            }
            Ok(Decision {
                index: at,
                code: code_from_proto(decision.code),
            })
        })
        .collect()
}

pub(crate) fn code_from_proto(value: i32) -> DecisionCode {
    match pb::DecisionCode::try_from(value) {
        Ok(pb::DecisionCode::VisibleActive) => DecisionCode::VisibleActive,
        Ok(pb::DecisionCode::VisibleOptIn) => DecisionCode::VisibleOptIn,
        Ok(pb::DecisionCode::VisibleDisabled) => DecisionCode::VisibleDisabled,
        Ok(pb::DecisionCode::VisibleManual) => DecisionCode::VisibleManual,
        _ => DecisionCode::Hidden,
    }
}
