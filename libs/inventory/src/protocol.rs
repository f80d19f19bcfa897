//! The inventory protocol: lookups, fills, revalidation and events.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::project::{Entry, ProjectSlot};

/// The phase of a write, as carried by an invalidation event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// A write that could move a package candidate is about to begin.
    Start,
    /// It committed.
    Finish,
    /// It failed or timed out: a backend that did not answer is not a backend that
    /// changed nothing, so this invalidates too.
    Failed,
}

/// Tuning (the `inventory` section of the discovery configuration).
#[derive(Debug, Clone, Copy)]
pub struct InventorySettings {
    /// How long an entry is served before it is revalidated against the project's
    /// current revision.
    pub recovery_window: Duration,
    /// How long an open write (start without finish) forces a bypass before it is
    /// presumed to have lost its closing event.
    pub open_write_limit: Duration,
    /// How many projects keep rows; the least recently used is evicted beyond it.
    pub max_projects: usize,
    /// How many bytes the rows of every project may weigh together ([`Weigh`]); the
    /// least recently used are evicted beyond it, and rows heavier than the whole bound
    /// are served without being kept.
    pub max_bytes: usize,
}

/// What a project's rows weigh in memory, for [`InventorySettings::max_bytes`]. An
/// estimate is enough; it must grow with the rows.
pub trait Weigh {
    /// Approximate bytes held.
    fn bytes(&self) -> usize;
}

impl<T: Weigh> Weigh for Arc<T> {
    fn bytes(&self) -> usize {
        T::bytes(self)
    }
}

impl Default for InventorySettings {
    fn default() -> Self {
        Self {
            recovery_window: Duration::from_secs(5),
            open_write_limit: Duration::from_secs(120),
            max_projects: 1024,
            max_bytes: 512 << 20,
        }
    }
}

/// What a request should do to get a project's raw rows.
#[derive(Debug)]
pub enum Lookup<R> {
    /// Serve these rows as they are.
    Hit(Arc<R>),
    /// The rows are older than the recovery window: ask sync for the project's
    /// current revision; if it is still `revision`, [`Inventory::confirm`] and serve
    /// `rows`, otherwise read afresh and [`Inventory::store`] with the ticket.
    Revalidate {
        rows: Arc<R>,
        revision: u64,
        ticket: FillTicket,
    },
    /// A write finished since `base` was read at `revision`: ask sync for the rows
    /// changed since `revision`, apply them to `base` (or, when sync cannot tell, read
    /// afresh), and [`Inventory::store`] the result with the ticket. The race rule is
    /// the fill's: the store is refused if any event came in between.
    Delta {
        base: Arc<R>,
        revision: u64,
        ticket: FillTicket,
    },
    /// Nothing cached: read from sync and [`Inventory::store`] with the ticket.
    Fill(FillTicket),
    /// Read from sync and do not store: a write is open, or events are not arriving.
    Bypass,
}

/// What an inventory has seen of one project (see [`Inventory::seen`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    epoch: u64,
    generation: u64,
}

/// Proof of when a fill began; a store with a stale ticket is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillTicket {
    project: String,
    generation: u64,
    epoch: u64,
}

/// The inventory of every project this instance serves.
#[derive(Debug)]
pub struct Inventory<R> {
    settings: InventorySettings,
    projects: HashMap<String, ProjectSlot<R>>,
    /// False until the event subscription is confirmed, and while it is lost.
    subscribed: bool,
    /// Bumped whenever the subscription goes down or comes back, so a fill that
    /// spanned either is refused.
    epoch: u64,
    /// What the kept rows weigh together.
    bytes: usize,
    /// Entries evicted to stay within the bounds, not yet reported.
    evictions: u64,
}

impl<R: Weigh> Inventory<R> {
    /// An empty inventory that caches nothing until [`Inventory::subscription_up`].
    pub fn new(settings: InventorySettings) -> Self {
        Self {
            settings,
            projects: HashMap::new(),
            subscribed: false,
            epoch: 0,
            bytes: 0,
            evictions: 0,
        }
    }

