//! Sharing the work of a source between sync replicas (issue 26 item 1): a run holds
//! the source's lease, and an `interval:` trigger runs when the source's due time,
//! kept beside the lease in the store, has come. The store carries these out as
//! compare-and-set updates on the values read, so of the replicas that decide from the
//! same row, one wins.
//!
//! Times are milliseconds since the epoch, from the deciding replica's clock: the
//! lease's time to live (seconds) dwarfs the skew of clocks kept by NTP.

use std::time::Duration;

/// Who holds a source's lease, and until when. An empty holder: nobody.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lease {
    /// The holding replica's id; empty when free.
    pub holder: String,
    /// When the lease lapses unless renewed (ms since the epoch).
    pub expires_at: i64,
}

impl Lease {
    /// Whether `me` may take the lease at `now`: it is free, already mine, or lapsed
    /// (its holder stopped renewing it: dead, or cut off from the store).
    pub fn may_take(&self, me: &str, now: i64) -> bool {
        self.holder.is_empty() || self.holder == me || self.expires_at <= now
    }
}

/// When a lease taken or renewed at `now` lapses.
pub fn expires_at(now: i64, ttl: Duration) -> i64 {
    now.saturating_add(millis(ttl))
}

/// How often a holder renews its lease: three times per time to live, so two missed
/// renewals in a row (a slow store) still do not lose it.
pub fn renew_every(ttl: Duration) -> Duration {
    (ttl / 3).max(Duration::from_millis(10))
}

/// How often a replica waiting for a lease held elsewhere looks again.
pub fn wait_step(ttl: Duration) -> Duration {
    (ttl / 20).clamp(Duration::from_millis(20), Duration::from_millis(500))
}

/// What an `interval:` trigger does with the due time it read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DueClaim {
    /// Not due yet: nothing to do.
    Wait,
    /// Set the due time to this without running: the schedule was never started, or a
    /// shorter period replaced a longer one and the stored time lies beyond it.
    Arm(i64),
    /// Due: run, and set the next due time to this.
    Run(i64),
}

/// Decides an `interval:` trigger from the stored due time (`0`: never scheduled).
/// The next due time keeps the cadence (`due + period`) unless the schedule fell a
/// whole period behind (every replica down): then one run, and a period from now,
/// never a burst of the missed ones.
pub fn claim_due(due: i64, now: i64, period: Duration) -> DueClaim {
    let period = millis(period).max(1);
    let from_now = now.saturating_add(period);
    if due == 0 || due > from_now {
        return DueClaim::Arm(from_now);
    }
    if due > now {
        return DueClaim::Wait;
    }
    let next = due.saturating_add(period);
    DueClaim::Run(if next > now { next } else { from_now })
}

/// How often a replica reads an `interval:` source's due time and trigger: an eighth
/// of the period (a run starts at most that late), between 50 ms and 5 s. The same
/// read sees a trigger changed through another replica.
pub fn poll_every(period: Duration) -> Duration {
    (period / 8).clamp(Duration::from_millis(50), Duration::from_secs(5))
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TTL: Duration = Duration::from_secs(30);
    const SECOND: Duration = Duration::from_secs(1);

    fn held(by: &str, until: i64) -> Lease {
        Lease {
            holder: by.into(),
            expires_at: until,
        }
    }

    #[test]
    fn a_free_lease_may_be_taken_by_anyone() {
        assert!(Lease::default().may_take("a", 1_000));
    }

    #[test]
    fn a_live_lease_held_by_another_replica_may_not_be_taken() {
        assert!(!held("b", 2_000).may_take("a", 1_999));
    }

    #[test]
    fn a_lapsed_lease_may_be_taken_from_a_replica_that_stopped_renewing() {
        assert!(held("b", 2_000).may_take("a", 2_000));
        assert!(held("b", 2_000).may_take("a", 5_000));
    }

    #[test]
    fn a_replica_may_take_again_the_lease_it_holds() {
        assert!(held("a", 2_000).may_take("a", 1_000));
    }

    #[test]
    fn a_lease_lapses_one_time_to_live_after_it_was_taken() {
        assert_eq!(expires_at(1_000, TTL), 31_000);
        assert_eq!(expires_at(i64::MAX - 1, TTL), i64::MAX);
    }

    #[test]
    fn a_holder_renews_several_times_per_time_to_live() {
        assert_eq!(renew_every(TTL), Duration::from_secs(10));
        assert!(renew_every(Duration::ZERO) > Duration::ZERO);
        assert!(wait_step(TTL) < renew_every(TTL));
    }

    #[test]
    fn a_schedule_never_started_is_armed_one_period_from_now_without_a_run() {
        assert_eq!(claim_due(0, 10_000, SECOND), DueClaim::Arm(11_000));
    }

    #[test]
    fn an_interval_not_yet_due_waits() {
        assert_eq!(claim_due(10_500, 10_000, SECOND), DueClaim::Wait);
    }

    #[test]
    fn a_due_interval_runs_and_keeps_its_cadence() {
        assert_eq!(claim_due(10_000, 10_000, SECOND), DueClaim::Run(11_000));
        assert_eq!(claim_due(10_000, 10_400, SECOND), DueClaim::Run(11_000));
    }

    #[test]
    fn a_schedule_a_whole_period_behind_runs_once_not_a_burst() {
        assert_eq!(claim_due(1_000, 10_000, SECOND), DueClaim::Run(11_000));
    }

    #[test]
    fn a_shorter_period_replaces_a_due_time_beyond_it() {
        let an_hour_out = 10_000 + 3_600_000;
        assert_eq!(
            claim_due(an_hour_out, 10_000, SECOND),
            DueClaim::Arm(11_000)
        );
    }

    #[test]
    fn replicas_reading_the_same_due_time_decide_the_same_next_one() {
        // So the store's compare-and-set lets exactly one of them run.
        let (a, b) = (
            claim_due(10_000, 10_010, SECOND),
            claim_due(10_000, 10_090, SECOND),
        );
        assert_eq!(a, b);
    }

    #[test]
    fn an_interval_is_read_eight_times_per_period_within_bounds() {
        assert_eq!(poll_every(SECOND), Duration::from_millis(125));
        assert_eq!(
            poll_every(Duration::from_secs(3_600)),
            Duration::from_secs(5)
        );
        assert_eq!(
            poll_every(Duration::from_millis(1)),
            Duration::from_millis(50)
        );
    }
}
