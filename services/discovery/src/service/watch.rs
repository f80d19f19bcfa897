//! `WatchPackages` (issue 30): the caller's `ListPackages` answer now, then again each
//! time it changes.
//!
//! Nothing is pushed: the stream is pulled. Each time its reader is ready for the next
//! message, the stream waits for a reason to look again — a write in the project
//! finished (the inventory's [`changes`](crate::rows::inventory::InventoryShell::changes)),
//! or `watch.recheck_ms` passed (policy is never cached, so its changes cannot be heard)
//! — and then decides the whole answer for the caller, exactly as `ListPackages` does.
//! An answer equal to the last one sent (by its revision, a digest of the encoded
//! packages) sends nothing. A slow reader therefore holds at most one message in
//! flight and gets the latest answer when it reads, never a queue of old ones.
//!
//! Every open stream re-decides once per recheck, so streams are bounded per caller and
//! in all (`watch.streams_per_caller`, `watch.max_streams`): past either, a new stream is
//! refused RESOURCE_EXHAUSTED at once.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::Stream;
use neuralis_authz::Permit;
use neuralis_proto::discovery::v1 as pb;
use prost::Message as _;
use sha2::{Digest as _, Sha256};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::base::error::DiscoveryError;
use crate::decision::scope::validate_scope;
use crate::service::Discovery;
use crate::service::config::WatchConfig;

/// The messages of one `WatchPackages` stream.
pub type WatchStream =
    Pin<Box<dyn Stream<Item = Result<pb::WatchPackagesResponse, DiscoveryError>> + Send>>;

/// A revision is 24 hex digits; anything longer is not one of ours.
const MAX_REVISION_CHARS: usize = 64;

/// Open streams per (project, caller subject), and in all.
#[derive(Default)]
pub(crate) struct OpenStreams {
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    by_caller: HashMap<(String, String), usize>,
    total: usize,
}

/// One open stream's place; gives it back when the stream is dropped.
struct Place {
    streams: Arc<OpenStreams>,
    key: (String, String),
}

impl OpenStreams {
    fn take(self: &Arc<Self>, key: (String, String), settings: &WatchConfig) -> Option<Place> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if open.total >= settings.max_streams {
            return None;
        }
        let count = open.by_caller.entry(key.clone()).or_default();
        if *count >= settings.streams_per_caller {
            return None;
        }
        *count += 1;
        open.total += 1;
        Some(Place {
            streams: Arc::clone(self),
            key,
        })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(|p| p.into_inner());
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.by_caller.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.by_caller.remove(&self.key);
            }
        }
    }
}

/// What a stream carries between its messages.
struct Watching {
    discovery: Arc<Discovery>,
    permit: Permit,
    request: pb::ListPackagesRequest,
    changes: watch::Receiver<u64>,
    /// The revision the caller holds; `None` before the first message.
    last: Option<String>,
    /// Whether the next look waits for a reason first.
    wait: bool,
    recheck: Duration,
    ends_at: Instant,
    _place: Place,
}

impl Discovery {
    /// The stream of `WatchPackages`: refused at once (RESOURCE_EXHAUSTED) past the
    /// caller's open streams; one empty answer, then the end, for anyone who is not a
    /// caller of the project (as `ListPackages` answers them).
    pub fn watch_packages(
        self: &Arc<Self>,
        permit: Permit,
        request: pb::WatchPackagesRequest,
    ) -> Result<WatchStream, DiscoveryError> {
        let scope = validate_scope(request.scope.as_ref())?;
        neuralis_proto::bounds::at_most(
            "resume_revision",
            &request.resume_revision,
            MAX_REVISION_CHARS,
        )?;
        let acting = permit.for_project(&scope.project).ok();
        let Some(caller) = acting.and_then(|acting| acting.caller()) else {
            let empty = answered(&pb::ListPackagesResponse::default());
            return Ok(Box::pin(futures::stream::iter([Ok(empty)])));
        };
        let settings: &WatchConfig = &self.parts.settings.watch;
        let key = (scope.project.clone(), caller.subject.clone());
        let place =
            self.watchers
                .take(key, settings)
                .ok_or_else(|| DiscoveryError::ResourceExhausted {
                    message: "too many open watch streams".into(),
                    retry_after: Duration::from_millis(settings.recheck_ms.max(1)),
                })?;
        let resumed = Some(request.resume_revision).filter(|r| !r.is_empty());
        let ends_at = ends_at(&permit, settings);
        let watching = Watching {
            discovery: Arc::clone(self),
            changes: self.parts.inventory.changes(&scope.project),
            permit,
            request: pb::ListPackagesRequest {
                scope: request.scope,
                ..Default::default()
            },
            wait: false,
            last: resumed,
            recheck: Duration::from_millis(settings.recheck_ms.max(10)),
            ends_at,
            _place: place,
        };
        Ok(Box::pin(futures::stream::unfold(watching, next)))
    }
}

/// When a stream ends: at its longest age, or when the caller's token expires, if
/// sooner. Each message is decided afresh for the permit's caller, but the permit was
/// verified once, at the start: past `exp` the token proves nothing, and a caller
/// whose token expired must not go on being answered (nor learn of new packages). The
/// client reconnects with a fresh token and its revision.
fn ends_at(permit: &Permit, settings: &WatchConfig) -> Instant {
    let longest = Duration::from_millis(settings.max_stream_ms);
    let left = permit.expires_at().map_or(longest, |expires_at| {
        expires_at
            .duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO)
    });
    Instant::now() + longest.min(left)
}

/// The next message: the caller's answer once it differs from the last one sent;
/// `None` (the end) past the stream's age or after an error.
async fn next(
    mut watching: Watching,
) -> Option<(Result<pb::WatchPackagesResponse, DiscoveryError>, Watching)> {
    loop {
        if watching.wait && !watching.waited().await {
            return None;
        }
        watching.wait = true;
        let listed = watching
            .discovery
            .list_packages(&watching.permit, watching.request.clone())
            .await;
        let answer = match listed {
            Ok(listed) => answered(&listed),
            Err(error) => {
                // The error is the stream's last message; the caller reconnects with
                // its revision.
                watching.ends_at = Instant::now();
                return Some((Err(error), watching));
            }
        };
        if watching.last.as_deref() == Some(answer.revision.as_str()) {
            continue;
        }
        watching.last = Some(answer.revision.clone());
        return Some((Ok(answer), watching));
    }
}

impl Watching {
    /// Waits for a write in the project or the recheck interval; false once the
    /// stream is past its age.
    async fn waited(&mut self) -> bool {
        let now = Instant::now();
        if now >= self.ends_at {
            return false;
        }
        let deadline = (now + self.recheck).min(self.ends_at);
        tokio::select! {
            changed = self.changes.changed() => {
                if changed.is_err() {
                    // The inventory is gone: look again at the deadline only.
                    tokio::time::sleep_until(deadline).await;
                }
            }
            () = tokio::time::sleep_until(deadline) => {}
        }
        Instant::now() < self.ends_at
    }
}

/// The message for `listed`, with its revision: a digest of the encoded packages, so
/// equal answers have equal revisions in every process and nothing else is in it.
fn answered(listed: &pb::ListPackagesResponse) -> pb::WatchPackagesResponse {
    let mut digest = Sha256::new();
    for package in &listed.packages {
        let encoded = package.encode_length_delimited_to_vec();
        digest.update(&encoded);
    }
    let revision: String = digest.finalize()[..12]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    pb::WatchPackagesResponse {
        revision,
        packages: listed.packages.clone(),
    }
}
