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
//!
//! The rule reads only what [`SkillClaim`] borrows of each skill, so a caller that
//! needs the ids alone (the answer prepared for every caller) assigns them without
//! copying its views ([`activation_ids`]). A bare id only one skill claims is that
//! skill's, with nothing to compare; only contested ids run the rest of the rule, in id
//! order (a qualified id taken by one contest is not free for the next).

use std::collections::{HashMap, HashSet};

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

/// What the rule reads of one skill: its package's origin, key and root, and its own
/// path and id.
#[derive(Debug, Clone, Copy)]
pub struct SkillClaim<'a> {
    pub origin: &'a Origin,
    pub key: &'a str,
    pub root: &'a str,
    pub path: &'a str,
    pub id: &'a str,
}

impl<'a> SkillClaim<'a> {
    /// The claim of `package`'s skill `file`.
    pub fn of(package: &'a PackageView, file: &'a crate::view::FileView) -> Self {
        Self {
            origin: &package.origin,
            key: &package.key,
            root: &package.root,
            path: &file.path,
            id: &file.id,
        }
    }
}

/// A skill competing for a bare id (`at`: its index among the claims).
struct Claimant {
    at: usize,
    installed: bool,
    qualified: String,
}

/// What the rule assigns: per claim, index for index, the id it is advertised under;
/// and the qualified ids the bare owners of contested ids also answer to, by claim.
struct Assigned {
    ids: Vec<String>,
    also_answers: Vec<(String, usize)>,
}

/// Fills every skill's `activation_id` and returns the id index.
pub fn assign_activation_ids(packages: &mut [PackageView]) -> SkillIndex {
    let (index, assigned) = indexed(packages);
    for (id, (pi, fi)) in assigned {
        packages[pi].files[fi].activation_id = id;
    }
    index
}

/// The id index [`assign_activation_ids`] returns, for views whose ids are set or not:
/// nothing is copied or filled in.
pub fn skill_index(packages: &[PackageView]) -> SkillIndex {
    indexed(packages).0
}

/// The id index of `packages`' skills, and each skill's id with where it goes.
fn indexed(packages: &[PackageView]) -> (SkillIndex, Vec<(String, SkillRef)>) {
    let (claims, at): (Vec<SkillClaim<'_>>, Vec<SkillRef>) = packages
        .iter()
        .enumerate()
        .flat_map(|(pi, package)| {
            let skills = package.files.iter().enumerate();
            skills
                .filter(|(_, file)| file.category == Category::Skill)
                .map(move |(fi, file)| (SkillClaim::of(package, file), (pi, fi)))
        })
        .unzip();
    let Assigned { ids, also_answers } = assign(&claims);
    let mut index = SkillIndex::default();
    // Every advertised id is distinct: the order they go in does not matter.
    for (id, place) in ids.iter().zip(&at) {
        index.by_id.insert(id.clone(), *place);
    }
    // The bare owner of a contested id also answers to its qualified id, unless that id
    // is advertised on another skill.
    for (id, claim) in also_answers {
        index.by_id.entry(id).or_insert(at[claim]);
    }
    (index, ids.into_iter().zip(at).collect())
}

/// The id each of `claims` is advertised under, index for index (what
/// [`assign_activation_ids`] fills in, for views given as their claims).
pub fn activation_ids(claims: &[SkillClaim<'_>]) -> Vec<String> {
    assign(claims).ids
}

fn assign(claims: &[SkillClaim<'_>]) -> Assigned {
    // The claims by bare id, in id order; each id's claims in the order given.
    let mut order: Vec<usize> = (0..claims.len()).collect();
    order.sort_by_key(|&at| claims[at].id);
    let groups: Vec<&[usize]> = order
        .chunk_by(|a, b| claims[*a].id == claims[*b].id)
        .collect();
    // Every bare id has its owner; an advertised qualified id must not be one of them.
    let mut advertised = Advertised {
        bare: groups.iter().map(|refs| claims[refs[0]].id).collect(),
        qualified: HashSet::new(),
    };
    let mut ids = vec![String::new(); claims.len()];
    let mut also_answers = Vec::new();
    for refs in groups {
        let bare = claims[refs[0]].id;
        if let [only] = refs {
            ids[*only] = bare.to_owned(); // uncontested
            continue;
        }
        let mut claimants = qualify(claims, bare, refs);
        claimants.sort_by(|a, b| (!a.installed, &a.qualified).cmp(&(!b.installed, &b.qualified)));
        for (rank, claimant) in claimants.into_iter().enumerate() {
            ids[claimant.at] = if rank == 0 {
                also_answers.push((claimant.qualified, claimant.at));
                bare.to_owned()
            } else {
                advertised.take(claimant.qualified)
            };
        }
    }
    Assigned { ids, also_answers }
}

/// The ids advertised so far: every bare id, and the qualified ids taken.
struct Advertised<'a> {
    bare: HashSet<&'a str>,
    qualified: HashSet<String>,
}

impl Advertised<'_> {
    fn contains(&self, id: &str) -> bool {
        self.bare.contains(id) || self.qualified.contains(id)
    }

    /// `id`, or the first `<id>.<n>` (n = 2, 3, …) no skill is advertised under yet;
    /// taken.
    fn take(&mut self, id: String) -> String {
        let id = if self.contains(&id) {
            (2..)
                .map(|n| format!("{id}.{n}"))
                .find(|candidate| !self.contains(candidate))
                .unwrap_or(id)
        } else {
            id
        };
        self.qualified.insert(id.clone());
        id
    }
}

fn qualify(claims: &[SkillClaim<'_>], bare: &str, refs: &[usize]) -> Vec<Claimant> {
    let claimants = refs
        .iter()
        .map(|&at| {
            let claim = &claims[at];
            let qualified = match claim.origin {
                Origin::Installed { package_id } => format!("{bare}.{package_id}"),
                Origin::Source { slug } => {
                    let same_source = refs
                        .iter()
                        .filter(|other| matches!(claims[**other].origin, Origin::Source { slug: other } if other == slug))
                        .count();
                    if same_source > 1 {
                        format!("{bare}.{slug}.{}", claim.key)
                    } else {
                        format!("{bare}.{slug}")
                    }
                }
            };
            Claimant {
                at,
                installed: matches!(claim.origin, Origin::Installed { .. }),
                qualified,
            }
        })
        .collect::<Vec<_>>();
    distinct(claimants, claims)
}

/// Claimants sharing a qualified id are skills of one package: each adds its folder
/// relative to the package root (its own, so it does not depend on which other skills
/// are visible), and an ordinal if even that is shared.
fn distinct(mut claimants: Vec<Claimant>, claims: &[SkillClaim<'_>]) -> Vec<Claimant> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for claimant in &claimants {
        *counts.entry(claimant.qualified.clone()).or_default() += 1;
    }
    for claimant in claimants.iter_mut() {
        if counts.get(&claimant.qualified).copied().unwrap_or(0) > 1 {
            let claim = &claims[claimant.at];
            let relative = claim
                .path
                .strip_prefix(claim.root)
                .map(|rest| rest.trim_start_matches('/'))
                .unwrap_or(claim.path);
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
