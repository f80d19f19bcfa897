//! Skill ids (seed 000, "Collisions are namespaced") as the rule assigns them, against
//! the rule as first written: every bare id's claimants in id order, each contest
//! reading whole views. The rule now skips what an uncontested id cannot change and
//! reads borrowed claims; on any answer it must assign what the first form assigned,
//! id for id, and resolve every id alike.

use std::collections::{BTreeMap, HashMap, HashSet};

use neuralis_assembly::{
    FileState, FileView, Origin, PackageView, SkillClaim, activation_ids, assign_activation_ids,
    skill_index,
};
use neuralis_layout::Category;
use proptest::prelude::*;

/// The first form of the rule, kept as the oracle.
mod first_form {
    use super::*;

    struct Claimant {
        at: (usize, usize),
        installed: bool,
        qualified: String,
    }

    pub fn assign(packages: &mut [PackageView]) -> HashMap<String, (usize, usize)> {
        let mut groups: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
        for (pi, package) in packages.iter().enumerate() {
            for (fi, file) in package.files.iter().enumerate() {
                if file.category == Category::Skill {
                    groups.entry(file.id.clone()).or_default().push((pi, fi));
                }
            }
        }
        let mut by_id = HashMap::new();
        let mut advertised: HashSet<String> = groups.keys().cloned().collect();
        let mut also_answers = Vec::new();
        for (bare, refs) in &groups {
            let mut claimants = qualify(packages, bare, refs);
            claimants
                .sort_by(|a, b| (!a.installed, &a.qualified).cmp(&(!b.installed, &b.qualified)));
            let contested = claimants.len() > 1;
            for (rank, claimant) in claimants.into_iter().enumerate() {
                let (pi, fi) = claimant.at;
                let id = if rank == 0 {
                    if contested {
                        also_answers.push((claimant.qualified, claimant.at));
                    }
                    bare.clone()
                } else {
                    unadvertised(claimant.qualified, &mut advertised)
                };
                by_id.insert(id.clone(), claimant.at);
                packages[pi].files[fi].activation_id = id;
            }
        }
        for (id, at) in also_answers {
            by_id.entry(id).or_insert(at);
        }
        by_id
    }

    fn unadvertised(id: String, advertised: &mut HashSet<String>) -> String {
        let id = if advertised.contains(&id) {
            (2..)
                .map(|n| format!("{id}.{n}"))
                .find(|candidate| !advertised.contains(candidate))
                .unwrap_or(id)
        } else {
            id
        };
        advertised.insert(id.clone());
        id
    }

