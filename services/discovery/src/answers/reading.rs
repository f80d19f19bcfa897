//! `ReadFile` and `Search`: the caller-facing reads of the index (DESIGN.md section 5,
//! "The raw index is internal"). Both are answered from the caller's answer decided
//! now, with the same batch `ListPackages` sends policy. `ReadFile` serves the files it
//! lets the caller read (listed member files that are active or read on demand, the
//! shown bundle entries of active skills) and any other file in such a skill's bundle
//! scope (seed 001: `files[]` advertises, it does not bound). `Search` keeps hits in
//! those files and in every other indexed file (seed 000: searchable content). A file
//! outside the batch is decided for the caller now, in one small batch per call
//! (`decision/afresh.rs`); a hidden file is dropped without a trace.

use neuralis_access::{DecisionCode, FileCandidate, PackageCandidate};
use neuralis_proto::discovery::v1 as pb;

use crate::answers::content::Content;
use crate::base::error::DiscoveryError;
use crate::base::ports::{AccessPort, RawHit};
use crate::decision::afresh::Afresh;
use crate::decision::answer::{Answer, Holder};
use crate::grouping::reach::{Reach, reach, reach_installed, recognized_file};
use crate::rows::inventory::ProjectSnapshot;

/// What a read beyond the listed files needs: deciding afresh, and the rows decided.
pub(crate) struct Beyond<'a> {
    pub afresh: &'a Afresh,
    pub access: &'a dyn AccessPort,
    pub snapshot: &'a ProjectSnapshot,
}

/// Hits asked when a request names no limit.
const DEFAULT_LIMIT: u32 = 10;
/// The most hits one answer carries (and sync's own cap).
const MAX_LIMIT: u32 = 100;
/// Raw hits asked per hit answered: the held-back ones are replaced from these.
const OVER_FETCH: u32 = 4;

/// `path` of `holder`, read now, when `answer` lets the caller read it. Unknown,
/// denied, unlisted and unreadable files answer NOT_FOUND alike.
pub(crate) async fn read_file(
    answer: &Answer,
    holder: Holder,
    path: String,
    content: &Content<'_>,
    beyond: &Beyond<'_>,
) -> Result<pb::ReadFileResponse, DiscoveryError> {
    // A recognized package's file is read as the package's (by its id), never by the
    // source's slug.
    if let Holder::Source(slug) = &holder
        && in_recognized(beyond, slug, &path).is_some()
    {
        return Err(DiscoveryError::NotFound);
    }
    if let Some(at) = answer.readable(holder.clone(), &path) {
        let content = content.read(at).await?;
        return Ok(pb::ReadFileResponse { path, content });
    }
    let pending = match &holder {
        Holder::Source(slug) => pending(answer, beyond, slug, &path),
        Holder::Installed(id) => installed_pending(answer, beyond, content, id, &path),
    };
    let Some(Pending {
        package,
        candidate,
        skill,
    }) = pending
    else {
        return Err(DiscoveryError::NotFound);
    };
    // Only a file in an active skill's scope is read; a loose file is searchable only.
    let Some(skill) = skill else {
        return Err(DiscoveryError::NotFound);
    };
    let at = answer
        .readable(holder.clone(), &skill)
        .ok_or(DiscoveryError::NotFound)?
        .at(path.clone());
    let codes = beyond
        .afresh
        .decide(beyond.access, vec![package], vec![candidate])
        .await?;
    if !codes.first().is_some_and(|code| code.is_visible()) {
        return Err(DiscoveryError::NotFound);
    }
    // Read as decided: the row of the snapshot, its real path, no link followed.
    let content = content.read(&at).await?;
    Ok(pb::ReadFileResponse { path, content })
}

/// A file the answer does not let the caller read as it stands, to decide afresh.
struct Pending {
    package: PackageCandidate,
    candidate: FileCandidate,
    /// The skill whose bundle scope holds it (`None`: a loose file).
    skill: Option<String>,
}

/// The file `path` of the installed package `id` in a readable skill's bundle scope, as
/// a candidate to decide afresh.
fn installed_pending(
    answer: &Answer,
    beyond: &Beyond<'_>,
    content: &Content<'_>,
    id: &str,
    path: &str,
) -> Option<Pending> {
    let prepared = &beyond.afresh.prepared;
    let installed = content
        .catalog
        .packages()
        .iter()
        .find(|package| package.package_id == id)?;
    let Reach::InBundle {
        package,
        skill,
        candidate,
    } = reach_installed(prepared, installed, path)?
    else {
        return None;
    };
    answer.readable(Holder::Installed(id.to_owned()), &skill)?;
    Some(Pending {
        package: prepared.request.packages.get(package)?.clone(),
        candidate,
        skill: Some(skill),
    })
}

