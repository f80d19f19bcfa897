//! From policy's decisions to the caller's answer: only what is visible survives, and
//! every surviving file remembers where its content is read from.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use neuralis_access::{DecisionCode, Evaluation};
use neuralis_assembly::{
    FileState, Origin, PackageView, SkillIndex, assign_activation_ids, skill_index,
};
use neuralis_layout::Category;

use crate::base::error::DiscoveryError;
use crate::base::ports::ToolEntry;
use crate::grouping::candidates::entry_path;
use crate::grouping::content::ContentAt;
use crate::grouping::prepared::{Prepared, Shown};

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
    /// Per listed package, per listed file: the index of its candidate in the prepared
    /// batch (to decide it again later in a call: `decision/afresh.rs`).
    pub batch_index: Vec<Vec<usize>>,
    /// Every id a visible skill answers to. Built on first use when the ids came from
    /// the prepared answer (a listing never needs it).
    skills: OnceLock<SkillIndex>,
    /// The tools this caller may use, as (package id, tool name): the package visible
    /// and switched on and the tool's own `requires.features` held, whether or not the
    /// package lists a file. A tools-only package (seed 001, "a purely declarative
    /// package can ship nothing but tool schemas") is absent from the listing yet its
    /// tools answer and claim contested names; a gated tool claims nothing.
    pub usable_tools: HashSet<(String, String)>,
    /// Installed packages this caller may use (visible and switched on), whether or not
    /// they list a file: one `<data_areas>` row each (seed 002, "dataLayout").
    pub usable_installed: Vec<String>,
    /// The tools of the packages flagged sources hold that this caller may use the
    /// package of (the one it gets of an id found twice): they claim names beside the
    /// installed packages' (`InstalledCatalog::tools_beside`), each still decided by
    /// `usable_tools`.
    pub usable_beside: Vec<ToolEntry>,
    /// Files `ReadFile` serves and search hits may come from: listed member files that
    /// are active or read on demand, and the shown bundle entries of active skills.
    /// Built on first use (a listing never needs it).
    readable: OnceLock<HashMap<(Holder, String), ContentAt>>,
}

impl Answer {
    /// Every id a visible skill answers to.
    pub fn skills(&self) -> &SkillIndex {
        // The same assignment as the one that set the ids, so they agree.
        self.skills.get_or_init(|| skill_index(&self.packages))
    }

    /// Where to read `path` of `holder`, when this caller may read it now.
    pub fn readable(&self, holder: Holder, path: &str) -> Option<&ContentAt> {
        self.readable
            .get_or_init(|| readable(&self.packages, &self.content))
            .get(&(holder, path.to_owned()))
    }
}

/// The decisions of one package candidate: per member file, and per bundle entry.
struct Decided {
    files: Vec<DecisionCode>,
    /// Per member file, the index of its candidate in the batch (when it was sent).
    sent_at: Vec<Option<usize>>,
    /// Per member file, per bundle entry; `None` for the skill's own file (its
    /// decision is the skill's).
    entries: Vec<Vec<Option<DecisionCode>>>,
}

/// Keeps what policy let through for this caller, from the prepared packages. Fails
/// closed when the decisions do not match the batch: an answer is never assembled
/// from decisions that may belong to others.
pub(crate) fn assemble(
    prepared: &Prepared,
    evaluation: &Evaluation,
) -> Result<Answer, DiscoveryError> {
    if evaluation.packages.len() != prepared.request.packages.len()
        || evaluation.files.len() != prepared.request.files.len()
        || prepared.slots.len() + prepared.tools.len() != prepared.request.files.len()
        || prepared.packages.len() != prepared.request.packages.len()
    {
        return Err(DiscoveryError::Internal(
            "policy answered a different batch".into(),
        ));
    }
    let mut decided: Vec<Decided> = prepared
        .packages
        .iter()
        .map(|shown| Decided {
            // Whatever was not sent (a file nobody may see) stays hidden.
            files: vec![DecisionCode::Hidden; shown.view.files.len()],
            sent_at: vec![None; shown.view.files.len()],
            entries: shown
                .own_entry
                .iter()
                .map(|own| {
                    own.iter()
                        .map(|own| (!own).then_some(DecisionCode::Hidden))
                        .collect()
                })
                .collect(),
        })
        .collect();
    for (index, (slot, decision)) in prepared.slots.iter().zip(&evaluation.files).enumerate() {
        let package = &mut decided[slot.package];
        match slot.entry {
            None => {
                package.files[slot.file] = decision.code;
                package.sent_at[slot.file] = Some(index);
            }
            Some(entry) => package.entries[slot.file][entry] = Some(decision.code),
        }
    }
    // The activation ids of a skill depend on which skills are visible: when every
    // skill of the prepared answer is, they are the ones prepared with it.
    let ids = (visible_skills(prepared, evaluation, &decided) == prepared.skills)
        .then_some(&prepared.ids);
    let mut packages = Vec::new();
    let mut content = Vec::new();
    let mut batch_index = Vec::new();
    // Prepared in package order: the visible ones keep it.
    for &at in &prepared.order {
        let package_code = evaluation.packages[at].code;
        if !package_code.is_visible() {
            continue;
        }
        let shown = &prepared.packages[at];
        let ids = ids.map(|ids| ids[at].as_slice());
        if let Some((view, located, sent_at)) =
            package_entry(shown, package_code, &decided[at], ids)
        {
            packages.push(view);
            content.push(located);
            batch_index.push(sent_at);
        }
    }
    let skills = OnceLock::new();
    if ids.is_none() {
        let _ = skills.set(assign_activation_ids(&mut packages));
    }
    Ok(Answer {
        packages,
        content,
        batch_index,
        skills,
        usable_tools: usable_tools(prepared, evaluation),
        usable_installed: usable_installed(prepared, evaluation),
        usable_beside: usable_beside(prepared, evaluation),
        readable: OnceLock::new(),
    })
}