    fn qualify(packages: &[PackageView], bare: &str, refs: &[(usize, usize)]) -> Vec<Claimant> {
        let mut claimants: Vec<Claimant> = refs
            .iter()
            .map(|&(pi, fi)| {
                let package = &packages[pi];
                let qualified = match &package.origin {
                    Origin::Installed { package_id } => format!("{bare}.{package_id}"),
                    Origin::Source { slug } => {
                        let same_source = refs
                            .iter()
                            .filter(|(other, _)| {
                                packages[*other].source_slug() == Some(slug.as_str())
                            })
                            .count();
                        if same_source > 1 {
                            format!("{bare}.{slug}.{}", package.key)
                        } else {
                            format!("{bare}.{slug}")
                        }
                    }
                };
                Claimant {
                    at: (pi, fi),
                    installed: matches!(package.origin, Origin::Installed { .. }),
                    qualified,
                }
            })
            .collect();
        let mut counts: HashMap<String, usize> = HashMap::new();
        for claimant in &claimants {
            *counts.entry(claimant.qualified.clone()).or_default() += 1;
        }
        for claimant in claimants.iter_mut() {
            if counts[&claimant.qualified] > 1 {
                let (pi, fi) = claimant.at;
                let package = &packages[pi];
                let path = &package.files[fi].path;
                let relative = path
                    .strip_prefix(package.root.as_str())
                    .map(|rest| rest.trim_start_matches('/'))
                    .unwrap_or(path);
                let folder = relative.rsplit_once('/').map_or("", |(dir, _)| dir);
                let folder = if folder.is_empty() { "root" } else { folder };
                claimant.qualified = format!(
                    "{}.{}",
                    claimant.qualified,
                    neuralis_layout::naming::slug(folder)
                );
            }
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        for claimant in claimants.iter_mut() {
            let n = seen.entry(claimant.qualified.clone()).or_default();
            *n += 1;
            if *n > 1 {
                claimant.qualified = format!("{}.{n}", claimant.qualified);
            }
        }
        claimants
    }
}

fn file(path: String, category: Category, id: String) -> FileView {
    FileView {
        path,
        category,
        id,
        title: String::new(),
        description: None,
        identity: false,
        default_enabled: true,
        state: FileState::Active,
        bundle: Vec::new(),
        activation_id: String::new(),
        size: 1,
        allowed_tools: Vec::new(),
    }
}

/// Ids that collide often, and that look like each other's qualified forms; slugs
/// that make them (`a` of source `s` qualifies to `a.s`, a bare id here; `a.s` of
/// source `2` to `a.s.2`, which `a`'s contest takes first).
const IDS: [&str; 6] = ["a", "b", "a.s", "a.s.k0", "a.x", "a.s.2"];
const SLUGS: [&str; 3] = ["s", "t", "2"];

/// An answer: packages of a few origins (installed ids and source slugs that collide
/// with the ids), each with skills (and a rule between them) in a few folders.
fn answer() -> impl Strategy<Value = Vec<PackageView>> {
    let skill = (0..IDS.len(), 0..3usize, any::<bool>());
    let package = (0..5usize, prop::collection::vec(skill, 0..4));
    prop::collection::vec(package, 0..6).prop_map(|packages| {
        packages
            .into_iter()
            .enumerate()
            .map(|(pi, (origin, skills))| {
                let origin = match origin {
                    0 => Origin::Installed {
                        package_id: "s".into(),
                    },
                    1 => Origin::Installed {
                        package_id: "k0".into(),
                    },
                    n => Origin::Source {
                        slug: SLUGS[n - 2].into(),
                    },
                };
                let root = if pi % 2 == 0 {
                    format!("k{pi}")
                } else {
                    String::new()
                };
                let files = skills
                    .into_iter()
                    .enumerate()
                    .map(|(fi, (id, folder, rule))| {
                        let category = if rule {
                            Category::Rule
                        } else {
                            Category::Skill
                        };
                        let dir = ["skills/review", "skills/review_v2", "skills/review-v2"];
                        let path = format!("{root}/{}{fi}/SKILL.md", dir[folder]);
                        file(path, category, IDS[id].into())
                    })
                    .collect();
                PackageView {
                    origin,
                    name: format!("k{pi}"),
                    key: format!("k{}", pi % 3),
                    policy_key: format!("p/k{pi}"),
                    root,
                    rule: None,
                    enabled: true,
                    files,
                }
            })
            .collect()
    })
}

fn ids(packages: &[PackageView]) -> Vec<Vec<String>> {
    let ids = packages.iter().map(|p| &p.files);
    ids.map(|files| files.iter().map(|f| f.activation_id.clone()).collect())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn every_skill_gets_the_id_the_first_form_of_the_rule_gives(packages in answer()) {
        let mut first = packages.clone();
        let by_id = first_form::assign(&mut first);
        let mut now = packages.clone();
        let index = assign_activation_ids(&mut now);
        prop_assert_eq!(ids(&now), ids(&first));
        prop_assert_eq!(index.len(), by_id.len());
        for (id, at) in &by_id {
            prop_assert_eq!(index.resolve(id), Some(*at), "{}", id);
        }
        // The index alone, of the views before or after their ids are filled in.
        prop_assert_eq!(&skill_index(&packages), &index);
        prop_assert_eq!(&skill_index(&now), &index);
        // The borrowed form assigns the same ids, skill for skill.
        let claims: Vec<SkillClaim<'_>> = packages
            .iter()
            .flat_map(|p| {
                let skills = p.files.iter().filter(|f| f.category == Category::Skill);
                skills.map(move |f| SkillClaim::of(p, f))
            })
            .collect();
        let skills = ids(&first).into_iter().zip(&packages).flat_map(|(ids, p)| {
            ids.into_iter()
                .zip(&p.files)
                .filter(|(_, f)| f.category == Category::Skill)
                .map(|(id, _)| id)
                .collect::<Vec<_>>()
        });
        prop_assert_eq!(activation_ids(&claims), skills.collect::<Vec<_>>());
    }
}

/// Contests run in id order, each taking the qualified ids it advertises before the
/// next looks: `a`'s loser (`a.s`, a bare id) takes `a.s.2` first, so `a.s`'s loser of
/// source `2` takes `a.s.2.2` (in the other order they would swap to `a.s.3`/`a.s.2`).
#[test]
fn contests_take_their_qualified_ids_in_id_order() {
    let skill = |path: &str, id: &str| file(path.into(), Category::Skill, id.into());
    let package = |origin: Origin, root: &str, files: Vec<FileView>| PackageView {
        origin,
        name: root.into(),
        key: root.into(),
        policy_key: format!("p/{root}"),
        root: root.into(),
        rule: None,
        enabled: true,
        files,
    };
    let installed = Origin::Installed {
        package_id: "x".into(),
    };
    let source = |slug: &str| Origin::Source { slug: slug.into() };
    let mut packages = vec![
        package(
            installed,
            "",
            vec![
                skill("skills/a/SKILL.md", "a"),
                skill("skills/b/SKILL.md", "a.s"),
            ],
        ),
        package(source("s"), "k", vec![skill("k/skills/a/SKILL.md", "a")]),
        package(source("2"), "k", vec![skill("k/skills/c/SKILL.md", "a.s")]),
    ];
    let index = assign_activation_ids(&mut packages);
    let expected = [["a", "a.s"].as_slice(), &["a.s.2"], &["a.s.2.2"]];
    let expected: Vec<Vec<String>> = expected
        .iter()
        .map(|ids| ids.iter().map(|id| (*id).to_owned()).collect())
        .collect();
    assert_eq!(ids(&packages), expected);
    for (id, at) in [("a.x", (0, 0)), ("a.s.x", (0, 1)), ("a.s.2", (1, 0))] {
        assert_eq!(index.resolve(id), Some(at), "{id}");
    }
}
