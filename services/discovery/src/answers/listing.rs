//! `ListPackages` straight from the prepared answer (issue 13, warm answers): a call
//! copies only the messages made once per prepared answer (`grouping/listed.rs`) that
//! its caller's decisions let through, setting the states from them. No view is
//! assembled and converted per call.
//!
//! Nothing about access is here: the decisions are the caller's, made by policy for
//! this call. When they hide a skill, the activation ids may differ from the prepared
//! ones (they depend on which skills collide) and the caller is answered by the general
//! path ([`crate::decision::answer::assemble`]), which assigns them afresh.

use neuralis_access::{DecisionCode, Evaluation};
use neuralis_proto::discovery::v1 as pb;
use neuralis_proto::discovery::v1::list_packages::{self, EncodedFile};
use prost::bytes::{Bytes, BytesMut};

use crate::answers::flags;
use crate::base::convert;
use crate::base::error::DiscoveryError;
use crate::decision::answer::{Answer, assemble, file_state};
use crate::grouping::listed::{Listed, ListedFile, Listing};
use crate::grouping::prepared::Prepared;
use crate::rows::inventory::ProjectSnapshot;

/// What one caller sees of a prepared answer's messages: the table of its decisions and
/// the packages it sees, in answer order. Both renderings (messages for the in-process
/// API and the watch, bytes for the wire) are made from it, so they cannot disagree.
pub(crate) struct Seen<'a> {
    table: Vec<Option<DecisionCode>>,
    packages: Vec<SeenPackage<'a>>,
}

/// A package the caller sees, and its files the caller sees with their states.
struct SeenPackage<'a> {
    listed: &'a Listed,
    enabled: bool,
    /// Each file, its state and its decision's place in the table.
    files: Vec<(&'a ListedFile, neuralis_assembly::FileState, usize)>,
}

impl Listing {
    /// What `evaluation` lets this caller see, in answer order, or `None` when it hides
    /// a skill (the activation ids are then assigned afresh elsewhere). Fails closed
    /// when the decisions do not match the batch.
    pub(crate) fn seen(
        &self,
        order: &[usize],
        evaluation: &Evaluation,
    ) -> Result<Option<Seen<'_>>, DiscoveryError> {
        if evaluation.packages.len() != self.packages.len()
            || evaluation.files.len() != self.at.len() + self.tools
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
        let mut seen = Vec::with_capacity(order.len());
        for &at in order {
            let code = evaluation.packages[at].code;
            if !code.is_visible() {
                continue;
            }
            let (listed, base) = (&*self.packages[at], self.base[at]);
            let files: Vec<_> = listed
                .files
                .iter()
                .filter_map(|file| {
                    let at = base + file.at;
                    Some((file, visible(at)?, at))
                })
                .collect();
            if files.is_empty() {
                continue; // nothing the caller may see: the package is absent, not empty
            }
            seen.push(SeenPackage {
                listed,
                enabled: code != DecisionCode::VisibleDisabled,
                files,
            });
        }
        Ok(Some(Seen {
            table,
            packages: seen,
        }))
    }

    /// [`Listing::seen`] as messages.
    #[cfg(test)]
    pub(crate) fn list(
        &self,
        order: &[usize],
        evaluation: &Evaluation,
    ) -> Result<Option<Vec<pb::Package>>, DiscoveryError> {
        Ok(self.seen(order, evaluation)?.map(|seen| seen.messages()))
    }
}

impl Seen<'_> {
    /// The page of it `request` asks for, and the next page's token.
    fn page(mut self, request: &pb::ListPackagesRequest) -> Result<(Self, String), DiscoveryError> {
        let (packages, next) = page(self.packages, request, |p| {
            p.listed.head.policy_key.as_str()
        })?;
        self.packages = packages;
        Ok((self, next))
    }

    fn messages(&self) -> Vec<pb::Package> {
        self.packages
            .iter()
            .map(|package| pb::Package {
                enabled: package.enabled,
                files: package
                    .files
                    .iter()
                    .map(|&(file, state, at)| file.shown(state, &self.table[at..]))
                    .collect(),
                ..package.listed.head.clone()
            })
            .collect()
    }

    /// The packages as entries of `ListPackagesResponse.packages`, written from the
    /// bytes kept with the prepared messages: the bytes prost would write for
    /// [`Seen::messages`]. A file some of whose bundle entries are hidden is made and
    /// encoded for this call.
    fn encoded(&self) -> Bytes {
        let mut parts = Vec::new();
        let mut lengths = Vec::with_capacity(self.packages.len());
        for package in &self.packages {
            let mut files = 0;
            for &(file, state, at) in &package.files {
                let part = file.part(state, &self.table[at..]);
                files += part.entry_len();
                parts.push(part);
            }
            lengths.push(files);
        }
        let total: usize = self
            .packages
            .iter()
            .zip(&lengths)
            .map(|(package, &files)| package.listed.encoded.entry_len(package.enabled, files))
            .sum();
        let mut buf = BytesMut::with_capacity(total);
        let mut parts = parts.iter();
        for (package, &files) in self.packages.iter().zip(&lengths) {
            package
                .listed
                .encoded
                .put(package.enabled, files, &mut buf, |buf| {
                    for part in parts.by_ref().take(package.files.len()) {
                        part.put(buf);
                    }
                });
        }
        buf.freeze()
    }
}