/// The tools whose package this caller may use (visible and switched on) and whose
/// own decision (the tool's features) is visible.
fn usable_tools(prepared: &Prepared, evaluation: &Evaluation) -> HashSet<(String, String)> {
    let decisions = evaluation
        .files
        .get(prepared.slots.len()..)
        .unwrap_or_default();
    prepared
        .tools
        .iter()
        .zip(decisions)
        .filter(|(tool, decision)| {
            let package = evaluation.packages.get(tool.package).map(|d| d.code);
            decision.code.is_visible()
                && package
                    .is_some_and(|code| code.is_visible() && code != DecisionCode::VisibleDisabled)
        })
        .filter_map(
            |(tool, _)| match &prepared.packages.get(tool.package)?.view.origin {
                Origin::Installed { package_id } => Some((package_id.clone(), tool.name.clone())),
                Origin::Source { .. } => None,
            },
        )
        .collect()
}

/// The tools of the recognized packages this caller may use: visible and switched on.
fn usable_beside(prepared: &Prepared, evaluation: &Evaluation) -> Vec<ToolEntry> {
    prepared
        .package_sources
        .iter()
        .zip(&evaluation.packages)
        .filter(|(_, decision)| {
            decision.code.is_visible() && decision.code != DecisionCode::VisibleDisabled
        })
        .filter_map(|(from, _)| from.as_ref())
        .flat_map(|from| from.tools.iter().cloned())
        .collect()
}

/// The installed packages this caller may use: visible and switched on.
fn usable_installed(prepared: &Prepared, evaluation: &Evaluation) -> Vec<String> {
    prepared
        .packages
        .iter()
        .zip(&evaluation.packages)
        .filter(|(_, decision)| {
            decision.code.is_visible() && decision.code != DecisionCode::VisibleDisabled
        })
        .filter_map(|(shown, _)| match &shown.view.origin {
            Origin::Installed { package_id } => Some(package_id.clone()),
            Origin::Source { .. } => None,
        })
        .collect()
}

/// How many skill files this caller sees.
fn visible_skills(prepared: &Prepared, evaluation: &Evaluation, decided: &[Decided]) -> usize {
    prepared
        .packages
        .iter()
        .zip(decided)
        .zip(&evaluation.packages)
        .filter(|(_, package)| package.code.is_visible())
        .map(|((shown, decided), _)| {
            shown
                .view
                .files
                .iter()
                .zip(&decided.files)
                .filter(|(file, code)| {
                    file.category == Category::Skill && file_state(**code).is_some()
                })
                .count()
        })
        .sum()
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

/// The package as this caller sees it: only its visible files, each skill with only
/// its visible bundle entries, with where each file's content lives and its index in
/// the batch; `None` when no file is visible.
fn package_entry(
    shown: &Shown,
    package_code: DecisionCode,
    decided: &Decided,
    ids: Option<&[String]>,
) -> Option<(PackageView, Vec<ContentAt>, Vec<usize>)> {
    let mut views = Vec::new();
    let mut content = Vec::new();
    let mut sent = Vec::new();
    for (fi, (file, code)) in shown.view.files.iter().zip(&decided.files).enumerate() {
        let (Some(state), Some(index)) = (file_state(*code), decided.sent_at[fi]) else {
            continue;
        };
        sent.push(index);
        let mut view = file.clone();
        view.state = state;
        view.bundle = shown_entries(&file.bundle, &decided.entries[fi]);
        if let Some(ids) = ids {
            view.activation_id.clone_from(&ids[fi]);
        }
        views.push(view);
        content.push(shown.content[fi].clone());
    }
    if views.is_empty() {
        return None; // nothing the caller may see: the package is absent, not empty
    }
    let view = PackageView {
        origin: shown.view.origin.clone(),
        name: shown.view.name.clone(),
        key: shown.view.key.clone(),
        policy_key: shown.view.policy_key.clone(),
        root: shown.view.root.clone(),
        rule: shown.view.rule.clone(),
        enabled: package_code != DecisionCode::VisibleDisabled,
        files: views,
    };
    Some((view, content, sent))
}

/// The bundle entries a visible skill shows: its own file, and every entry whose own
/// decision is visible. A denied or another agent's entry is dropped without a trace
/// (its state follows the skill's: an entry is shown or not, never switched apart).
fn shown_entries(bundle: &[String], decided: &[Option<DecisionCode>]) -> Vec<String> {
    bundle
        .iter()
        .zip(decided)
        .filter(|(_, code)| code.is_none_or(DecisionCode::is_visible))
        .map(|(entry, _)| entry.clone())
        .collect()
}

pub(crate) fn file_state(code: DecisionCode) -> Option<FileState> {
    match code {
        DecisionCode::Hidden => None,
        DecisionCode::VisibleActive => Some(FileState::Active),
        DecisionCode::VisibleOptIn => Some(FileState::OptIn),
        DecisionCode::VisibleDisabled => Some(FileState::Disabled),
        DecisionCode::VisibleManual => Some(FileState::Manual),
    }
}

#[cfg(test)]
#[path = "answer_tests.rs"]
mod tests;
