//! The project both benches read: 100 tool packages of 4 files, then 99,600 plain
//! files outside every package in folders of a given size, one source, in path order.
#![allow(dead_code)] // each bench uses part of it

use neuralis_access::{Scope, SourceScope};
use neuralis_discovery::ports::{IndexRow, ProjectRows, SourceInfo};

pub const SOURCE: &str = "p/repo.00000000000000aa";
pub const FILES: usize = 100_000;

pub fn sources() -> Vec<SourceInfo> {
    vec![SourceInfo {
        id: SOURCE.into(),
        slug: "repo".into(),
        scope: SourceScope {
            scope: Scope::Project,
            owner: "p".into(),
        },
        root_uri: "file:///srv/repo".into(),
        local_root: None,
        privacy_patterns: Vec::new(),
        data_tree: false,
        recognizes_packages: false,
    }]
}

pub fn row(path: String, body: &str) -> IndexRow {
    IndexRow {
        source_id: SOURCE.into(),
        payload: neuralis_layout::capture(&path, Some(body.as_bytes())),
        path,
        size: body.len() as u64,
        real_path: None,
        content_flags: Default::default(),
        fingerprint: 1,
    }
}

pub fn skill(name: &str) -> String {
    format!("---\nname: {name}\ndescription: does {name}\n---\nDo it.\n")
}

/// 100 tool packages of 4 files, then plain files in folders of `per_folder`.
pub fn project(per_folder: usize) -> ProjectRows {
    let mut rows = Vec::with_capacity(FILES);
    for i in 0..100 {
        for k in 0..2 {
            rows.push(row(
                format!("tools/t{i}/skills/s{k}/SKILL.md"),
                &skill(&format!("t{i}-s{k}")),
            ));
        }
        rows.push(row(format!("tools/t{i}/rules/r.md"), "---\nname: r\n---\n"));
        rows.push(row(format!("tools/t{i}/docs/d.md"), "---\nname: d\n---\n"));
    }
    let plain = FILES - rows.len();
    for n in 0..plain {
        let (folder, file) = (n / per_folder, n % per_folder);
        rows.push(row(format!("src/m{folder}/f{file}.rs"), "fn f() {}\n"));
    }
    rows.sort_by(|a, b| a.path.cmp(&b.path));
    ProjectRows { revision: 1, rows }
}
