//! Sync triggers: `manual`, `auto` and `interval:<N><s|m|h|d>` (seed 000, "Sync is the
//! prerequisite"). Parsing is strict: one canonical spelling per trigger, so a typo is
//! an error naming the value instead of a source that silently never syncs.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// When a source syncs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// Only when someone asks (`SyncSource`).
    Manual,
    /// On filesystem change, debounced.
    Auto,
    /// Every `period`, which is a whole, non-zero number of seconds.
    Interval(Duration),
}

/// Why a trigger string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TriggerError {
    /// Neither `manual`, `auto` nor `interval:...`.
    #[error("unknown trigger {0:?}: expected manual, auto or interval:<N><s|m|h|d>")]
    Unknown(String),
    /// An `interval:` whose number or unit is wrong.
    #[error("bad interval {value:?}: {reason}")]
    BadInterval {
        /// The whole value as given.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An `interval:` shorter than the server allows.
    #[error("interval {value:?} is shorter than the shortest allowed, {min:?}")]
    TooFrequent {
        /// The trigger as given (canonical).
        value: String,
        /// The shortest allowed, as a trigger.
        min: String,
    },
}

const INTERVAL_PREFIX: &str = "interval:";

impl Trigger {
    /// Refuses an `interval:` shorter than `min`: a scheduled run reads a whole tree,
    /// so how often one source may ask for it is the server's to bound.
    pub fn at_least(self, min: Duration) -> Result<Trigger, TriggerError> {
        match self {
            Trigger::Interval(period) if period < min => Err(TriggerError::TooFrequent {
                value: self.to_string(),
                min: Trigger::Interval(min).to_string(),
            }),
            trigger => Ok(trigger),
        }
    }
}

impl FromStr for Trigger {
    type Err = TriggerError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value {
            "manual" => Ok(Trigger::Manual),
            "auto" => Ok(Trigger::Auto),
            _ => match value.strip_prefix(INTERVAL_PREFIX) {
                Some(spec) => parse_interval(spec)
                    .map(Trigger::Interval)
                    .map_err(|reason| TriggerError::BadInterval {
                        value: value.to_owned(),
                        reason,
                    }),
                None => Err(TriggerError::Unknown(value.to_owned())),
            },
        }
    }
}

/// `<N><unit>`: N decimal digits without sign or leading zero, unit one of s m h d.
fn parse_interval(spec: &str) -> Result<Duration, &'static str> {
    let Some(unit) = spec.chars().last() else {
        return Err("missing number and unit");
    };
    let seconds_per_unit: u64 = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3_600,
        'd' => 86_400,
        _ => return Err("the unit must be one of s, m, h, d"),
    };
    let digits = &spec[..spec.len() - 1];
    if digits.is_empty() {
        return Err("missing number");
    }
    if !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err("the number must be decimal digits only");
    }
    if digits.starts_with('0') {
        return Err("the number must be positive, without leading zeros");
    }
    let count: u64 = digits.parse().map_err(|_| "the number is too large")?;
    count
        .checked_mul(seconds_per_unit)
        .map(Duration::from_secs)
        .ok_or("the interval is too large")
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trigger::Manual => f.write_str("manual"),
            Trigger::Auto => f.write_str("auto"),
            Trigger::Interval(period) => {
                let seconds = period.as_secs();
                let (count, unit) = [(86_400, 'd'), (3_600, 'h'), (60, 'm')]
                    .into_iter()
                    .find(|(size, _)| seconds % size == 0)
                    .map_or((seconds, 's'), |(size, unit)| (seconds / size, unit));
                write!(f, "{INTERVAL_PREFIX}{count}{unit}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_interval_shorter_than_the_minimum_is_refused_naming_both() {
        let min = Duration::from_secs(60);
        for (trigger, allowed) in [
            ("interval:1s", false),
            ("interval:59s", false),
            ("interval:1m", true),
            ("interval:2h", true),
            ("auto", true),
            ("manual", true),
        ] {
            let parsed: Trigger = trigger.parse().unwrap();
            let checked = parsed.at_least(min);
            assert_eq!(checked.is_ok(), allowed, "{trigger}");
            if let Err(error) = checked {
                let text = error.to_string();
                assert!(
                    text.contains(trigger) && text.contains("interval:1m"),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn interval_parsing_accepts_the_canonical_forms() {
        let good = [
            ("manual", Trigger::Manual),
            ("auto", Trigger::Auto),
            ("interval:1s", Trigger::Interval(Duration::from_secs(1))),
            ("interval:30s", Trigger::Interval(Duration::from_secs(30))),
            ("interval:5m", Trigger::Interval(Duration::from_secs(300))),
            ("interval:2h", Trigger::Interval(Duration::from_secs(7_200))),
            (
                "interval:1d",
                Trigger::Interval(Duration::from_secs(86_400)),
            ),
            (
                "interval:90m",
                Trigger::Interval(Duration::from_secs(5_400)),
            ),
        ];
        for (text, expected) in good {
            assert_eq!(text.parse::<Trigger>(), Ok(expected), "{text}");
        }
    }

    #[test]
    fn interval_parsing_refuses_everything_else() {
        let bad = [
            "",
            "Manual",
            "AUTO",
            " auto",
            "auto ",
            "interval",
            "interval:",
            "interval:s",
            "interval:5",
            "interval:0s",
            "interval:05m",
            "interval:-5m",
            "interval:+5m",
            "interval:5 m",
            "interval: 5m",
            "interval:5M",
            "interval:5w",
            "interval:5ms",
            "interval:1.5h",
            "interval:1e3s",
            "interval:5m5s",
            "interval:٣m",
            "interval:5mé",
            "interval:99999999999999999999s",
            "interval:213503982334602d",
            "every:5m",
            "interval=5m",
            "INTERVAL:5m",
        ];
        for text in bad {
            assert!(text.parse::<Trigger>().is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn a_bad_interval_error_names_the_value_and_the_reason() {
        let err = "interval:0s".parse::<Trigger>().expect_err("refused");
        let message = err.to_string();
        assert!(message.contains("interval:0s"), "{message}");
        assert!(message.contains("positive"), "{message}");
    }

    proptest! {
        #[test]
        fn every_trigger_survives_its_canonical_spelling(seconds in 1u64..10_000_000_000) {
            let trigger = Trigger::Interval(Duration::from_secs(seconds));
            prop_assert_eq!(trigger.to_string().parse::<Trigger>(), Ok(trigger));
        }

        #[test]
        fn parsing_never_panics(text in "\\PC{0,24}") {
            let _ = text.parse::<Trigger>();
            let _ = format!("interval:{text}").parse::<Trigger>();
        }
    }
}
