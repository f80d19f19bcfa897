//! Builders shared by the access tests: one source, one caller, small batches.
#![allow(dead_code)]

use neuralis_access::{
    AccessSnapshot, Caller, Capabilities, EvaluationRequest, FileCandidate, Origin,
    PackageCandidate, PathRule, Scope, SourceHeader, SourceRecord, SourceScope, UriPolicy,
};
use neuralis_layout::Category;

pub const PROJECT: &str = "p1";
pub const SOURCE: &str = "repo";

/// A member of project p1 acting as agent a1.
pub fn caller() -> Caller {
    Caller {
        subject: "ada".into(),
        role: "member".into(),
        agent: Some("a1".into()),
        project: Some(PROJECT.into()),
        ..Caller::default()
    }
}

pub fn read_all() -> UriPolicy {
    UriPolicy {
        hide_flagged_files: false,
        default: Capabilities {
            read: true,
            write: false,
            exec: false,
        },
        paths: Vec::new(),
    }
}

pub fn rule(pattern: &str, read: bool) -> PathRule {
    PathRule {
        read: Some(read),
        ..PathRule::new(pattern)
    }
}

pub fn floor(pattern: &str) -> PathRule {
    PathRule {
        read: Some(false),
        floor: true,
        ..PathRule::new(pattern)
    }
}

/// A snapshot with one enabled source carrying `policy`.
pub fn snapshot(policy: UriPolicy) -> AccessSnapshot {
    let mut snapshot = AccessSnapshot::default();
    snapshot.sources.insert(
        SOURCE.into(),
        SourceRecord {
            enabled: true,
            policy: Some(policy),
        },
    );
    snapshot
}

pub fn project_header() -> SourceHeader {
    SourceHeader {
        id: SOURCE.into(),
        scope: SourceScope {
            scope: Scope::Project,
            owner: PROJECT.into(),
        },
    }
}

pub fn source_package(root: &str) -> PackageCandidate {
    PackageCandidate {
        key: format!("{SOURCE}:{root}"),
        origin: Origin::Source(SOURCE.into()),
        root: root.into(),
        access_feature: None,
        private_owner: None,
        found_in: None,
    }
}

pub fn file(package: usize, path: &str, category: Category) -> FileCandidate {
    let identity = path.ends_with("AGENTS.md") || path.ends_with("CLAUDE.md");
    FileCandidate {
        content_flagged: false,
        downgraded_from: None,
        package,
        path: path.into(),
        category,
        identity,
        default_enabled: neuralis_layout::default_state(category, identity).0,
        required_features: Vec::new(),
        private_owner: None,
        real_path: None,
    }
}

/// One source package at `root` with the given files, in project p1.
pub fn batch(root: &str, files: &[(&str, Category)]) -> EvaluationRequest {
    EvaluationRequest {
        project: PROJECT.into(),
        sources: vec![project_header()],
        packages: vec![source_package(root)],
        files: files
            .iter()
            .map(|(path, category)| file(0, path, *category))
            .collect(),
        data_sources: Vec::new(),
    }
}
