//! Which id each visible skill answers to (seed 000, "Collisions are namespaced";
//! DESIGN.md section 4, "Skill id collisions").
//!
//! - An installed skill keeps its bare id (between two installed packages, the
//!   lexically smaller package id keeps it; the other answers to `<id>.<packageId>`).
//! - A source skill that collides is activatable as `<id>.<sourceSlug>`; when two
//!   packages of the same source collide, as `<id>.<sourceSlug>.<packageKey>`.
//! - With no installed claimant, the bare id goes to the lexically smallest qualified
//!   claimant; every claimant stays reachable by its qualified id.
//! - Two skills of one package with the same id (issue 10) would get the same qualified
//!   id; each then adds its folder relative to the package root, slugged
//!   (`<qualified>.<folder>`, `review.repo.skills-review-v2`), so every claimant stays
//!   reachable.
//!
//! - An advertised id always activates the skill it is advertised on (issue 27): a
//!   qualified id that is another skill's bare id (a skill whose own id is literally
//!   `review.repo`) takes the first free `<qualified>.<n>`, n = 2, 3, …, and never
//!   shadows or is shadowed by that skill.
//!
//! Ids are assigned over what this caller can see only, so a denied skill never
//! shifts anyone's id (and so never reveals that it exists).

use std::collections::{BTreeMap, HashMap, HashSet};

use neuralis_layout::Category;

use crate::view::{Origin, PackageView};

/// Where a skill lives in the answer: package index, file index.
pub type SkillRef = (usize, usize);

/// Every id (bare or qualified) a visible skill answers to.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SkillIndex {
    by_id: HashMap<String, SkillRef>,
}

impl SkillIndex {
    /// The skill that answers to `id`, if any.
    pub fn resolve(&self, id: &str) -> Option<SkillRef> {
        self.by_id.get(id).copied()
    }

    /// Number of ids answered.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// True when no skill is visible.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// A skill competing for a bare id.
struct Claimant {
    at: SkillRef,
    installed: bool,
    qualified: String,
}

/// Fills every skill's `activation_id` and returns the id index.
pub fn assign_activation_ids(packages: &mut [PackageView]) -> SkillIndex {
    let mut groups: BTreeMap<String, Vec<SkillRef>> = BTreeMap::new();
    for (pi, package) in packages.iter().enumerate() {
        for (fi, file) in package.files.iter().enumerate() {
            if file.category == Category::Skill {
                groups.entry(file.id.clone()).or_default().push((pi, fi));
            }
        }
    }
    let mut index = SkillIndex::default();
    // Every bare id has its owner; an advertised qualified id must not be one of them.
    let mut advertised: HashSet<String> = groups.keys().cloned().collect();
    let mut also_answers = Vec::new();
    for (bare, refs) in &groups {
        let mut claimants = qualify(packages, bare, refs);
        claimants.sort_by(|a, b| (!a.installed, &a.qualified).cmp(&(!b.installed, &b.qualified)));
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
            index.by_id.insert(id.clone(), claimant.at);
            packages[pi].files[fi].activation_id = id;
        }
    }
    // The bare owner of a contested id also answers to its qualified id, unless that id
    // is advertised on another skill.
    for (id, at) in also_answers {
        index.by_id.entry(id).or_insert(at);
    }
    index
}

/// `id`, or the first `<id>.<n>` (n = 2, 3, …) no skill is advertised under yet; taken.
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

fn qualify(packages: &[PackageView], bare: &str, refs: &[SkillRef]) -> Vec<Claimant> {
    let claimants = refs
        .iter()
        .map(|&(pi, fi)| {
            let package = &packages[pi];
            let qualified = match &package.origin {
                Origin::Installed { package_id } => format!("{bare}.{package_id}"),
                Origin::Source { slug } => {
                    let same_source = refs
                        .iter()
                        .filter(|(other, _)| packages[*other].source_slug() == Some(slug.as_str()))
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
        .collect::<Vec<_>>();
    distinct(claimants, packages)
}

/// Claimants sharing a qualified id are skills of one package: each adds its folder
/// relative to the package root (its own, so it does not depend on which other skills
/// are visible), and an ordinal if even that is shared.
fn distinct(mut claimants: Vec<Claimant>, packages: &[PackageView]) -> Vec<Claimant> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for claimant in &claimants {
        *counts.entry(claimant.qualified.clone()).or_default() += 1;
    }
    for claimant in claimants.iter_mut() {
        if counts.get(&claimant.qualified).copied().unwrap_or(0) > 1 {
            let (pi, fi) = claimant.at;
            let package = &packages[pi];
            let path = &package.files[fi].path;
            let relative = path
                .strip_prefix(package.root.as_str())
                .map(|rest| rest.trim_start_matches('/'))
                .unwrap_or(path);
            let folder = relative.rsplit_once('/').map_or("", |(dir, _)| dir);
            claimant.qualified = format!(
                "{}.{}",
                claimant.qualified,
                neuralis_layout::naming::slug(if folder.is_empty() { "root" } else { folder })
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
