//! The invalidation event and its wire form.

use serde::{Deserialize, Serialize};

/// Where a write stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// The write is about to start: anything read from now on may be stale.
    Start,
    /// The write committed; `revision` is the project's revision after it.
    Finish,
    /// The write failed or timed out; it may or may not have landed, so the reader
    /// must treat it as a change (seed 000: "a backend that did not answer is not a
    /// backend that changed nothing").
    Failed,
}

impl Phase {
    /// The lowercase name used on the wire and in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Start => "start",
            Phase::Finish => "finish",
            Phase::Failed => "failed",
        }
    }
}

/// One invalidation event (DESIGN.md section 3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalidationEvent {
    /// The project whose raw rows the write touches.
    pub project: String,
    /// The source slug the write came from.
    pub source: String,
    /// Names one write batch: its `start` and its `finish`/`failed` carry the same id.
    pub write_id: String,
    /// The project's revision: before the write for `start` and `failed`, after it for `finish`.
    pub revision: u64,
    /// Where the write stands.
    pub phase: Phase,
    /// When the event was raised, in milliseconds since the Unix epoch.
    pub at: u64,
}

impl InvalidationEvent {
    /// The JSON form carried on the wire.
    pub fn to_json(&self) -> String {
        // Serializing a struct of strings and integers cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses the wire form; `None` for anything that is not a well-formed event.
    pub fn from_json(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

/// Milliseconds since the Unix epoch, for [`InvalidationEvent::at`].
pub fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn phase() -> impl Strategy<Value = Phase> {
        prop_oneof![Just(Phase::Start), Just(Phase::Finish), Just(Phase::Failed)]
    }

    proptest! {
        #[test]
        fn every_event_survives_the_wire_form(
            project in ".{0,20}", source in ".{0,20}", write_id in "[a-z0-9-]{0,36}",
            revision in any::<u64>(), phase in phase(), at in any::<u64>(),
        ) {
            let event = InvalidationEvent { project, source, write_id, revision, phase, at };
            prop_assert_eq!(InvalidationEvent::from_json(&event.to_json()), Some(event));
        }
    }

    #[test]
    fn the_wire_form_names_the_phase_in_lowercase() {
        let event = InvalidationEvent {
            project: "p".into(),
            source: "s".into(),
            write_id: "w".into(),
            revision: 7,
            phase: Phase::Failed,
            at: 1,
        };
        assert!(event.to_json().contains(r#""phase":"failed""#));
    }

    #[test]
    fn a_malformed_message_is_not_an_event() {
        for text in ["", "{}", "not json", r#"{"project":"p","phase":"begun"}"#] {
            assert_eq!(InvalidationEvent::from_json(text), None, "{text}");
        }
    }
}
