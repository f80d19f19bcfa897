//! File-based entries override inline entries (seed 001): "discovered file-based
//! entries win by id (by name for tools, by slug for team members), and inline
//! entries without a matching file pass through unchanged."

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
