//! What a prepared answer weighs, for the inventory's memory bound
//! (`discovery.inventory.max_bytes`): the heap it holds, counted from its strings' and
//! vectors' capacities. An estimate (allocator overhead is not counted), taken once
//! when the answer is prepared.

use std::mem::size_of;

use neuralis_access::{FileCandidate, PackageCandidate};
use neuralis_assembly::{FileView, Origin, PackageView};

use super::Prepared;
use super::shown::{FileFlags, Shown};
use crate::base::ports::SourceInfo;
use crate::grouping::content::ContentAt;

fn text(s: &str) -> usize {
    s.len()
}

fn texts(v: &[String]) -> usize {
    v.iter().map(|s| text(s)).sum::<usize>() + std::mem::size_of_val(v)
}

fn optional(s: &Option<String>) -> usize {
    s.as_deref().map_or(0, text)
}

/// The prepared answer's heap bytes, besides the `Prepared` itself.
pub(crate) fn bytes(prepared: &Prepared) -> usize {
    use neuralis_access::KeptBatch;
    let request = &prepared.request;
    size_of::<Prepared>()
        + text(&request.project)
        + request
            .sources
            .iter()
            .map(|s| size_of_val(s) + text(&s.id) + text(&s.scope.owner))
            .sum::<usize>()
        + request
            .packages
            .iter()
            .map(package_candidate)
            .sum::<usize>()
        + request.files.iter().map(file_candidate).sum::<usize>()
        + std::mem::size_of_val(prepared.slots.as_slice())
        + prepared
            .tools
            .iter()
            .map(|t| size_of_val(t) + text(&t.name))
            .sum::<usize>()
        + prepared.packages.iter().map(|s| shown(s)).sum::<usize>()
        + std::mem::size_of_val(prepared.order.as_slice())
        + prepared.ids.iter().map(|ids| texts(ids)).sum::<usize>()
        + prepared.listing.bytes()
        + prepared.kept.as_ref().map_or(0, KeptBatch::bytes)
        + prepared
            .package_sources
            .iter()
            .map(package_source)
            .sum::<usize>()
}

/// What the flagged source of one package candidate weighs (none for most).
fn package_source(from: &Option<crate::base::ports::PackageSource>) -> usize {
    size_of::<Option<crate::base::ports::PackageSource>>()
        + from.as_ref().map_or(0, |from| {
            text(&from.source_id)
                + text(&from.slug)
                + text(&from.root_uri)
                + text(&from.scope.owner)
                + text(&from.prefix)
                + from
                    .tools
                    .iter()
                    .map(|t| {
                        size_of_val(t)
                            + text(&t.name)
                            + text(&t.package_id)
                            + text(&t.description)
                            + text(&t.input_schema_json)
                    })
                    .sum::<usize>()
        })
}

/// The sources the answer was prepared with, kept beside it to compare.
pub(crate) fn sources(sources: &[SourceInfo]) -> usize {
    sources
        .iter()
        .map(|s| {
            size_of::<SourceInfo>()
                + text(&s.id)
                + text(&s.slug)
                + text(&s.scope.owner)
                + text(&s.root_uri)
                + s.local_root.as_ref().map_or(0, |p| p.as_os_str().len())
                + texts(&s.privacy_patterns)
        })
        .sum()
}

fn package_candidate(p: &PackageCandidate) -> usize {
    let origin = match &p.origin {
        neuralis_access::Origin::Source(id) => text(id),
        neuralis_access::Origin::Installed => 0,
    };
    size_of::<PackageCandidate>()
        + text(&p.key)
        + origin
        + text(&p.root)
        + optional(&p.access_feature)
        + optional(&p.private_owner)
}

fn file_candidate(f: &FileCandidate) -> usize {
    size_of::<FileCandidate>()
        + text(&f.path)
        + texts(&f.required_features)
        + optional(&f.private_owner)
        + optional(&f.real_path)
}

fn shown(s: &Shown) -> usize {
    size_of::<Shown>()
        + package_view(&s.view)
        + s.content.iter().map(content_at).sum::<usize>()
        + s.own_entry
            .iter()
            .map(|own| size_of::<Vec<bool>>() + own.len())
            .sum::<usize>()
        + s.flags
            .iter()
            .map(|f| size_of::<FileFlags>() + size_of_val(f.entries.as_slice()))
            .sum::<usize>()
}

fn package_view(v: &PackageView) -> usize {
    let origin = match &v.origin {
        Origin::Source { slug } => text(slug),
        Origin::Installed { package_id } => text(package_id),
    };
    origin
        + text(&v.name)
        + text(&v.key)
        + text(&v.policy_key)
        + text(&v.root)
        + optional(&v.rule)
        + v.files.iter().map(file_view).sum::<usize>()
}

fn file_view(f: &FileView) -> usize {
    size_of::<FileView>()
        + text(&f.path)
        + text(&f.id)
        + text(&f.title)
        + optional(&f.description)
        + texts(&f.bundle)
        + text(&f.activation_id)
        + texts(&f.allowed_tools)
}

fn content_at(c: &ContentAt) -> usize {
    size_of::<ContentAt>()
        + match c {
            ContentAt::Source {
                source_id,
                slug,
                path,
                root_uri,
                prefix,
            } => text(source_id) + text(slug) + text(path) + text(root_uri) + text(prefix),
            ContentAt::Installed { package_id, path } => text(package_id) + text(path),
        }
}
