//! The activation ids an answer showing every skill assigns: the rule
//! (`neuralis_assembly::activation_ids`) reads only what it borrows of each skill (its
//! package's origin, key and root, its path and id), so nothing of the views is copied
//! for it. Cloning the whole views instead (every file, every title and bundle) cost
//! more than the rest of preparing an answer after a delta.

use std::sync::Arc;

use neuralis_assembly::{SkillClaim, activation_ids as assign};
use neuralis_layout::Category;

use super::shown::Shown;

/// Per package (index for index with `packages`), per file: the activation id (empty
/// for other files); and how many skill files there are.
pub(super) fn activation_ids(
    packages: &[Arc<Shown>],
    order: &[usize],
) -> (Vec<Vec<String>>, usize) {
    // The skills in answer order (packages in `order`, files in package order), as the
    // rule reads the views of an answer.
    let mut claims = Vec::new();
    let mut places = Vec::new();
    for &at in order {
        let view = &packages[at].view;
        for (fi, file) in view.files.iter().enumerate() {
            if file.category == Category::Skill {
                claims.push(SkillClaim::of(view, file));
                places.push((at, fi));
            }
        }
    }
    let assigned = assign(&claims);
    let mut ids: Vec<Vec<String>> = packages
        .iter()
        .map(|package| vec![String::new(); package.view.files.len()])
        .collect();
    for (id, (at, fi)) in assigned.into_iter().zip(&places) {
        ids[*at][*fi] = id;
    }
    (ids, places.len())
}

#[cfg(test)]
mod tests {
    use neuralis_assembly::{FileState, FileView, Origin, PackageView, assign_activation_ids};

    use super::*;

    fn file(path: &str, category: Category, id: &str) -> FileView {
        FileView {
            path: path.into(),
            category,
            id: id.into(),
            title: format!("title of {id}"),
            description: Some("d".into()),
            identity: false,
            default_enabled: true,
            state: FileState::Active,
            bundle: vec!["SKILL.md".into(), "ref.md".into()],
            activation_id: String::new(),
            size: 7,
            allowed_tools: vec!["Read".into()],
        }
    }

    fn package(origin: Origin, key: &str, root: &str, files: Vec<FileView>) -> Arc<Shown> {
        Arc::new(Shown {
            view: PackageView {
                origin,
                name: key.into(),
                key: key.into(),
                policy_key: format!("s/{key}"),
                root: root.into(),
                rule: None,
                enabled: true,
                files,
            },
            content: Vec::new(),
            own_entry: Vec::new(),
            flags: Vec::new(),
        })
    }

    /// A package of the table: origin, key, root, and its files (path, category, id).
    type Table<'a> = (Origin, &'a str, &'a str, &'a [(&'a str, Category, &'a str)]);

    /// The skeleton gives every id the rule gives the whole views: collisions between
    /// installed and source packages, between packages of one source, and within one
    /// package (folder-qualified), with other files in between.
    #[test]
    fn skeleton_ids_equal_the_ids_of_the_whole_views() {
        let source = |slug: &str| Origin::Source { slug: slug.into() };
        let installed = Origin::Installed {
            package_id: "acme.review".into(),
        };
        let (rule, skill, docs) = (Category::Rule, Category::Skill, Category::Docs);
        let table: [Table<'_>; 4] = [
            (
                source("repo"),
                "a",
                "tools/a",
                &[
                    ("tools/a/rules/r.md", rule, "review"),
                    ("tools/a/skills/review/SKILL.md", skill, "review"),
                    ("tools/a/skills/v2/SKILL.md", skill, "review"),
                ],
            ),
            (
                installed,
                "acme.review",
                "",
                &[("skills/review/SKILL.md", skill, "review")],
            ),
            (
                source("repo"),
                "b",
                "tools/b",
                &[
                    ("tools/b/skills/review/SKILL.md", skill, "review"),
                    ("tools/b/skills/lint/SKILL.md", skill, "lint"),
                ],
            ),
            (
                source("other"),
                "root",
                "",
                &[
                    ("docs/x.md", docs, "x"),
                    ("skills/lint/SKILL.md", skill, "lint"),
                ],
            ),
        ];
        let packages: Vec<Arc<Shown>> = table
            .into_iter()
            .map(|(origin, key, root, files)| {
                let files = files.iter().map(|(p, c, id)| file(p, *c, id)).collect();
                package(origin, key, root, files)
            })
            .collect();
        let order = vec![1, 3, 0, 2];
        let (ids, skills) = activation_ids(&packages, &order);

        let mut views: Vec<PackageView> =
            order.iter().map(|&at| packages[at].view.clone()).collect();
        assign_activation_ids(&mut views);
        for (view, &at) in views.iter().zip(&order) {
            let whole: Vec<String> = view.files.iter().map(|f| f.activation_id.clone()).collect();
            assert_eq!(ids[at], whole, "package {at}");
        }
        assert_eq!(skills, 6);
        assert!(
            ids[0][1] != ids[0][2],
            "one package's two skills stay apart"
        );
    }
}
