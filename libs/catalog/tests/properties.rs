//! Loading arbitrary package directories never panics, and a loaded package always
//! carries the trust of its install class.

use neuralis_catalog::package::{Candidate, InstallClass, Outcome, load};
use neuralis_layout::Trust;
use proptest::prelude::*;
use std::collections::BTreeMap;

const PATHS: &[&str] = &[
    "package.json",
    "neuralis.package.json",
    "SKILL.md",
    "hooks.json",
    "tools/a.json",
    "tools/b.json",
    "workflows/w.json",
    "commands/c.json",
    "commands/c.md",
    "team/ada/member.json",
    "team/ada/identity/x.md",
    "team/ada/files/n/x.md",
    "rules/r.md",
    "skills/s/SKILL.md",
    "docs/d.md",
    "README.md",
];

const CONTENTS: &[&str] = &[
    r#"{"name": "p", "neuralis": {}}"#,
    r#"{"name": "p", "neuralis": {"provides": ["runtime"], "configSettings": [{"key": "k", "label": "K", "type": "number", "default": 1, "category": "c"}]}}"#,
    r#"{"name": "t", "description": "d", "inputSchema": {"type": "object"}}"#,
    r#"{"name": "c", "prompt": "p"}"#,
    r#"[{"id": "h", "event": "e"}]"#,
    r#"{"steps": [{}]}"#,
    "---\nname: x\noverwrite: true\n---\nbody",
    "---\nname: [\n---\n",
    "{",
    "",
    "\u{0}\u{ff}",
];

fn arb_files() -> impl Strategy<Value = BTreeMap<String, Vec<u8>>> {
    let entry = (
        proptest::sample::select(PATHS),
        prop_oneof![
            proptest::sample::select(CONTENTS).prop_map(|c| c.as_bytes().to_vec()),
            proptest::collection::vec(any::<u8>(), 0..64),
        ],
    );
    proptest::collection::vec(entry, 0..10).prop_map(|entries| {
        entries
            .into_iter()
            .map(|(p, c)| (p.to_owned(), c))
            .collect()
    })
}

fn arb_class() -> impl Strategy<Value = InstallClass> {
    prop_oneof![
        Just(InstallClass::Builtin),
        Just(InstallClass::Trusted),
        Just(InstallClass::Project)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn loading_arbitrary_package_files_never_panics(files in arb_files(), class in arb_class()) {
        let candidate = Candidate { root: "_packages/p".into(), class, files };
        if let Outcome::Loaded(package) = load(&candidate) {
            // "the host assigns trust by source"
            prop_assert_eq!(package.trust, class.trust());
            prop_assert_eq!(package.manifest.trust, class.trust());
            if package.trust != Trust::FirstParty {
                prop_assert!(package.manifest.provides.is_empty());
                prop_assert!(package.manifest.config_settings.is_empty());
                prop_assert!(package.contributions.files.iter().all(|c| !c.overwrite));
            }
        }
    }
}
