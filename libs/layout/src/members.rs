//! The rows bound to each root, in path order, as ranges of the sorted rows.
//!
//! Why ranges: the rows of one folder bind to one root, and consecutive folders mostly
//! bind to the same root, so a root's rows are a few ranges of the sorted rows (a
//! nested root, such as a package's `.claude/`, splits its parent's rows in two).
//! Placing the rows themselves root by root copied every 32-byte row once more and
//! grew the copy from nothing (`flatten` knows no length): 11 MB written per grouping
//! of the 100,000-path bench for what is a few thousand ranges.

use std::ops::Range;

use crate::binding::Binding;
use crate::roots::Root;
use crate::rows::Row;

/// The rows bound to each root: ranges of the sorted rows, root by root.
pub(crate) struct Members<'f, 'a> {
    files: &'f [Row<'a>],
    /// Ranges of `files`, grouped by root in root order, each root's in path order.
    ranges: Vec<Range<usize>>,
    /// Where each root's ranges end in `ranges`.
    ends: Vec<usize>,
}

/// The rows bound to one root, in path order.
#[derive(Clone, Copy)]
pub(crate) struct RootRows<'m, 'a> {
    files: &'m [Row<'a>],
    ranges: &'m [Range<usize>],
}

impl<'m, 'a> RootRows<'m, 'a> {
    pub(crate) fn iter(self) -> impl Iterator<Item = &'m Row<'a>> {
        self.ranges
            .iter()
            .flat_map(move |range| &self.files[range.clone()])
    }
}

impl<'f, 'a> Members<'f, 'a> {
    /// The rows of each root, in root order.
    pub(crate) fn per_root(&self) -> impl Iterator<Item = RootRows<'_, 'a>> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| RootRows {
            files: self.files,
            ranges: &self.ranges[start..end],
        })
    }
}

/// Binds each run of rows in one folder to the deepest root enclosing that folder
/// (one merge step per run, not per row), joins consecutive runs of one root into one
/// range, and places the ranges root by root (counting placement, stable).
pub(crate) fn bind<'f, 'a>(
    files: &'f [Row<'a>],
    runs: &[usize],
    roots: &[Root<'_>],
) -> Members<'f, 'a> {
    let mut binding = Binding::new(roots);
    let mut bound: Vec<(usize, Range<usize>)> = Vec::new();
    let run_ends = runs
        .iter()
        .skip(1)
        .copied()
        .chain(std::iter::once(files.len()));
    for (&start, end) in runs.iter().zip(run_ends) {
        let root = binding.nearest(files[start].path);
        match bound.last_mut() {
            Some((last, range)) if *last == root => range.end = end,
            _ => bound.push((root, start..end)),
        }
    }
    let mut counts = vec![0usize; roots.len()];
    for (root, _) in &bound {
        counts[*root] += 1;
    }
    let mut next: Vec<usize> = counts
        .iter()
        .scan(0, |total, count| {
            let start = *total;
            *total += count;
            Some(start)
        })
        .collect();
    let ends: Vec<usize> = next.iter().zip(&counts).map(|(s, c)| s + c).collect();
    let mut ranges = vec![0..0; bound.len()];
    for (root, range) in bound {
        ranges[next[root]] = range;
        next[root] += 1;
    }
    Members {
        files,
        ranges,
        ends,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::layout::{IndexedFile, RootRule};
    use crate::roots::{nearest_root, scan};
    use crate::rows::{PathText, sorted_unique};

    /// Each root lists exactly the rows whose deepest enclosing root it is (the plain
    /// ancestor lookup), in path order, when a nested root splits its parent's rows.
    #[test]
    fn each_root_lists_the_rows_it_binds_in_path_order() {
        let paths = [
            "p/.claude/rules/x.md",
            "p/README.md",
            "p/package.json",
            "p/.claude/settings.json",
            "p/src/a.rs",
            "q/b.md",
            "top.md",
            "p/a-b/c.md",
            "p/a/b.md",
        ];
        for dirs in [vec!["", "p", "p/.claude"], vec!["", "p/a", "q"], vec![""]] {
            let files: Vec<IndexedFile> =
                paths.iter().map(|p| IndexedFile::path_only(*p)).collect();
            let (mut text, mut diagnostics) = (PathText::default(), Vec::new());
            let rows = sorted_unique(&files, &mut text, &mut diagnostics);
            let roots: Vec<Root<'_>> = dirs
                .iter()
                .map(|dir| Root {
                    dir,
                    rule: RootRule::Marker,
                    name: String::new(),
                })
                .collect();
            let members = bind(&rows, &scan(&rows).runs, &roots);
            let listed: Vec<Vec<&str>> = members
                .per_root()
                .map(|rows| rows.iter().map(|row| row.path).collect())
                .collect();
            let by_dir: HashMap<&str, usize> =
                dirs.iter().enumerate().map(|(i, d)| (*d, i)).collect();
            let mut expected = vec![Vec::new(); roots.len()];
            for row in &rows {
                expected[nearest_root(row.path, &by_dir)].push(row.path);
            }
            assert_eq!(listed, expected, "roots {dirs:?}");
        }
    }
}
