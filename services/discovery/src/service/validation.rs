//! `ValidatePackage`: a caller's package files parsed under the same bounds as an
//! installed package read from disk, and never on the threads that serve other callers
//! (issue 25: two calls of 2,500 YAML-bomb `SKILL.md` files held every async worker,
//! health included, for about 40 s). The request is bounded before any parse; the parse
//! runs on `spawn_blocking` holding one of a few slots, and a call that finds every
//! slot taken is shed with RESOURCE_EXHAUSTED instead of queueing.

use std::sync::Arc;

use neuralis_layout::Trust;
use neuralis_proto::bounds;
use neuralis_proto::discovery::v1 as pb;
use tokio::sync::Semaphore;

use crate::base::error::DiscoveryError;
use crate::base::ports::{InstalledCatalog, PackageValidation};

/// Files one call may send: a package is a few dozen files; the attack sent 2,500.
pub const MAX_FILES: usize = 1024;
/// Bytes of all contents of one call (a decoded gRPC message is at most 4 MiB anyway).
pub const MAX_TOTAL_BYTES: usize = 4 * 1024 * 1024;
/// Validations parsing at once in one process: half the cores, at least one, so a
/// flood of them always leaves cores to the async workers (one on a two-core node).
pub fn max_concurrent() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| (cores.get() / 2).max(1))
}

/// The files of a request as the catalog reads them, and the trust asked for.
pub(crate) type Files = Vec<(String, Vec<u8>)>;

/// The request within bounds, or INVALID_ARGUMENT naming the field. Pure.
pub(crate) fn checked(
    request: pb::ValidatePackageRequest,
) -> Result<(Files, Trust), DiscoveryError> {
    let trust = match bounds::known::<pb::Trust>("trust", request.trust)? {
        pb::Trust::FirstParty => Trust::FirstParty,
        pb::Trust::Trusted => Trust::Trusted,
        pb::Trust::Untrusted | pb::Trust::Unspecified => Trust::Untrusted,
    };
    if request.files.is_empty() {
        return Err(DiscoveryError::invalid(
            "files",
            "is empty: package.json is required",
        ));
    }
    bounds::count("files", request.files.len(), MAX_FILES)?;
    // The bound an installed package's files are read with from disk.
    let max_file_bytes = neuralis_catalog::ReadLimits::default().max_file_bytes;
    let mut total = 0usize;
    for (at, file) in request.files.iter().enumerate() {
        bounds::path(&format!("files[{at}].path"), &file.path)?;
        if file.content.len() as u64 > max_file_bytes {
            return Err(DiscoveryError::invalid(
                format!("files[{at}].content"),
                format!(
                    "must be at most {max_file_bytes} bytes ({} given)",
                    file.content.len()
                ),
            ));
        }
        total = total.saturating_add(file.content.len());
    }
    if total > MAX_TOTAL_BYTES {
        return Err(DiscoveryError::invalid(
            "files",
            format!("must hold at most {MAX_TOTAL_BYTES} bytes in all ({total} given)"),
        ));
    }
    let files = request
        .files
        .into_iter()
        .map(|file| (file.path, file.content))
        .collect();
    Ok((files, trust))
}

/// The slots validations parse in.
#[derive(Clone)]
pub(crate) struct Validations {
    slots: Arc<Semaphore>,
}

impl Default for Validations {
    fn default() -> Self {
        Self::with_slots(max_concurrent())
    }
}

