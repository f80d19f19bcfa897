//! A source's exclude globs: files a sync leaves out of the index (seed 002,
//! "machineWritten": a new project's data source "leaves the metrics files out of its
//! index from the start").
//!
//! A glob is relative to the source root, `/`-separated; `**` as a whole segment matches
//! any number of segments (none included), and `*` inside a segment matches any run of
//! characters of that one segment. The charset is the one `machineWritten` allows
//! (letters, digits, `.`, `_`, `-`, `*`), so a glob can never name something outside the
//! root or carry a surprise.

/// Checked exclude globs, split into segments once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExcludeGlobs {
    globs: Vec<Vec<String>>,
}

impl ExcludeGlobs {
    /// Checks every glob; the first problem is returned as a sentence.
    pub fn new(globs: &[String]) -> Result<Self, &'static str> {
        let globs = globs
            .iter()
            .map(|glob| check(glob).map(|()| glob.split('/').map(str::to_owned).collect()))
            .collect::<Result<_, _>>()?;
        Ok(ExcludeGlobs { globs })
    }

    /// Whether no glob is set.
    pub fn is_empty(&self) -> bool {
        self.globs.is_empty()
    }

    /// Whether a path (relative to the root) is excluded.
    pub fn excludes(&self, path: &str) -> bool {
        if self.globs.is_empty() {
            return false;
        }
        let segments: Vec<&str> = path.split('/').collect();
        self.globs.iter().any(|glob| matches(glob, &segments))
    }
}

fn check(glob: &str) -> Result<(), &'static str> {
    if glob.is_empty() || glob.starts_with('/') {
        return Err("must be a relative glob");
    }
    if glob
        .split('/')
        .any(|segment| segment.is_empty() || segment == ".." || segment == ".")
    {
        return Err("must not hold an empty, . or .. segment");
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-*/".contains(c);
    if !glob.chars().all(allowed) {
        return Err("may hold only letters, digits, '.', '_', '-', '*' and '/'");
    }
    Ok(())
}

fn matches(glob: &[String], path: &[&str]) -> bool {
    match glob.split_first() {
        None => path.is_empty(),
        Some((first, rest)) if first == "**" => {
            (0..=path.len()).any(|skip| matches(rest, &path[skip..]))
        }
        Some((first, rest)) => path
            .split_first()
            .is_some_and(|(segment, tail)| segment_matches(first, segment) && matches(rest, tail)),
    }
}

/// `*` matches any run of characters within one segment.
fn segment_matches(pattern: &str, segment: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(head) = parts.next() else {
        return pattern == segment;
    };
    let Some(mut rest) = segment.strip_prefix(head) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globs(items: &[&str]) -> ExcludeGlobs {
        let owned: Vec<String> = items.iter().map(|g| (*g).to_owned()).collect();
        ExcludeGlobs::new(&owned).unwrap_or_default()
    }

    #[test]
    fn star_is_one_segment_and_double_star_any_depth() {
        let g = globs(&[
            "acme/*/usage/events.jsonl",
            "_installed/n/audit/**",
            "x/*.log",
        ]);
        assert!(g.excludes("acme/a1/usage/events.jsonl"));
        assert!(!g.excludes("acme/a1/b/usage/events.jsonl"));
        assert!(!g.excludes("other/a1/usage/events.jsonl"));
        assert!(g.excludes("_installed/n/audit/2026/01.log"));
        assert!(g.excludes("x/run.log"));
        assert!(!g.excludes("x/run.txt"));
    }

    #[test]
    fn a_glob_that_could_leave_the_root_is_refused() {
        for bad in ["/abs/**", "a/../b", "a//b", "a/{b}", "a b"] {
            assert!(ExcludeGlobs::new(&[bad.to_owned()]).is_err(), "{bad}");
        }
    }
}
