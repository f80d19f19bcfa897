//! File-based entries override inline entries (seed 001): "discovered file-based
//! entries win by id (by name for tools, by slug for team members), and inline
//! entries without a matching file pass through unchanged."

use neuralis_layout::{Category, Contribution, Package, Posture, Trust, default_state, sanitize};
use neuralis_manifest::definitions::InlineFile;

/// Merges inline entries under file entries by `key`; the result is ordered by key.
pub fn merge<T>(inline: Vec<T>, files: Vec<T>, key: impl Fn(&T) -> &str) -> Vec<T> {
    let mut merged: Vec<T> = Vec::with_capacity(inline.len() + files.len());
    let kept: Vec<T> = inline
        .into_iter()
        .filter(|i| !files.iter().any(|f| key(f) == key(i)))
        .collect();
    merged.extend(files);
    merged.extend(kept);
    merged.sort_by(|a, b| key(a).cmp(key(b)));
    merged
}

/// Inline `files` entries under the discovered markdown contributions: a file-based
/// contribution wins by id (or by being the very file), and every other inline entry
/// passes through unchanged — its declared category, title and description — then
/// takes the package's trust tier like any contribution (a rule below first-party is
/// docs).
pub fn merge_inline_files(package: &mut Package, inline: &[InlineFile], trust: Trust) {
    for file in inline {
        let overridden = package
            .files
            .iter()
            .any(|c| c.id == file.id || c.path == file.path);
        if !overridden {
            package.files.push(inline_contribution(file, trust));
        }
    }
    package.files.sort_by(|a, b| a.path.cmp(&b.path));
}

fn inline_contribution(file: &InlineFile, trust: Trust) -> Contribution {
    let (default_enabled, invocation) = default_state(file.category, false);
    // A skill's bundle is its directory; an inline skill names one file of it.
    let bundle = match file.category {
        Category::Skill => vec![
            file.path
                .rsplit('/')
                .next()
                .unwrap_or(&file.path)
                .to_owned(),
        ],
        _ => Vec::new(),
    };
    let mut contribution = Contribution {
        path: file.path.clone(),
        category: file.category,
        id: file.id.clone(),
        title: file.title.clone().unwrap_or_else(|| file.id.clone()),
        description: file.description.clone(),
        identity: false,
        default_enabled,
        invocation,
        required_features: Vec::new(),
        credentials: None,
        allowed_tools: Vec::new(),
        metadata: None,
        bundle,
        overwrite: false,
        activation_target: None,
        downgraded_from: None,
    };
    sanitize(&mut contribution, Posture::Installed(trust));
    contribution
}

#[cfg(test)]
mod tests {
    use super::merge;

    #[test]
    fn file_entries_win_by_key_and_inline_entries_without_a_file_pass_through() {
        let inline = vec![("deploy", "inline"), ("status", "inline")];
        let files = vec![("deploy", "file"), ("report", "file")];
        let merged = merge(inline, files, |(k, _)| k);
        assert_eq!(
            merged,
            vec![("deploy", "file"), ("report", "file"), ("status", "inline")]
        );
        assert_eq!(
            merge(vec![("a", "inline")], vec![], |(k, _)| k),
            vec![("a", "inline")]
        );
    }
}
