//! The overview within a token budget (issue 30), rule by rule.

mod support;

use neuralis_assembly::{
    BudgetError, FileState, FileView, O200k, PackageView, TokenCount, render_overview,
    render_overview_within,
};
use neuralis_layout::Category;
use proptest::prelude::*;
use support::package;

/// A counter with a known answer: one token per word, one per line end.
struct Words;

impl TokenCount for Words {
    fn tokens(&self, text: &str) -> usize {
        text.split_whitespace().count() + text.matches('\n').count()
    }
}

fn file(path: &str, category: Category, state: FileState, description: &str) -> FileView {
    FileView {
        path: path.into(),
        category,
        id: path.trim_end_matches(".md").replace('/', "-"),
        title: path.into(),
        description: (!description.is_empty()).then(|| description.to_string()),
        identity: false,
        default_enabled: true,
        state,
        bundle: if category == Category::Skill {
            (0..5).map(|i| format!("scripts/run-{i}.sh")).collect()
        } else {
            vec![]
        },
        activation_id: path.trim_end_matches("/SKILL.md").replace('/', "-"),
        size: 10,
        allowed_tools: Vec::new(),
    }
}

const LONG: &str = "Reviews pull requests against the team's conventions, checks the tests that \
    cover each change, and writes a summary a reviewer can read in one minute";

fn catalog() -> Vec<PackageView> {
    vec![
        package(
            "acme",
            vec![
                file(
                    "rules/style.md",
                    Category::Rule,
                    FileState::Active,
                    "House style",
                ),
                file(
                    "skills/review/SKILL.md",
                    Category::Skill,
                    FileState::Active,
                    LONG,
                ),
                file(
                    "skills/triage/SKILL.md",
                    Category::Skill,
                    FileState::Active,
                    LONG,
                ),
                file(
                    "commands/ship.md",
                    Category::Command,
                    FileState::Active,
                    LONG,
                ),
            ],
        ),
        package(
            "docs-pack",
            vec![
                file("docs/api.md", Category::Docs, FileState::Manual, LONG),
                file("docs/faq.md", Category::Docs, FileState::Manual, LONG),
            ],
        ),
    ]
}

#[test]
fn o200k_counts_tokens_as_the_o200k_base_encoding_does() {
    // Reference counts of OpenAI's o200k_base (tiktoken): the service's budgets are in
    // these tokens, so a counter that answered anything else would misfit every budget.
    assert_eq!(O200k.tokens(""), 0);
    assert_eq!(O200k.tokens("hello world"), 2);
    assert_eq!(O200k.tokens("hello world hello world"), 4);
}

#[test]
fn an_overview_within_its_budget_is_the_whole_overview() {
    let whole = render_overview(&catalog());
    let fitted = render_overview_within(&catalog(), "", 100_000, &O200k).expect("fits");
    assert_eq!(fitted.text, whole);
    assert_eq!(fitted.left_out, 0);
    assert_eq!(fitted.tokens, O200k.tokens(&whole));
}

#[test]
fn descriptions_are_shortened_before_any_entry_is_dropped() {
    let whole = Words.tokens(&render_overview(&catalog()));
    let fitted =
        render_overview_within(&catalog(), "", whole - 10, &Words).expect("fits shortened");
    assert_eq!(fitted.left_out, 0, "{}", fitted.text);
    assert!(fitted.text.contains('…'), "{}", fitted.text);
    assert!(fitted.tokens <= whole - 10);
}

#[test]
fn every_entry_the_budget_allows_gets_its_full_line_back() {
    // One token short of the whole: giving the full line back to every entry but one
    // fits, so exactly one line stays shortened.
    let whole = Words.tokens(&render_overview(&catalog()));
    let fitted = render_overview_within(&catalog(), "", whole - 1, &Words).expect("fits");
    assert_eq!(fitted.left_out, 0);
    assert_eq!(fitted.text.matches('…').count(), 1, "{}", fitted.text);
}

#[test]
fn the_most_useful_entries_keep_their_full_line_first() {
    let whole = Words.tokens(&render_overview(&catalog()));
    let fitted = render_overview_within(&catalog(), "", whole - 10, &Words).expect("fits");
    let review = line_of(&fitted.text, "skills-review");
    assert!(review.contains(LONG.split_whitespace().last().unwrap_or_default()));
    let faq = line_of(&fitted.text, "docs-faq");
    assert!(
        faq.contains('…'),
        "the least useful entry is the one shortened: {faq}"
    );
}

