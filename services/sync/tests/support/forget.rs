//! A forgetter that records what it was asked to forget, and fails on demand.

use neuralis_sync::{AccessForgetter, ForgetError};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Records every source id `DeleteSource` asks to forget.
#[derive(Default)]
pub struct RecordingForgetter {
    forgotten: Mutex<Vec<String>>,
    unreachable: AtomicBool,
}

impl RecordingForgetter {
    /// The ids forgotten so far, in order.
    pub fn forgotten(&self) -> Vec<String> {
        self.forgotten
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// From now on, every call fails as an unreachable policy would.
    pub fn set_unreachable(&self, unreachable: bool) {
        self.unreachable.store(unreachable, Ordering::SeqCst);
    }
}

#[async_trait::async_trait]
impl AccessForgetter for RecordingForgetter {
    async fn forget_source(&self, source_id: &str) -> Result<(), ForgetError> {
        if self.unreachable.load(Ordering::SeqCst) {
            return Err(ForgetError("policy unreachable".into()));
        }
        self.forgotten
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(source_id.to_owned());
        Ok(())
    }
}
