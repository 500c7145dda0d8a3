//! How busy the machine was while the benchmarks ran: other work's share of the CPUs in a
//! quiet second before and after them (when nothing of the bench runs), and the time the
//! hypervisor took (steal) over the whole run, from Linux's /proc/stat. A figure that a
//! busy neighbour can break is no promise of this machine, and BENCHMARKS.md says when
//! one could have.

use std::time::Duration;

/// CPU time since boot in clock ticks: (busy, all, stolen).
fn cpu_ticks() -> Option<(u64, u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal [guest guest_nice, counted in user]
    if v.len() < 8 {
        return None;
    }
    let idle = v[3] + v[4];
    let all: u64 = v[..8].iter().sum();
    Some((all - idle, all, v[7]))
}

/// Share of all CPUs busy over `window`, while this process waits (the bench's own work is
/// not running then).
fn busy_over(window: Duration) -> Option<f64> {
    let (b0, a0, _) = cpu_ticks()?;
    std::thread::sleep(window);
    let (b1, a1, _) = cpu_ticks()?;
    (a1 > a0).then(|| (b1 - b0) as f64 / (a1 - a0) as f64)
}

/// What was seen of the machine's load around a benchmark run.
pub struct Load {
    /// The gaps the lab saw in its own runs, each named ("the native run: no gap in ...").
    pub gaps: Vec<String>,
    before: Option<f64>,
    after: Option<f64>,
    stolen: Option<f64>,
    start: Option<(u64, u64, u64)>,
}

/// Share of the CPUs other work may take in the quiet seconds for the machine to count as
/// idle.
const BUSY: f64 = 0.05;

impl Load {
    /// Looks at the machine for a second before the run.
    pub fn before() -> Self {
        Self {
            gaps: Vec::new(),
            before: busy_over(Duration::from_secs(1)),
            after: None,
            stolen: None,
            start: cpu_ticks(),
        }
    }

    /// Looks again for a second after it, and at the steal over the run.
    pub fn after(&mut self) {
        if let (Some((_, a0, s0)), Some((_, a1, s1))) = (self.start, cpu_ticks()) {
            self.stolen = (a1 > a0).then(|| (s1 - s0) as f64 / (a1 - a0) as f64);
        }
        self.after = busy_over(Duration::from_secs(1));
    }

    /// Whether other work was seen taking the CPUs.
    pub fn busy(&self) -> bool {
        [self.before, self.after, self.stolen]
            .iter()
            .any(|x| x.is_some_and(|v| v > BUSY))
    }

    /// The line for BENCHMARKS.md.
    pub fn line(&self) -> String {
        let pct = |x: Option<f64>| x.map_or("unknown".into(), |v| format!("{:.0}%", v * 100.0));
        let mut s = format!(
            "other work took {} of the CPUs in the quiet second before the run and {} in the \
             one after; the hypervisor took {} of them over the run (steal)",
            pct(self.before),
            pct(self.after),
            pct(self.stolen)
        );
        if !self.gaps.is_empty() {
            s.push_str(&format!(
                "; the lab's own watch of its loops (times it was not running): {}",
                self.gaps.join("; ")
            ));
        }
        if self.busy() {
            s.push_str(
                ": **the machine was busy**, and figures of time (the runs, the page's full \
                 run, wasm against native, read costs) are not what it gives when idle",
            );
        } else {
            s.push_str(": the machine was idle");
        }
        s
    }
}