#[test]
fn docs_are_dropped_before_commands_and_commands_before_skills() {
    let order = [
        "docs-faq",
        "docs-api",
        "commands-ship",
        "skills-triage",
        "skills-review",
    ];
    let mut seen_drops = 0;
    for budget in (40..200).step_by(5) {
        let Ok(fitted) = render_overview_within(&catalog(), "", budget, &Words) else {
            continue;
        };
        let kept: Vec<bool> = order.iter().map(|id| fitted.text.contains(id)).collect();
        // Once something is kept, everything more useful is kept too.
        let first_kept = kept.iter().position(|k| *k).unwrap_or(kept.len());
        assert!(
            kept[first_kept..].iter().all(|k| *k),
            "{kept:?}\n{}",
            fitted.text
        );
        assert_eq!(fitted.left_out, first_kept);
        seen_drops = seen_drops.max(first_kept);
    }
    assert_eq!(seen_drops, order.len(), "the budgets tried drop every kind");
}

/// A tokenizer that is not additive over lines: [`Words`], plus one token per line
/// beyond the fourth of the text counted.
struct Crowded;

impl TokenCount for Crowded {
    fn tokens(&self, text: &str) -> usize {
        Words.tokens(text) + text.lines().count().saturating_sub(4)
    }
}

#[test]
fn when_the_whole_counts_more_than_its_lines_entries_are_given_up_until_the_whole_fits() {
    // The lines alone fit this budget exactly; the whole does not.
    let budget = Words.tokens(&render_overview(&catalog()));
    assert!(Crowded.tokens(&render_overview(&catalog())) > budget);
    let fitted = render_overview_within(&catalog(), "", budget, &Crowded).expect("fits");
    assert!(fitted.tokens <= budget, "{} > {budget}", fitted.tokens);
    assert_eq!(fitted.tokens, Crowded.tokens(&fitted.text));
    assert!(fitted.left_out >= 1);
}

/// [`Words`], counting how many times a whole overview was counted.
struct WholeCounts(std::cell::Cell<usize>);

impl TokenCount for WholeCounts {
    fn tokens(&self, text: &str) -> usize {
        if text.starts_with("<packages>") && text.contains("</packages>") {
            self.0.set(self.0.get() + 1);
        }
        Words.tokens(text)
    }
}

#[test]
fn entries_are_dropped_by_their_lines_counts_and_the_whole_is_counted_once() {
    // Counting the whole text is the cost that grows with the catalog: fitting is
    // planned on the lines' counts, and the whole is counted to confirm the plan.
    let whole = Words.tokens(&render_overview(&catalog()));
    let counter = WholeCounts(0.into());
    let fitted = render_overview_within(&catalog(), "", whole / 2, &counter).expect("fits");
    assert!(fitted.left_out >= 1, "{}", fitted.text);
    assert_eq!(counter.0.get(), 1);
}

#[test]
fn a_package_whose_entries_are_all_dropped_loses_its_block() {
    let fitted = render_overview_within(&catalog(), "", 100, &Words).expect("fits");
    assert!(!fitted.text.contains("docs-pack"), "{}", fitted.text);
}

#[test]
fn one_line_says_how_many_were_left_out_and_how_to_find_them() {
    let fitted = render_overview_within(&catalog(), "", 100, &Words).expect("fits");
    let trailer = format!("{} more entries left out", fitted.left_out);
    assert!(fitted.text.contains(&trailer), "{}", fitted.text);
    assert!(fitted.text.contains("search the packages"));
    insta::assert_snapshot!(fitted.text);
}

#[test]
fn a_budget_below_the_always_on_content_is_refused_naming_the_minimum() {
    let error = render_overview_within(&catalog(), "", 5, &Words).expect_err("too small");
    let BudgetError::BelowAlwaysOn { budget, minimum } = error.clone();
    assert_eq!(budget, 5);
    // The frame, acme's tags, the rule's line and the line saying 5 were left out.
    assert!(minimum > 5);
    assert!(render_overview_within(&catalog(), "", minimum, &Words).is_ok());
    assert!(render_overview_within(&catalog(), "", minimum - 1, &Words).is_err());
    assert!(error.to_string().contains(&minimum.to_string()));
}

