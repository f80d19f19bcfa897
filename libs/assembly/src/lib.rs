//! Assembling one caller's answer, after access has been decided.
//!
//! Everything here works on packages and files that already survived every gate
//! (URI policy, scope, privacy, features, precedence): a denied file never reaches
//! these functions, so it can influence neither an activation id, nor the overview,
//! nor the hydration budget.
//!
//! - [`view`]: the shape of a package as one caller sees it;
//! - [`collision`]: which id each skill answers to (seed 000, "Collisions are
//!   namespaced");
//! - [`overview`]: the agent's `<packages>` block;
//! - [`budget`]: the overview within a token budget;
//! - [`data_areas`]: the agent's `<data_areas>` block (seed 002, "dataLayout");
//! - [`hydration`]: which prompt-injected files are read, in which order, under a
//!   byte budget.
#![forbid(unsafe_code)]

pub mod budget;
pub mod collision;
pub mod data_areas;
pub mod hydration;
pub mod overview;
pub mod view;

pub use budget::{BudgetError, Fitted, O200k, TokenCount, render_overview_within};
pub use collision::{SkillClaim, SkillIndex, activation_ids, assign_activation_ids, skill_index};
pub use data_areas::{DataArea, render_data_areas};
pub use hydration::{FileRef, HydrationBudget, hydration_order};
pub use overview::{escape_text, render_overview};
pub use view::{FileState, FileView, Origin, PackageView, order_packages, package_order_key};
