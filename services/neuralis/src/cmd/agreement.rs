//! Reads the manifests of one package directory for the agreement rule
//! (`neuralis_layout::agreement`), shared by `validate` and `inspect`.

use std::path::Path;

use neuralis_layout::agreement::{Disagreement, MANIFEST_FILES, disagreements};
use neuralis_layout::manifest::MAX_MANIFEST_BYTES;
use serde_json::Value;

/// Where the manifests directly in `dir` disagree. A manifest that cannot be read or
/// parsed takes no part: its own diagnostics already say why.
pub fn of_dir(dir: &Path) -> Vec<Disagreement> {
    let documents: Vec<(&str, Value)> = MANIFEST_FILES
        .iter()
        .filter_map(|file| Some((*file, read(&dir.join(file))?)))
        .collect();
    let given: Vec<(&str, &Value)> = documents.iter().map(|(file, doc)| (*file, doc)).collect();
    disagreements(&given)
}

fn read(path: &Path) -> Option<Value> {
    let metadata = std::fs::symlink_metadata(path).ok()?;
    // Inspect never leaves the tree through a link; neither does this.
    if !metadata.is_file() || metadata.len() > MAX_MANIFEST_BYTES as u64 {
        return None;
    }
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}
