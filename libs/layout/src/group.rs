//! Grouping: index rows into packages (seed 000, "How files group into packages").
//! Each file binds to the deepest root enclosing it, is recognized by its path inside
//! that root, admitted by its frontmatter, and sanitized per the package's posture.
//! The input order never matters: rows are sorted (and de-duplicated) first.

use crate::admission::{Form, admit, read_ahead, skill_fallback};
use crate::bundle::bundle_with;
use crate::category::Category;
use crate::layout::{
    Contribution, DetectedRoot, FileDiagnostic, GroupOptions, IndexedFile, Layout, Package,
    SourceForm, Unloaded, UnloadedReason,
};
use crate::members::{Members, bind};
use crate::naming::assign_keys;
use crate::path_set::PathSet;
use crate::recognize::{Context, Shape, recognize};
use crate::roots::{self, Root};
use crate::rows::{PathText, sorted_unique};
use crate::sanitize::{Posture, sanitize};

/// Groups the index rows of one source (or one installed package directory) into
/// packages. Pure and deterministic. Each real file loads at most once, whatever links
/// reach it ([`crate::aliases`]).
pub fn group(files: &[IndexedFile], options: &GroupOptions) -> Layout {
    if files.iter().any(|file| file.alias_of().is_some()) {
        crate::aliases::group_once_per_real_file(files, options, group_rows)
    } else {
        group_rows(files, options)
    }
}

/// Groups the rows as given, aliases as plain rows.
pub(crate) fn group_rows(files: &[IndexedFile], options: &GroupOptions) -> Layout {
    let mut diagnostics = Vec::new();
    let mut text = PathText::default();
    let files = sorted_unique(files, &mut text, &mut diagnostics);
    let folders = roots::scan(&files);
    let roots = roots::detect(&folders, options);
    let members = bind(&files, &folders.runs, &roots);
    for row in files.iter().filter(|row| row.has_diagnostics()) {
        collect_diagnostics(row.file, &mut diagnostics);
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
    let recognized = recognized(&roots, &members, installed, &folders.skills);
    let mut answers = admit_in_memory_order(&recognized, &roots);
    let mut recognized = recognized.iter().peekable();
    for (index, (root, rows)) in roots.iter().zip(members.per_root()).enumerate() {
        // The root's paths, listed once and only for a root with a skill to bundle.
        let mut paths: Option<Vec<&str>> = None;
        let upcoming = recognized.clone().take_while(|file| file.root == index);
        // Sized once: grown from nothing, a package's 264-byte contributions were copied
        // at every doubling.
        let mut contributions = Vec::with_capacity(
            answers.admitted_among(upcoming.filter(|file| file.needs_admission()).count()),
        );
        while let Some(file) = recognized.next_if(|file| file.root == index) {
            let admitted = match file.shape {
                Shape::Unloaded(reason) => Err(reason),
                // One answer per skill or candidate, in path order.
                _ => match answers.next() {
                    Some(answer) => answer,
                    None => continue,
                },
            };
            match admitted {
                Ok(mut contribution) => {
                    if let Shape::Skill { folder } = file.shape
                        && contribution.category == Category::Skill
                    {
                        let root_skill = folder == root.dir;
                        let paths =
                            paths.get_or_insert_with(|| rows.iter().map(|row| row.path).collect());
                        contribution.bundle =
                            bundle_with(folder, paths, root_skill, &folders.skills);
                    }
                    sanitize(&mut contribution, posture);
                    contributions.push(contribution);
                }
                Err(reason) => layout.unloaded.push(Unloaded {
                    path: file.path.to_owned(),
                    reason,
                }),
            }
        }
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

/// A file recognition makes something of: a skill, a candidate, or unloaded.
struct Recognized<'a> {
    /// The index of the root the file binds to.
    root: usize,
    path: &'a str,
    file: &'a IndexedFile,
    shape: Shape<'a>,
}

impl Recognized<'_> {
    fn needs_admission(&self) -> bool {
        matches!(self.shape, Shape::Skill { .. } | Shape::Candidate { .. })
    }
}

/// Recognizes the files of every root, root by root in path order, skipping those that
/// can only be bundle content or unrelated.
fn recognized<'a>(
    roots: &[Root<'a>],
    members: &Members<'_, 'a>,
    installed: bool,
    skills: &PathSet<'a>,
) -> Vec<Recognized<'a>> {
    let mut recognized = Vec::new();
    for (index, (root, rows)) in roots.iter().zip(members.per_root()).enumerate() {
        let context = Context {
            root,
            installed,
            skills,
        };
        for row in rows.iter().filter(|row| row.may_contribute()) {
            let shape = recognize(row.path, &context);
            if matches!(shape, Shape::BundleContent | Shape::Other) {
                continue;
            }
            recognized.push(Recognized {
                root: index,
                path: row.path,
                file: row.file,
                shape,
            });
        }
    }
    recognized
}

