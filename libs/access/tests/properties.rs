//! Properties over random policies and trees: no decision for a denied file carries its
//! path or name; evaluation does not depend on candidate order; and the compiled policy
//! (which walks its rules backwards and stops early) equals applying the rules forwards
//! in the order DESIGN.md section 4 gives.

#![allow(clippy::unwrap_used)]

mod support;

use std::collections::BTreeSet;

use neuralis_access::pattern::split_path;
use neuralis_access::{
    AccessSnapshot, Caller, Capabilities, CompiledPolicy, DecisionCode, EvaluationRequest,
    FileCandidate, FileOverrides, KeptBatch, PackageCandidate, PathPattern, PathRule, SourceRecord,
    UriPolicy, decide, evaluate,
};
use neuralis_layout::Category;
use proptest::prelude::*;
use proptest::sample::{select, subsequence};
use support::{PROJECT, SOURCE, project_header, source_package};

const SEGMENTS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "docs", "rules"];
const FEATURES: [&str; 3] = ["f.one", "f.two", "f.three"];

fn segment() -> impl Strategy<Value = String> {
    select(SEGMENTS.to_vec()).prop_map(String::from)
}

/// A segment name with any of its letters turned into stars (runs of stars collapse
/// into one), and maybe a star before or after: `*`, `al*a`, `*e*ta*`, `d*cs`.
fn glob() -> impl Strategy<Value = String> {
    (
        segment(),
        prop::collection::vec(any::<bool>(), 8),
        any::<(bool, bool)>(),
    )
        .prop_map(|(name, starred, (before, after))| {
            let mut glob = String::new();
            if before {
                glob.push('*');
            }
            for (at, letter) in name.chars().enumerate() {
                let star = starred.get(at).copied().unwrap_or(false);
                match (star, glob.ends_with('*')) {
                    (true, true) => {}
                    (true, false) => glob.push('*'),
                    (false, _) => glob.push(letter),
                }
            }
            if after && !glob.ends_with('*') {
                glob.push('*');
            }
            glob
        })
}

fn pattern() -> impl Strategy<Value = String> {
    let part = prop_oneof![4 => segment(), 2 => glob(), 1 => Just("**".to_owned())];
    prop::collection::vec(part, 1..4).prop_map(|parts| parts.join("/"))
}

fn names(pool: &'static [&'static str]) -> impl Strategy<Value = Vec<String>> {
    subsequence(pool.to_vec(), 0..=pool.len())
        .prop_map(|names| names.into_iter().map(String::from).collect())
}

fn path_rule() -> impl Strategy<Value = PathRule> {
    let grant = (
        pattern(),
        any::<Option<bool>>(),
        any::<Option<bool>>(),
        names(&["member", "admin"]),
        names(&["a1", "a2"]),
        any::<bool>(),
    )
        .prop_map(
            |(pattern, read, write, roles, agents, override_rule)| PathRule {
                read: read.or(Some(true)),
                write,
                roles,
                agents,
                override_rule,
                ..PathRule::new(pattern)
            },
        );
    let floor = pattern().prop_map(|pattern| PathRule {
        read: Some(false),
        floor: true,
        ..PathRule::new(pattern)
    });
    prop_oneof![5 => grant, 1 => floor]
}

fn policy() -> impl Strategy<Value = UriPolicy> {
    (any::<bool>(), prop::collection::vec(path_rule(), 0..10)).prop_map(|(read, paths)| UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read,
            ..Capabilities::default()
        },
        paths,
    })
}

fn caller() -> impl Strategy<Value = Caller> {
    (
        select(vec!["member", "admin"]),
        prop::option::of(select(vec!["a1", "a2"])),
        names(&FEATURES),
    )
        .prop_map(|(role, agent, features)| Caller {
            role: role.into(),
            agent: agent.map(String::from),
            features: features.into_iter().collect(),
            ..support::caller()
        })
}

fn relative(depth: std::ops::Range<usize>) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(segment(), depth)
}

