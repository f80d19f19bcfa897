//! The listing made once per prepared answer answers every caller exactly as the
//! general path would (views assembled from the decisions, converted, flagged): the
//! same packages, files, states, bundle entries, flags and activation ids, for any
//! decisions policy may make.

use neuralis_access::{Decision, DecisionCode, Evaluation};
use neuralis_content_flags::{Flag, FlagSet};
use proptest::prelude::*;

use super::*;
use crate::base::fixtures;
use crate::base::ports::{IndexRow, ProjectRows, SourceInfo};
use crate::decision::answer::assemble;
use crate::grouping::candidates;
use crate::grouping::prepared::Prepared;
use crate::rows::inventory::ProjectSnapshot;

/// One agent's private subtree: its files are not sent for anyone else.
fn source() -> SourceInfo {
    fixtures::source(&["tools/*/skills/mine-{agent}/**"])
}

/// Three tools: colliding skill ids, bundles with flagged entries, rules and docs; each
/// path with its flags (bit i: `Flag::ALL[i]`).
const PATHS: [(&str, u8); 15] = [
    ("tools/a/skills/same/SKILL.md", 0),
    ("tools/a/skills/same/run.sh", 4),
    ("tools/a/skills/same/ref/notes.md", 2),
    ("tools/a/skills/same/ref/plain.md", 0),
    ("tools/a/rules/r.md", 1),
    ("tools/a/docs/d.md", 0),
    ("tools/b/skills/same/SKILL.md", 3),
    ("tools/b/skills/same/x.py", 1),
    ("tools/b/skills/other/SKILL.md", 0),
    ("tools/b/skills/mine-a1/SKILL.md", 0),
    (ALIAS, 0),
    ("tools/b/agents/p.md", 0),
    ("tools/c/skills/solo/SKILL.md", 0),
    ("tools/c/skills/solo/a.txt", 6),
    ("tools/c/instructions/i.md", 0),
];

/// An entry of a1's private skill reached through a link into a2's: two owners, so it
/// is not sent to policy at all (nobody may see it).
const ALIAS: &str = "tools/b/skills/mine-a1/alias.md";

fn flags(bits: u8) -> FlagSet {
    Flag::ALL
        .into_iter()
        .enumerate()
        .filter(|(i, _)| bits & 1 << i != 0)
        .map(|(_, flag)| flag)
        .collect()
}

fn snapshot() -> ProjectSnapshot {
    let rows = ProjectRows {
        revision: 1,
        rows: PATHS
            .iter()
            .map(|(path, bits)| IndexRow {
                real_path: (*path == ALIAS).then(|| "tools/b/skills/mine-a2/x.md".to_owned()),
                content_flags: flags(*bits),
                fingerprint: 1,
                ..fixtures::row(path)
            })
            .collect(),
    };
    ProjectSnapshot::build(rows, &[source()])
}

const CODES: [DecisionCode; 5] = [
    DecisionCode::Hidden,
    DecisionCode::VisibleActive,
    DecisionCode::VisibleOptIn,
    DecisionCode::VisibleDisabled,
    DecisionCode::VisibleManual,
];

fn evaluation(packages: &[u8], files: &[u8]) -> Evaluation {
    let numbered = |codes: &[u8]| {
        codes
            .iter()
            .enumerate()
            .map(|(index, code)| Decision {
                index,
                code: CODES[usize::from(*code) % CODES.len()],
            })
            .collect()
    };
    Evaluation {
        packages: numbered(packages),
        files: numbered(files),
    }
}

fn both(
    prepared: &Prepared,
    snapshot: &ProjectSnapshot,
    evaluation: &Evaluation,
) -> (Option<Vec<pb::Package>>, Vec<pb::Package>) {
    let listed = prepared
        .listing
        .list(&prepared.order, evaluation)
        .expect("the batch's decisions");
    let general = of_answer(assemble(prepared, evaluation).expect("answer"), snapshot);
    (listed, general)
}

#[test]
fn the_fixture_holds_bundles_with_flagged_entries_and_colliding_skills() {
    let snapshot = snapshot();
    let prepared = Prepared::new(candidates::build("p1", &[], &[source()], &snapshot), None);
    let all = evaluation(
        &vec![1; prepared.request.packages.len()],
        &vec![1; prepared.request.files.len()],
    );
    let (listed, general) = both(&prepared, &snapshot, &all);
    let listed = listed.expect("every skill visible: listed from the prepared messages");
    assert_eq!(listed, general);
    let files: Vec<&pb::PackageFile> = listed.iter().flat_map(|p| &p.files).collect();
    assert!(
        files.iter().any(|f| f.files.len() >= 3),
        "a bundle of several entries"
    );
    assert!(
        files.iter().any(|f| !f.flagged_files.is_empty()),
        "a flagged entry"
    );
    assert!(
        files.iter().any(|f| !f.content_flags.is_empty()),
        "a flagged file"
    );
    assert!(
        files.iter().any(|f| f.activation_id.contains('.')),
        "a qualified (colliding) id"
    );
    // The entry with two owners is not sent, so it is shown to nobody.
    assert!(prepared.request.files.iter().all(|f| f.path != ALIAS));
    let private = files
        .iter()
        .find(|f| f.path == "tools/b/skills/mine-a1/SKILL.md")
        .expect("listed when policy lets it through");
    assert_eq!(private.files, vec!["SKILL.md".to_owned()], "never alias.md");
}

/// Every file visible but one skill (`tools/b/skills/same`), hidden: the prepared
/// activation ids may then differ, so the general path answers.
fn one_skill_hidden(prepared: &Prepared) -> Vec<u8> {
    let mut files = vec![1; prepared.request.files.len()];
    let skill = prepared
        .request
        .files
        .iter()
        .position(|f| f.path == "tools/b/skills/same/SKILL.md")
        .expect("sent");
    files[skill] = 0;
    files
}