/// How many payloads are read ahead together before they are admitted one by one.
const READ_AHEAD: usize = 16;

/// Admits the skills and candidates by their payloads, visiting the rows in the order
/// they lie in memory (the input's order), not in path order: the payloads are the
/// bulk of a row, and in path order every one of them missed the cache when the input
/// was not sorted (`perf record` of the `group` bench). The answers are handed out in
/// the order of `recognized` (one per skill or candidate); only the visits move.
///
/// Even in memory order the admitted payloads are far apart (a quarter of the rows),
/// so each one still missed the cache, one miss after another while it was admitted.
/// The payloads of a batch are read ahead together ([`read_ahead`]): those reads do
/// not depend on each other, so their misses overlap.
fn admit_in_memory_order(recognized: &[Recognized<'_>], roots: &[Root<'_>]) -> Answers {
    let mut order: Vec<(usize, usize)> = recognized
        .iter()
        .filter(|file| file.needs_admission())
        .enumerate()
        .map(|(answer, file)| (std::ptr::from_ref(file.file).addr(), answer))
        .collect();
    order.sort_unstable();
    let mut visits: Vec<usize> = vec![0; order.len()];
    for (visit, &(_, answer)) in order.iter().enumerate() {
        visits[answer] = visit;
    }
    let files: Vec<&Recognized<'_>> = recognized.iter().filter(|f| f.needs_admission()).collect();
    let mut answers = Vec::with_capacity(order.len());
    for batch in order.chunks(READ_AHEAD) {
        read_ahead(batch.iter().map(|&(_, answer)| &files[answer].file.payload));
        answers.extend(batch.iter().map(|&(_, answer)| {
            let file = files[answer];
            let (path, payload) = (file.path, &file.file.payload);
            Some(match file.shape {
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
                    payload,
                ),
                _ => admit(path, skill_form(path, &roots[file.root]), payload),
            })
        }));
    }
    Answers {
        answers,
        visits,
        next: 0,
    }
}

/// Admission's answers in visit order, handed out in path order.
struct Answers {
    answers: Vec<Option<Result<Contribution, UnloadedReason>>>,
    /// For the i-th skill or candidate in path order, the visit that answered it.
    visits: Vec<usize>,
    /// The next skill or candidate in path order.
    next: usize,
}

impl Answers {
    /// How many of the next `count` skills and candidates in path order were admitted.
    fn admitted_among(&self, count: usize) -> usize {
        let upcoming = self.visits.iter().skip(self.next).take(count);
        upcoming
            .filter(|&&visit| matches!(self.answers.get(visit), Some(Some(Ok(_)))))
            .count()
    }

    /// The answer for the next skill or candidate in path order.
    fn next(&mut self) -> Option<Result<Contribution, UnloadedReason>> {
        let visit = *self.visits.get(self.next)?;
        self.next += 1;
        self.answers.get_mut(visit)?.take()
    }
}

fn skill_form<'a>(path: &'a str, root: &'a Root<'_>) -> Form<'a> {
    Form::Skill {
        fallback_id: skill_fallback(path, &root.name),
    }
}

fn collect_diagnostics(file: &IndexedFile, diagnostics: &mut Vec<FileDiagnostic>) {
    diagnostics.extend(file.payload.diagnostics.iter().map(|d| FileDiagnostic {
        path: file.path.clone(),
        severity: d.severity,
        line: d.line,
        message: d.message.clone(),
    }));
}