    /// Decides how the next request for `project` gets its rows.
    pub fn lookup(&mut self, project: &str, now: Instant) -> Lookup<R> {
        if !self.subscribed {
            return Lookup::Bypass;
        }
        let epoch = self.epoch;
        let limit = self.settings.open_write_limit;
        let window = self.settings.recovery_window;
        let slot = self.slot(project, now);
        slot.last_used = now;
        if slot.has_open_write(now, limit) {
            return Lookup::Bypass;
        }
        let ticket = FillTicket {
            project: project.to_owned(),
            generation: slot.generation,
            epoch,
        };
        match &slot.entry {
            None => Lookup::Fill(ticket),
            Some(entry) if entry.stale => Lookup::Delta {
                base: Arc::clone(&entry.rows),
                revision: entry.revision,
                ticket,
            },
            Some(entry) if now.saturating_duration_since(entry.validated_at) < window => {
                Lookup::Hit(Arc::clone(&entry.rows))
            }
            Some(entry) => Lookup::Revalidate {
                rows: Arc::clone(&entry.rows),
                revision: entry.revision,
                ticket,
            },
        }
    }

    /// Stores rows read at `revision` (a fill, or a delta applied to a base) if
    /// nothing happened to the project since the ticket was issued. Returns whether they
    /// were stored.
    pub fn store(&mut self, ticket: &FillTicket, rows: R, revision: u64, now: Instant) -> bool {
        if !self.ticket_is_current(ticket, now) {
            return false;
        }
        let bytes = rows.bytes();
        // The entry being replaced frees its weight first.
        self.drop_entry(&ticket.project);
        if bytes > self.settings.max_bytes {
            return false;
        }
        self.evict_beyond_capacity(&ticket.project, bytes);
        let Some(slot) = self.projects.get_mut(&ticket.project) else {
            return false;
        };
        slot.entry = Some(Entry {
            rows: Arc::new(rows),
            revision,
            validated_at: now,
            stale: false,
            bytes,
        });
        self.bytes += bytes;
        true
    }

    /// Weighs the project's kept rows again, when they are the rows `same` recognizes:
    /// what the caller derived from them and keeps with them (the prepared answer)
    /// counts toward [`InventorySettings::max_bytes`] from now on. The least recently
    /// used other projects make room; rows that outgrew the whole bound are let go.
    /// Returns whether the rows are still kept.
    pub fn reweigh(&mut self, project: &str, same: impl FnOnce(&R) -> bool) -> bool {
        let Some(entry) = self.projects.get(project).and_then(|s| s.entry.as_ref()) else {
            return false;
        };
        if !same(&entry.rows) {
            return false;
        }
        let bytes = entry.rows.bytes();
        self.drop_entry_weight(project);
        if bytes > self.settings.max_bytes {
            self.drop_entry(project);
            self.evictions += 1;
            return false;
        }
        // The entry stays, so only the bytes can be beyond the bound.
        self.evict_least_recently_used(project, |inventory| {
            inventory.bytes + bytes > inventory.settings.max_bytes
        });
        let Some(entry) = self
            .projects
            .get_mut(project)
            .and_then(|s| s.entry.as_mut())
        else {
            return false;
        };
        entry.bytes = bytes;
        self.bytes += bytes;
        true
    }

    /// Revalidation found the project still at `revision`: the entry is current
    /// again. Returns false (and keeps nothing) when it no longer matches.
    pub fn confirm(&mut self, ticket: &FillTicket, revision: u64, now: Instant) -> bool {
        if !self.ticket_is_current(ticket, now) {
            return false;
        }
        let Some(entry) = self
            .projects
            .get_mut(&ticket.project)
            .and_then(|s| s.entry.as_mut())
        else {
            return false;
        };
        if entry.revision != revision {
            return false;
        }
        entry.validated_at = now;
        true
    }

    /// Applies one invalidation event: the project's rows stop being served at the
    /// start of a write and again when it finishes or fails; they stay as the base the
    /// next delta applies to.
    pub fn observe(&mut self, project: &str, write_id: &str, phase: Phase, now: Instant) {
        let slot = self.slot(project, now);
        slot.generation += 1;
        if let Some(entry) = slot.entry.as_mut() {
            entry.stale = true;
        }
        match phase {
            Phase::Start => {
                slot.open_writes.insert(write_id.to_owned(), now);
            }
            Phase::Finish | Phase::Failed => {
                slot.open_writes.remove(write_id);
            }
        }
    }

    /// Events are confirmed to arrive: caching may begin.
    pub fn subscription_up(&mut self) {
        if !self.subscribed {
            self.subscribed = true;
            self.epoch += 1;
        }
    }

