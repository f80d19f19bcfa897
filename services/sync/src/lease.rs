//! Replicas taking turns at a source (issue 26 item 1), carried out on the index
//! store with the rules of `neuralis_sync_core::lease`: a run holds the source's lease
//! (renewed while it runs, released after, lapsing when its replica dies), and an
//! `interval:` trigger runs only when it moved the stored due time itself.
//!
//! The embedded store is single-process: the same path runs there, and its lease is
//! always free or this process's own.

use crate::SyncError;
use neuralis_index::{IndexStore, LeaseRow, SourceRecord};
use neuralis_sync_core::lease::{self, DueClaim, Lease};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// The leases of one replica.
pub(crate) struct Leases {
    store: Arc<dyn IndexStore>,
    /// This replica's holder id.
    me: String,
    ttl: Duration,
}

/// What an `interval:` trigger found in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Due {
    /// This replica moved the due time: it runs the source now.
    Run,
    /// Not due, or another replica runs it.
    Wait,
    /// The source is gone or its trigger changed (through any replica): re-arm.
    Changed,
}

impl Leases {
    /// The leases of the replica `me`, each lapsing `ttl` after its last renewal.
    pub(crate) fn new(store: Arc<dyn IndexStore>, me: String, ttl: Duration) -> Self {
        Self { store, me, ttl }
    }

    /// Takes the source's lease, waiting while another live replica runs it (as a
    /// second run in one process waits for the first). Renewed until released.
    pub(crate) async fn hold(&self, project: &str, slug: &str) -> Result<Held, SyncError> {
        loop {
            let turn = self
                .store
                .source_turn(project, slug)
                .await?
                .ok_or_else(|| {
                    SyncError::NotFound(format!("source {slug:?} of project {project:?}"))
                })?;
            let seen = turn.lease;
            if rule(&seen).may_take(&self.me, now()) {
                let mine = self.row(now());
                if self.store.swap_lease(project, slug, &seen, &mine).await? {
                    return Ok(self.held(project, slug, mine));
                }
            }
            tokio::time::sleep(lease::wait_step(self.ttl)).await;
        }
    }

    /// Whether this replica runs an `interval:` source now (the store's due time
    /// decides, so one replica per period does). A store that does not answer waits.
    pub(crate) async fn due(&self, source: &SourceRecord, period: Duration) -> Due {
        match self.claim(source, period).await {
            Ok(due) => due,
            Err(err) => {
                tracing::warn!(source = %source.id, error = %err, "due time not read");
                Due::Wait
            }
        }
    }

    async fn claim(&self, source: &SourceRecord, period: Duration) -> Result<Due, SyncError> {
        let (project, slug) = (source.project.as_str(), source.slug.as_str());
        let Some(turn) = self.store.source_turn(project, slug).await? else {
            return Ok(Due::Changed);
        };
        if turn.trigger != source.trigger {
            return Ok(Due::Changed);
        }
        let seen = turn.next_due;
        Ok(match lease::claim_due(seen, now(), period) {
            DueClaim::Wait => Due::Wait,
            DueClaim::Arm(next) => {
                self.store.swap_due(project, slug, seen, next).await?;
                Due::Wait
            }
            DueClaim::Run(next) if self.store.swap_due(project, slug, seen, next).await? => {
                Due::Run
            }
            DueClaim::Run(_) => Due::Wait,
        })
    }

    fn row(&self, now: i64) -> LeaseRow {
        LeaseRow {
            holder: self.me.clone(),
            expires_at: lease::expires_at(now, self.ttl),
        }
    }

    fn held(&self, project: &str, slug: &str, mine: LeaseRow) -> Held {
        let place = Place {
            store: Arc::clone(&self.store),
            project: project.to_owned(),
            slug: slug.to_owned(),
            me: self.me.clone(),
        };
        let renewal = tokio::spawn(renew(place.clone(), mine, self.ttl));
        Held {
            place: Some(place),
            renewal,
        }
    }
}

/// Where a lease is held, and by whom.
#[derive(Clone)]
struct Place {
    store: Arc<dyn IndexStore>,
    project: String,
    slug: String,
    me: String,
}

/// A lease this replica holds; released by [`Held::release`], or when dropped (a run
/// cancelled midway), so the source does not wait for it to lapse.
pub(crate) struct Held {
    place: Option<Place>,
    renewal: JoinHandle<()>,
}

impl Held {
    /// Stops renewing and frees the lease.
    pub(crate) async fn release(mut self) {
        self.renewal.abort();
        if let Some(place) = self.place.take() {
            release(place).await;
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.renewal.abort();
        if let (Some(place), Ok(runtime)) =
            (self.place.take(), tokio::runtime::Handle::try_current())
        {
            runtime.spawn(release(place));
        }
    }
}

/// Renews the lease until aborted; a renewal that finds the lease taken stops (the
/// lease lapsed: the store was unreachable for a whole time to live).
async fn renew(place: Place, mut mine: LeaseRow, ttl: Duration) {
    loop {
        tokio::time::sleep(lease::renew_every(ttl)).await;
        let next = LeaseRow {
            holder: place.me.clone(),
            expires_at: lease::expires_at(now(), ttl),
        };
        match place
            .store
            .swap_lease(&place.project, &place.slug, &mine, &next)
            .await
        {
            Ok(true) => mine = next,
            Ok(false) => {
                return tracing::warn!(project = %place.project, source = %place.slug,
                    "sync lease lost during a run: another replica may run the source too");
            }
            Err(err) => tracing::warn!(project = %place.project, source = %place.slug,
                error = %err, "sync lease not renewed; retrying"),
        }
    }
}

/// Frees the lease if this replica still holds it: read first, since an aborted
/// renewal may have moved its expiry.
async fn release(place: Place) {
    let (project, slug) = (place.project.as_str(), place.slug.as_str());
    let freed = match place.store.source_turn(project, slug).await {
        Ok(Some(turn)) if turn.lease.holder == place.me => {
            place
                .store
                .swap_lease(project, slug, &turn.lease, &LeaseRow::default())
                .await
        }
        Ok(_) => Ok(true),
        Err(err) => Err(err),
    };
    if !matches!(freed, Ok(true)) {
        tracing::warn!(
            project,
            source = slug,
            "sync lease not released: it lapses by itself"
        );
    }
}

fn rule(row: &LeaseRow) -> Lease {
    Lease {
        holder: row.holder.clone(),
        expires_at: row.expires_at,
    }
}

fn now() -> i64 {
    i64::try_from(neuralis_bus::now_millis()).unwrap_or(i64::MAX)
}

/// A holder id for this process: random, so a restarted replica never takes its
/// predecessor's lease for its own. The embedded store has one process by design, and
/// it uses a fixed id instead: a restart after a crash finds its own lease.
pub(crate) fn replica_id(single_process: bool) -> Result<String, SyncError> {
    if single_process {
        return Ok("embedded".to_owned());
    }
    let mut random = [0u8; 8];
    getrandom::fill(&mut random)
        .map_err(|err| SyncError::Unavailable(format!("no randomness for a replica id: {err}")))?;
    Ok(format!("sync-{:016x}", u64::from_be_bytes(random)))
}
