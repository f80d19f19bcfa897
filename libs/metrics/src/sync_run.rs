//! Sync runs: how they ended, what started them, the files they handled.

use super::METRICS;

/// How a sync run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    Succeeded,
    Failed,
}

/// The files of one finished run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunFiles {
    pub indexed: u64,
    pub unchanged: u64,
    pub deleted: u64,
    pub skipped: u64,
    pub bytes_read: u64,
}

/// What started a sync run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunTrigger {
    /// A `SyncSource` call (or the service's own `sync_now`).
    Api,
    /// An `interval:` trigger whose due time came.
    Interval,
    /// An `auto` trigger: the root changed, or the watch started.
    Auto,
    /// A read found a file changed since its row.
    Changed,
}

/// One finished sync run, counted per replica: the runs of a source across replicas
/// are the sum of every replica's counters.
pub fn sync_run(outcome: RunOutcome, trigger: RunTrigger, files: RunFiles) {
    let outcome = match outcome {
        RunOutcome::Succeeded => "succeeded",
        RunOutcome::Failed => "failed",
    };
    let trigger = match trigger {
        RunTrigger::Api => "api",
        RunTrigger::Interval => "interval",
        RunTrigger::Auto => "auto",
        RunTrigger::Changed => "changed",
    };
    METRICS
        .sync_runs
        .get_or_create(&[("outcome", outcome), ("trigger", trigger)])
        .inc();
    for (result, count) in [
        ("indexed", files.indexed),
        ("unchanged", files.unchanged),
        ("deleted", files.deleted),
        ("skipped", files.skipped),
    ] {
        METRICS
            .sync_files
            .get_or_create(&[("result", result)])
            .inc_by(count);
    }
    METRICS.sync_bytes.inc_by(files.bytes_read);
}
