//! What sync's feed sends, as discovery holds it: sources as policy keys them, and
//! rows decoded from their entries, keyed by source id once the sources are listed.

use std::collections::HashMap;
use std::path::PathBuf;

use neuralis_access::{Scope, SourceScope};
use neuralis_layout::FilePayload;
use neuralis_proto::common::v1 as common;
use neuralis_proto::sync::internal::v1 as feed;
use neuralis_proto::sync::v1 as pb;

use crate::base::ports::{IndexRow, RowSink, SourceInfo};

/// A row decoded from its entry, its source still named by slug (`row.source_id` is
/// empty until [`keyed`]).
pub(super) struct Decoded {
    pub(super) slug: String,
    pub(super) row: IndexRow,
}

pub(super) fn source_info(source: pb::Source) -> Option<SourceInfo> {
    // A source without its id cannot be keyed in policy: it contributes nothing.
    let id = Some(source.id).filter(|id| !id.is_empty())?;
    let spec = source.spec?;
    let scope = match common::SourceScope::try_from(spec.scope).ok()? {
        common::SourceScope::Project => Scope::Project,
        common::SourceScope::User => Scope::User,
        common::SourceScope::Agent => Scope::Agent,
        common::SourceScope::Unspecified => return None,
    };
    let owner = if spec.owner.is_empty() && scope == Scope::Project {
        spec.project.clone()
    } else {
        spec.owner
    };
    let machine = pb::SourceKind::try_from(spec.kind).ok() == Some(pb::SourceKind::Machine);
    let (root_uri, local_root) = if machine && !spec.machine_uri.is_empty() {
        (spec.machine_uri.clone(), None)
    } else {
        (
            format!("file://{}", spec.root),
            Some(PathBuf::from(&spec.root)),
        )
    };
    Some(SourceInfo {
        id,
        slug: spec.slug,
        scope: SourceScope { scope, owner },
        root_uri,
        local_root,
        privacy_patterns: spec.privacy_patterns,
        data_tree: pb::SourceKind::try_from(spec.kind).ok() == Some(pb::SourceKind::Data),
        recognizes_packages: spec.recognizes_packages,
    })
}

/// The stored text of a plain file's payload (the layout core's default, as the sync
/// encodes it): most rows carry exactly it, and a row whose text is it decodes to the
/// default without a parse.
pub(super) static PLAIN_PAYLOAD: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    serde_json::to_value(FilePayload::default())
        .map(|value| value.to_string())
        .unwrap_or_default()
});

pub(super) fn payload_of(text: &str) -> Result<FilePayload, serde_json::Error> {
    if text == PLAIN_PAYLOAD.as_str() {
        return Ok(FilePayload::default());
    }
    serde_json::from_str(text)
}

/// A row decoded from its entry; `None` when its payload cannot be read.
pub(super) fn decoded(entry: feed::Entry) -> Option<Decoded> {
    let payload = match payload_of(&entry.payload_json) {
        Ok(payload) => payload,
        Err(error) => {
            // A row whose payload cannot be read contributes nothing (fail closed).
            tracing::warn!(%error, "index row with an unreadable payload skipped");
            return None;
        }
    };
    let real_path = Some(entry.real_path).filter(|p| !p.is_empty());
    // A hash that cannot be read gives no fingerprint: the row is listed as decided,
    // but its content is never served (fail closed).
    let fingerprint = neuralis_connector::fingerprint_of_hash(&entry.content_hash).unwrap_or(0);
    let row = IndexRow {
        source_id: String::new(),
        path: entry.path,
        size: entry.size,
        payload,
        real_path,
        // A flag this version does not know is left out (shown to nobody).
        content_flags: neuralis_content_flags::FlagSet::from_names(
            entry.content_flags.iter().map(String::as_str),
        ),
        fingerprint,
    };
    Some(Decoded {
        slug: entry.source,
        row,
    })
}

/// A decoded row keyed by its source's id; a row of a source not listed (deleted
/// since, or created after the listing) is dropped.
pub(super) fn keyed(ids: &HashMap<String, String>, decoded: Decoded) -> Option<IndexRow> {
    let mut row = decoded.row;
    row.source_id.clone_from(ids.get(&decoded.slug)?);
    Some(row)
}

/// Rows put into a vector, each keyed by its source id (`IndexPort::rows`).
#[derive(Default)]
pub(super) struct Collected(pub(super) Vec<IndexRow>);

impl RowSink for Collected {
    fn put(&mut self, source_id: &str, mut row: IndexRow) {
        source_id.clone_into(&mut row.source_id);
        self.0.push(row);
    }

    fn rekey(&mut self, from: &str, to: Option<&str>) {
        self.0.retain_mut(|row| match (row.source_id == from, to) {
            (false, _) => true,
            (true, Some(to)) => {
                to.clone_into(&mut row.source_id);
                true
            }
            (true, None) => false,
        });
    }
}

pub(super) fn ids_of(sources: impl IntoIterator<Item = SourceInfo>) -> HashMap<String, String> {
    sources
        .into_iter()
        .map(|source| (source.slug, source.id))
        .collect()
}
