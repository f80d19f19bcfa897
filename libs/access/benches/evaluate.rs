//! In-process decisions per second: one batch of 10,000 files in 100 packages, under a
//! source policy of 50 path rules and one of 500, against the same batch under a policy
//! with no rules (the baseline, measured in the same run). The 500 rules run twice:
//! compiled for every batch (`evaluate`), and as the policy service decides, reusing the
//! compiled form of the unchanged policy across batches (`evaluate_cached`), and, for
//! `ExplainAccess`, with a recorder that keeps every step (`..._recorder_on`).
//!
//! `cargo bench -p neuralis-access --bench evaluate`
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use neuralis_access::{
    AccessSnapshot, Caller, Capabilities, EvaluationRequest, FileCandidate, Origin,
    PackageCandidate, PathRule, PolicyCache, Scope, SourceHeader, SourceRecord, SourceScope, Trace,
    UriPolicy, decide_with, evaluate, evaluate_cached,
};
use neuralis_layout::Category;

const FILES: usize = 10_000;
const PACKAGES: usize = 100;

fn batch() -> EvaluationRequest {
    let packages = (0..PACKAGES)
        .map(|p| PackageCandidate {
            key: format!("repo:team{p}"),
            origin: Origin::Source("repo".into()),
            root: format!("team{}/pkg{p}", p % 10),
            access_feature: None,
            private_owner: None,
            found_in: None,
        })
        .collect::<Vec<_>>();
    let categories = [
        Category::Skill,
        Category::Rule,
        Category::Instruction,
        Category::Docs,
    ];
    let files = (0..FILES)
        .map(|f| {
            let package = f % PACKAGES;
            let category = categories[f % categories.len()];
            FileCandidate {
                content_flagged: false,
                downgraded_from: None,
                package,
                path: format!(
                    "{}/{}s/file{f}/SKILL.md",
                    packages[package].root,
                    category.as_str()
                ),
                category,
                identity: false,
                default_enabled: category != Category::Rule,
                required_features: if f % 7 == 0 {
                    vec!["f.deploy".into()]
                } else {
                    Vec::new()
                },
                private_owner: None,
                real_path: None,
            }
        })
        .collect();
    EvaluationRequest {
        project: "p1".into(),
        sources: vec![SourceHeader {
            id: "repo".into(),
            scope: SourceScope {
                scope: Scope::Project,
                owner: "p1".into(),
            },
        }],
        packages,
        files,
        data_sources: Vec::new(),
    }
}

/// 50 rules of every kind: literal, `*`, `**`, role- and agent-scoped, overrides, floors.
fn fifty_rules() -> Vec<PathRule> {
    (0..50)
        .map(|r| {
            let team = r % 10;
            match r % 5 {
                0 => PathRule {
                    read: Some(false),
                    ..PathRule::new(format!("team{team}/pkg{r}/rules/**"))
                },
                1 => PathRule {
                    read: Some(true),
                    roles: vec!["member".into()],
                    ..PathRule::new(format!("team{team}/*/skills/*/SKILL.md"))
                },
                2 => PathRule {
                    read: Some(false),
                    agents: vec!["a9".into()],
                    ..PathRule::new(format!("team{team}/**"))
                },
                3 => PathRule {
                    read: Some(true),
                    override_rule: true,
                    ..PathRule::new(format!("team{team}/pkg{r}/docs/**"))
                },
                _ => PathRule {
                    read: Some(false),
                    floor: true,
                    ..PathRule::new(format!("team{team}/pkg{r}/secret/**"))
                },
            }
        })
        .collect()
}

/// 500 rules (issue 13): each of the 100 packages carries one rule of each of the five
/// kinds of [`fifty_rules`], scoped to its own root (a policy written per package, as
/// a large project's is), and one rule in a hundred opens with `**`, so it must be tried
/// on every path.
fn five_hundred_rules() -> Vec<PathRule> {
    (0..500)
        .map(|r| {
            let (cycle, package) = (r / PACKAGES, r % PACKAGES);
            let root = format!("team{}/pkg{package}", package % 10);
            if package == PACKAGES - 1 {
                return PathRule {
                    read: Some(false),
                    ..PathRule::new(format!("**/private{cycle}/**"))
                };
            }
            match (package + cycle) % 5 {
                0 => PathRule {
                    read: Some(false),
                    ..PathRule::new(format!("{root}/rules/**"))
                },
                1 => PathRule {
                    read: Some(true),
                    roles: vec!["member".into()],
                    ..PathRule::new(format!("{root}/skills/*/SKILL.md"))
                },
                2 => PathRule {
                    read: Some(false),
                    agents: vec!["a9".into()],
                    ..PathRule::new(format!("{root}/**"))
                },
                3 => PathRule {
                    read: Some(true),
                    override_rule: true,
                    ..PathRule::new(format!("{root}/docs/**"))
                },
                _ => PathRule {
                    read: Some(false),
                    floor: true,
                    ..PathRule::new(format!("{root}/secret/**"))
                },
            }
        })
        .collect()
}

fn snapshot(paths: Vec<PathRule>) -> AccessSnapshot {
    let mut snapshot = AccessSnapshot::default();
    let policy = UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read: true,
            ..Capabilities::default()
        },
        paths,
    };
    snapshot.sources.insert(
        "repo".into(),
        SourceRecord {
            enabled: true,
            policy: Some(policy),
        },
    );
    snapshot.role_features.insert("f.deploy".into());
    snapshot
}

fn decisions_per_second(c: &mut Criterion) {
    let caller = Caller {
        subject: "ada".into(),
        role: "member".into(),
        agent: Some("a1".into()),
        ..Caller::default()
    };
    let request = batch();
    let mut group = c.benchmark_group("evaluate_10k_files");
    group.throughput(Throughput::Elements(FILES as u64));
    for (name, rules) in [
        ("baseline_no_rules", Vec::new()),
        ("fifty_path_rules", fifty_rules()),
        ("five_hundred_path_rules", five_hundred_rules()),
    ] {
        let state = snapshot(rules);
        group.bench_function(name, |b| {
            b.iter(|| evaluate(black_box(&caller), black_box(&state), black_box(&request)).unwrap())
        });
    }
    let state = snapshot(five_hundred_rules());
    let cache = PolicyCache::new();
    group.bench_function("five_hundred_path_rules_compiled_once", |b| {
        b.iter(|| {
            evaluate_cached(
                black_box(&caller),
                black_box(&state),
                black_box(&request),
                &cache,
            )
            .unwrap()
        })
    });
    // The same batch told to a recorder that keeps every step (what ExplainAccess does
    // for one file), against `..._compiled_once` whose recorder keeps nothing.
    let checked = request.check().unwrap();
    group.bench_function("five_hundred_path_rules_recorder_on", |b| {
        b.iter(|| {
            let mut trace = Trace::default();
            decide_with(
                black_box(&caller),
                black_box(&state),
                black_box(&checked),
                Some(&cache),
                &mut trace,
            );
            trace
        })
    });
    group.finish();
}

criterion_group!(benches, decisions_per_second);
criterion_main!(benches);
