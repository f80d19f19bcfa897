//! What an answer needs that is the same for every caller, prepared once per inventory
//! snapshot and source listing (issue 13, "warm answers"): the batch of candidates
//! policy decides, and per candidate the package as it would be shown with every file,
//! in package order. Nothing here says who may see what: every request still asks policy
//! to decide the whole batch for its caller, afresh, and [`crate::answer::assemble`]
//! keeps only what that decision lets through.
//!
//! A prepared answer is reused only for the very snapshot it was prepared from (the
//! same allocation, never an equal-looking one) and only while the sources read for
//! the request equal those it was prepared with: a new snapshot, or a changed scope,
//! privacy pattern or root of any source, prepares afresh.

use std::sync::{Arc, Mutex};

use neuralis_access::EvaluationRequest;
use neuralis_assembly::{
    FileState, FileView, Origin, PackageView, assign_activation_ids, package_order_key,
};
use neuralis_layout::Contribution;

use crate::answer::ContentAt;
use crate::candidates::{Batch, Candidate, FileSlot, entry_path, policy_key};
use crate::listing::Listing;
use crate::ports::SourceInfo;

mod weight;

/// The caller-independent part of a project's answer.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The batch policy decides for each caller.
    pub request: EvaluationRequest,
    /// One per `request.files`: which file (or bundle entry) of which package it is.
    pub slots: Vec<FileSlot>,
    /// One per package candidate, index for index with `request.packages`.
    pub packages: Vec<Shown>,
    /// The package candidates in the order an answer lists packages.
    pub order: Vec<usize>,
    /// Per package candidate, per file: its activation id when every skill is visible
    /// (empty for other files).
    pub ids: Vec<Vec<String>>,
    /// How many skill files the package candidates hold.
    pub skills: usize,
    /// The `ListPackages` messages of the packages, made once (see [`Listing`]).
    pub listing: Listing,
}

/// A package candidate as an answer would show it were every file visible.
#[derive(Debug)]
pub(crate) struct Shown {
    /// Every member file, each with its whole bundle; `enabled` and the files' states
    /// are placeholders, set from each caller's decisions.
    pub view: PackageView,
    /// Where each file's content lives, index for index with `view.files`.
    pub content: Vec<ContentAt>,
    /// Per file, per bundle entry: whether the entry is the skill's own file (decided
    /// with the skill, not on its own).
    pub own_entry: Vec<Vec<bool>>,
}

impl Prepared {
    /// The owned, caller-independent form of `batch`.
    pub(crate) fn new(batch: Batch<'_>) -> Self {
        let packages: Vec<Shown> = batch.candidates.iter().map(shown).collect();
        let mut order: Vec<usize> = (0..packages.len()).collect();
        // Stable, as assembling a visible subset and sorting it would be.
        order.sort_by(|a, b| {
            package_order_key(&packages[*a].view).cmp(&package_order_key(&packages[*b].view))
        });
        let (ids, skills) = activation_ids(&packages, &order);
        let listing = Listing::new(&batch.candidates, &packages, &ids, &batch.slots);
        Prepared {
            listing,
            request: batch.request,
            slots: batch.slots,
            packages,
            order,
            ids,
            skills,
        }
    }
}

/// The activation ids an answer showing every skill assigns, and how many skills.
/// Which other files are visible does not change them: only the skills compete.
fn activation_ids(packages: &[Shown], order: &[usize]) -> (Vec<Vec<String>>, usize) {
    let mut views: Vec<PackageView> = order.iter().map(|&at| packages[at].view.clone()).collect();
    assign_activation_ids(&mut views);
    let mut ids = vec![Vec::new(); packages.len()];
    let mut skills = 0;
    for (view, &at) in views.into_iter().zip(order) {
        skills += view
            .files
            .iter()
            .filter(|file| file.category == neuralis_layout::Category::Skill)
            .count();
        ids[at] = view
            .files
            .into_iter()
            .map(|file| file.activation_id)
            .collect();
    }
    (ids, skills)
}

fn shown(candidate: &Candidate<'_>) -> Shown {
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
    Shown {
        view: PackageView {
            origin,
            name: package.name.clone(),
            key: package.key.clone(),
            policy_key: policy_key(candidate),
            root: package.root.clone(),
            rule,
            enabled: true,
            files: package
                .files
                .iter()
                .map(|file| file_view(candidate, file))
                .collect(),
        },
        content: package
            .files
            .iter()
            .map(|file| content_at(candidate, file))
            .collect(),
        own_entry: package
            .files
            .iter()
            .map(|file| {
                file.bundle
                    .iter()
                    .map(|entry| entry_path(&file.path, entry) == file.path)
                    .collect()
            })
            .collect(),
    }
}

