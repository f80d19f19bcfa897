//! Skill ids inside one package (issue 10), when even the folders slug alike.

use neuralis_assembly::{FileState, FileView, Origin, PackageView, assign_activation_ids};
use neuralis_layout::Category;

fn skill(path: &str, id: &str) -> FileView {
    FileView {
        path: path.into(),
        category: Category::Skill,
        id: id.into(),
        title: id.into(),
        description: None,
        identity: false,
        default_enabled: true,
        state: FileState::Active,
        bundle: vec!["SKILL.md".into()],
        activation_id: String::new(),
        size: 10,
        allowed_tools: Vec::new(),
    }
}

fn source(slug: &str, root: &str, files: Vec<FileView>) -> PackageView {
    PackageView {
        origin: Origin::Source { slug: slug.into() },
        name: root.into(),
        key: root.into(),
        policy_key: format!("p/{slug}.0000000000000000/{root}"),
        root: root.into(),
        rule: Some("marker".into()),
        enabled: true,
        files,
    }
}

#[test]
fn skills_whose_folders_slug_alike_are_told_apart_by_an_ordinal() {
    // `review_v2` and `review-v2` both slug to `review-v2`: the second claimant of the
    // same qualified id takes `.2`, and each answers to its own id.
    let folders = [
        ["kit/review_v2/SKILL.md", "kit/review-v2/SKILL.md"],
        ["kit/review v2/SKILL.md", "kit/review-v2/SKILL.md"],
    ];
    for [first, second] in folders {
        let mut packages = vec![source(
            "repo",
            "kit",
            vec![skill(first, "review"), skill(second, "review")],
        )];
        let index = assign_activation_ids(&mut packages);
        let cases = [
            ("review", Some((0, 0))),
            ("review.repo.kit.review-v2", Some((0, 0))),
            ("review.repo.kit.review-v2.2", Some((0, 1))),
            ("review.repo.kit.review-v2.1", None),
        ];
        for (id, expected) in cases {
            assert_eq!(index.resolve(id), expected, "{id} ({first}, {second})");
        }
        assert_eq!(
            packages[0].files[1].activation_id,
            "review.repo.kit.review-v2.2"
        );
    }
}
