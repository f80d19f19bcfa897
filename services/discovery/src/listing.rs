//! `ListPackages` straight from the prepared answer (issue 13, warm answers). The
//! message of every package and file is made once, as it would be shown were
//! everything visible (activation ids and content flags included: both are the same
//! for every caller who sees every skill), and kept by the next prepared answer for
//! every package a delta left as it was (issue 13, "cost proportional to the change");
//! a call copies only the messages its caller's decisions let through, setting the
//! states from them. No view is assembled and converted per call.
//!
//! Nothing about access is here: the decisions are the caller's, made by policy for
//! this call. When they hide a skill, the activation ids may differ from the prepared
//! ones (they depend on which skills collide) and the caller is answered by the general
//! path ([`crate::answer::assemble`]), which assigns them afresh.

use std::collections::HashMap;
use std::sync::Arc;

use neuralis_access::{DecisionCode, Evaluation};
use neuralis_layout::Category;
use neuralis_proto::discovery::v1 as pb;

use crate::answer::{Answer, file_state};
use crate::api::DiscoveryError;
use crate::candidates::FileSlot;
use crate::inventory::ProjectSnapshot;
use crate::prepared::Shown;
use crate::{convert, flags};

/// The messages of a prepared answer, and where each decision of its batch goes.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Listing {
    /// One per package candidate, index for index with the batch's packages; shared
    /// with the listing of the answer before when made from the same shown package
    /// with the same activation ids (issue 13: a delta makes only the messages of the
    /// packages it changed).
    packages: Vec<Arc<Listed>>,
    /// Per package candidate: where its part of the table of decisions starts.
    base: Vec<usize>,
    /// One per file candidate of the batch: its place in the table of decisions.
    at: Vec<usize>,
    /// The table of decisions before a call's are written in, the packages' parts one
    /// after another (see [`Listed::unsent`]).
    unsent: Vec<Option<DecisionCode>>,
    /// How many skills the package candidates hold.
    skills: usize,
}

/// One package's messages: a function of its shown form and activation ids alone, so
/// that both say when they can be reused.
#[derive(Debug, PartialEq)]
pub(crate) struct Listed {
    /// What the messages were made from (held so that sameness is identity).
    shown: Arc<Shown>,
    /// The package without its files (`enabled` is set per call).
    head: pb::Package,
    files: Vec<ListedFile>,
    /// This package's part of the table of decisions before a call's are written in:
    /// a member file that was not sent (nobody may see it) stays hidden; a skill's own
    /// bundle entry follows its skill (`None`); any other entry not sent stays hidden.
    unsent: Vec<Option<DecisionCode>>,
    /// Per member file: its decision's place in this package's part of the table; its
    /// bundle entries' follow, one each.
    places: Vec<usize>,
    skills: usize,
}

#[derive(Debug, PartialEq)]
struct ListedFile {
    /// With every bundle entry and every flagged entry (`state` is set per call).
    message: pb::PackageFile,
    /// Its decision's place in the package's part of the table.
    at: usize,
    skill: bool,
    /// Per flagged entry of `message.flagged_files`, its index in `message.files`.
    flagged_entry: Vec<usize>,
}

impl Listing {
    /// The messages of `packages` (shown as prepared, their activation ids `ids`);
    /// `slots` say which file each file candidate of the batch is. A package's
    /// messages in `earlier` (the listing of the answer this one follows) are reused
    /// when they were made from the very same shown package with the same ids.
    pub(crate) fn new(
        packages: &[Arc<Shown>],
        ids: &[Vec<String>],
        slots: &[FileSlot],
        earlier: Option<&Listing>,
    ) -> Self {
        let held: HashMap<*const Shown, &Arc<Listed>> = earlier
            .into_iter()
            .flat_map(|earlier| &earlier.packages)
            .map(|listed| (Arc::as_ptr(&listed.shown), listed))
            .collect();
        let listed: Vec<Arc<Listed>> = packages
            .iter()
            .zip(ids)
            .map(|(shown, ids)| match held.get(&Arc::as_ptr(shown)) {
                Some(listed) if listed.made_from(shown, ids) => Arc::clone(listed),
                _ => Arc::new(Listed::new(Arc::clone(shown), ids)),
            })
            .collect();
        let mut base = Vec::with_capacity(listed.len());
        let mut unsent = Vec::new();
        for package in &listed {
            base.push(unsent.len());
            unsent.extend_from_slice(&package.unsent);
        }
        let at = slots
            .iter()
            .map(|slot| {
                base[slot.package]
                    + listed[slot.package].places[slot.file]
                    + slot.entry.map_or(0, |entry| entry + 1)
            })
            .collect();
        Listing {
            skills: listed.iter().map(|package| package.skills).sum(),
            packages: listed,
            base,
            at,
            unsent,
        }
    }