fn file_view(candidate: &Candidate<'_>, file: &Contribution) -> FileView {
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
        state: FileState::Active,
        bundle: file.bundle.clone(),
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

/// The prepared answer of one snapshot, kept inside it: it lives exactly as long as
/// the snapshot (the inventory alone decides that, under its memory bound, which counts
/// it: see [`PreparedSlot::bytes`]), and a copy of a snapshot starts with none, so an
/// answer is never served from a grouping other than the one it was prepared from.
#[derive(Debug, Default)]
pub(crate) struct PreparedSlot {
    kept: Mutex<Option<Kept>>,
}

#[derive(Debug)]
struct Kept {
    sources: Vec<SourceInfo>,
    prepared: Arc<Prepared>,
    /// What the prepared answer weighs ([`weight::bytes`]), measured once.
    bytes: usize,
}

impl Clone for PreparedSlot {
    /// Empty: a copy is another snapshot, prepared afresh.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl PreparedSlot {
    /// The prepared answer for `sources`, prepared by `prepare` unless the one kept was
    /// prepared with equal sources; and whether it was prepared now (the snapshot then
    /// weighs more: see [`crate::inventory::InventoryShell::reweigh`]).
    pub(crate) fn get(
        &self,
        sources: &[SourceInfo],
        prepare: impl FnOnce() -> Prepared,
    ) -> (Arc<Prepared>, bool) {
        if let Some(kept) = self.lock().as_ref()
            && kept.sources == sources
        {
            return (Arc::clone(&kept.prepared), false);
        }
        // Prepared outside the lock: two first requests may both prepare; either is
        // right, the last one stays.
        let prepared = Arc::new(prepare());
        *self.lock() = Some(Kept {
            sources: sources.to_vec(),
            bytes: weight::bytes(&prepared) + weight::sources(sources),
            prepared: Arc::clone(&prepared),
        });
        (prepared, true)
    }

    /// What the kept answer weighs, 0 when none is kept.
    pub(crate) fn bytes(&self) -> usize {
        self.lock().as_ref().map_or(0, |kept| kept.bytes)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Kept>> {
        // A poisoned lock only means a panic elsewhere; every mutation is one call.
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use neuralis_access::{Scope, SourceScope};
    use neuralis_inventory::Weigh;

    use super::*;
    use crate::inventory::ProjectSnapshot;
    use crate::ports::{IndexRow, ProjectRows};

    fn source(patterns: &[&str]) -> SourceInfo {
        SourceInfo {
            id: "p1/repo.00".into(),
            slug: "repo".into(),
            scope: SourceScope {
                scope: Scope::Project,
                owner: "p1".into(),
            },
            root_uri: "machine://m1/repo".into(),
            local_root: None,
            privacy_patterns: patterns.iter().map(|p| (*p).to_owned()).collect(),
        }
    }

    fn snapshot() -> Arc<ProjectSnapshot> {
        Arc::new(ProjectSnapshot::build(
            ProjectRows::default(),
            &[source(&[])],
        ))
    }

    /// `snapshot`'s prepared answer, counting how often it was prepared.
    fn get(
        snapshot: &ProjectSnapshot,
        sources: &[SourceInfo],
        prepared: &Cell<usize>,
    ) -> Arc<Prepared> {
        let before = prepared.get();
        let (answer, fresh) = snapshot.prepared.get(sources, || {
            prepared.set(prepared.get() + 1);
            Prepared::new(Batch {
                request: EvaluationRequest::default(),
                candidates: Vec::new(),
                slots: Vec::new(),
            })
        });
        assert_eq!(
            fresh,
            prepared.get() > before,
            "fresh says it was prepared now"
        );
        answer
    }

    #[test]
    fn a_prepared_answer_serves_only_the_snapshot_and_sources_it_was_prepared_from() {
        let prepared = Cell::new(0);
        let sources = vec![source(&[])];
        let first = snapshot();
        let a = get(&first, &sources, &prepared);
        let b = get(&first, &sources, &prepared);
        assert!(Arc::ptr_eq(&a, &b), "the same snapshot reuses it");
        assert_eq!(prepared.get(), 1);

        // Another snapshot, even one equal in content (a copy), is prepared afresh:
        // identity, not likeness, says which grouping an answer was prepared from.
        let second = snapshot();
        let c = get(&second, &sources, &prepared);
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(prepared.get(), 2);
        let copy = first.as_ref().clone();
        get(&copy, &sources, &prepared);
        assert_eq!(prepared.get(), 3);

        // A changed privacy pattern (read with the request's sources) prepares afresh.
        let private = vec![source(&["agents/{agent}/**"])];
        get(&first, &private, &prepared);
        assert_eq!(prepared.get(), 4);
        get(&first, &private, &prepared);
        assert_eq!(prepared.get(), 4);
    }

    #[test]
    fn a_snapshot_weighs_the_answer_prepared_from_it() {
        let sources = vec![source(&[])];
        let rows = ProjectRows {
            revision: 1,
            rows: (0..20)
                .map(|i| IndexRow {
                    source_id: "p1/repo.00".into(),
                    path: format!("tools/t{i}/skills/s/SKILL.md"),
                    size: 10,
                    payload: neuralis_layout::FilePayload::default(),
                    real_path: None,
                    content_flags: Default::default(),
                })
                .collect(),
        };
        let snapshot = ProjectSnapshot::build(rows, &sources);
        let rows_only = snapshot.bytes();
        let (answer, _) = snapshot.prepared.get(&sources, || {
            Prepared::new(crate::candidates::build("p1", &[], &sources, &snapshot))
        });
        assert!(!answer.request.files.is_empty(), "the answer holds files");
        let measured = weight::bytes(&answer);
        assert!(
            snapshot.bytes() >= rows_only + measured,
            "{} < {rows_only} + {measured}",
            snapshot.bytes()
        );
        // Every file is held several times over (candidate, shown view, content).
        assert!(measured > answer.request.files.len() * 3 * 24);
    }
}
