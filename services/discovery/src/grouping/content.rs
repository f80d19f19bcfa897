//! Where a package file's content lives: a source's row or an installed package's
//! file; the same for every caller, so prepared with the packages.

/// Where a visible file's content lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ContentAt {
    Source {
        source_id: String,
        slug: String,
        /// The row's path in the source.
        path: String,
        root_uri: String,
        /// Where the package's paths start in the source: empty for a markdown
        /// package (its paths are the source's), the package directory for a package
        /// a flagged source holds (its paths are the package's).
        prefix: String,
    },
    Installed {
        package_id: String,
        path: String,
    },
}

impl ContentAt {
    /// The URI of the directory holding the file (for a skill: its bundle directory).
    /// A local or data source's root is a path on the sync host: shown to
    /// administrators only; others get `source://<slug>/…`.
    pub(crate) fn directory_uri(&self, administrator: bool) -> String {
        let (base, path) = match self {
            ContentAt::Source {
                root_uri,
                slug,
                path,
                ..
            } => {
                let host_path = root_uri.starts_with("file://");
                let base = if host_path && !administrator {
                    format!("source://{slug}")
                } else {
                    root_uri.trim_end_matches('/').to_owned()
                };
                (base, path)
            }
            ContentAt::Installed { package_id, path } => (format!("packages://{package_id}"), path),
        };
        match path.rsplit_once('/') {
            Some((dir, _)) => format!("{base}/{dir}"),
            None => base,
        }
    }

    /// The same place, for `path` (a bundle entry beside the file).
    pub(crate) fn at(&self, path: String) -> ContentAt {
        match self {
            ContentAt::Source {
                source_id,
                slug,
                root_uri,
                prefix,
                ..
            } => ContentAt::Source {
                source_id: source_id.clone(),
                slug: slug.clone(),
                path: in_source(prefix, &path),
                root_uri: root_uri.clone(),
                prefix: prefix.clone(),
            },
            ContentAt::Installed { package_id, .. } => ContentAt::Installed {
                package_id: package_id.clone(),
                path,
            },
        }
    }
}

/// The source path of a package's `path`, its package starting at `prefix`.
pub(crate) fn in_source(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        path.to_owned()
    } else {
        format!("{prefix}/{path}")
    }
}

/// Whether `source_path` is [`in_source`]`(prefix, path)`, compared without building it.
pub(crate) fn is_in_source(source_path: &str, prefix: &str, path: &str) -> bool {
    if prefix.is_empty() {
        source_path == path
    } else {
        source_path
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('/'))
            == Some(path)
    }
}