    /// The packages `evaluation` lets this caller see, in answer order, or `None` when
    /// it hides a skill (the activation ids are then assigned afresh elsewhere). Fails
    /// closed when the decisions do not match the batch.
    pub(crate) fn list(
        &self,
        order: &[usize],
        evaluation: &Evaluation,
    ) -> Result<Option<Vec<pb::Package>>, DiscoveryError> {
        if evaluation.packages.len() != self.packages.len()
            || evaluation.files.len() != self.at.len()
        {
            return Err(DiscoveryError::Internal(
                "policy answered a different batch".into(),
            ));
        }
        let mut table = self.unsent.clone();
        for (decision, &at) in evaluation.files.iter().zip(&self.at) {
            table[at] = Some(decision.code);
        }
        let visible = |at: usize| table[at].and_then(file_state);
        let packages = self
            .packages
            .iter()
            .zip(&self.base)
            .zip(&evaluation.packages);
        let skills: usize = packages
            .filter(|(_, package)| package.code.is_visible())
            .map(|((listed, base), _)| {
                listed
                    .files
                    .iter()
                    .filter(|f| f.skill && visible(base + f.at).is_some())
                    .count()
            })
            .sum();
        if skills != self.skills {
            return Ok(None);
        }
        let mut answer = Vec::with_capacity(order.len());
        for &at in order {
            let code = evaluation.packages[at].code;
            if !code.is_visible() {
                continue;
            }
            let (listed, base) = (&self.packages[at], self.base[at]);
            let files: Vec<pb::PackageFile> = listed
                .files
                .iter()
                .filter_map(|file| {
                    let at = base + file.at;
                    Some(file.shown(visible(at)?, &table[at..]))
                })
                .collect();
            if files.is_empty() {
                continue; // nothing the caller may see: the package is absent, not empty
            }
            answer.push(pb::Package {
                enabled: code != DecisionCode::VisibleDisabled,
                files,
                ..listed.head.clone()
            });
        }
        Ok(Some(answer))
    }

    /// The heap the messages hold (an estimate: their strings and vectors, as the rest
    /// of the prepared answer is weighed; a package's messages shared with another
    /// answer are counted in both, as its shown form is).
    pub(crate) fn bytes(&self) -> usize {
        let packages: usize = self.packages.iter().map(|p| p.bytes()).sum();
        packages
            + size_of_val(self.base.as_slice())
            + size_of_val(self.at.as_slice())
            + size_of_val(self.unsent.as_slice())
    }
}

impl Listing {
    /// The messages of package candidate `at`, to tell shared ones apart in tests.
    #[cfg(test)]
    pub(crate) fn listed(&self, at: usize) -> &Arc<Listed> {
        &self.packages[at]
    }
}

impl Listed {
    fn new(shown: Arc<Shown>, ids: &[String]) -> Self {
        let mut unsent = Vec::new();
        let mut places = Vec::with_capacity(shown.view.files.len());
        let mut files = Vec::with_capacity(shown.view.files.len());
        for (fi, file) in shown.view.files.iter().enumerate() {
            places.push(unsent.len());
            files.push(listed_file(&shown, fi, &ids[fi], unsent.len()));
            unsent.push(Some(DecisionCode::Hidden));
            unsent.extend(
                shown.own_entry[fi]
                    .iter()
                    .map(|own| (!own).then_some(DecisionCode::Hidden)),
            );
            debug_assert_eq!(file.bundle.len(), shown.own_entry[fi].len());
        }
        Listed {
            head: convert::package(head_of(&shown.view)),
            skills: files.iter().filter(|f| f.skill).count(),
            shown,
            files,
            unsent,
            places,
        }
    }

    /// Whether these are the messages of `shown` (the same allocation) with `ids`.
    fn made_from(&self, shown: &Arc<Shown>, ids: &[String]) -> bool {
        Arc::ptr_eq(&self.shown, shown)
            && self
                .files
                .iter()
                .map(|file| &file.message.activation_id)
                .eq(ids)
    }

