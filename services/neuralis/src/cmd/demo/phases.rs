//! `neuralis demo --timings`: where the demo's time and memory go, phase by phase
//! (issue 31 splits "from a new source to its first answer" into start-up, the sync and
//! the first listing). Each line goes to stderr, so the demo's own output is unchanged.

use std::time::Instant;

/// The phases seen so far; silent unless asked for.
pub struct Phases {
    on: bool,
    started: Instant,
    last: Instant,
}

impl Phases {
    /// Starts the clock now.
    pub fn new(on: bool) -> Self {
        let now = Instant::now();
        Self {
            on,
            started: now,
            last: now,
        }
    }

    /// Ends the phase `name`: its seconds, the total so far, and the process's resident
    /// memory now and at its peak (from `/proc/self/status`, where there is one).
    pub fn end(&mut self, name: &str) {
        if !self.on {
            return;
        }
        let now = Instant::now();
        let memory = resident_kib()
            .map(|(now, peak)| format!(", resident {now} KB, peak {peak} KB"))
            .unwrap_or_default();
        eprintln!(
            "phase {name:<12} {:>7.3} s (at {:>7.3} s){memory}",
            (now - self.last).as_secs_f64(),
            (now - self.started).as_secs_f64(),
        );
        self.last = now;
    }
}

/// `VmRSS` and `VmHWM` in KiB; `None` where the kernel gives neither.
fn resident_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

#[cfg(test)]
mod tests {
    use super::resident_kib;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_peak_is_never_below_the_resident_memory() {
        let (now, peak) = resident_kib().expect("linux has /proc/self/status");
        assert!(now > 0);
        assert!(peak >= now);
    }
}
