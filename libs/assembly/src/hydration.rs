//! Which prompt-injected files are read for one stream, in which order, under a byte
//! budget (seed 000: "Prompt-injected categories (rules, instructions, agents)
//! hydrate per stream, only for the files that survived every gate, under a strict
//! budget — a disabled or feature-gated file is never read at all").
//!
//! The order is fixed: rules, then instructions, then agents; within a category,
//! package order (installed first), then path. The budget counts the bytes actually
//! read (DESIGN.md section 6: "Budgets count the bytes actually returned, never an
//! indexed size"): a file that grew since the sync and no longer fits is omitted
//! whole, never cut, and one that shrank is counted as it is now. A
//! file that does not fit is reported and hydration goes on with the next one, so one
//! large file cannot starve the rest.

use neuralis_layout::Category;

use crate::view::{FileState, PackageView};

/// A file chosen for hydration: package index, file index.
pub type FileRef = (usize, usize);

const ORDER: [Category; 3] = [Category::Rule, Category::Instruction, Category::Agent];

/// Every file hydration injects, in injection order: active rules, instructions and
/// agents of `packages` (already ordered).
pub fn hydration_order(packages: &[PackageView]) -> Vec<FileRef> {
    let mut order = Vec::new();
    for category in ORDER {
        for (pi, package) in packages.iter().enumerate() {
            for (fi, file) in package.files.iter().enumerate() {
                if file.category == category && file.state == FileState::Active {
                    order.push((pi, fi));
                }
            }
        }
    }
    order
}

/// The byte budget of one hydration, counted on the bytes actually returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HydrationBudget {
    budget: u64,
    used: u64,
}

impl HydrationBudget {
    /// A budget of `budget` bytes, none used.
    pub fn new(budget: u64) -> Self {
        Self { budget, used: 0 }
    }

    /// Whether a file indexed at `indexed` bytes could still fit. Discovery no longer
    /// asks before reading (issue 27): a file that shrank since the sync would be
    /// judged by its old size; the budget is taken on the bytes read ([`Self::take`]).
    pub fn may_fit(&self, indexed: u64) -> bool {
        self.used.saturating_add(indexed) <= self.budget
    }

    /// Takes `actual` bytes (the content as read) when they fit; otherwise leaves the
    /// budget as it was and answers false: the file is omitted whole.
    pub fn take(&mut self, actual: u64) -> bool {
        match self.used.checked_add(actual) {
            Some(total) if total <= self.budget => {
                self.used = total;
                true
            }
            _ => false,
        }
    }

    /// Bytes taken so far (never more than the budget).
    pub fn used(&self) -> u64 {
        self.used
    }
}
