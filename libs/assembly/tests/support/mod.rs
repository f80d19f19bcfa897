//! What the budget tests share: an installed package of the given files.

use neuralis_assembly::{FileView, Origin, PackageView};

pub fn package(name: &str, files: Vec<FileView>) -> PackageView {
    PackageView {
        origin: Origin::Installed {
            package_id: name.into(),
        },
        name: name.into(),
        key: name.into(),
        policy_key: name.into(),
        root: String::new(),
        rule: None,
        enabled: true,
        files,
    }
}