    /// Events stopped arriving: drop everything and bypass until they are back.
    pub fn subscription_lost(&mut self) {
        self.subscribed = false;
        self.epoch += 1;
        for slot in self.projects.values_mut() {
            slot.entry = None;
            slot.open_writes.clear();
        }
        self.bytes = 0;
    }

    /// What the kept rows weigh together (for metrics).
    pub fn cached_bytes(&self) -> usize {
        self.bytes
    }

    /// Entries evicted to stay within the bounds since the last call (for metrics).
    pub fn take_evictions(&mut self) -> u64 {
        std::mem::take(&mut self.evictions)
    }

    /// What this inventory has seen of `project` so far: two equal marks, taken at two
    /// moments, mean no event for the project arrived in between and the subscription
    /// was not lost.
    pub fn seen(&self, project: &str) -> Seen {
        Seen {
            epoch: self.epoch,
            generation: self.projects.get(project).map_or(0, |slot| slot.generation),
        }
    }

    /// The project's rows when they may be served with no word from sync at all (sync
    /// cannot be reached): events are arriving, and every write announced to the project
    /// finished and is in the rows held (none open, however old; none finished since),
    /// however long ago the rows were confirmed. Nothing writes without sync, so they
    /// are current until an event says otherwise.
    pub fn held(&self, project: &str) -> Option<(Arc<R>, Seen)> {
        if !self.subscribed {
            return None;
        }
        let slot = self.projects.get(project)?;
        let entry = slot.entry.as_ref().filter(|entry| !entry.stale)?;
        slot.open_writes
            .is_empty()
            .then(|| (Arc::clone(&entry.rows), self.seen(project)))
    }

    /// Whether the subscription is up (caching allowed).
    pub fn is_subscribed(&self) -> bool {
        self.subscribed
    }

    /// Number of projects holding rows (for metrics).
    pub fn cached_projects(&self) -> usize {
        self.projects.values().filter(|s| s.entry.is_some()).count()
    }

    fn slot(&mut self, project: &str, now: Instant) -> &mut ProjectSlot<R> {
        self.projects
            .entry(project.to_owned())
            .or_insert_with(|| ProjectSlot::new(now))
    }

    fn ticket_is_current(&mut self, ticket: &FillTicket, now: Instant) -> bool {
        if !self.subscribed || ticket.epoch != self.epoch {
            return false;
        }
        let limit = self.settings.open_write_limit;
        match self.projects.get_mut(&ticket.project) {
            Some(slot) => slot.generation == ticket.generation && !slot.has_open_write(now, limit),
            None => false,
        }
    }

    /// Makes room for `incoming` bytes: keeps fewer than `max_projects` entries and at
    /// most `max_bytes` in all, dropping the least recently used other than `keep`.
    fn evict_beyond_capacity(&mut self, keep: &str, incoming: usize) {
        self.evict_least_recently_used(keep, |inventory| {
            inventory.cached_projects() >= inventory.settings.max_projects
                || inventory.bytes + incoming > inventory.settings.max_bytes
        });
    }

    /// Drops the least recently used entries other than `keep` while `beyond` holds.
    fn evict_least_recently_used(&mut self, keep: &str, beyond: impl Fn(&Self) -> bool) {
        while beyond(self) {
            let victim = self
                .projects
                .iter()
                .filter(|(name, slot)| name.as_str() != keep && slot.entry.is_some())
                .min_by_key(|(_, slot)| slot.last_used)
                .map(|(name, _)| name.clone());
            let Some(victim) = victim else { return };
            if let Some(slot) = self.projects.get_mut(&victim) {
                // Bump the generation too: a fill racing the eviction must not resurrect it.
                slot.generation += 1;
            }
            self.drop_entry(&victim);
            self.evictions += 1;
        }
    }

    /// Stops counting an entry's weight, keeping the entry (it is weighed again).
    fn drop_entry_weight(&mut self, project: &str) {
        if let Some(entry) = self
            .projects
            .get_mut(project)
            .and_then(|s| s.entry.as_mut())
        {
            self.bytes -= std::mem::take(&mut entry.bytes);
        }
    }

    fn drop_entry(&mut self, project: &str) {
        if let Some(entry) = self.projects.get_mut(project).and_then(|s| s.entry.take()) {
            self.bytes -= entry.bytes;
        }
    }
}