    fn bytes(&self) -> usize {
        let files: usize = self
            .files
            .iter()
            .map(|f| {
                size_of::<ListedFile>()
                    + file_bytes(&f.message)
                    + size_of_val(f.flagged_entry.as_slice())
            })
            .sum();
        size_of::<Listed>()
            + head_bytes(&self.head)
            + files
            + size_of_val(self.unsent.as_slice())
            + size_of_val(self.places.as_slice())
    }
}

fn texts(texts: &[String]) -> usize {
    size_of_val(texts) + texts.iter().map(String::len).sum::<usize>()
}

fn file_bytes(m: &pb::PackageFile) -> usize {
    let flagged: usize = m
        .flagged_files
        .iter()
        .map(|f| size_of::<pb::FlaggedEntry>() + f.file.len() + texts(&f.content_flags))
        .sum();
    [&m.path, &m.id, &m.title, &m.description, &m.activation_id]
        .iter()
        .map(|s| s.len())
        .sum::<usize>()
        + texts(&m.files)
        + texts(&m.allowed_tools)
        + texts(&m.content_flags)
        + flagged
}

fn head_bytes(m: &pb::Package) -> usize {
    [
        &m.name,
        &m.key,
        &m.source_slug,
        &m.root,
        &m.package_id,
        &m.policy_key,
    ]
    .iter()
    .map(|s| s.len())
    .sum()
}

impl ListedFile {
    /// The message as this caller sees the file: its state, and only the bundle
    /// entries (and their flags) it may see. A denied or another agent's entry is
    /// dropped without a trace.
    /// `table` starts at the file's own decision.
    fn shown(
        &self,
        state: neuralis_assembly::FileState,
        table: &[Option<DecisionCode>],
    ) -> pb::PackageFile {
        let entries = &table[1..1 + self.message.files.len()];
        let shown = |code: &Option<DecisionCode>| code.is_none_or(DecisionCode::is_visible);
        let mut message = if entries.iter().all(shown) {
            self.message.clone()
        } else {
            let message = &self.message;
            pb::PackageFile {
                files: message
                    .files
                    .iter()
                    .zip(entries)
                    .filter(|(_, code)| shown(code))
                    .map(|(entry, _)| entry.clone())
                    .collect(),
                flagged_files: message
                    .flagged_files
                    .iter()
                    .zip(&self.flagged_entry)
                    .filter(|(_, at)| shown(&entries[**at]))
                    .map(|(flagged, _)| flagged.clone())
                    .collect(),
                content_flags: message.content_flags.clone(),
                allowed_tools: message.allowed_tools.clone(),
                path: message.path.clone(),
                id: message.id.clone(),
                title: message.title.clone(),
                description: message.description.clone(),
                activation_id: message.activation_id.clone(),
                ..*message
            }
        };
        message.state = convert::state(state) as i32;
        message
    }
}

/// The caller's answer as `ListPackages` lists it, with the content flags of
/// `snapshot`'s rows: the general path, for an answer assembled from views.
pub(crate) fn of_answer(answer: Answer, snapshot: &ProjectSnapshot) -> Vec<pb::Package> {
    // The flags are read off the views before they move into the response.
    let flags = flags::of_answer(&answer, snapshot);
    let mut packages: Vec<pb::Package> =
        answer.packages.into_iter().map(convert::package).collect();
    flags::fill(&mut packages, flags);
    packages
}

/// The package's own fields (no files).
fn head_of(view: &neuralis_assembly::PackageView) -> neuralis_assembly::PackageView {
    neuralis_assembly::PackageView {
        origin: view.origin.clone(),
        name: view.name.clone(),
        key: view.key.clone(),
        policy_key: view.policy_key.clone(),
        root: view.root.clone(),
        rule: view.rule.clone(),
        enabled: view.enabled,
        files: Vec::new(),
    }
}

fn listed_file(shown: &Shown, fi: usize, id: &str, at: usize) -> ListedFile {
    let file = &shown.view.files[fi];
    let (own, flagged) = flags::of_shown(file, &shown.flags[fi]);
    let (flagged_entry, flagged_files) = flagged.into_iter().unzip();
    let mut message = convert::file(neuralis_assembly::FileView {
        activation_id: id.to_owned(),
        ..file.clone()
    });
    (message.content_flags, message.flagged_files) = (own, flagged_files);
    ListedFile {
        message,
        at,
        skill: file.category == Category::Skill,
        flagged_entry,
    }
}

#[cfg(test)]
#[path = "listing_tests.rs"]
mod tests;
