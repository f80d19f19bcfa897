use super::*;
use crate::capture::capture;
use crate::category::Invocation;

fn flat(category: Category, exempt: bool) -> Form<'static> {
    Form::Flat {
        category,
        identity: false,
        exempt,
    }
}

fn admit_text(path: &str, form: Form<'_>, text: &str) -> Result<Contribution, UnloadedReason> {
    admit(path, form, &capture(path, Some(text.as_bytes())))
}

/// "a markdown under agents/, rules/, instructions/ or docs/ — and a *.agent.md
/// anywhere — is a contribution only when its frontmatter carries id or name"
#[test]
fn flat_contributions_need_an_id_or_a_name() {
    let cases = [
        ("---\nid: a\n---\n", true),
        ("---\nname: a\n---\n", true),
        ("---\ntitle: A\n---\n", false),
        ("---\ndescription: A\n---\n", false),
        ("---\ntitle: A\ndescription: B\n---\n", false),
        ("# no frontmatter\n", false),
        ("---\nname: ''\n---\n", false),
        ("---\ncategory: rule\n---\n", false),
    ];
    for category in [
        Category::Agent,
        Category::Rule,
        Category::Instruction,
        Category::Docs,
    ] {
        for (text, admitted) in cases {
            let result = admit_text("rules/y.md", flat(category, false), text);
            assert_eq!(result.is_ok(), admitted, "{category} {text:?}");
            if !admitted {
                assert_eq!(result.unwrap_err(), UnloadedReason::NoIdOrName);
            }
        }
    }
}

#[test]
fn protocol_forms_are_exempt_from_the_id_rule() {
    let result = admit_text(
        "commands/deploy.md",
        flat(Category::Command, true),
        "Deploy it.\n",
    );
    assert_eq!(result.unwrap().id, "deploy");
    let result = admit_text(".cursorrules", flat(Category::Rule, true), "be terse");
    assert_eq!(result.unwrap().id, "cursorrules");
}

#[test]
fn a_malformed_frontmatter_keeps_any_form_out() {
    let text = "---\nname: x\nno closing fence\n";
    for form in [
        flat(Category::Rule, false),
        flat(Category::Command, true),
        Form::Skill { fallback_id: "s" },
    ] {
        assert_eq!(
            admit_text("rules/x.md", form, text).unwrap_err(),
            UnloadedReason::MalformedFrontmatter
        );
    }
}

/// "The activation id is the frontmatter id, then name, falling back to the skill's
/// directory name. The display title follows the same chain — a skill row never
/// renders as the literal SKILL.md."
#[test]
fn skill_id_and_title_chains() {
    let form = Form::Skill {
        fallback_id: "review",
    };
    let cases = [
        (
            "---\nid: rv\nname: Reviewer\ntitle: Code review\n---\n",
            "rv",
            "Code review",
        ),
        ("---\nname: Reviewer\n---\n", "Reviewer", "Reviewer"),
        ("---\nid: rv\n---\n", "rv", "rv"),
        ("no frontmatter", "review", "review"),
    ];
    for (text, id, title) in cases {
        let skill = admit_text("skills/review/SKILL.md", form, text).unwrap();
        assert_eq!(
            (skill.id.as_str(), skill.title.as_str()),
            (id, title),
            "{text:?}"
        );
        assert_ne!(skill.title, "SKILL.md");
    }
}

#[test]
fn skill_fallback_is_the_folder_or_the_package_for_a_source_root_skill() {
    assert_eq!(skill_fallback("skills/review/SKILL.md", "pkg"), "review");
    assert_eq!(skill_fallback("a/b/SKILL.md", "pkg"), "b");
    assert_eq!(skill_fallback("SKILL.md", "pkg"), "pkg");
}

/// "One exception re-categorizes a file: a skill that declares context: fork in its
/// frontmatter registers as an agent."
#[test]
fn context_fork_turns_a_skill_into_an_agent() {
    let form = Form::Skill { fallback_id: "s" };
    let agent = admit_text("skills/s/SKILL.md", form, "---\ncontext: fork\n---\n").unwrap();
    assert_eq!(agent.category, Category::Agent);
    let skill = admit_text("skills/s/SKILL.md", form, "---\ncontext: main\n---\n").unwrap();
    assert_eq!(skill.category, Category::Skill);
    // context: fork on a flat file changes nothing
    let rule = admit_text(
        "rules/r.md",
        flat(Category::Rule, false),
        "---\nname: r\ncontext: fork\n---\n",
    );
    assert_eq!(rule.unwrap().category, Category::Rule);
}

/// "Frontmatter cannot change a default."
#[test]
fn frontmatter_cannot_change_the_pinned_defaults() {
    let text = "---\nname: d\ndefaultEnabled: false\ninvocation: auto\nactivation: {invocation: auto}\n---\n";
    let docs = admit_text("docs/d.md", flat(Category::Docs, false), text).unwrap();
    assert_eq!(
        (docs.default_enabled, docs.invocation),
        (true, Invocation::Manual)
    );
    let text = "---\nname: r\ndefaultEnabled: true\n---\n";
    let rule = admit_text("rules/r.md", flat(Category::Rule, false), text).unwrap();
    assert!(!rule.default_enabled);
}

#[test]
fn identity_files_are_instructions_that_default_off() {
    let form = Form::Flat {
        category: Category::Instruction,
        identity: true,
        exempt: true,
    };
    let agents = admit_text("AGENTS.md", form, "# Agents\n").unwrap();
    assert_eq!(agents.id, "AGENTS");
    assert!(agents.identity && !agents.default_enabled);
}