/// The file `path` of the source `slug` as a candidate to decide afresh; `None` when
/// nothing can make it visible (not indexed, decided hidden or unread in the answer,
/// in the scope of a skill the caller may not read).
fn pending(answer: &Answer, beyond: &Beyond<'_>, slug: &str, path: &str) -> Option<Pending> {
    let prepared = &beyond.afresh.prepared;
    let source = beyond.afresh.source(slug)?;
    let snapshot = beyond.snapshot.sources.get(&source.id)?;
    match reach(prepared, source, snapshot, path)? {
        Reach::Decided | Reach::Recognized => None,
        Reach::InBundle {
            package,
            skill,
            candidate,
        } => {
            answer.readable(Holder::Source(slug.to_owned()), &skill)?;
            Some(Pending {
                package: prepared.request.packages.get(package)?.clone(),
                candidate,
                skill: Some(skill),
            })
        }
        Reach::Loose { package, candidate } => Some(Pending {
            package,
            candidate,
            skill: None,
        }),
    }
}

/// The recognized package whose folder in source `slug` holds `path`, and the path
/// relative to it ([`recognized_file`]).
fn in_recognized(beyond: &Beyond<'_>, slug: &str, path: &str) -> Option<(String, String)> {
    let source = beyond.afresh.source(slug)?;
    recognized_file(&beyond.afresh.prepared, &source.id, path)
}

/// The hits a search answers at most, for the `limit` asked.
pub(crate) fn limit(asked: u32) -> u32 {
    match asked {
        0 => DEFAULT_LIMIT,
        n => n.min(MAX_LIMIT),
    }
}

/// The raw hits to ask sync's store for, to answer `limit`.
pub(crate) fn raw_limit(limit: u32) -> u32 {
    limit.saturating_mul(OVER_FETCH).min(MAX_LIMIT)
}

/// The raw hits kept only in files the caller may read or search now, at most `limit`.
/// Files outside the answer are decided in one batch for the call. No score and no
/// count: nothing tells how many hits were held back or where they ranked.
pub(crate) async fn search(
    answer: &Answer,
    beyond: &Beyond<'_>,
    raw: Vec<RawHit>,
    limit: u32,
) -> Result<pb::SearchResponse, DiscoveryError> {
    let mut kept = vec![false; raw.len()];
    // A hit in a recognized package's folder is answered as the package's file: by its
    // id and the path in it, the names `ReadFile` reads it by.
    let mut as_package: Vec<Option<(String, String)>> = vec![None; raw.len()];
    let mut waiting = Vec::new();
    let (mut packages, mut files) = (Vec::new(), Vec::new());
    for (at, hit) in raw.iter().enumerate() {
        let slug = &hit.source_slug;
        if let Some((id, path)) = in_recognized(beyond, slug, &hit.path) {
            // Decided as the recognized package's file in the answer, or not at all.
            kept[at] = answer
                .readable(Holder::Installed(id.clone()), &path)
                .is_some();
            as_package[at] = Some((id, path));
        } else if answer
            .readable(Holder::Source(slug.clone()), &hit.path)
            .is_some()
        {
            kept[at] = true;
        } else if let Some(mut pending) = pending(answer, beyond, slug, &hit.path) {
            pending.candidate.package = packages.len();
            packages.push(pending.package);
            files.push(pending.candidate);
            waiting.push(at);
        }
    }
    let codes = beyond.afresh.decide(beyond.access, packages, files).await?;
    for (at, code) in waiting.into_iter().zip(codes) {
        kept[at] = code != DecisionCode::Hidden;
    }
    let hits = raw
        .into_iter()
        .zip(kept)
        .zip(as_package)
        .filter_map(|((hit, kept), as_package)| kept.then_some((hit, as_package)))
        .take(limit as usize)
        .map(|(hit, as_package)| match as_package {
            Some((package_id, path)) => pb::SearchHit {
                source_slug: String::new(),
                path,
                ordinal: hit.ordinal,
                text: hit.text,
                package_id,
            },
            None => pb::SearchHit {
                source_slug: hit.source_slug,
                path: hit.path,
                ordinal: hit.ordinal,
                text: hit.text,
                package_id: String::new(),
            },
        })
        .collect();
    Ok(pb::SearchResponse { hits })
}

/// The package a `ReadFile` names: a source slug or an installed package id, one of
/// the two.
pub(crate) fn holder(request: &pb::ReadFileRequest) -> Result<Holder, DiscoveryError> {
    match (
        request.source_slug.is_empty(),
        request.package_id.is_empty(),
    ) {
        (false, true) => Ok(Holder::Source(request.source_slug.clone())),
        (true, false) => Ok(Holder::Installed(request.package_id.clone())),
        (true, true) => Err(DiscoveryError::invalid(
            "source_slug",
            "set source_slug (a source package) or package_id (an installed one)",
        )),
        (false, false) => Err(DiscoveryError::invalid(
            "package_id",
            "set only one of source_slug and package_id",
        )),
    }
}
