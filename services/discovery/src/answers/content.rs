//! The bytes of a file a caller's answer lists, read as they were decided.

use crate::base::error::DiscoveryError;
use crate::base::ports::{DecidedRow, IndexPort, InstalledCatalog};
use crate::grouping::content::ContentAt;
use crate::rows::inventory::ProjectSnapshot;

/// Where one call reads decided files from: sync's feed and the installed catalog, for
/// the rows of `snapshot` (the inventory the answer was grouped from).
pub(crate) struct Content<'a> {
    pub index: &'a dyn IndexPort,
    pub catalog: &'a dyn InstalledCatalog,
    pub project: &'a str,
    pub snapshot: &'a ProjectSnapshot,
}

impl Content<'_> {
    /// A source file is read only while it holds the bytes of its row in the snapshot,
    /// at the row's real path when it has one, no link followed. A file with no row
    /// there is NOT_FOUND without a read.
    pub(crate) async fn read(&self, at: &ContentAt) -> Result<Vec<u8>, DiscoveryError> {
        match at {
            ContentAt::Source {
                source_id, path, ..
            } => {
                let row = self
                    .snapshot
                    .sources
                    .get(source_id)
                    .and_then(|source| source.rows.get(path))
                    .ok_or(DiscoveryError::NotFound)?;
                let decided = DecidedRow {
                    fingerprint: row.fingerprint,
                    real_path: row.real_path.as_deref(),
                };
                if decided.fingerprint == 0 {
                    return Err(DiscoveryError::NotFound);
                }
                self.index
                    .read(self.project, source_id, path, &decided)
                    .await
            }
            ContentAt::Installed { package_id, path } => self.catalog.read(package_id, path),
        }
    }
}
