//! Calls counted by outcome: the gate counts its decisions, a permit its refused
//! binding steps. Its own module because both count into the same counters, and
//! neither should import the other for it.

use std::sync::atomic::{AtomicU64, Ordering};

/// Calls counted by outcome (the gate's and the permits' own).
#[derive(Debug, Default)]
pub struct Counters {
    allowed: AtomicU64,
    unauthenticated: AtomicU64,
    permission_denied: AtomicU64,
    refused: AtomicU64,
}

/// A reading of [`Counters`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Calls that passed their rule.
    pub allowed: u64,
    /// Calls refused as UNAUTHENTICATED.
    pub unauthenticated: u64,
    /// Calls refused as PERMISSION_DENIED at the gate.
    pub permission_denied: u64,
    /// Binding steps a permit refused (another project, conversation, ...).
    pub refused: u64,
}

impl Counters {
    pub(crate) fn allowed(&self) {
        self.allowed.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn unauthenticated(&self) {
        self.unauthenticated.fetch_add(1, Ordering::Relaxed);
    }

    /// Refused at the gate: no right, or a method this service does not serve.
    pub(crate) fn permission_denied(&self) {
        self.permission_denied.fetch_add(1, Ordering::Relaxed);
    }

    /// A binding step a permit refused.
    pub(crate) fn refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn read(&self) -> Counts {
        Counts {
            allowed: self.allowed.load(Ordering::Relaxed),
            unauthenticated: self.unauthenticated.load(Ordering::Relaxed),
            permission_denied: self.permission_denied.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
        }
    }
}
