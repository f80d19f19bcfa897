//! The optimised evaluation equals the naive one (issue 13): a compiled policy files its
//! rules under the literal prefixes of their patterns and tries only those along a
//! path, and evaluation looks each package's switches up once; over random rule sets of
//! up to a hundred rules with deep literal prefixes, both must decide exactly as trying
//! every rule on every path, in the order DESIGN.md section 4 gives, and every gate per
//! file.

#![allow(clippy::unwrap_used)]

mod support;

use std::sync::Arc;

use neuralis_access::{
    AccessSnapshot, Caller, CallerPolicy, Capabilities, CompiledPolicy, DecisionCode,
    EvaluationRequest, FeatureSet, FileCandidate, FileOverrides, PathPattern, PathRule,
    SourceRecord, UriPolicy, evaluate, overrides, precedence,
};
use neuralis_layout::{Category, default_state};
use proptest::prelude::*;
use proptest::sample::select;
use support::{PROJECT, SOURCE, project_header, source_package};

/// Few names, so that random prefixes share nodes and random paths reach them.
const SEGMENTS: [&str; 4] = ["a", "b", "docs", "rules"];

fn segment() -> impl Strategy<Value = String> {
    select(SEGMENTS.to_vec()).prop_map(String::from)
}

/// Mostly literal segments (deep prefixes), some globs and `**`, anywhere in the pattern.
fn pattern() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        6 => segment(),
        1 => Just("*".to_owned()),
        1 => Just("d*s".to_owned()),
        1 => Just("**".to_owned()),
    ];
    prop::collection::vec(part, 1..6).prop_map(|parts| parts.join("/"))
}

fn rule() -> impl Strategy<Value = PathRule> {
    let roles = prop::option::of(select(vec!["member", "admin"]));
    let agents = prop::option::of(select(vec!["a1", "a2"]));
    let grant = (
        pattern(),
        any::<[Option<bool>; 3]>(),
        roles,
        agents,
        any::<bool>(),
    )
        .prop_map(
            |(pattern, [read, write, exec], role, agent, override_rule)| PathRule {
                read: read.or((write.is_none() && exec.is_none()).then_some(true)),
                write,
                exec,
                roles: role.into_iter().map(String::from).collect(),
                agents: agent.into_iter().map(String::from).collect(),
                override_rule,
                ..PathRule::new(pattern)
            },
        );
    let floor = (pattern(), any::<[bool; 3]>()).prop_map(|(pattern, [read, write, exec])| {
        let deny = |on: bool| on.then_some(false);
        PathRule {
            read: deny(read).or((!write && !exec).then_some(false)),
            write: deny(write),
            exec: deny(exec),
            floor: true,
            ..PathRule::new(pattern)
        }
    });
    prop_oneof![6 => grant, 1 => floor]
}

fn policy() -> impl Strategy<Value = UriPolicy> {
    (any::<[bool; 3]>(), prop::collection::vec(rule(), 0..100)).prop_map(
        |([read, write, exec], paths)| UriPolicy {
            hide_flagged_files: false,
            default: Capabilities { read, write, exec },
            paths,
        },
    )
}

fn caller() -> impl Strategy<Value = Caller> {
    (
        select(vec!["member", "admin"]),
        prop::option::of(select(vec!["a1", "a2"])),
    )
        .prop_map(|(role, agent)| Caller {
            role: role.into(),
            agent: agent.map(String::from),
            ..support::caller()
        })
}

fn path(depth: std::ops::Range<usize>) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(segment(), depth)
}

/// Every rule tried on every path: the rules that name the caller from least to most
/// specific (declaration order breaking ties, overrides last), then every floor.
fn naive(policy: &UriPolicy, who: &Caller, path: &[&str]) -> Capabilities {
    let pattern = |rule: &PathRule| PathPattern::parse(&rule.pattern, "pattern").unwrap();
    let names = |list: &[String], name: Option<&str>| {
        list.is_empty() || list.iter().any(|n| Some(n.as_str()) == name)
    };
    let mut order: Vec<(usize, &PathRule)> = policy
        .paths
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            !r.floor && names(&r.roles, Some(&who.role)) && names(&r.agents, who.agent.as_deref())
        })
        .collect();
    order.sort_by_key(|(at, r)| (r.override_rule, pattern(r).specificity(), *at));
    let mut caps = policy.default;
    for (_, r) in order.into_iter().filter(|(_, r)| pattern(r).matches(path)) {
        caps.read = r.read.unwrap_or(caps.read);
        caps.write = r.write.unwrap_or(caps.write);
        caps.exec = r.exec.unwrap_or(caps.exec);
    }
    for r in policy.paths.iter().filter(|r| r.floor) {
        if pattern(r).matches(path) {
            caps.read &= r.read != Some(false);
            caps.write &= r.write != Some(false);
            caps.exec &= r.exec != Some(false);
        }
    }
    caps
}

/// Packages under random roots, files under them, with random switches.
fn batch() -> impl Strategy<Value = EvaluationRequest> {
    let file = (
        path(1..4),
        select(vec![Category::Skill, Category::Rule, Category::Docs]),
        any::<bool>(),
    );
    let package = (path(0..3), prop::collection::vec(file, 0..8));
    prop::collection::vec(package, 1..6).prop_map(|packages| {
        let mut request = EvaluationRequest {
            project: PROJECT.into(),
            sources: vec![project_header()],
            ..Default::default()
        };
        for (at, (root, files)) in packages.into_iter().enumerate() {
            let root = root.join("/");
            for (tail, category, default_enabled) in files {
                let tail = tail.join("/");
                let path = if root.is_empty() {
                    tail
                } else {
                    format!("{root}/{tail}")
                };
                request.files.push(FileCandidate {
                    content_flagged: false,
                    downgraded_from: None,
                    package: at,
                    path,
                    category,
                    identity: false,
                    default_enabled,
                    required_features: Vec::new(),
                    private_owner: None,
                    real_path: None,
                });
            }
            request.packages.push(source_package(&root));
            request.packages[at].key = format!("pkg{at}");
        }
        request
    })
}