/// Packages with roots of depth 0..2 and files of depth 1..3 below them.
fn tree() -> impl Strategy<Value = EvaluationRequest> {
    let category = select(vec![
        Category::Skill,
        Category::Rule,
        Category::Docs,
        Category::Instruction,
    ]);
    let file = (
        relative(1..4),
        category,
        names(&FEATURES),
        prop::option::of(select(vec!["a1", "a2"])),
        any::<bool>(),
    );
    let package = (
        relative(0..3),
        prop::collection::vec(file, 0..6),
        prop::option::of(select(FEATURES.to_vec())),
    );
    prop::collection::vec(package, 1..5).prop_map(|packages| {
        let mut request = EvaluationRequest {
            project: PROJECT.into(),
            sources: vec![project_header()],
            ..Default::default()
        };
        for (at, (root, files, access)) in packages.into_iter().enumerate() {
            let root = root.join("/");
            for (tail, category, required, owner, default_enabled) in files {
                let path = if root.is_empty() {
                    tail.join("/")
                } else {
                    format!("{root}/{}", tail.join("/"))
                };
                request.files.push(FileCandidate {
                    content_flagged: false,
                    downgraded_from: None,
                    package: at,
                    path,
                    category,
                    identity: false,
                    default_enabled,
                    required_features: required,
                    private_owner: owner.map(String::from),
                    real_path: None,
                });
            }
            request.packages.push(PackageCandidate {
                key: format!("pkg{at}"),
                access_feature: access.map(String::from),
                ..source_package(&root)
            });
        }
        request
    })
}

fn state() -> impl Strategy<Value = AccessSnapshot> {
    (
        policy(),
        any::<bool>(),
        names(&FEATURES),
        prop::collection::vec((0..5usize, relative(1..3), any::<bool>()), 0..6),
    )
        .prop_map(|(policy, enabled, granted, switches)| {
            let mut snapshot = AccessSnapshot::default();
            snapshot.sources.insert(
                SOURCE.into(),
                SourceRecord {
                    enabled,
                    policy: Some(policy),
                },
            );
            snapshot.role_features = granted.into_iter().collect::<BTreeSet<_>>();
            snapshot.package_enabled.insert("pkg1".into(), false);
            let overrides: FileOverrides = switches
                .into_iter()
                .map(|(at, path, on)| (format!("pkg{at}"), path.join("/"), on))
                .collect();
            snapshot.conversation_chain = vec![overrides.clone()];
            snapshot.agent_overrides = overrides;
            snapshot
        })
}

