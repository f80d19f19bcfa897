//! The survey that opens every run: the listing, compared with the source's stored rows
//! (size and modification time first). The stored rows are read while the walk runs
//! (the database and the walk work at once), then compared as they come; what the rest
//! of the run needs from them is kept, the rest is dropped as it passes.

use super::prepare::{Job, ListedAt};
use super::{RunDeps, blocking};
use crate::SyncError;
use crate::connector::{Connector, FileStat, Listing, SkipReason, Skipped};
use crate::layout_rules::LayoutRules;
use neuralis_index::{IndexError, IndexStore, SourceRecord, StoredFile};
use neuralis_sync_core::{Planner, StoredStat, SyncPlan, Verdict};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::task::JoinHandle;

/// What a run knows before it reads any content.
pub struct Survey {
    /// The files the connector listed, ordered by path (shared with the jobs).
    pub files: Arc<[FileStat]>,
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
    let (reading, mut stored_rows) = read_stored_rows(&deps.store, source);
    let (listing, revision) = tokio::join!(
        blocking(Arc::clone(connector), |c| c.list()),
        deps.store.revision(&source.project),
    );
    let listed = (|| -> Result<(Listing, u64), SyncError> { Ok((listing??, revision?)) })();
    let (mut listing, revision) = match listed {
        Ok(listed) => listed,
        Err(err) => {
            reading.abort();
            return Err(err);
        }
    };
    leave_out_excluded(&mut listing, &source.exclude_globs);
    let rules = Arc::clone(&deps.rules);
    let patterns = &source.privacy_patterns;
    let mut planner = Planner::new(&listing.files, rules.payload_version(), |path| {
        rules.privacy_owner(path, patterns)
    })
    .with_racy_since(source.status.last_synced_at);
    let mut examined = HashMap::new();
    let mut payloads = HashMap::new();
    while let Some(mut file) = stored_rows.recv().await {
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
    }
    reading
        .await
        .map_err(|err| SyncError::Internal(format!("stored rows task: {err}")))??;
    let stored = (0..listing.files.len())
        .map(|at| planner.is_stored(at))
        .collect();
    let plan = planner.finish();
    Ok(Survey {
        files: listing.files.into(),
        skipped: listing.skipped,
        revision,
        plan,
        stored,
        payloads,
        examined,
    })
}

/// Leaves out the files the source's exclude globs name (seed 002, "machineWritten"):
/// reported as excluded, and, never listed, their stored rows go like a deleted file's.
fn leave_out_excluded(listing: &mut Listing, globs: &[String]) {
    let globs = match neuralis_sync_core::exclude::ExcludeGlobs::new(globs) {
        Ok(globs) if !globs.is_empty() => globs,
        Ok(_) => return,
        Err(problem) => {
            // Checked at create and update: a stored glob that fails is a bug, logged.
            tracing::warn!(problem, "stored exclude globs ignored");
            return;
        }
    };
    let (kept, left): (Vec<FileStat>, Vec<FileStat>) = std::mem::take(&mut listing.files)
        .into_iter()
        .partition(|file| !globs.excludes(&file.path));
    listing.files = kept;
    listing.skipped.extend(left.into_iter().map(|file| Skipped {
        path: file.path,
        reason: SkipReason::Excluded,
        detail: "named by the source's exclude globs".to_owned(),
    }));
}

/// Starts reading the source's stored rows in their comparison form on a task of its
/// own; they queue until the listing is there to compare them with. The queue can hold
/// every row of the source (the comparison form, no payload for plain files: about the
/// listing's own size) when the database is faster than the walk.
fn read_stored_rows(
    store: &Arc<dyn IndexStore>,
    source: &SourceRecord,
) -> (
    JoinHandle<Result<(), IndexError>>,
    UnboundedReceiver<StoredFile>,
) {
    let (sender, receiver) = unbounded_channel();
    let store = Arc::clone(store);
    let (project, slug) = (source.project.clone(), source.slug.clone());
    let reading = tokio::spawn(async move {
        store
            .visit_source_files(&project, &slug, &mut |file| {
                // The receiver goes only when the survey failed: nothing to compare.
                let _ = sender.send(file);
            })
            .await
    });
    (reading, receiver)
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
        for (at, file) in self.files.iter().enumerate() {
            let refresh_only = if examine.next_if(|path| **path == file.path).is_some() {
                false
            } else if refresh.next_if(|path| **path == file.path).is_some() {
                true
            } else {
                continue;
            };
            let job = Job {
                stat: ListedAt::new(&self.files, at),
                existing: self.examined.remove(&file.path).map(Box::new),
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