#[test]
fn a_hidden_skill_is_answered_by_the_general_path() {
    let snapshot = snapshot();
    let prepared = Prepared::new(candidates::build("p1", &[], &[source()], &snapshot), None);
    let files = one_skill_hidden(&prepared);
    let (listed, _) = both(
        &prepared,
        &snapshot,
        &evaluation(&vec![1; prepared.request.packages.len()], &files),
    );
    assert_eq!(listed, None, "its ids may differ from the prepared ones");
}

#[test]
fn decisions_that_do_not_match_the_batch_are_refused() {
    let snapshot = snapshot();
    let prepared = Prepared::new(candidates::build("p1", &[], &[source()], &snapshot), None);
    let short = evaluation(
        &vec![1; prepared.request.packages.len()],
        &vec![1; prepared.request.files.len() - 1],
    );
    assert!(prepared.listing.list(&prepared.order, &short).is_err());
}

/// Every page of `request`'s size, in order, each in `form`, decoded: the packages the
/// caller reaches by following `next_page_token` to the end.
fn every_page(
    prepared: &Prepared,
    snapshot: &ProjectSnapshot,
    evaluation: &Evaluation,
    page_size: i32,
    form: Form,
) -> Vec<pb::Package> {
    use prost::Message;
    let mut request = pb::ListPackagesRequest {
        page_size,
        ..Default::default()
    };
    let mut packages = Vec::new();
    for _ in 0..100 {
        let answer = list_packages(prepared, evaluation, snapshot, &request, form)
            .expect("the batch's decisions");
        let answer = pb::ListPackagesResponse::decode(&answer.encode_to_vec()[..]).unwrap();
        packages.extend(answer.packages);
        if answer.next_page_token.is_empty() {
            return packages;
        }
        request.page_token = answer.next_page_token;
    }
    panic!("more than 100 pages of size {page_size}")
}

#[test]
fn following_the_page_tokens_lists_the_whole_answer_once_on_both_paths() {
    let snapshot = snapshot();
    let prepared = Prepared::new(candidates::build("p1", &[], &[source()], &snapshot), None);
    let packages = vec![1; prepared.request.packages.len()];
    for (path, files) in [
        (
            "the prepared listing",
            vec![1; prepared.request.files.len()],
        ),
        ("the general path", one_skill_hidden(&prepared)),
    ] {
        let evaluation = evaluation(&packages, &files);
        let whole = of_answer(assemble(&prepared, &evaluation).expect("answer"), &snapshot);
        assert!(whole.len() >= 3, "{path}: room for several pages");
        for page_size in 1..=3 {
            for form in [Form::Messages, Form::Encoded] {
                let paged = every_page(&prepared, &snapshot, &evaluation, page_size, form);
                assert_eq!(paged, whole, "{path}, pages of {page_size}, {form:?}");
            }
        }
    }
}

proptest! {
    #[test]
    fn the_listing_answers_as_the_views_would(
        mut packages in proptest::collection::vec(0u8..5, 16),
        mut files in proptest::collection::vec(0u8..5, 64),
        every_skill_shown: bool,
    ) {
        let snapshot = snapshot();
        let prepared = Prepared::new(candidates::build("p1", &[], &[source()], &snapshot), None);
        let (packages, files) = (
            &mut packages[..prepared.request.packages.len()],
            &mut files[..prepared.request.files.len()],
        );
        if every_skill_shown {
            // Any state but hidden for every package and skill (entries stay random):
            // the prepared activation ids hold, so the listing answers.
            packages.iter_mut().for_each(|code| *code = (*code).max(1));
            for (file, code) in prepared.request.files.iter().zip(files.iter_mut()) {
                if file.path.ends_with("SKILL.md") {
                    *code = (*code).max(1);
                }
            }
        }
        let evaluation = evaluation(packages, files);
        let (listed, general) = both(&prepared, &snapshot, &evaluation);
        if every_skill_shown {
            prop_assert_eq!(listed, Some(general));
        } else if let Some(listed) = listed {
            prop_assert_eq!(listed, general);
        }
    }
}

proptest! {
    /// The wire's answer, written from the bytes kept with the prepared messages, is
    /// byte for byte the answer the messages encode to: every page, for any decisions
    /// (hidden skills, hidden bundle entries and disabled packages included).
    #[test]
    fn the_encoded_answer_is_the_listed_answer_byte_for_byte(
        packages in proptest::collection::vec(0u8..5, 16),
        files in proptest::collection::vec(0u8..5, 64),
        page_size in 0i32..4,
    ) {
        use prost::Message;
        let snapshot = snapshot();
        let prepared = Prepared::new(candidates::build("p1", &[], &[source()], &snapshot), None);
        let evaluation = evaluation(
            &packages[..prepared.request.packages.len()],
            &files[..prepared.request.files.len()],
        );
        let mut request = pb::ListPackagesRequest { page_size, ..Default::default() };
        let mut pages = 0;
        loop {
            let answer = |form| list_packages(&prepared, &evaluation, &snapshot, &request, form);
            let messages = answer(Form::Messages).expect("the batch's decisions");
            let encoded = answer(Form::Encoded).expect("the batch's decisions");
            prop_assert_eq!(encoded.encode_to_vec(), messages.encode_to_vec());
            let decoded = pb::ListPackagesResponse::decode(&encoded.encode_to_vec()[..]).unwrap();
            prop_assert_eq!(&decoded, &messages);
            pages += 1;
            if messages.next_page_token.is_empty() || pages > 20 {
                break;
            }
            request.page_token = messages.next_page_token;
        }
    }
}
