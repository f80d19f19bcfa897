//! Stored package states follow the stable package keys (issue 10; access-store
//! migration 0004). Earlier releases keyed a package by its name, hashed only on a name
//! collision; which stored key belongs to which package now depends on the source's
//! packages, which discovery knows once the inventory is filled. So the first answer
//! that sees a source asks policy to move its legacy keys, once (policy records the
//! source and moves nothing on later calls); this process then remembers the source so
//! the request path pays a set lookup afterwards. A failed call is retried by the next
//! request and never fails this one: the answer is still decided, with the state as
//! stored.

use std::collections::HashSet;
use std::sync::Mutex;

use neuralis_layout::naming::legacy_key_moves;

use crate::base::ports::AccessPort;
use crate::rows::inventory::ProjectSnapshot;

/// The sources this process has seen re-keyed.
#[derive(Default)]
pub(crate) struct Rekeyed {
    done: Mutex<HashSet<String>>,
}

impl Rekeyed {
    fn is_done(&self, source_id: &str) -> bool {
        self.done
            .lock()
            .map(|done| done.contains(source_id))
            .unwrap_or(false)
    }

    fn mark(&self, source_id: &str) {
        if let Ok(mut done) = self.done.lock() {
            done.insert(source_id.to_owned());
        }
    }

    /// Asks policy to move the legacy keys of every indexed source of `snapshot` not
    /// yet re-keyed. A source with no rows is left for later: it has no packages yet to
    /// tell its legacy keys apart.
    pub(crate) async fn ensure(&self, access: &dyn AccessPort, snapshot: &ProjectSnapshot) {
        for (source_id, source) in &snapshot.sources {
            if source.rows.is_empty() || self.is_done(source_id) {
                continue;
            }
            let moves = legacy_key_moves(&source.layout.packages);
            match access.rekey_packages(source_id, &moves).await {
                Ok(_) => self.mark(source_id),
                Err(error) => {
                    tracing::warn!(%error, "moving legacy package keys failed; retried next request");
                }
            }
        }
    }
}
