//! Grouping: index rows into packages (seed 000, "How files group into packages").
//! Each file binds to the deepest root enclosing it, is recognized by its path inside
//! that root, admitted by its frontmatter, and sanitized per the package's posture.
//! The input order never matters: rows are sorted (and de-duplicated) first.

use std::collections::HashSet;

use crate::admission::{Form, admit, skill_fallback};
use crate::binding::Binding;
use crate::bundle::bundle;
use crate::category::Category;
use crate::diagnostic::Severity;
use crate::layout::{
    Contribution, DetectedRoot, FileDiagnostic, GroupOptions, IndexedFile, Layout, Package,
    SourceForm, Unloaded,
};
use crate::naming::assign_keys;
use crate::recognize::{Context, Shape, recognize};
use crate::roots::{self, Root};
use crate::sanitize::{Posture, sanitize};
use crate::vocabulary::{NEVER_LOADED_FILES, is_contribution_shaped, split_parent};

/// Groups the index rows of one source (or one installed package directory) into
/// packages. Pure and deterministic.
pub fn group(files: &[IndexedFile], options: &GroupOptions) -> Layout {
    let mut diagnostics = Vec::new();
    let files = sorted_unique(files, &mut diagnostics);
    let skills = roots::skill_dirs(&files);
    let roots = roots::detect(&files, &skills, options);
    let mut members: Vec<Vec<&IndexedFile>> = vec![Vec::new(); roots.len()];
    let mut binding = Binding::new(&roots);
    for file in &files {
        members[binding.nearest(&file.path)].push(file);
        collect_diagnostics(file, &mut diagnostics);
    }
    let (installed, posture) = match options.form {
        SourceForm::Synced => (false, Posture::Source),
        SourceForm::Installed { trust } => (true, Posture::Installed(trust)),
    };
    let mut detected_roots: Vec<DetectedRoot> = roots
        .iter()
        .map(|r| DetectedRoot {
            root: r.dir.to_owned(),
            rule: r.rule,
        })
        .collect();
    detected_roots.sort();
    let mut layout = Layout {
        detected_roots,
        ..Layout::default()
    };
    for (root, files) in roots.iter().zip(&members) {
        let context = Context {
            root,
            installed,
            skills: &skills,
        };
        let contributions = package_files(&context, files, posture, &mut layout.unloaded);
        if !contributions.is_empty() {
            layout.packages.push(Package {
                name: root.name.clone(),
                key: String::new(),
                rule: root.rule,
                root: root.dir.to_owned(),
                files: contributions,
            });
        }
    }
    layout.packages.sort_by(|a, b| a.root.cmp(&b.root));
    assign_keys(&mut layout.packages);
    layout.unloaded.sort();
    diagnostics.sort();
    layout.diagnostics = diagnostics;
    layout
}

/// Recognizes, admits and sanitizes the files bound to one root.
fn package_files(
    context: &Context<'_, '_>,
    files: &[&IndexedFile],
    posture: Posture,
    unloaded: &mut Vec<Unloaded>,
) -> Vec<Contribution> {
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let mut contributions = Vec::new();
    for file in files {
        let path = file.path.as_str();
        if !may_contribute(path) {
            // Recognition would call it bundle content or other: skipped either way,
            // without its skill-folder lookup.
            continue;
        }
        let result = match recognize(path, context) {
            Shape::Skill { folder } => admit(path, skill_form(path, context.root), &file.payload)
                .map(|mut skill| {
                    if skill.category == Category::Skill {
                        let root_skill = folder == context.root.dir;
                        skill.bundle = bundle(folder, &paths, root_skill, context.skills);
                    }
                    skill
                }),
            Shape::Candidate {
                category,
                identity,
                exempt,
            } => admit(
                path,
                Form::Flat {
                    category,
                    identity,
                    exempt,
                },
                &file.payload,
            ),
            Shape::Unloaded(reason) => Err(reason),
            Shape::BundleContent | Shape::Other => continue,
        };
        match result {
            Ok(mut contribution) => {
                sanitize(&mut contribution, posture);
                contributions.push(contribution);
            }
            Err(reason) => unloaded.push(Unloaded {
                path: path.to_owned(),
                reason,
            }),
        }
    }
    contributions
}

/// Whether recognition can make anything of `path` but bundle content or an unrelated
/// file: contribution-shaped names (`SKILL.md` included) and the never-loaded files.
fn may_contribute(path: &str) -> bool {
    let base = split_parent(path).1;
    is_contribution_shaped(base) || NEVER_LOADED_FILES.contains(&base)
}

fn skill_form<'a>(path: &'a str, root: &'a Root<'_>) -> Form<'a> {
    Form::Skill {
        fallback_id: skill_fallback(path, &root.name),
    }
}

fn collect_diagnostics(file: &IndexedFile, diagnostics: &mut Vec<FileDiagnostic>) {
    if file.payload.diagnostics.is_empty() {
        // Most files have none; skip setting up the iterator per file.
        return;
    }
    diagnostics.extend(file.payload.diagnostics.iter().map(|d| FileDiagnostic {
        path: file.path.clone(),
        severity: d.severity,
        line: d.line,
        message: d.message.clone(),
    }));
}

/// Sorts rows by path and keeps one row per path. When a path repeats, the kept row is
/// chosen by content (the smallest serialized payload), so the choice does not
/// depend on input order.
pub(crate) fn sorted_unique<'a>(
    files: &'a [IndexedFile],
    diagnostics: &mut Vec<FileDiagnostic>,
) -> Vec<&'a IndexedFile> {
    let mut sorted: Vec<&IndexedFile> = files.iter().collect();
    // The inventory usually hands rows over sorted already. (Sorting (path, row) pairs
    // instead, stable or not, cost more instructions under callgrind: 24-byte moves.)
    if !sorted.is_sorted_by(|a, b| a.path <= b.path) {
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
    }
    let mut repeated: HashSet<&str> = HashSet::new();
    for pair in sorted.windows(2) {
        if pair[0].path == pair[1].path {
            repeated.insert(pair[0].path.as_str());
        }
    }
    if repeated.is_empty() {
        return sorted;
    }
    let canonical = |file: &IndexedFile| serde_json::to_string(&file.payload).unwrap_or_default();
    sorted.sort_by_cached_key(|file| {
        let key = repeated
            .contains(file.path.as_str())
            .then(|| canonical(file));
        (file.path.clone(), key)
    });
    sorted.dedup_by(|later, earlier| later.path == earlier.path);
    let mut repeated: Vec<&str> = repeated.into_iter().collect();
    repeated.sort_unstable();
    diagnostics.extend(repeated.into_iter().map(|path| FileDiagnostic {
        path: path.to_owned(),
        severity: Severity::Warning,
        line: None,
        message: "the same path was given more than once; one row was kept".to_owned(),
    }));
    sorted
}
