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

use crate::answers::flags;
use crate::base::convert;
use crate::base::error::DiscoveryError;
use crate::decision::answer::{Answer, assemble, file_state};
use crate::grouping::listed::{ListedFile, Listing};
use crate::grouping::prepared::Prepared;
use crate::rows::inventory::ProjectSnapshot;

impl Listing {
    /// The packages `evaluation` lets this caller see, in answer order, or `None` when
    /// it hides a skill (the activation ids are then assigned afresh elsewhere). Fails
    /// closed when the decisions do not match the batch.
    pub(crate) fn list(
        &self,
        order: &[usize],
        evaluation: &Evaluation,
    ) -> Result<Option<Vec<pb::Package>>, DiscoveryError> {
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

/// The `ListPackages` answer for one caller's decisions over `prepared`: one page of
/// what it may see (page 0 is everything), straight from the prepared messages when
/// they hold, else from the assembled answer (with the content flags of `snapshot`).
pub(crate) fn list_packages(
    prepared: &Prepared,
    evaluation: &Evaluation,
    snapshot: &ProjectSnapshot,
    request: &pb::ListPackagesRequest,
) -> Result<pb::ListPackagesResponse, DiscoveryError> {
    let packages = match prepared.listing.list(&prepared.order, evaluation)? {
        Some(packages) => packages,
        // A hidden skill: the activation ids are assigned afresh, with the views.
        None => of_answer(assemble(prepared, evaluation)?, snapshot),
    };
    let (packages, next_page_token) = neuralis_proto::page::page(
        packages,
        request.page_size,
        &request.page_token,
        |package| package.policy_key.as_str(),
    )
    .map_err(|e| DiscoveryError::invalid(e.field, e.message))?;
    Ok(pb::ListPackagesResponse {
        packages,
        next_page_token,
    })
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
