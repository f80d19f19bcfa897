//! The bound on reads run inline: how many threads of the process are inside a read
//! that kept its worker's core.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Reads running inline in this process now, on any runtime. One count for the process
/// (not one per runtime): a process with several runtimes bounds them together, which
/// only ever hands more reads over, never fewer.
static INLINE_NOW: AtomicUsize = AtomicUsize::new(0);

/// A read's claim to run inline; the count goes down when it is dropped (after the
/// read returned, or unwound).
#[derive(Debug)]
pub(crate) struct InlineSlot {
    count: &'static AtomicUsize,
}

impl InlineSlot {
    /// A slot when fewer than `bound` reads run inline now, none otherwise.
    pub(crate) fn claim(bound: usize) -> Option<Self> {
        Self::claim_in(&INLINE_NOW, bound)
    }

    pub(crate) fn claim_in(count: &'static AtomicUsize, bound: usize) -> Option<Self> {
        count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                (now < bound).then_some(now + 1)
            })
            .ok()
            .map(|_| Self { count })
    }
}

impl Drop for InlineSlot {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_slot_is_claimed_past_the_bound_and_a_dropped_one_is_claimable_again() {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        for bound in 0..4 {
            let held: Vec<_> = (0..bound)
                .map(|_| InlineSlot::claim_in(&COUNT, bound).expect("under the bound"))
                .collect();
            assert!(
                InlineSlot::claim_in(&COUNT, bound).is_none(),
                "bound {bound}"
            );
            drop(held);
            assert_eq!(COUNT.load(Ordering::Acquire), 0);
            assert_eq!(InlineSlot::claim_in(&COUNT, bound).is_some(), bound > 0);
        }
    }

    /// Threads claiming at once never hold more slots than the bound together.
    #[test]
    fn threads_claiming_at_once_never_pass_the_bound() {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        static HELD: AtomicUsize = AtomicUsize::new(0);
        const BOUND: usize = 3;
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..2_000 {
                        if let Some(slot) = InlineSlot::claim_in(&COUNT, BOUND) {
                            let now = HELD.fetch_add(1, Ordering::AcqRel) + 1;
                            assert!(now <= BOUND, "{now} slots held at once");
                            std::hint::spin_loop();
                            HELD.fetch_sub(1, Ordering::AcqRel);
                            drop(slot);
                        }
                    }
                });
            }
        });
        assert_eq!(COUNT.load(Ordering::Acquire), 0);
    }
}
