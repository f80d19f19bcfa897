//! From policy's decisions to the caller's answer: only what is visible survives, and
//! every surviving file remembers where its content is read from.

use neuralis_access::{DecisionCode, Evaluation};
use neuralis_assembly::{
    FileState, FileView, Origin, PackageView, SkillIndex, assign_activation_ids, package_order_key,
};
use neuralis_layout::Contribution;

use crate::api::DiscoveryError;
use crate::candidates::{Batch, Candidate};

/// Where a visible file's content lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ContentAt {
    Source {
        source_id: String,
        path: String,
        root_uri: String,
    },
    Installed {
        package_id: String,
        path: String,
    },
}

impl ContentAt {
    /// The URI of the directory holding the file (for a skill: its bundle directory).
    pub(crate) fn directory_uri(&self) -> String {
        let (base, path) = match self {
            ContentAt::Source { root_uri, path, .. } => {
                (root_uri.trim_end_matches('/').to_owned(), path)
            }
            ContentAt::Installed { package_id, path } => (format!("packages://{package_id}"), path),
        };
        match path.rsplit_once('/') {
            Some((dir, _)) => format!("{base}/{dir}"),
            None => base,
        }
    }
}

/// The caller's answer: packages in order, and where each file's content lives.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    pub packages: Vec<PackageView>,
    pub content: Vec<Vec<ContentAt>>,
    pub skills: SkillIndex,
}

/// Keeps what policy let through. Fails closed when the decisions do not match the
/// batch: an answer is never assembled from decisions that may belong to others.
pub(crate) fn assemble(
    batch: &Batch<'_>,
    evaluation: &Evaluation,
) -> Result<Answer, DiscoveryError> {
    if evaluation.packages.len() != batch.request.packages.len()
        || evaluation.files.len() != batch.request.files.len()
    {
        return Err(DiscoveryError::Internal(
            "policy answered a different batch".into(),
        ));
    }
    let mut files = evaluation.files.iter();
    let mut located = Vec::new();
    for (at, candidate) in batch.candidates.iter().enumerate() {
        let contributions = &candidate.package().files;
        let decisions: Vec<DecisionCode> = files
            .by_ref()
            .take(contributions.len())
            .map(|d| d.code)
            .collect();
        let package_code = evaluation.packages[at].code;
        if !package_code.is_visible() {
            continue;
        }
        if let Some(entry) = package_entry(candidate, package_code, contributions, &decisions) {
            located.push(entry);
        }
    }
    located.sort_by(|(a, _), (b, _)| package_order_key(a).cmp(&package_order_key(b)));
    let (mut packages, content): (Vec<_>, Vec<_>) = located.into_iter().unzip();
    let skills = assign_activation_ids(&mut packages);
    Ok(Answer {
        packages,
        content,
        skills,
    })
}

fn package_entry(
    candidate: &Candidate<'_>,
    package_code: DecisionCode,
    contributions: &[Contribution],
    decisions: &[DecisionCode],
) -> Option<(PackageView, Vec<ContentAt>)> {
    let mut views = Vec::new();
    let mut content = Vec::new();
    for (file, code) in contributions.iter().zip(decisions) {
        let Some(state) = file_state(*code) else {
            continue;
        };
        views.push(file_view(candidate, file, state));
        content.push(content_at(candidate, file));
    }
    if views.is_empty() {
        return None; // nothing the caller may see: the package is absent, not empty
    }
    let package = candidate.package();
    let (origin, rule) = match candidate {
        Candidate::Installed(installed) => (
            Origin::Installed {
                package_id: installed.package_id.clone(),
            },
            None,
        ),
        Candidate::Source { source, .. } => (
            Origin::Source {
                slug: source.slug.clone(),
            },
            Some(package.rule.as_str().to_owned()),
        ),
    };
    let view = PackageView {
        origin,
        name: package.name.clone(),
        key: package.key.clone(),
        root: package.root.clone(),
        rule,
        enabled: package_code != DecisionCode::VisibleDisabled,
        files: views,
    };
    Some((view, content))
}

fn file_state(code: DecisionCode) -> Option<FileState> {
    match code {
        DecisionCode::Hidden => None,
        DecisionCode::VisibleActive => Some(FileState::Active),
        DecisionCode::VisibleOptIn => Some(FileState::OptIn),
        DecisionCode::VisibleDisabled => Some(FileState::Disabled),
        DecisionCode::VisibleManual => Some(FileState::Manual),
    }
}

fn file_view(candidate: &Candidate<'_>, file: &Contribution, state: FileState) -> FileView {
    let size = match candidate {
        Candidate::Installed(installed) => installed.sizes.get(&file.path).copied().unwrap_or(0),
        Candidate::Source { snapshot, .. } => snapshot.rows.get(&file.path).map_or(0, |r| r.size),
    };
    FileView {
        path: file.path.clone(),
        category: file.category,
        id: file.id.clone(),
        title: file.title.clone(),
        description: file.description.clone(),
        identity: file.identity,
        default_enabled: file.default_enabled,
        state,
        bundle: file.bundle.clone(),
        activation_id: String::new(),
        size,
    }
}

fn content_at(candidate: &Candidate<'_>, file: &Contribution) -> ContentAt {
    match candidate {
        Candidate::Installed(installed) => ContentAt::Installed {
            package_id: installed.package_id.clone(),
            path: file.path.clone(),
        },
        Candidate::Source { source, .. } => ContentAt::Source {
            source_id: source.id.clone(),
            path: file.path.clone(),
            root_uri: source.root_uri.clone(),
        },
    }
}
