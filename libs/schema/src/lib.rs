//! Schema versions across releases: what one binary may do with a store.
//!
//! Every store (the index, the access store) keeps the versions of the migrations
//! applied to it, and for each one written by a release that marked it so, that it is
//! **compatible**: the release before it keeps reading and writing correctly on the
//! migrated schema (an *expand* step: a table or a nullable column added). A *contract*
//! step (a column dropped, keys rewritten) is not compatible and ships one release
//! after the code stopped needing what it removes.
//!
//! A binary then decides, from the migrations it knows and those the store holds:
//! - the store holds a version the binary does not know: it runs only if every such
//!   version is marked compatible (a rollback onto a store one release newer);
//! - the binary knows versions the store lacks: it applies them (`apply`, the default
//!   and the only sensible mode for the embedded store, a single process) or refuses to
//!   serve until `neuralis migrate up` has run (`check`, for replicas of a rolling
//!   update: migrations run once per release, in the chart's hook Job).
#![forbid(unsafe_code)]

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// One migration as a binary knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    pub version: i64,
    /// The release before the one that ships it runs correctly once it is applied.
    pub compatible: bool,
}

/// One migration as a store records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub version: i64,
    /// The release that applied it marked it compatible with the release before.
    pub compatible: bool,
}

/// What a process does with migrations its store lacks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Apply them at start (one process, or a deployment without a migration step).
    #[default]
    Apply,
    /// Never change the schema: refuse to serve while the store lacks a known migration.
    Check,
}

/// The store is usable once `apply` (in order) has been applied; empty when current.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub apply: Vec<i64>,
    /// Versions the store holds that this binary does not know (all compatible).
    pub newer: Vec<i64>,
}

/// Why a binary must not use a store.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A later release applied a step this binary's code does not survive.
    #[error(
        "the store holds migration {version}, which this release does not know and which is not marked compatible with it: run the release that applied it (or restore the backup taken before the upgrade)"
    )]
    Incompatible { version: i64 },
    /// Check mode, and the store lacks migrations this release needs.
    #[error(
        "the store lacks migrations {missing:?} of this release: run `neuralis migrate up` (the chart's migration Job does) before the new pods start"
    )]
    Behind { missing: Vec<i64> },
}

/// Decides what a binary knowing `known` may do with a store holding `applied`.
pub fn plan(known: &[Known], applied: &[Applied], mode: Mode) -> Result<Plan, Refusal> {
    let known_versions: BTreeSet<i64> = known.iter().map(|k| k.version).collect();
    let applied_versions: BTreeSet<i64> = applied.iter().map(|a| a.version).collect();
    let mut newer = Vec::new();
    for step in applied
        .iter()
        .filter(|a| !known_versions.contains(&a.version))
    {
        if !step.compatible {
            return Err(Refusal::Incompatible {
                version: step.version,
            });
        }
        newer.push(step.version);
    }
    newer.sort_unstable();
    let mut missing: Vec<i64> = known_versions
        .difference(&applied_versions)
        .copied()
        .collect();
    missing.sort_unstable();
    if mode == Mode::Check && !missing.is_empty() {
        return Err(Refusal::Behind { missing });
    }
    Ok(Plan {
        apply: missing,
        newer,
    })
}

/// One line of `neuralis migrate status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Applied,
    Pending,
    /// Applied by a later release; whether it is marked compatible.
    Unknown {
        compatible: bool,
    },
}

/// Every version either side knows, in order, with its state.
pub fn status(known: &[Known], applied: &[Applied]) -> Vec<(i64, State)> {
    let applied_versions: BTreeSet<i64> = applied.iter().map(|a| a.version).collect();
    let known_versions: BTreeSet<i64> = known.iter().map(|k| k.version).collect();
    let mut lines: Vec<(i64, State)> = known
        .iter()
        .map(|k| {
            let state = if applied_versions.contains(&k.version) {
                State::Applied
            } else {
                State::Pending
            };
            (k.version, state)
        })
        .chain(
            applied
                .iter()
                .filter(|a| !known_versions.contains(&a.version))
                .map(|a| {
                    let compatible = a.compatible;
                    (a.version, State::Unknown { compatible })
                }),
        )
        .collect();
    lines.sort_by_key(|(version, _)| *version);
    lines.dedup_by_key(|(version, _)| *version);
    lines
}

#[cfg(test)]
mod tests;
