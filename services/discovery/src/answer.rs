//! From policy's decisions to the caller's answer: only what is visible survives, and
//! every surviving file remembers where its content is read from.

use std::collections::HashMap;

use neuralis_access::{DecisionCode, Evaluation};
use neuralis_assembly::{
    FileState, FileView, Origin, PackageView, SkillIndex, assign_activation_ids, package_order_key,
};
use neuralis_layout::{Category, Contribution};

use crate::api::DiscoveryError;
use crate::candidates::{Batch, Candidate, entry_path, policy_key};

/// Where a visible file's content lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ContentAt {
    Source {
        source_id: String,
        slug: String,
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
    /// A local or data source's root is a path on the sync host: shown to
    /// administrators only; others get `source://<slug>/…`.
    pub(crate) fn directory_uri(&self, administrator: bool) -> String {
        let (base, path) = match self {
            ContentAt::Source {
                root_uri,
                slug,
                path,
                ..
            } => {
                let host_path = root_uri.starts_with("file://");
                let base = if host_path && !administrator {
                    format!("source://{slug}")
                } else {
                    root_uri.trim_end_matches('/').to_owned()
                };
                (base, path)
            }
            ContentAt::Installed { package_id, path } => (format!("packages://{package_id}"), path),
        };
        match path.rsplit_once('/') {
            Some((dir, _)) => format!("{base}/{dir}"),
            None => base,
        }
    }

    fn at(&self, path: String) -> ContentAt {
        match self {
            ContentAt::Source {
                source_id,
                slug,
                root_uri,
                ..
            } => ContentAt::Source {
                source_id: source_id.clone(),
                slug: slug.clone(),
                path,
                root_uri: root_uri.clone(),
            },
            ContentAt::Installed { package_id, .. } => ContentAt::Installed {
                package_id: package_id.clone(),
                path,
            },
        }
    }
}

/// Who holds a file, as a caller names it in `ReadFile` and a search hit names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Holder {
    /// A source, by slug.
    Source(String),
    /// An installed package, by id.
    Installed(String),
}

/// The caller's answer: packages in order, where each file's content lives, and every
/// file the caller may read now.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    pub packages: Vec<PackageView>,
    pub content: Vec<Vec<ContentAt>>,
    pub skills: SkillIndex,
    /// Files `ReadFile` serves and search hits may come from: listed member files that
    /// are active or read on demand, and the shown bundle entries of active skills.
    pub readable: HashMap<(Holder, String), ContentAt>,
}

impl Answer {
    /// Where to read `path` of `holder`, when this caller may read it now.
    pub fn readable(&self, holder: Holder, path: &str) -> Option<&ContentAt> {
        self.readable.get(&(holder, path.to_owned()))
    }
}

/// The decisions of one package candidate: per member file, and per bundle entry.
struct Decided {
    files: Vec<DecisionCode>,
    /// Per member file, per bundle entry; `None` for the skill's own file (its
    /// decision is the skill's).
    entries: Vec<Vec<Option<DecisionCode>>>,
}

