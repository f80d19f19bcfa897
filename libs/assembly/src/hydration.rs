//! Which prompt-injected files are read for one stream, in which order, under a byte
//! budget (seed 000: "Prompt-injected categories (rules, instructions, agents)
//! hydrate per stream, only for the files that survived every gate, under a strict
//! budget — a disabled or feature-gated file is never read at all").
//!
//! The order is fixed: rules, then instructions, then agents; within a category,
//! package order (installed first), then path. Budgeting uses the indexed size, so a
//! file that cannot fit is never read. A file that does not fit is reported and the
//! plan goes on with the next one, so one large file cannot starve the rest.

use neuralis_layout::Category;

use crate::view::{FileState, PackageView};

/// A file chosen for hydration: package index, file index.
pub type FileRef = (usize, usize);

/// The outcome of planning.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HydrationPlan {
    /// Files to read, in injection order.
    pub read: Vec<FileRef>,
    /// Files that survived every gate but did not fit.
    pub omitted: Vec<FileRef>,
    /// Bytes the read files take (by indexed size).
    pub planned_bytes: u64,
}

const ORDER: [Category; 3] = [Category::Rule, Category::Instruction, Category::Agent];

/// Plans hydration of `packages` (already ordered) under `budget` bytes.
pub fn plan_hydration(packages: &[PackageView], budget: u64) -> HydrationPlan {
    let mut plan = HydrationPlan::default();
    for category in ORDER {
        for (pi, package) in packages.iter().enumerate() {
            for (fi, file) in package.files.iter().enumerate() {
                if file.category != category || file.state != FileState::Active {
                    continue;
                }
                if plan.planned_bytes + file.size <= budget {
                    plan.planned_bytes += file.size;
                    plan.read.push((pi, fi));
                } else {
                    plan.omitted.push((pi, fi));
                }
            }
        }
    }
    plan
}
