//! The installed-package catalog (seed 001 "Directory contract and discovery", seed
//! 002 "Manifest and distribution").
//!
//! Installed packages come from three places, each with a host-assigned trust tier:
//! the host's dependency tree (`node_modules/<id>/`, builtins, first-party), directories
//! an administrator adds (trusted), and the `_packages/` drop-zone (project packages,
//! untrusted). A dependency loads if and only if its package.json has a `neuralis`
//! block; `referenceOnly` opts out; a builtin's exports map must keep `./package.json`
//! resolvable.
//!
//! For the discovery service:
//! ```no_run
//! use neuralis_catalog::{Catalog, Extras, ReadLimits, Roots};
//! let roots = Roots { dependency_tree: Some("/app".into()), drop_zone: Some("/project/_packages".into()), trusted_dirs: vec![] };
//! let catalog = Catalog::load(&roots, ReadLimits::default(), &Extras::default())?;
//! for package in catalog.packages() {
//!     println!("{} {:?} {} tools, {} contributions", package.id, package.trust, package.tools.len(), package.contributions.files.len());
//! }
//! let owner = catalog.resolve_tool("acme_release_status", |package_id| package_id != "switched-off");
//! for line in catalog.collision_report() { println!("{line}"); }
//! # Ok::<(), neuralis_catalog::ReadError>(())
//! ```
//!
//! - [`package::load`]: one package from its files (pure): manifest validation for its
//!   trust, the directory contract ([`contract`]), markdown contributions grouped and
//!   sanitized by the layout core, file entries over inline ones ([`overrides`]);
//! - [`Catalog::build`]: every package in a fixed load order, one package per id, one
//!   owner per config key ([`config_keys`]), the tool names with their claimants
//!   ([`tool_names`]), the credentials catalog ([`credentials`]), one provider per
//!   host service singleton and no overlapping OAuth prefixes ([`services`]);
//! - [`fs`]: the thin shell that reads directories (never following symlinks).
#![forbid(unsafe_code)]

pub mod catalog;
pub mod config_keys;
pub mod contract;
pub mod credentials;
pub mod dependency_tree;
pub mod double_loading;
pub mod fs;
pub mod overrides;
pub mod package;
pub mod services;
pub mod tool_names;

pub use catalog::{Catalog, Extras, Skipped};
pub use contract::FileIssue;
pub use double_loading::LogicalIdentity;
pub use fs::{ReadError, ReadLimits, Roots};
pub use package::{Candidate, InstallClass, InstalledPackage, Outcome, Rejection};
pub use tool_names::{Claimant, Contest};