fn switches() -> impl Strategy<Value = Vec<(usize, Vec<String>, bool)>> {
    prop::collection::vec((0..6usize, path(1..4), any::<bool>()), 0..10)
}

fn overrides_of(switches: &[(usize, Vec<String>, bool)], root_of: &[String]) -> FileOverrides {
    switches
        .iter()
        .filter(|(at, _, _)| *at < root_of.len())
        .map(|(at, tail, on)| {
            let root = &root_of[*at];
            let tail = tail.join("/");
            let path = if root.is_empty() {
                tail
            } else {
                format!("{root}/{tail}")
            };
            (format!("pkg{at}"), path, *on)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn the_rules_filed_by_prefix_decide_as_trying_every_rule(
        who in caller(), policy in policy(), paths in prop::collection::vec(path(0..6), 1..16),
    ) {
        let compiled = CompiledPolicy::new(&policy).unwrap().for_caller(&who);
        for path in &paths {
            let path: Vec<&str> = path.iter().map(String::as_str).collect();
            prop_assert_eq!(compiled.capabilities(&path), naive(&policy, &who, &path), "{:?}", path);
            prop_assert_eq!(compiled.can_read(&path), naive(&policy, &who, &path).read);
        }
    }

    /// The compiled form depends on the policy alone: one compilation, narrowed to each
    /// of several callers in turn, decides for each as trying every rule for that
    /// caller (what lets one compilation serve every request while the text is unchanged).
    #[test]
    fn one_compilation_narrowed_to_each_caller_decides_as_trying_every_rule(
        callers in prop::collection::vec(caller(), 1..4), policy in policy(),
        paths in prop::collection::vec(path(0..6), 1..16),
    ) {
        let shared = Arc::new(CompiledPolicy::new(&policy).unwrap());
        for who in &callers {
            let narrowed = CallerPolicy::new(shared.clone(), who);
            for path in &paths {
                let path: Vec<&str> = path.iter().map(String::as_str).collect();
                prop_assert_eq!(narrowed.capabilities(&path), naive(&policy, who, &path), "{:?}", path);
            }
        }
    }

    #[test]
    fn the_evaluation_equals_every_gate_decided_per_file(
        who in caller(), policy in policy(), request in batch(),
        agent in switches(), conversation in switches(), package_off in prop::option::of(0..6usize),
    ) {
        let roots: Vec<String> = request.packages.iter().map(|p| p.root.clone()).collect();
        let mut state = AccessSnapshot::default();
        state.sources.insert(SOURCE.into(), SourceRecord { enabled: true, policy: Some(policy.clone()) });
        if let Some(off) = package_off {
            state.package_enabled.insert(format!("pkg{off}"), false);
        }
        state.agent_overrides = overrides_of(&agent, &roots);
        state.conversation_chain = vec![FileOverrides::default(), overrides_of(&conversation, &roots)];
        let evaluation = evaluate(&who, &state, &request).unwrap();

        let split = |p: &str| -> Vec<String> {
            if p.is_empty() { Vec::new() } else { p.split('/').map(String::from).collect() }
        };
        let readable = |p: &str| {
            let segments = split(p);
            let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
            naive(&policy, &who, &segments).read
        };
        let held = FeatureSet::for_caller(&who, Vec::new());
        for (at, package) in request.packages.iter().enumerate() {
            let enabled = state.package_enabled(&package.key);
            let root_visible = readable(&package.root);
            let files: Vec<usize> = (0..request.files.len()).filter(|f| request.files[*f].package == at).collect();
            let mut any_visible = false;
            for f in &files {
                let file = &request.files[*f];
                let expected = if !(root_visible && readable(&file.path) && held.holds_all(&file.required_features)) {
                    DecisionCode::Hidden
                } else {
                    let switches = precedence::Switches {
                        package_enabled: enabled,
                        agent: state.agent_overrides.get(&package.key, &file.path),
                        conversation: overrides::nearest(&state.conversation_chain, &package.key, &file.path),
                    };
                    let default = file.default_enabled && default_state(file.category, file.identity).0;
                    match (file.category, precedence::activation(default, switches)) {
                        (_, precedence::Activation::Disabled) => DecisionCode::VisibleDisabled,
                        (Category::Docs, _) => DecisionCode::VisibleManual,
                        (_, precedence::Activation::Active) => DecisionCode::VisibleActive,
                        (_, precedence::Activation::OptIn) => DecisionCode::VisibleOptIn,
                    }
                };
                any_visible |= expected.is_visible();
                prop_assert_eq!(evaluation.files[*f].code, expected, "{}", file.path);
            }
            let expected = match (root_visible && (files.is_empty() || any_visible), enabled) {
                (false, _) => DecisionCode::Hidden,
                (true, true) => DecisionCode::VisibleActive,
                (true, false) => DecisionCode::VisibleDisabled,
            };
            prop_assert_eq!(evaluation.packages[at].code, expected, "{}", package.root);
        }
    }
}
