//! The standard `process_*` families, read from `/proc/self` on every scrape (Linux;
//! elsewhere they are simply absent).

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// /proc reports CPU time in USER_HZ, which Linux fixes at 100 for user space.
const USER_HZ: f64 = 100.0;

#[derive(Debug)]
pub(crate) struct ProcessCollector {
    /// Seconds since the epoch when the registry was built (close to the start).
    start_time: f64,
}

impl ProcessCollector {
    pub(crate) fn new() -> Self {
        let start_time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        Self { start_time }
    }
}

/// What one reading of /proc/self found.
#[derive(Debug, Default, PartialEq)]
struct Reading {
    cpu_seconds: Option<f64>,
    threads: Option<i64>,
    virtual_bytes: Option<i64>,
    resident_bytes: Option<i64>,
    open_fds: Option<i64>,
    max_fds: Option<i64>,
}

fn read() -> Reading {
    let mut reading = Reading::default();
    if let Ok(stat) = std::fs::read_to_string("/proc/self/stat") {
        // Fields after the command name, which may itself hold spaces and parentheses.
        if let Some((_, rest)) = stat.rsplit_once(')') {
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
            if let (Some(user), Some(system)) = (number(11), number(12)) {
                reading.cpu_seconds = Some((user + system) as f64 / USER_HZ);
            }
            reading.threads = number(17).and_then(|n| i64::try_from(n).ok());
            reading.virtual_bytes = number(20).and_then(|n| i64::try_from(n).ok());
        }
    }
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        reading.resident_bytes = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<i64>()
                    .ok()
            })
            .map(|kib| kib * 1024);
    }
    if let Ok(entries) = std::fs::read_dir("/proc/self/fd") {
        reading.open_fds = i64::try_from(entries.count()).ok();
    }
    if let Ok(limits) = std::fs::read_to_string("/proc/self/limits") {
        reading.max_fds = limits
            .lines()
            .find(|line| line.starts_with("Max open files"))
            .and_then(|line| line.split_whitespace().nth(3))
            .and_then(|soft| soft.parse::<i64>().ok());
    }
    reading
}

fn gauge(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    value: Option<i64>,
) -> Result<(), std::fmt::Error> {
    let Some(value) = value else { return Ok(()) };
    let gauge = ConstGauge::new(value);
    let metric = encoder.encode_descriptor(name, help, None, gauge.metric_type())?;
    gauge.encode(metric)
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let reading = read();
        if let Some(seconds) = reading.cpu_seconds {
            let counter = ConstCounter::new(seconds);
            let metric = encoder.encode_descriptor(
                "process_cpu_seconds",
                "Total user and system CPU time spent in seconds",
                None,
                counter.metric_type(),
            )?;
            counter.encode(metric)?;
        }
        let start = ConstGauge::new(self.start_time);
        let metric = encoder.encode_descriptor(
            "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds",
            None,
            start.metric_type(),
        )?;
        start.encode(metric)?;
        gauge(
            &mut encoder,
            "process_resident_memory_bytes",
            "Resident memory size in bytes",
            reading.resident_bytes,
        )?;
        gauge(
            &mut encoder,
            "process_virtual_memory_bytes",
            "Virtual memory size in bytes",
            reading.virtual_bytes,
        )?;
        gauge(
            &mut encoder,
            "process_open_fds",
            "Number of open file descriptors",
            reading.open_fds,
        )?;
        gauge(
            &mut encoder,
            "process_max_fds",
            "Maximum number of open file descriptors",
            reading.max_fds,
        )?;
        gauge(
            &mut encoder,
            "process_threads",
            "Number of OS threads in the process",
            reading.threads,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn a_linux_process_reads_every_figure() {
        let reading = read();
        assert!(reading.cpu_seconds.is_some());
        assert!(reading.resident_bytes.unwrap_or(0) > 0);
        assert!(reading.open_fds.unwrap_or(0) > 0);
        assert!(reading.max_fds.unwrap_or(0) > 0);
        assert!(reading.threads.unwrap_or(0) > 0);
    }
}
