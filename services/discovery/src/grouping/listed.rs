//! The `ListPackages` messages of a prepared answer (issue 13, warm answers). The
//! message of every package and file is made once, as it would be shown were
//! everything visible (activation ids and content flags included: both are the same
//! for every caller who sees every skill), and kept by the next prepared answer for
//! every package a delta left as it was (issue 13, "cost proportional to the change");
//! a call copies only the messages its caller's decisions let through, setting the
//! states from them (`answers/listing.rs`). Each message is kept encoded too, so that
//! the wire's answer is written from bytes, not built and encoded per call. Nothing
//! about access is here.

use std::collections::HashMap;
use std::sync::Arc;

use neuralis_access::DecisionCode;
use neuralis_assembly::FileView;
use neuralis_content_flags::FlagSet;
use neuralis_layout::Category;
use neuralis_proto::discovery::v1 as pb;
use neuralis_proto::discovery::v1::list_packages::{EncodedFile, EncodedHead};

use crate::base::convert;
use crate::grouping::candidates::FileSlot;
use crate::grouping::prepared::shown::{FileFlags, Shown};

/// The messages of a prepared answer, and where each decision of its batch goes.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Listing {
    /// One per package candidate, index for index with the batch's packages; shared
    /// with the listing of the answer before when made from the same shown package
    /// with the same activation ids (issue 13: a delta makes only the messages of the
    /// packages it changed).
    pub(crate) packages: Vec<Arc<Listed>>,
    /// Per package candidate: where its part of the table of decisions starts.
    pub(crate) base: Vec<usize>,
    /// One per member file and bundle entry candidate of the batch: its place in the
    /// table of decisions.
    pub(crate) at: Vec<usize>,
    /// The tool candidates sent after them (decided for `ListTools`, not listed).
    pub(crate) tools: usize,
    /// The table of decisions before a call's are written in, the packages' parts one
    /// after another (see [`Listed::unsent`]).
    pub(crate) unsent: Vec<Option<DecisionCode>>,
    /// How many skills the package candidates hold.
    pub(crate) skills: usize,
}

/// One package's messages: a function of its shown form and activation ids alone, so
/// that both say when they can be reused.
#[derive(Debug, PartialEq)]
pub(crate) struct Listed {
    /// What the messages were made from (held so that sameness is identity).
    pub(crate) shown: Arc<Shown>,
    /// The package without its files (`enabled` is set per call).
    pub(crate) head: pb::Package,
    /// `head` encoded, to write a call's answer from (`answers/listing.rs`).
    pub(crate) encoded: EncodedHead,
    pub(crate) files: Vec<ListedFile>,
    /// This package's part of the table of decisions before a call's are written in:
    /// a member file that was not sent (nobody may see it) stays hidden; a skill's own
    /// bundle entry follows its skill (`None`); any other entry not sent stays hidden.
    pub(crate) unsent: Vec<Option<DecisionCode>>,
    /// Per member file: its decision's place in this package's part of the table; its
    /// bundle entries' follow, one each.
    pub(crate) places: Vec<usize>,
    pub(crate) skills: usize,
}

#[derive(Debug, PartialEq)]
pub(crate) struct ListedFile {
    /// With every bundle entry and every flagged entry (`state` is set per call).
    pub(crate) message: pb::PackageFile,
    /// `message` encoded, to write a call's answer from when it shows every entry.
    pub(crate) encoded: EncodedFile,
    /// Its decision's place in the package's part of the table.
    pub(crate) at: usize,
    pub(crate) skill: bool,
    /// Per flagged entry of `message.flagged_files`, its index in `message.files`.
    pub(crate) flagged_entry: Vec<usize>,
}

impl Listing {
    /// The messages of `packages` (shown as prepared, their activation ids `ids`);
    /// `slots` say which file each file candidate of the batch is. A package's
    /// messages in `earlier` (the listing of the answer this one follows) are reused
    /// when they were made from the very same shown package with the same ids.
    pub(crate) fn new(
        packages: &[Arc<Shown>],
        ids: &[Vec<String>],
        (slots, tools): (&[FileSlot], usize),
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
            tools,
            unsent,
        }
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
        let head = convert::package(head_of(&shown.view));
        Listed {
            encoded: EncodedHead::new(&head),
            head,
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
                    + f.encoded.bytes()
                    + size_of_val(f.flagged_entry.as_slice())
            })
            .sum();
        size_of::<Listed>()
            + head_bytes(&self.head)
            + self.encoded.bytes()
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
    let (own, flagged) = of_shown(file, &shown.flags[fi]);
    let (flagged_entry, flagged_files) = flagged.into_iter().unzip();
    let mut message = convert::file(neuralis_assembly::FileView {
        activation_id: id.to_owned(),
        ..file.clone()
    });
    (message.content_flags, message.flagged_files) = (own, flagged_files);
    ListedFile {
        encoded: EncodedFile::new(&message),
        message,
        at,
        skill: file.category == Category::Skill,
        flagged_entry,
    }
}

/// Flags by name, as the messages carry them.
pub(crate) fn names(flags: FlagSet) -> Vec<String> {
    flags.names().map(str::to_owned).collect()
}

/// A file's own flags (and a skill's flagged bundle entries') as messages, from the
/// flags a prepared package holds (see [`FileFlags`]: none for its skill's own entry,
/// none for a host-installed package's file), each flagged entry with its index in the
/// file's bundle.
pub(crate) fn of_shown(
    file: &FileView,
    flags: &FileFlags,
) -> (Vec<String>, Vec<(usize, pb::FlaggedEntry)>) {
    let entries = flags
        .entries
        .iter()
        .zip(&file.bundle)
        .enumerate()
        .filter(|(_, (flags, _))| !flags.is_empty())
        .map(|(at, (flags, entry))| {
            let flagged = pb::FlaggedEntry {
                file: entry.clone(),
                content_flags: names(*flags),
            };
            (at, flagged)
        })
        .collect();
    (names(flags.own), entries)
}
