//! A skill's bundle entry is decided with the skill when it is the skill's own file:
//! telling so without building its path must agree with building it.

use proptest::prelude::*;

use super::{entry_path, is_own_entry};

/// Paths and entries over a few names, separators and dots, so that they meet often.
fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "SKILL.md", "/", ".", ".."]),
        0..5,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn an_entry_is_the_skills_own_exactly_when_its_path_is_the_skills(
        skill in path(),
        entry in path(),
    ) {
        prop_assert_eq!(is_own_entry(&skill, &entry), entry_path(&skill, &entry) == skill);
    }
}

#[test]
fn own_entries_of_skills_at_the_root_and_in_folders() {
    let cases = [
        ("skills/a/SKILL.md", "SKILL.md", true),
        ("skills/a/SKILL.md", "ref.md", false),
        ("skills/a/SKILL.md", "a/SKILL.md", false),
        ("SKILL.md", "SKILL.md", true),
        ("SKILL.md", "skills/SKILL.md", false),
    ];
    for (skill, entry, own) in cases {
        assert_eq!(is_own_entry(skill, entry), own, "{skill} {entry}");
    }
}