/// The reference reading of DESIGN.md section 4, applying rules forwards.
fn reference(policy: &UriPolicy, who: &Caller, path: &[&str]) -> Capabilities {
    let pattern = |rule: &PathRule| PathPattern::parse(&rule.pattern, "p").unwrap();
    let includes = |names: &[String], name: Option<&str>| {
        names.is_empty() || names.iter().any(|n| Some(n.as_str()) == name)
    };
    let mut order: Vec<(usize, &PathRule)> = policy
        .paths
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            !r.floor
                && includes(&r.roles, Some(&who.role))
                && includes(&r.agents, who.agent.as_deref())
        })
        .collect();
    order.sort_by_key(|(at, r)| (r.override_rule, pattern(r).specificity(), *at));
    let mut caps = policy.default;
    for (_, r) in order.into_iter().filter(|(_, r)| pattern(r).matches(path)) {
        caps = Capabilities {
            read: r.read.unwrap_or(caps.read),
            write: r.write.unwrap_or(caps.write),
            exec: r.exec.unwrap_or(caps.exec),
        };
    }
    for r in policy
        .paths
        .iter()
        .filter(|r| r.floor && pattern(r).matches(path))
    {
        caps.read &= r.read != Some(false);
        caps.write &= r.write != Some(false);
        caps.exec &= r.exec != Some(false);
    }
    caps
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_decision_for_a_denied_file_carries_its_path_or_name(who in caller(), snapshot in state(), request in tree()) {
        let evaluation = evaluate(&who, &snapshot, &request).unwrap();
        let answer = format!("{evaluation:?}");
        for decision in evaluation.files.iter().filter(|d| d.code == DecisionCode::Hidden) {
            let path = &request.files[decision.index].path;
            let name = path.rsplit('/').next().unwrap_or(path);
            prop_assert!(!answer.contains(path.as_str()) && !answer.contains(name), "{path} leaks into {answer}");
        }
    }

    #[test]
    fn evaluation_is_independent_of_candidate_order(
        who in caller(), snapshot in state(), request in tree(), seed in any::<u64>(),
    ) {
        let baseline = evaluate(&who, &snapshot, &request).unwrap();
        let (shuffled, package_from, file_from) = shuffle(&request, seed);
        let again = evaluate(&who, &snapshot, &shuffled).unwrap();
        for (at, decision) in again.packages.iter().enumerate() {
            prop_assert_eq!(decision.code, baseline.packages[package_from[at]].code);
        }
        for (at, decision) in again.files.iter().enumerate() {
            prop_assert_eq!(decision.code, baseline.files[file_from[at]].code);
        }
    }

    /// Issue 31: a batch kept after one check (discovery keeps one per prepared answer)
    /// is, for every call, the batch a fresh check makes, and decides the same.
    #[test]
    fn a_kept_batch_is_the_batch_checked_afresh(
        who in caller(),
        snapshot in state(),
        request in tree(),
        links in prop::collection::vec(prop::option::of(relative(1..4)), 0..8),
    ) {
        let mut request = request;
        for (file, link) in request.files.iter_mut().zip(links) {
            file.real_path = link.map(|path| path.join("/"));
        }
        let kept = KeptBatch::new(std::sync::Arc::new(request.clone())).unwrap();
        let checked = request.check().unwrap();
        prop_assert_eq!(format!("{:?}", kept.batch()), format!("{checked:?}"));
        prop_assert_eq!(
            decide(&who, &snapshot, &kept.batch()),
            evaluate(&who, &snapshot, &request).unwrap()
        );
    }

    #[test]
    fn the_compiled_policy_equals_applying_the_rules_in_design_order(who in caller(), policy in policy(), path in relative(0..4)) {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        let compiled = CompiledPolicy::new(&policy).unwrap().for_caller(&who);
        prop_assert_eq!(compiled.capabilities(&path), reference(&policy, &who, &path));
        let joined = path.join("/");
        prop_assert_eq!(split_path(&joined, "path").unwrap(), path);
    }
}

/// A deterministic permutation of the packages and the files (file package indices are
/// remapped); returns the new batch and, per new position, the old one.
fn shuffle(request: &EvaluationRequest, seed: u64) -> (EvaluationRequest, Vec<usize>, Vec<usize>) {
    let permutation = |len: usize, salt: u64| -> Vec<usize> {
        let mut order: Vec<usize> = (0..len).collect();
        order.sort_by_key(|at| {
            (*at as u64 + 1)
                .wrapping_mul(seed | 1)
                .wrapping_add(salt)
                .rotate_left(17)
        });
        order
    };
    let package_from = permutation(request.packages.len(), 7);
    let file_from = permutation(request.files.len(), 13);
    let mut package_to = vec![0; package_from.len()];
    for (new, old) in package_from.iter().enumerate() {
        package_to[*old] = new;
    }
    let shuffled = EvaluationRequest {
        project: request.project.clone(),
        sources: request.sources.clone(),
        packages: package_from
            .iter()
            .map(|old| request.packages[*old].clone())
            .collect(),
        files: file_from
            .iter()
            .map(|old| FileCandidate {
                package: package_to[request.files[*old].package],
                ..request.files[*old].clone()
            })
            .collect(),
        data_sources: request.data_sources.clone(),
    };
    (shuffled, package_from, file_from)
}