#[test]
fn an_empty_overview_needs_only_its_tags() {
    let fitted = render_overview_within(&[], "", 10, &Words).expect("fits");
    assert_eq!(fitted.text, "<packages>\n</packages>\n");
    assert_eq!(fitted.left_out, 0);
}

fn line_of<'t>(text: &'t str, id: &str) -> &'t str {
    text.lines().find(|l| l.contains(id)).unwrap_or_default()
}

fn arb_file() -> impl Strategy<Value = FileView> {
    let category = prop::sample::select(vec![
        Category::Skill,
        Category::Rule,
        Category::Instruction,
        Category::Agent,
        Category::Docs,
        Category::Command,
    ]);
    let state = prop::sample::select(vec![
        FileState::Active,
        FileState::Manual,
        FileState::OptIn,
        FileState::Disabled,
    ]);
    ("[a-z]{1,8}", category, state, "[a-z ,.<>&]{0,160}").prop_map(
        |(name, category, state, description)| {
            file(&format!("{name}.md"), category, state, &description)
        },
    )
}

fn arb_catalog() -> impl Strategy<Value = Vec<PackageView>> {
    prop::collection::vec(
        ("[a-z]{1,6}", prop::collection::vec(arb_file(), 0..8)),
        0..6,
    )
    .prop_map(|packages| {
        packages
            .into_iter()
            .map(|(name, files)| package(&name, files))
            .collect()
    })
}

fn check_fitted(packages: &[PackageView], budget: usize, counter: &impl TokenCount) {
    let listed: Vec<&FileView> = packages
        .iter()
        .flat_map(|p| &p.files)
        .filter(|f| matches!(f.state, FileState::Active | FileState::Manual))
        .collect();
    match render_overview_within(packages, "", budget, counter) {
        Ok(fitted) => {
            assert!(fitted.tokens <= budget, "{} > {budget}", fitted.tokens);
            assert_eq!(fitted.tokens, counter.tokens(&fitted.text));
            let entry_lines = fitted
                .text
                .lines()
                .filter(|l| l.starts_with("- ") && !l.starts_with("- … "))
                .count();
            assert_eq!(
                fitted.left_out,
                listed.len() - entry_lines,
                "{}",
                fitted.text
            );
            let always = listed
                .iter()
                .filter(|f| f.state == FileState::Active && f.category.is_prompt_injected());
            for file in always {
                let line = format!("- {} {}", file.category, file.id);
                assert!(fitted.text.contains(&line), "always-on {line} dropped");
            }
        }
        Err(BudgetError::BelowAlwaysOn { minimum, .. }) => assert!(minimum > budget),
    }
}

proptest! {
    #[test]
    fn the_overview_never_exceeds_its_budget_and_the_left_out_count_is_exact(
        packages in arb_catalog(),
        budget in 0usize..600,
    ) {
        check_fitted(&packages, budget, &Words);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn the_budget_holds_by_the_real_tokenizer_count(
        packages in arb_catalog(),
        budget in 0usize..900,
    ) {
        check_fitted(&packages, budget, &O200k);
    }
}

#[test]
fn text_rendered_after_the_block_is_always_on_and_counted() {
    let areas = "<data_areas>\n- acme: data://acme/ cache, state\n</data_areas>\n";
    let without = render_overview_within(&catalog(), "", 100, &Words).expect("fits");
    let with = render_overview_within(&catalog(), areas, 100, &Words).expect("fits");
    assert!(with.text.ends_with(areas), "{}", with.text);
    assert!(with.tokens <= 100);
    assert!(
        with.left_out >= without.left_out,
        "the areas' tokens come out of the entries"
    );
    let BudgetError::BelowAlwaysOn { minimum, .. } =
        render_overview_within(&catalog(), areas, 5, &Words).expect_err("too small");
    let BudgetError::BelowAlwaysOn { minimum: bare, .. } =
        render_overview_within(&catalog(), "", 5, &Words).expect_err("too small");
    assert_eq!(minimum, bare + Words.tokens(areas));
}
