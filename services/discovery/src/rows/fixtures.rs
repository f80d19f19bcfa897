//! Rows as sync indexes them for one small repository, and what an answer reads of a
//! snapshot: shared by the tests of the rows stage and of the stages above.

use std::collections::BTreeMap;

use crate::base::ports::{IndexRow, ProjectRows, SourceInfo};
use crate::rows::inventory::ProjectSnapshot;

pub(crate) const SOURCE: &str = "p/repo.00000000000000aa";

pub(crate) fn sources() -> Vec<SourceInfo> {
    vec![SourceInfo {
        id: SOURCE.into(),
        slug: "repo".into(),
        scope: neuralis_access::SourceScope {
            scope: neuralis_access::Scope::Project,
            owner: "p".into(),
        },
        root_uri: "file:///srv/repo".into(),
        local_root: None,
        privacy_patterns: Vec::new(),
        data_tree: false,
        recognizes_packages: false,
    }]
}

/// A row as sync would index `path` with `body`.
pub(crate) fn row(path: &str, body: &str) -> IndexRow {
    IndexRow {
        source_id: SOURCE.into(),
        path: path.into(),
        size: body.len() as u64,
        payload: neuralis_layout::capture(path, Some(body.as_bytes())),
        real_path: None,
        content_flags: Default::default(),
        fingerprint: 1,
    }
}

pub(crate) fn skill(name: &str) -> String {
    format!("---\nname: {name}\ndescription: does {name}\n---\nDo it.\n")
}

pub(crate) fn tree() -> BTreeMap<String, IndexRow> {
    tree_bodies()
        .into_iter()
        .map(|(path, body)| (path.clone(), row(&path, &body)))
        .collect()
}

/// The bytes of each file of [`tree`], by path.
pub(crate) fn tree_bodies() -> BTreeMap<String, String> {
    let mut bodies = BTreeMap::new();
    let mut put = |path: String, body: String| {
        bodies.insert(path, body);
    };
    for i in 0..4 {
        put(
            format!("tools/t{i}/skills/s/SKILL.md"),
            skill(&format!("t{i}")),
        );
        put(
            format!("tools/t{i}/rules/r.md"),
            "---\nname: r\n---\nA rule.\n".into(),
        );
    }
    for i in 0..3 {
        put(format!("src/m{i}/f.rs"), "fn f() {}\n".into());
    }
    put("README.md".into(), "# repo\n".into());
    bodies
}

pub(crate) fn full(rows: &BTreeMap<String, IndexRow>, revision: u64) -> ProjectSnapshot {
    ProjectSnapshot::build(
        ProjectRows {
            revision,
            rows: rows.values().cloned().collect(),
        },
        &sources(),
    )
}

/// What an answer reads: each source's packages, and the facts of their files.
pub(crate) fn seen(snapshot: &ProjectSnapshot) -> Vec<(String, String)> {
    snapshot
        .sources
        .values()
        .flat_map(|s| {
            s.layout.packages.iter().map(move |p| {
                let facts: Vec<_> = p
                    .files
                    .iter()
                    .map(|f| s.rows.get(&f.path).cloned())
                    .collect();
                (format!("{p:?}"), format!("{facts:?}"))
            })
        })
        .collect()
}
