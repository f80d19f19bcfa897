//! The overview within a token budget (issue 30): the drop order and the minimum, on
//! catalogs whose order and names do not happen to agree with the rules.

mod support;

use neuralis_assembly::{
    BudgetError, FileState, FileView, PackageView, TokenCount, render_overview_within,
};
use neuralis_layout::Category;
use support::package;

/// One token per word, one per line end.
struct Words;

impl TokenCount for Words {
    fn tokens(&self, text: &str) -> usize {
        text.split_whitespace().count() + text.matches('\n').count()
    }
}

fn file(path: &str, category: Category, state: FileState) -> FileView {
    let id = path.trim_end_matches(".md").replace('/', "-");
    FileView {
        path: path.into(),
        category,
        id: id.clone(),
        title: id.clone(),
        description: Some("What this entry is for, in a few words".into()),
        identity: false,
        default_enabled: true,
        state,
        bundle: Vec::new(),
        activation_id: id,
        size: 10,
        allowed_tools: Vec::new(),
    }
}

/// Docs first, then a command, then the skills: the overview's order is the reverse of
/// the drop order's.
fn docs_first() -> Vec<PackageView> {
    vec![
        package(
            "docs-pack",
            vec![
                file("docs/api.md", Category::Docs, FileState::Manual),
                file("docs/faq.md", Category::Docs, FileState::Manual),
            ],
        ),
        package(
            "acme",
            vec![
                file("rules/style.md", Category::Rule, FileState::Active),
                file("commands/ship.md", Category::Command, FileState::Active),
                file("skills/review.md", Category::Skill, FileState::Active),
                file("skills/triage.md", Category::Skill, FileState::Active),
            ],
        ),
    ]
}

#[test]
fn docs_are_dropped_before_commands_and_commands_before_skills_wherever_they_are_listed() {
    // Least useful first: docs from the end of the overview, then the command, then the
    // skills from the end.
    let drop_order = [
        "docs-faq",
        "docs-api",
        "commands-ship",
        "skills-triage",
        "skills-review",
    ];
    let mut seen = vec![false; drop_order.len() + 1];
    for budget in 0..200 {
        let Ok(fitted) = render_overview_within(&docs_first(), "", budget, &Words) else {
            continue;
        };
        let kept: Vec<bool> = drop_order
            .iter()
            .map(|id| fitted.text.contains(id))
            .collect();
        let dropped = kept.iter().position(|k| *k).unwrap_or(kept.len());
        assert!(
            kept[dropped..].iter().all(|k| *k),
            "{kept:?}\n{}",
            fitted.text
        );
        assert_eq!(fitted.left_out, dropped, "{}", fitted.text);
        seen[dropped] = true;
    }
    // Dropping one entry costs the line saying so: the first drop that fits drops two.
    assert!(
        seen[2..].iter().all(|s| *s),
        "the budgets tried drop two, three, four and all five: {seen:?}"
    );
}

#[test]
fn the_minimum_counts_the_tags_of_the_packages_with_always_on_entries_only() {
    // The package without an always-on entry has the longer tags: counting its tags
    // instead of the other's would name a minimum that is not the smallest budget.
    let catalogs = [
        docs_first(),
        vec![
            package(
                "a docs package with a long name",
                vec![file("docs/api.md", Category::Docs, FileState::Manual)],
            ),
            package(
                "acme",
                vec![file("rules/style.md", Category::Rule, FileState::Active)],
            ),
        ],
    ];
    for catalog in &catalogs {
        let Err(BudgetError::BelowAlwaysOn { minimum, .. }) =
            render_overview_within(catalog, "", 1, &Words)
        else {
            panic!("a budget of 1 fits nothing");
        };
        assert!(render_overview_within(catalog, "", minimum, &Words).is_ok());
        assert!(
            render_overview_within(catalog, "", minimum - 1, &Words).is_err(),
            "{minimum} is not the smallest budget"
        );
    }
}
