//! Activation ids taken from the prepared answer are those the caller's visible skills
//! would be assigned afresh (seed: a bare id goes to one skill; the others are
//! qualified, and only while they collide with a visible skill).

use neuralis_access::{Decision, DecisionCode, Evaluation};
use neuralis_assembly::assign_activation_ids;

use super::*;
use crate::base::fixtures::{row, source};
use crate::base::ports::ProjectRows;
use crate::grouping::candidates;
use crate::rows::inventory::ProjectSnapshot;

fn prepared(paths: &[&str]) -> Prepared {
    let sources = vec![source(&[])];
    let rows = ProjectRows {
        revision: 1,
        rows: paths.iter().map(|path| row(path)).collect(),
    };
    let snapshot = ProjectSnapshot::build(rows, &sources);
    Prepared::new(candidates::build("p1", &[], &sources, &snapshot), None)
}

/// Every candidate visible, except the files at `hidden` (paths).
fn evaluation(prepared: &Prepared, hidden: &[&str]) -> Evaluation {
    let decision = |index, code| Decision { index, code };
    Evaluation {
        packages: (0..prepared.request.packages.len())
            .map(|i| decision(i, DecisionCode::VisibleActive))
            .collect(),
        files: prepared
            .request
            .files
            .iter()
            .enumerate()
            .map(|(i, file)| match hidden.contains(&file.path.as_str()) {
                true => decision(i, DecisionCode::Hidden),
                false => decision(i, DecisionCode::VisibleActive),
            })
            .collect(),
    }
}

fn ids(packages: &[PackageView]) -> Vec<String> {
    let mut ids: Vec<String> = packages
        .iter()
        .flat_map(|p| p.files.iter().map(|f| f.activation_id.clone()))
        .filter(|id| !id.is_empty())
        .collect();
    ids.sort();
    ids
}

/// The ids assigned afresh over the answer's packages alone.
fn afresh(answer: &Answer) -> Vec<String> {
    let mut packages = answer.packages.clone();
    for file in packages.iter_mut().flat_map(|p| p.files.iter_mut()) {
        file.activation_id.clear();
    }
    assign_activation_ids(&mut packages);
    ids(&packages)
}

const A: &str = "tools/a/skills/same/SKILL.md";
const B: &str = "tools/b/skills/same/SKILL.md";

#[test]
fn activation_ids_from_the_prepared_answer_are_those_of_the_visible_skills() {
    let prepared = prepared(&[A, B, "tools/a/rules/r.md", "tools/b/rules/r.md"]);
    // Everything visible: the prepared ids, a bare one and a qualified one.
    let all = assemble(&prepared, &evaluation(&prepared, &[])).expect("answer");
    let listed = ids(&all.packages);
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert!(listed.contains(&"same".to_owned()), "{listed:?}");
    assert_eq!(listed, afresh(&all));
    assert!(all.skills().resolve("same").is_some());

    // A hidden rule changes no skill: still the prepared ids.
    let rule_hidden =
        assemble(&prepared, &evaluation(&prepared, &["tools/a/rules/r.md"])).expect("answer");
    assert_eq!(ids(&rule_hidden.packages), listed);

    // One of the colliding skills hidden: the other is no longer qualified.
    for hidden in [A, B] {
        let one = assemble(&prepared, &evaluation(&prepared, &[hidden])).expect("answer");
        assert_eq!(
            ids(&one.packages),
            vec!["same".to_owned()],
            "{hidden} hidden"
        );
        assert_eq!(ids(&one.packages), afresh(&one));
        let (pi, fi) = one.skills().resolve("same").expect("resolves");
        assert_ne!(one.packages[pi].files[fi].path, hidden);
    }
}