/// Keeps what policy let through. Fails closed when the decisions do not match the
/// batch: an answer is never assembled from decisions that may belong to others.
pub(crate) fn assemble(
    batch: &Batch<'_>,
    evaluation: &Evaluation,
) -> Result<Answer, DiscoveryError> {
    if evaluation.packages.len() != batch.request.packages.len()
        || evaluation.files.len() != batch.request.files.len()
        || batch.slots.len() != batch.request.files.len()
    {
        return Err(DiscoveryError::Internal(
            "policy answered a different batch".into(),
        ));
    }
    let mut decided: Vec<Decided> = batch
        .candidates
        .iter()
        .map(|candidate| {
            // Whatever was not sent (a file nobody may see) stays hidden.
            let files = &candidate.package().files;
            Decided {
                files: vec![DecisionCode::Hidden; files.len()],
                entries: files.iter().map(own_entry_marked).collect(),
            }
        })
        .collect();
    for (slot, decision) in batch.slots.iter().zip(&evaluation.files) {
        let package = &mut decided[slot.package];
        match slot.entry {
            None => package.files[slot.file] = decision.code,
            Some(entry) => package.entries[slot.file][entry] = Some(decision.code),
        }
    }
    let mut located = Vec::new();
    for (at, candidate) in batch.candidates.iter().enumerate() {
        let package_code = evaluation.packages[at].code;
        if !package_code.is_visible() {
            continue;
        }
        if let Some(entry) = package_entry(candidate, package_code, &decided[at]) {
            located.push(entry);
        }
    }
    located.sort_by(|(a, _), (b, _)| package_order_key(a).cmp(&package_order_key(b)));
    let (mut packages, content): (Vec<_>, Vec<_>) = located.into_iter().unzip();
    let skills = assign_activation_ids(&mut packages);
    let readable = readable(&packages, &content);
    Ok(Answer {
        packages,
        content,
        skills,
        readable,
    })
}

fn readable(
    packages: &[PackageView],
    content: &[Vec<ContentAt>],
) -> HashMap<(Holder, String), ContentAt> {
    let mut readable = HashMap::new();
    for (package, located) in packages.iter().zip(content) {
        let holder = match &package.origin {
            Origin::Source { slug } => Holder::Source(slug.clone()),
            Origin::Installed { package_id } => Holder::Installed(package_id.clone()),
        };
        for (file, at) in package.files.iter().zip(located) {
            if !matches!(file.state, FileState::Active | FileState::Manual) {
                continue;
            }
            readable.insert((holder.clone(), file.path.clone()), at.clone());
            if file.category != Category::Skill {
                continue;
            }
            for entry in &file.bundle {
                let path = entry_path(&file.path, entry);
                readable.insert((holder.clone(), path.clone()), at.at(path));
            }
        }
    }
    readable
}

fn package_entry(
    candidate: &Candidate<'_>,
    package_code: DecisionCode,
    decided: &Decided,
) -> Option<(PackageView, Vec<ContentAt>)> {
    let mut views = Vec::new();
    let mut content = Vec::new();
    let contributions = &candidate.package().files;
    for (fi, (file, code)) in contributions.iter().zip(&decided.files).enumerate() {
        let Some(state) = file_state(*code) else {
            continue;
        };
        let mut view = file_view(candidate, file, state);
        view.bundle = shown_entries(file, &decided.entries[fi]);
        views.push(view);
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
        policy_key: policy_key(candidate),
        root: package.root.clone(),
        rule,
        enabled: package_code != DecisionCode::VisibleDisabled,
        files: views,
    };
    Some((view, content))
}

/// Per bundle entry of `file`: `None` for the skill's own file (its decision is the
/// skill's), hidden for the others until their decision says otherwise.
fn own_entry_marked(file: &Contribution) -> Vec<Option<DecisionCode>> {
    file.bundle
        .iter()
        .map(|entry| (entry_path(&file.path, entry) != file.path).then_some(DecisionCode::Hidden))
        .collect()
}

/// The bundle entries a visible skill shows: its own file, and every entry whose own
/// decision is visible. A denied or another agent's entry is dropped without a trace
/// (its state follows the skill's: an entry is shown or not, never switched apart).
fn shown_entries(file: &Contribution, decided: &[Option<DecisionCode>]) -> Vec<String> {
    file.bundle
        .iter()
        .zip(decided)
        .filter(|(_, code)| code.is_none_or(DecisionCode::is_visible))
        .map(|(entry, _)| entry.clone())
        .collect()
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
        bundle: Vec::new(),
        activation_id: String::new(),
        size,
        allowed_tools: file.allowed_tools.clone(),
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
            slug: source.slug.clone(),
            path: file.path.clone(),
            root_uri: source.root_uri.clone(),
        },
    }
}