impl Validations {
    pub(crate) fn with_slots(slots: usize) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(slots)),
        }
    }

    /// Validates on a blocking thread holding a slot; RESOURCE_EXHAUSTED when none is
    /// free. A caller that hangs up does not stop the parse, which the YAML budget and
    /// the request bounds keep short, and its slot is held until the parse ends.
    pub(crate) async fn run(
        &self,
        catalog: Arc<dyn InstalledCatalog>,
        files: Files,
        trust: Trust,
    ) -> Result<PackageValidation, DiscoveryError> {
        let slot = Arc::clone(&self.slots).try_acquire_owned().map_err(|_| {
            DiscoveryError::ResourceExhausted {
                message: "every package validation slot is in use: retry later".into(),
                retry_after: std::time::Duration::from_secs(1),
            }
        })?;
        tokio::task::spawn_blocking(move || {
            let validation = catalog.validate(&files, trust);
            drop(slot);
            validation
        })
        .await
        .map_err(|error| DiscoveryError::Internal(format!("package validation failed: {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, content: &[u8]) -> pb::PackageFileContent {
        pb::PackageFileContent {
            path: path.into(),
            content: content.to_vec(),
        }
    }

    fn request(files: Vec<pb::PackageFileContent>, trust: i32) -> pb::ValidatePackageRequest {
        pb::ValidatePackageRequest { files, trust }
    }

    fn refused_field(request: pb::ValidatePackageRequest) -> String {
        match checked(request) {
            Err(DiscoveryError::InvalidArgument { field, .. }) => field,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_validation_request_is_bounded_before_any_parse() {
        let ok = file("package.json", b"{}");
        assert_eq!(refused_field(request(vec![], 0)), "files");
        assert_eq!(refused_field(request(vec![ok.clone()], 99)), "trust");
        assert_eq!(
            refused_field(request(vec![ok.clone(); MAX_FILES + 1], 0)),
            "files"
        );
        assert_eq!(
            refused_field(request(vec![ok.clone(), file("a\0b", b"")], 0)),
            "files[1].path"
        );
        let big = vec![b'a'; 1024 * 1024 + 1];
        assert_eq!(
            refused_field(request(vec![ok.clone(), file("big.md", &big)], 0)),
            "files[1].content"
        );
        let mut many = vec![ok.clone()];
        many.extend((0..5).map(|i| file(&format!("f{i}.md"), &big[..1024 * 1024])));
        assert_eq!(refused_field(request(many, 0)), "files");
        assert!(checked(request(vec![ok], pb::Trust::Trusted as i32)).is_ok());
    }

    struct Slow(std::sync::mpsc::Receiver<()>);

    #[tokio::test]
    async fn a_validation_past_the_slots_is_shed_not_queued() {
        let validations = Validations::with_slots(1);
        let (release, wait) = std::sync::mpsc::channel();
        let catalog: Arc<dyn InstalledCatalog> =
            Arc::new(Blocking(std::sync::Mutex::new(Slow(wait))));
        let first = {
            let validations = validations.clone();
            let catalog = Arc::clone(&catalog);
            tokio::spawn(
                async move { validations.run(catalog, Vec::new(), Trust::Untrusted).await },
            )
        };
        // The first call holds the only slot until released.
        while validations.slots.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        let second = validations
            .run(Arc::clone(&catalog), Vec::new(), Trust::Untrusted)
            .await;
        assert!(
            matches!(second, Err(DiscoveryError::ResourceExhausted { .. })),
            "{second:?}"
        );
        release.send(()).unwrap();
        assert!(first.await.unwrap().is_ok());
        assert_eq!(validations.slots.available_permits(), 1);
    }

    /// A catalog whose validation waits for the test's signal.
    struct Blocking(std::sync::Mutex<Slow>);

    impl InstalledCatalog for Blocking {
        fn packages(&self) -> &[crate::base::ports::InstalledPackage] {
            &[]
        }
        fn read(&self, _: &str, _: &str) -> Result<Vec<u8>, DiscoveryError> {
            Err(DiscoveryError::NotFound)
        }
        fn tools(
            &self,
            _: &dyn Fn(&str, &str) -> bool,
        ) -> (
            Vec<crate::base::ports::ToolEntry>,
            Vec<crate::base::ports::ContestedTool>,
        ) {
            (Vec::new(), Vec::new())
        }
        fn validate(&self, _: &[(String, Vec<u8>)], _: Trust) -> PackageValidation {
            let _ = self.0.lock().map(|slow| slow.0.recv());
            PackageValidation::default()
        }
    }
}
