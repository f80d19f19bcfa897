//! `neuralis validate DIR [--json] [--trust first-party|trusted|untrusted]`: the same
//! validator the host runs at load, on an author's laptop. Human output reads like a
//! compiler's (`package.json#/neuralis/credentials/0/id: ...`); `--json` always prints
//! one valid JSON document on stdout, also when the package is rejected.

use neuralis_catalog::fs::read_one;
use neuralis_catalog::package::{Outcome, load};
use neuralis_catalog::{FileIssue, InstallClass, InstalledPackage, ReadLimits};
use neuralis_layout::Trust;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

use super::stdout::outln;

/// Arguments of `neuralis validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The package directory (the one holding package.json).
    dir: PathBuf,
    /// Print one JSON document instead of compiler-style lines.
    #[arg(long)]
    json: bool,
    /// The trust tier the host would assign (dependency builtins are first-party,
    /// administrator-added directories trusted, project packages untrusted).
    #[arg(long, default_value = "untrusted", value_parser = ["first-party", "trusted", "untrusted"])]
    trust: String,
}

/// What `--json` prints.
#[derive(Debug, Serialize)]
struct Report {
    dir: String,
    trust: String,
    /// `loads`, `rejected`, `reference-only` or `unreadable`.
    status: &'static str,
    package: Option<Summary>,
    errors: Vec<FileIssue>,
    warnings: Vec<FileIssue>,
}

/// The shape of a package that would load.
#[derive(Debug, Serialize)]
struct Summary {
    id: String,
    tools: Vec<String>,
    commands: Vec<String>,
    team: Vec<String>,
    workflows: Vec<String>,
    contributions: Vec<String>,
}

pub fn run(args: Args) -> ExitCode {
    let report = validate(&args);
    if args.json {
        // Plain strings, vectors and options always serialize.
        outln!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_else(|_| "{}".into())
        );
    } else {
        print_human(&report);
    }
    match report.status {
        "loads" | "reference-only" => ExitCode::SUCCESS,
        "unreadable" => ExitCode::from(2),
        _ => ExitCode::from(1),
    }
}

fn class_of(trust: &str) -> InstallClass {
    match trust.parse::<Trust>() {
        Ok(Trust::FirstParty) => InstallClass::Builtin,
        Ok(Trust::Trusted) => InstallClass::Trusted,
        _ => InstallClass::Project,
    }
}

fn validate(args: &Args) -> Report {
    let mut report = Report {
        dir: args.dir.display().to_string(),
        trust: args.trust.clone(),
        status: "rejected",
        package: None,
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    if !args.dir.is_dir() {
        report.status = "unreadable";
        report.errors.push(issue("", "", "is not a directory"));
        return report;
    }
    let candidate = match read_one(&args.dir, class_of(&args.trust), ReadLimits::default()) {
        Ok(candidate) => candidate,
        Err(error) => {
            report.status = "unreadable";
            report.errors.push(issue("", "", &error.to_string()));
            return report;
        }
    };
    match load(&candidate) {
        Outcome::Loaded(package) => {
            report.status = "loads";
            report.warnings = package.warnings.clone();
            report.package = Some(summary(&package));
        }
        Outcome::Rejected(rejection) => {
            (report.errors, report.warnings) = (rejection.errors, rejection.warnings)
        }
        Outcome::Skipped { reason, .. } if reason.starts_with("referenceOnly") => {
            report.status = "reference-only"
        }
        Outcome::Skipped { reason, .. } => {
            report
                .errors
                .push(issue("package.json", "/neuralis", &reason))
        }
    }
    // Manifests that name the package differently are worth a warning whatever loads.
    report.warnings.extend(
        super::agreement::of_dir(&args.dir)
            .iter()
            .map(|disagreement| issue("", "", &disagreement.message())),
    );
    report
}

fn issue(file: &str, pointer: &str, message: &str) -> FileIssue {
    FileIssue {
        file: file.into(),
        pointer: pointer.into(),
        message: message.into(),
    }
}

fn summary(package: &InstalledPackage) -> Summary {
    Summary {
        id: package.id.clone(),
        tools: package.tools.iter().map(|t| t.name.clone()).collect(),
        commands: package.commands.iter().map(|c| c.id.clone()).collect(),
        team: package.team.iter().map(|m| m.member.slug.clone()).collect(),
        workflows: package.workflows.iter().map(|w| w.id.clone()).collect(),
        contributions: package
            .contributions
            .files
            .iter()
            .map(|c| format!("{} {}", c.category, c.path))
            .collect(),
    }
}

fn print_human(report: &Report) {
    if report.status == "unreadable" {
        for e in &report.errors {
            eprintln!("error: {}", located(&report.dir, e));
        }
        return;
    }
    for e in &report.errors {
        outln!("error: {}", located(&report.dir, e));
    }
    for w in &report.warnings {
        outln!("warning: {}", located(&report.dir, w));
    }
    let counts = format!(
        "{} error(s), {} warning(s)",
        report.errors.len(),
        report.warnings.len()
    );
    match (report.status, &report.package) {
        ("loads", Some(p)) => outln!(
            "ok: {} loads as {} ({} tools, {} contributions; {counts})",
            p.id,
            report.trust,
            p.tools.len(),
            p.contributions.len()
        ),
        ("reference-only", _) => outln!("ok: {} is reference-only and never loads", report.dir),
        _ => outln!(
            "rejected: {} would not load as {} ({counts})",
            report.dir,
            report.trust
        ),
    }
}

/// `package.json#/neuralis/credentials/0/id: message`, or the directory for errors
/// about the directory itself.
fn located(dir: &str, issue: &FileIssue) -> String {
    if issue.file.is_empty() {
        return format!("{dir}: {}", issue.message);
    }
    format!("{}#{}: {}", issue.file, issue.pointer, issue.message)
}
