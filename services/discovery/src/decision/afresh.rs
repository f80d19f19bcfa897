//! Files decided afresh for one caller, in a small batch of their own: files the
//! prepared batch does not hold (a bundle entry past the 64 listed, a search hit in a
//! file no package lists: `grouping/reach.rs`), and files decided once already that a
//! longer call reads later (hydration decides each again right before its read).
//! The batch carries the same source headers and package candidates as the prepared
//! one, so the gates are the same; nothing decided here is kept.

use std::sync::Arc;

use neuralis_access::{Caller, DecisionCode, EvaluationRequest, FileCandidate, PackageCandidate};

use crate::base::error::DiscoveryError;
use crate::base::ports::{AccessPort, SourceInfo};
use crate::grouping::prepared::Prepared;

/// What deciding afresh needs: the prepared batch, the caller and its conversation, and
/// the sources read for this request.
pub(crate) struct Afresh {
    pub prepared: Arc<Prepared>,
    pub caller: Caller,
    pub conversation: Option<String>,
    pub sources: Vec<SourceInfo>,
}

impl Afresh {
    /// The source read for this request with `slug`.
    pub(crate) fn source(&self, slug: &str) -> Option<&SourceInfo> {
        self.sources.iter().find(|source| source.slug == slug)
    }

    /// Decides `files`, each of its package in `packages` (by index), for the caller
    /// now: per file, its code, `Hidden` too when its package is hidden.
    pub(crate) async fn decide(
        &self,
        access: &dyn AccessPort,
        packages: Vec<PackageCandidate>,
        files: Vec<FileCandidate>,
    ) -> Result<Vec<DecisionCode>, DiscoveryError> {
        if files.is_empty() {
            return Ok(Vec::new());
        }
        let request = EvaluationRequest {
            project: self.prepared.request.project.clone(),
            sources: self.prepared.request.sources.clone(),
            data_sources: self.prepared.request.data_sources.clone(),
            packages,
            files,
        };
        let evaluation = access
            .evaluate(&self.caller, self.conversation.as_deref(), &request)
            .await?;
        if evaluation.files.len() != request.files.len()
            || evaluation.packages.len() != request.packages.len()
        {
            return Err(DiscoveryError::Internal(
                "policy answered a different batch".into(),
            ));
        }
        Ok(request
            .files
            .iter()
            .zip(&evaluation.files)
            .map(|(file, decision)| {
                let package = evaluation.packages.get(file.package);
                if package.is_some_and(|package| package.code.is_visible()) {
                    decision.code
                } else {
                    DecisionCode::Hidden
                }
            })
            .collect())
    }

    /// Decides again the prepared batch's file `index` (a member file or bundle entry)
    /// with its package, for the caller now.
    pub(crate) async fn decide_again(
        &self,
        access: &dyn AccessPort,
        index: usize,
    ) -> Result<DecisionCode, DiscoveryError> {
        let request = &self.prepared.request;
        let Some(file) = request.files.get(index) else {
            return Ok(DecisionCode::Hidden);
        };
        let Some(package) = request.packages.get(file.package) else {
            return Ok(DecisionCode::Hidden);
        };
        let file = FileCandidate {
            package: 0,
            ..file.clone()
        };
        let codes = self
            .decide(access, vec![package.clone()], vec![file])
            .await?;
        Ok(codes.first().copied().unwrap_or(DecisionCode::Hidden))
    }
}
