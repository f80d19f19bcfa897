//! A batch checked once and kept with its request (issue 31, warm answers): discovery
//! sends the very same batch for every call on a prepared answer, and checking and
//! splitting it again each time was a twentieth of a warm call. What the check proved
//! is kept as positions in the request's own strings, so each call has the
//! [`CheckedBatch`] again by slicing, without checking or splitting anything.
//!
//! The request is shared and never changed after the check, so the positions stay
//! valid: that is why [`KeptBatch`] owns it behind an `Arc` and hands out no `&mut`.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use crate::candidate::FilePaths;
use crate::{AccessError, CheckedBatch, EvaluationRequest};

/// A checked batch, kept.
#[derive(Debug, PartialEq)]
pub struct KeptBatch {
    request: Arc<EvaluationRequest>,
    /// Per package, its root's segments as byte ranges of its `root`.
    roots: Vec<Vec<Range<usize>>>,
    /// Every file's path segments, then its real path's, as byte ranges of the string
    /// each lies in, in the order the check wrote them.
    segments: Vec<Range<usize>>,
    files: Vec<FilePaths>,
}

impl KeptBatch {
    /// Checks `request` (as [`EvaluationRequest::check`]) and keeps what it proved.
    pub fn new(request: Arc<EvaluationRequest>) -> Result<Self, AccessError> {
        let checked = request.check()?;
        let roots = request
            .packages
            .iter()
            .zip(&checked.roots)
            .map(|(package, root)| root.iter().map(|s| within(&package.root, s)).collect())
            .collect();
        let mut segments = Vec::with_capacity(checked.segments.len());
        for (file, paths) in request.files.iter().zip(checked.files.iter()) {
            let path = &checked.segments[paths.path.clone()];
            segments.extend(path.iter().map(|s| within(&file.path, s)));
            if let (Some(real), Some(at)) = (&file.real_path, &paths.real) {
                segments.extend(checked.segments[at.clone()].iter().map(|s| within(real, s)));
            }
        }
        let files = checked.files.into_owned();
        Ok(KeptBatch {
            request,
            roots,
            segments,
            files,
        })
    }

    /// The heap it holds besides the shared request (an estimate: its positions).
    pub fn bytes(&self) -> usize {
        let roots: usize = self.roots.iter().map(|r| size_of_val(r.as_slice())).sum();
        size_of_val(self.roots.as_slice())
            + roots
            + size_of_val(self.segments.as_slice())
            + size_of_val(self.files.as_slice())
    }

    /// The batch that was checked.
    pub fn request(&self) -> &EvaluationRequest {
        &self.request
    }

    /// The checked batch again, as [`EvaluationRequest::check`] made it.
    pub fn batch(&self) -> CheckedBatch<'_> {
        let request = &*self.request;
        let roots = request
            .packages
            .iter()
            .zip(&self.roots)
            .map(|(package, root)| root.iter().map(|r| &package.root[r.clone()]).collect())
            .collect();
        let mut segments = Vec::with_capacity(self.segments.len());
        for (file, paths) in request.files.iter().zip(&self.files) {
            let path = &self.segments[paths.path.clone()];
            segments.extend(path.iter().map(|r| &file.path[r.clone()]));
            if let (Some(real), Some(at)) = (&file.real_path, &paths.real) {
                segments.extend(self.segments[at.clone()].iter().map(|r| &real[r.clone()]));
            }
        }
        CheckedBatch {
            request,
            roots,
            segments,
            files: Cow::Borrowed(&self.files),
        }
    }
}

/// Where `part` (a slice of `whole`, as the check's segments are) lies in `whole`.
fn within(whole: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr() as usize - whole.as_ptr() as usize;
    start..start + part.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FileCandidate, Origin, PackageCandidate, Scope, SourceHeader, SourceScope};
    use neuralis_layout::Category;

    /// It answers with the request it checked, and weighs the positions it keeps,
    /// each counted once: one root of two segments, one file of three, its real path
    /// of two.
    #[test]
    fn a_kept_batch_weighs_its_positions() {
        let request = EvaluationRequest {
            project: "p".into(),
            sources: vec![SourceHeader {
                id: "s".into(),
                scope: SourceScope {
                    scope: Scope::Project,
                    owner: "p".into(),
                },
            }],
            packages: vec![PackageCandidate {
                key: "k".into(),
                origin: Origin::Source("s".into()),
                root: "a/b".into(),
                access_feature: None,
                private_owner: None,
                found_in: None,
            }],
            files: vec![FileCandidate {
                content_flagged: false,
                downgraded_from: None,
                package: 0,
                path: "a/b/c.md".into(),
                category: Category::Rule,
                identity: false,
                default_enabled: true,
                required_features: Vec::new(),
                private_owner: None,
                real_path: Some("x/y.md".into()),
            }],
            data_sources: Vec::new(),
        };
        let kept = KeptBatch::new(Arc::new(request.clone())).expect("a valid batch");
        assert_eq!(kept.request(), &request);
        let range = size_of::<Range<usize>>();
        let expected =
            size_of::<Vec<Range<usize>>>() + 2 * range + 5 * range + size_of::<FilePaths>();
        assert_eq!(kept.bytes(), expected);
    }
}
