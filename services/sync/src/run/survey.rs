//! The survey that opens every run: the listing, compared with the source's stored rows
//! as they stream from the store (size and modification time first). What the rest of
//! the run needs from those rows is kept; the rest is dropped as it passes, so a large
//! source is compared without holding its rows.

use super::prepare::Job;
use super::{RunDeps, blocking};
use crate::SyncError;
use crate::connector::{Connector, FileStat, Skipped};
use crate::layout_rules::LayoutRules;
use neuralis_index::{SourceRecord, StoredFile};
use neuralis_sync_core::{Planner, StoredStat, SyncPlan, Verdict};
use std::collections::HashMap;
use std::sync::Arc;

/// What a run knows before it reads any content.
pub struct Survey {
    /// The files the connector listed, ordered by path.
    pub files: Vec<FileStat>,
    /// What the listing left out.
    pub skipped: Vec<Skipped>,
    /// The project's revision when the run began.
    pub revision: u64,
    /// What to examine, refresh and delete.
    pub plan: SyncPlan,
    /// Whether each listed file (same index) has a stored row.
    pub stored: Vec<bool>,
    /// The stored payloads of rows that are not plain files (what grouping reads), by
    /// path: the package roots before the run are computed from them.
    pub payloads: HashMap<String, serde_json::Value>,
    /// The stored rows of the files to examine or refresh.
    examined: HashMap<String, StoredFile>,
}

/// Lists the source and plans the run against its stored rows.
pub async fn survey(
    deps: &RunDeps,
    source: &SourceRecord,
    connector: &Arc<dyn Connector>,
) -> Result<Survey, SyncError> {
    let listing = blocking(Arc::clone(connector), |c| c.list()).await??;
    let revision = deps.store.revision(&source.project).await?;
    let rules = Arc::clone(&deps.rules);
    let patterns = &source.privacy_patterns;
    let mut planner = Planner::new(&listing.files, rules.payload_version(), |path| {
        rules.privacy_owner(path, patterns)
    })
    .with_racy_since(source.status.last_synced_at);
    let mut examined = HashMap::new();
    let mut payloads = HashMap::new();
    deps.store
        .visit_source_files(&source.project, &source.slug, &mut |mut file| {
            let verdict = planner.compare(StoredStat {
                path: &file.path,
                size: file.size,
                modified: file.modified,
                payload_version: file.payload_version,
                privacy_owner: file.privacy_owner.as_deref(),
                real_path: file.real_path.as_deref(),
            });
            if let Some(payload) = file.payload.take() {
                payloads.insert(file.path.clone(), payload);
            }
            if matches!(verdict, Verdict::Examine | Verdict::RefreshPayload) {
                examined.insert(file.path.clone(), file);
            }
        })
        .await?;
    let stored = (0..listing.files.len())
        .map(|at| planner.is_stored(at))
        .collect();
    let plan = planner.finish();
    Ok(Survey {
        files: listing.files,
        skipped: listing.skipped,
        revision,
        plan,
        stored,
        payloads,
        examined,
    })
}

impl Survey {
    /// Whether the run has nothing to write.
    pub fn writes_nothing(&self) -> bool {
        self.plan.examine.is_empty()
            && self.plan.refresh_payload.is_empty()
            && self.plan.delete.is_empty()
    }

    /// The files to read or recapture, in listing order: first those whose content the
    /// layout core reads (they can move package roots), then all the others.
    pub fn jobs(&mut self, rules: &dyn LayoutRules) -> (Vec<Job>, Vec<Job>) {
        let mut examine = self.plan.examine.iter().peekable();
        let mut refresh = self.plan.refresh_payload.iter().peekable();
        let (mut content, mut streamed) = (Vec::new(), Vec::new());
        for file in &self.files {
            let refresh_only = if examine.next_if(|path| **path == file.path).is_some() {
                false
            } else if refresh.next_if(|path| **path == file.path).is_some() {
                true
            } else {
                continue;
            };
            let job = Job {
                stat: file.clone(),
                existing: self.examined.remove(&file.path),
                refresh_only,
            };
            if rules.needs_content(&file.path) {
                content.push(job);
            } else {
                streamed.push(job);
            }
        }
        (content, streamed)
    }
}