/// A file as this call writes it: its kept bytes with a state, or a message made now.
enum FilePart<'a> {
    Kept(&'a EncodedFile, i32),
    Made(Box<pb::PackageFile>),
}

impl FilePart<'_> {
    fn entry_len(&self) -> usize {
        match self {
            FilePart::Kept(file, state) => file.entry_len(*state),
            FilePart::Made(message) => list_packages::file_entry_len(message),
        }
    }

    fn put(&self, buf: &mut BytesMut) {
        match self {
            FilePart::Kept(file, state) => file.put(*state, buf),
            FilePart::Made(message) => list_packages::put_file_entry(message, buf),
        }
    }
}

impl ListedFile {
    /// The message as this caller sees the file: its state, and only the bundle
    /// entries (and their flags) it may see. A denied or another agent's entry is
    /// dropped without a trace.
    /// `table` starts at the file's own decision.
    pub(crate) fn shown(
        &self,
        state: neuralis_assembly::FileState,
        table: &[Option<DecisionCode>],
    ) -> pb::PackageFile {
        let mut message = if self.every_entry_shown(table) {
            self.message.clone()
        } else {
            self.without_hidden_entries(table)
        };
        message.state = convert::state(state) as i32;
        message
    }

    /// [`ListedFile::shown`], to be written: the kept bytes when every entry is shown.
    fn part(
        &self,
        state: neuralis_assembly::FileState,
        table: &[Option<DecisionCode>],
    ) -> FilePart<'_> {
        if self.every_entry_shown(table) {
            FilePart::Kept(&self.encoded, convert::state(state) as i32)
        } else {
            FilePart::Made(Box::new(self.shown(state, table)))
        }
    }

    fn every_entry_shown(&self, table: &[Option<DecisionCode>]) -> bool {
        table[1..1 + self.message.files.len()].iter().all(shown)
    }

    fn without_hidden_entries(&self, table: &[Option<DecisionCode>]) -> pb::PackageFile {
        let entries = &table[1..1 + self.message.files.len()];
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
    }
}

/// Whether a bundle entry's decision shows it: an entry not sent follows its skill.
fn shown(code: &Option<DecisionCode>) -> bool {
    code.is_none_or(DecisionCode::is_visible)
}

/// How the answer is carried: as messages (the in-process API, the watch) or as the
/// bytes of its packages (the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    Messages,
    Encoded,
}

/// The `ListPackages` answer for one caller's decisions over `prepared`: one page of
/// what it may see (page 0 is everything), straight from the prepared messages when
/// they hold, else from the assembled answer (with the content flags of `snapshot`).
pub(crate) fn list_packages(
    prepared: &Prepared,
    evaluation: &Evaluation,
    snapshot: &ProjectSnapshot,
    request: &pb::ListPackagesRequest,
    form: Form,
) -> Result<pb::ListPackagesResponse, DiscoveryError> {
    let Some(seen) = prepared.listing.seen(&prepared.order, evaluation)? else {
        // A hidden skill: the activation ids are assigned afresh, with the views.
        let packages = of_answer(assemble(prepared, evaluation)?, snapshot);
        let (packages, next_page_token) = page(packages, request, |p| p.policy_key.as_str())?;
        return Ok(pb::ListPackagesResponse {
            packages,
            next_page_token,
            ..Default::default()
        });
    };
    let (seen, next_page_token) = seen.page(request)?;
    let mut response = pb::ListPackagesResponse {
        next_page_token,
        ..Default::default()
    };
    match form {
        Form::Messages => response.packages = seen.messages(),
        Form::Encoded => response.encoded_packages = seen.encoded(),
    }
    Ok(response)
}

/// The page of `items` (keyed by their policy keys) that `request` asks for.
fn page<T>(
    items: Vec<T>,
    request: &pb::ListPackagesRequest,
    key: impl Fn(&T) -> &str,
) -> Result<(Vec<T>, String), DiscoveryError> {
    neuralis_proto::page::page(items, request.page_size, &request.page_token, key)
        .map_err(|e| DiscoveryError::invalid(e.field, e.message))
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

#[cfg(test)]
#[path = "listing_tests.rs"]
mod tests;
