//! What an answer needs that is the same for every caller, prepared once per inventory
//! snapshot and source listing (issue 13, "warm answers"): the batch of candidates
//! policy decides, and per candidate the package as it would be shown with every file,
//! in package order. Nothing here says who may see what: every request still asks policy
//! to decide the whole batch for its caller, afresh, and the decision stage keeps only
//! what that decision lets through.
//!
//! A prepared answer is reused only for the very snapshot it was prepared from (the
//! same allocation, never an equal-looking one) and only while the sources read for
//! the request equal those it was prepared with: a new snapshot, or a changed scope,
//! privacy pattern or root of any source, prepares afresh. Preparing afresh after a
//! delta builds only the packages the delta changed: the others are shared with the
//! answer prepared before it (compared input for input, never assumed).

use std::collections::HashMap;
use std::sync::Arc;

use neuralis_access::{EvaluationRequest, KeptBatch};
use neuralis_assembly::package_order_key;

use crate::base::ports::PackageSource;
use crate::grouping::candidates::{Batch, Candidate, FileSlot, ToolSlot};
use crate::grouping::listed::Listing;

mod ids;
pub(crate) mod shown;
pub(crate) mod weight;

pub(crate) use shown::Shown;

/// The caller-independent part of a project's answer.
#[derive(Debug, PartialEq)]
pub(crate) struct Prepared {
    /// The batch policy decides for each caller.
    pub request: Arc<EvaluationRequest>,
    /// `request` checked once, for policy in this process to decide it without
    /// checking it again on every call (`None` when it does not pass: each call then
    /// sends it to be refused as before).
    pub kept: Option<KeptBatch>,
    /// One per `request.files`: which file (or bundle entry) of which package it is.
    pub slots: Vec<FileSlot>,
    /// One per `request.files` after the `slots`: which installed package's tool it is.
    pub tools: Vec<ToolSlot>,
    /// One per package candidate, index for index with `request.packages`; shared with
    /// the answers of other snapshots that show the package alike.
    pub packages: Vec<Arc<Shown>>,
    /// The package candidates in the order an answer lists packages.
    pub order: Vec<usize>,
    /// Per package candidate, per file: its activation id when every skill is visible
    /// (empty for other files).
    pub ids: Vec<Vec<String>>,
    /// How many skill files the package candidates hold.
    pub skills: usize,
    /// The `ListPackages` messages of the packages (see [`Listing`]): a package shared
    /// with the answer before this one shares its messages too, unless its activation
    /// ids moved.
    pub listing: Listing,
    /// One per package candidate: the flagged source a recognized package was found
    /// in (its scope decides who it reaches, its tools answer `ListTools`).
    pub package_sources: Vec<Option<PackageSource>>,
}

impl Prepared {
    /// The owned, caller-independent form of `batch`. A package `previous` (the answer
    /// of the snapshot this one was derived from) shows exactly as the batch's would is
    /// shared, not built again: after a delta only the packages it changed are built.
    pub(crate) fn new(batch: Batch<'_>, previous: Option<&Prepared>) -> Self {
        let held: HashMap<&str, &Arc<Shown>> = previous
            .map(|previous| {
                previous
                    .request
                    .packages
                    .iter()
                    .map(|candidate| candidate.key.as_str())
                    .zip(&previous.packages)
                    .collect()
            })
            .unwrap_or_default();
        let packages: Vec<Arc<Shown>> = batch
            .candidates
            .iter()
            .zip(&batch.request.packages)
            .map(|(candidate, sent)| match held.get(sent.key.as_str()) {
                Some(old) if shown::unchanged(old, candidate, &sent.key) => Arc::clone(old),
                _ => Arc::new(shown::shown(candidate)),
            })
            .collect();
        let mut order: Vec<usize> = (0..packages.len()).collect();
        // Stable, as assembling a visible subset and sorting it would be.
        order.sort_by(|a, b| {
            package_order_key(&packages[*a].view).cmp(&package_order_key(&packages[*b].view))
        });
        let (ids, skills) = ids::activation_ids(&packages, &order);
        let earlier = previous.map(|previous| &previous.listing);
        let listing = Listing::new(&packages, &ids, (&batch.slots, batch.tools.len()), earlier);
        let package_sources = batch
            .candidates
            .iter()
            .map(|candidate| match candidate {
                Candidate::Installed { installed, .. } => installed.source.clone(),
                Candidate::Source { .. } => None,
            })
            .collect();
        let request = Arc::new(batch.request);
        Prepared {
            kept: KeptBatch::new(Arc::clone(&request)).ok(),
            package_sources,
            listing,
            request,
            slots: batch.slots,
            tools: batch.tools,
            packages,
            order,
            ids,
            skills,
        }
    }
}
