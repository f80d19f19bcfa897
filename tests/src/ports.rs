//! Ports for processes a test starts itself, which must be named before the process
//! binds them.
//!
//! Asking the kernel for port 0 and closing it hands out a port from the *ephemeral*
//! range (`net.ipv4.ip_local_port_range`, 32768-60999 by default), the same range the
//! kernel draws from for every outgoing connection and every other `bind(0)` on the
//! machine. Between closing the probe and the child's own bind, a concurrent test's
//! connection could take it: the child then fails with "Address already in use" (seen
//! in CI beside a load generator). A port below the ephemeral range is only ever taken
//! by an explicit bind, so a probe there stays free unless another test picks the very
//! same number: each process starts at its own offset and walks the range.

use std::net::TcpListener;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The lowest port handed out: above the well-known and most registered service ports.
const LOWEST: u32 = 20_000;
/// Below the kernel's default ephemeral range; [`ephemeral_floor`] reads the real one.
const DEFAULT_EPHEMERAL_FLOOR: u32 = 32_768;

/// A port free right now, outside the kernel's ephemeral range.
pub fn free_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(u32::MAX);
    let span = ephemeral_floor().saturating_sub(LOWEST).max(1);
    let _ = NEXT.compare_exchange(
        u32::MAX,
        start_offset(span),
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
    for _ in 0..span {
        let offset = NEXT.fetch_add(1, Ordering::Relaxed) % span;
        let Ok(port) = u16::try_from(LOWEST + offset) else {
            continue;
        };
        if TcpListener::bind(("127.0.0.1", port)).is_ok()
            && TcpListener::bind(("0.0.0.0", port)).is_ok()
        {
            return port;
        }
    }
    panic!("no free port between {LOWEST} and the ephemeral range")
}

/// The first port of the kernel's ephemeral range (the default when unreadable).
fn ephemeral_floor() -> u32 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .filter(|floor| *floor > LOWEST)
        .unwrap_or(DEFAULT_EPHEMERAL_FLOOR)
}

/// Where this process starts in the range: its pid and the clock, so concurrent test
/// binaries walk from different places.
fn start_offset(span: u32) -> u32 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::process::id()
        .wrapping_mul(2_654_435_761)
        .wrapping_add(nanos)
        % span
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_ports_lie_below_the_ephemeral_range_and_differ() {
        let ports: Vec<u16> = (0..50).map(|_| free_port()).collect();
        let floor = ephemeral_floor();
        assert!(
            ports
                .iter()
                .all(|p| u32::from(*p) >= LOWEST && u32::from(*p) < floor),
            "{ports:?}"
        );
        let distinct: std::collections::BTreeSet<_> = ports.iter().collect();
        assert_eq!(
            distinct.len(),
            ports.len(),
            "a process never hands out a port twice in a row"
        );
    }
}
