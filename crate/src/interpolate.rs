//! Clock interpolation (Schwarz et al., "Fantastic Timers", 2017): a coarse clock plus a count
//! of spin iterations between its edges is a clock far finer than the coarse tick.
//!
//! Calibration counts how many reads of the coarse clock fit in one of its ticks (K). A read
//! then spins on the coarse clock until its next edge, counting m reads: the read began
//! m reads before that edge, so its time is `edge × K / tick − m`, in counts of tick / K.
//! The edge is exact, so calibration error only ever moves a value within one tick; it never
//! accumulates. The price is the read itself: it waits for an edge, up to a whole tick.
//!
//! A single-shot timing starts on an edge ([`Interpolated::start`]) and ends with a read.
//! A jittered clamp (Chromium's) moves each edge by a random part of a tick, which is exactly
//! what defeats interpolation: this works against plain clamps and coarse OS clocks.

use serde::{Deserialize, Serialize};

use crate::clock::{Clock, ClockFault, ClockInfo, ClockKind, CountPeriod};
use crate::error::{invalid, Error, Result};
use crate::run::Stopwatch;

/// What calibration found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Reads of the coarse clock per coarse tick (K), rounded.
    pub per_tick: u64,
    /// Coarse ticks counted over.
    pub ticks: u64,
    /// Reads counted over them.
    pub reads: u64,
    /// Seconds spent.
    pub elapsed_s: f64,
    /// Fewest and most reads between two edges: far apart when the edges come at irregular
    /// times (a jittered clamp), which interpolation cannot see through.
    #[serde(default)]
    pub spread: (u64, u64),
}

/// Most reads a read spins before the coarse clock counts as stalled: 8 ticks' worth, or a
/// quarter second's when that is more (a page's counter worker can be descheduled for
/// milliseconds on a busy machine; that is a late edge, not a frozen clock).
const STALL_TICKS: u64 = 8;
const STALL_S: f64 = 0.25;

/// Spins on `base` until its value differs from `from`, at most `limit` reads.
/// Returns the new value and the reads made. Never inlined: calibration and reads run this
/// very machine code, so a read counted in one costs what it costs in the other (inlined
/// into two callers, the loops differed by 15% in wasm).
#[inline(never)]
fn spin_to_edge<C: Clock + ?Sized>(base: &mut C, from: u64, limit: u64) -> (Option<u64>, u64) {
    let mut reads = 0u64;
    while reads < limit {
        let r = base.read();
        reads += 1;
        if r != from {
            return (Some(r), reads);
        }
    }
    (None, reads)
}

/// A coarse clock made fine by counting reads between its edges.
pub struct Interpolated<C> {
    base: C,
    info: ClockInfo,
    tick: u64,
    per_tick: u64,
    origin: u64,
    calibration: Calibration,
    stall_limit: u64,
    last: u64,
    /// The raw edge a [`Interpolated::stop`] ended on, while a run may still begin there.
    at_edge: Option<u64>,
    fault: Option<ClockFault>,
}

impl<C: Clock> Interpolated<C> {
    /// Calibrates over `base`, whose tick is `tick_counts` of its counts, for at least
    /// `seconds` of `stopwatch` and 8 edges; gives up after `4 × seconds + 1` s without them.
    pub fn calibrate(
        base: C,
        tick_counts: u64,
        stopwatch: &mut dyn Stopwatch,
        seconds: f64,
    ) -> Result<Self> {
        let name = &base.info().name;
        if !base.info().monotonic {
            return Err(invalid(
                "coarse clock",
                format!("'{name}' may step back: its edges cannot be trusted"),
            ));
        }
        Self::calibrate_over(base, tick_counts, stopwatch, seconds, 8)
    }

    /// [`Interpolated::calibrate`] over at least `edges` edges (at least 2), trusting the
    /// edges of a clock that may step (a wall clock, over the fraction of a second a fit
    /// takes). Few edges will do for [`Interpolated::stop`], which counts its own pace:
    /// calibration then only sets the size of a count.
    pub fn calibrate_over(
        mut base: C,
        tick_counts: u64,
        stopwatch: &mut dyn Stopwatch,
        seconds: f64,
        edges: u64,
    ) -> Result<Self> {
        if tick_counts < 2 {
            return Err(invalid(
                "coarse tick",
                format!("{tick_counts} counts: interpolation needs a tick of at least 2 counts"),
            ));
        }
        if !(seconds.is_finite() && seconds > 0.0 && seconds <= 60.0) {
            return Err(invalid(
                "calibration time",
                format!("{seconds} s; expected more than 0 and at most 60"),
            ));
        }
        let bi = base.info().clone();
        let t0 = stopwatch.seconds();
        let give_up = 4.0 * seconds + 1.0;
        const CHUNK: u64 = 1 << 16;
        // Spins to the next edge in chunks, so the stopwatch bounds a frozen clock.
        let next_edge = |base: &mut C, from: u64, sw: &mut dyn Stopwatch| -> Result<(u64, u64)> {
            let mut total = 0u64;
            loop {
                let (edge, reads) = spin_to_edge(base, from, CHUNK);
                total += reads;
                if let Some(e) = edge {
                    return Ok((e, total));
                }
                let el = sw.seconds() - t0;
                if el >= give_up || el.is_nan() {
                    return Err(Error::Frozen {
                        clock: bi.name.clone(),
                        elapsed_s: el,
                        reads: total,
                    });
                }
            }
        };
        for _ in 0..64 {
            std::hint::black_box(base.read());
        }
        let first = base.read();
        let (origin, _) = next_edge(&mut base, first, stopwatch)?;
        let min_edges = edges.max(2);
        let (mut at, mut reads, mut edges) = (origin, 0u64, 0u64);
        let mut spread = (u64::MAX, 0u64);
        loop {
            let (e, r) = next_edge(&mut base, at, stopwatch)?;
            reads += r;
            edges += 1;
            spread = (spread.0.min(r), spread.1.max(r));
            at = e;
            if edges >= min_edges && stopwatch.seconds() - t0 >= seconds {
                break;
            }
        }
        base.check_fault()?;
        let span = bi.diff(origin, at);
        if bi.looks_backwards(span) {
            return Err(invalid(
                "coarse clock",
                format!("'{}' stepped back during calibration", bi.name),
            ));
        }
        // Ticks elapsed, from the values: an edge may skip ticks when a read is slow.
        let ticks = (span as f64 / tick_counts as f64).round().max(1.0) as u64;
        let per_tick = ((reads as f64 / ticks as f64).round() as u64).max(1);
        let calibration = Calibration {
            per_tick,
            ticks,
            reads,
            elapsed_s: stopwatch.seconds() - t0,
            spread,
        };
        let period = match bi.period.ns_per_count() {
            Some(ns) => CountPeriod::Calibrated {
                ns: ns * tick_counts as f64 / per_tick as f64,
                against: format!("{ticks} ticks of {}", bi.name),
            },
            None => CountPeriod::Unknown,
        };
        // No claim: its one count is its own calibration, and a measured tick matching it
        // would prove nothing.
        let info = ClockInfo::new(
            format!("interpolated {}", bi.name),
            ClockKind::Synthetic,
            period,
        )
        .with_description(format!(
            "{} made finer by counting reads to its next edge ({per_tick} per tick, one read \
             a count); a read waits for that edge",
            bi.name
        ))
        .non_monotonic();
        Ok(Self {
            base,
            info,
            tick: tick_counts,
            per_tick,
            origin,
            calibration,
            stall_limit: 0,
            last: 0,
            at_edge: None,
            fault: None,
        }
        .stall_after(STALL_S))
    }

    /// Sets how long a read spins for an edge before the coarse clock counts as stalled:
    /// `seconds` at the calibrated pace of reads, and never less than 8 ticks' worth.
    pub fn stall_after(mut self, seconds: f64) -> Self {
        let c = &self.calibration;
        let per_s = c.reads as f64 / c.elapsed_s.max(1e-9);
        self.stall_limit =
            ((seconds.max(0.0) * per_s) as u64).max(STALL_TICKS.saturating_mul(self.per_tick));
        self
    }

    /// The coarse clock, to read it plainly.
    pub fn base_mut(&mut self) -> &mut C {
        &mut self.base
    }

    /// What calibration found.
    pub fn calibration(&self) -> &Calibration {
        &self.calibration
    }

    /// The clock's name, description and claim, for a front end to adjust.
    pub fn info_mut(&mut self) -> &mut ClockInfo {
        &mut self.info
    }

    /// A coarse value in this clock's counts, `d × K / tick`: exact for an edge (a whole
    /// number of ticks from the origin), within a count for a value between. A start runs
    /// this between its edge and its return, so it is quick: in 64 bits and a float, not a
    /// division of 128 bits (a long routine in wasm, which added 0.2–0.4 µs to Firefox's
    /// shots of 30 µs).
    fn scale(&self, coarse: u64) -> u64 {
        let d = self.base.info().diff(self.origin, coarse);
        let (whole, part) = (d / self.tick, d % self.tick);
        let part = part as f64 * self.per_tick as f64 / self.tick as f64;
        whole.wrapping_mul(self.per_tick).wrapping_add(part as u64)
    }

    /// Spins from the current coarse value to the next: that edge's raw value and the reads.
    fn spin_from(&mut self, from: u64) -> Option<(u64, u64)> {
        match spin_to_edge(&mut self.base, from, self.stall_limit) {
            (Some(e), m) => Some((e, m)),
            (None, reads) => {
                self.fault.get_or_insert(ClockFault::Stalled { reads });
                None
            }
        }
    }

    /// Waits for the second edge and returns its time exactly: the start of a single-shot
    /// timing that ends with [`Interpolated::stop`] (or [`Clock::read`]). The first edge
    /// runs the code between an edge and the return once, so that it runs warm on the
    /// second: after other work it ran cold, and Firefox's shots of 30 µs begun on the
    /// first edge came out 0.55–0.72 µs long, against 0.14–0.34 µs on the second (next to
    /// the same work timed 256× as long). Waits up to two ticks.
    pub fn start(&mut self) -> u64 {
        self.next_edge();
        self.next_edge()
    }

    /// The next edge's time, exactly (or the last value, if the coarse clock stalled).
    fn next_edge(&mut self) -> u64 {
        let from = self.base.read();
        if let Some((e, _)) = self.spin_from(from) {
            self.last = self.scale(e);
        }
        self.last
    }

    /// The end of a single-shot timing: like [`Clock::read`], but the reads spun to the edge
    /// are converted at the pace of the tick that follows it, counted on the spot, not at
    /// calibration's. A machine's pace of reads drifts (a busy sibling core, a frequency
    /// step) by far more than one read in a tick; one tick later it has not moved. Waits up
    /// to two ticks.
    pub fn stop(&mut self) -> u64 {
        let from = self.base.read();
        let Some((edge, m)) = self.spin_from(from) else {
            return self.last;
        };
        // The pace is counted from this edge on: nothing runs between the two spins.
        let paced = self.spin_from(edge);
        let e = self.scale(edge);
        let Some((next, k)) = paced else {
            self.last = e.wrapping_sub(m);
            return self.last;
        };
        // A slow read can skip an edge: the pace is over the ticks actually spanned.
        let spanned = self.base.info().diff(edge, next) as f64 / self.tick as f64;
        let per_tick = k as f64 / spanned.round().max(1.0);
        let back = (m as f64 * self.per_tick as f64 / per_tick).round() as u64;
        self.at_edge = Some(next);
        self.last = e.wrapping_sub(back);
        self.last
    }
}

impl<C: Clock> Clock for Interpolated<C> {
    fn info(&self) -> &ClockInfo {
        &self.info
    }

    /// The time this read began: the next edge less the reads spun to reach it.
    fn read(&mut self) -> u64 {
        let from = self.base.read();
        match self.spin_from(from) {
            Some((e, m)) => {
                self.last = self.scale(e).wrapping_sub(m);
                self.last
            }
            None => self.last,
        }
    }

    /// A run begins on an edge: the one the last run's end stopped on when the coarse
    /// clock still shows it (runs back to back wait for no other), else the next: not
    /// [`Interpolated::start`]'s second, whose tick more per run cost a fit's budget a
    /// share of its runs (slopes 0.24-0.36 ns, not 0.27, through a 100 µs clamp in
    /// `ticklab run`). Either way the run can only begin after the edge, so a timing can
    /// only come out long, which the minimum of a fit's runs leaves out.
    fn begin(&mut self) -> u64 {
        if let Some(edge) = self.at_edge.take() {
            if self.base.read() == edge {
                self.last = self.scale(edge);
                return self.last;
            }
        }
        self.next_edge()
    }

    /// A run ends at the pace of the moment ([`Interpolated::stop`]).
    fn end(&mut self) -> u64 {
        self.stop()
    }

    fn take_fault(&mut self) -> Option<ClockFault> {
        self.fault.take().or_else(|| self.base.take_fault())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{Clamp, ClampStyle, Counter, SimTime, Timeline};

    /// A 100 µs floor clamp over simulated time where each read costs 25 ns.
    fn clamp(tl: &Timeline) -> Clamp<SimTime> {
        Clamp::new(
            SimTime::new(tl, 25_000, 0, 3),
            ClampStyle::Firefox,
            100_000,
            1,
        )
        .unwrap()
    }

    #[test]
    fn calibration_counts_reads_per_tick() {
        let tl = Timeline::new(0);
        let mut sw = tl.stopwatch();
        let c = Interpolated::calibrate(clamp(&tl), 100_000, &mut sw, 0.01).unwrap();
        assert_eq!(c.calibration().per_tick, 4000);
        let ns = c.info().period.ns_per_count().unwrap();
        assert!((ns - 25.0).abs() < 1e-9, "{ns}");
    }

    #[test]
    fn single_shot_timing_resolves_far_below_the_tick() {
        let tl = Timeline::new(0);
        let mut sw = tl.stopwatch();
        let mut c = Interpolated::calibrate(clamp(&tl), 100_000, &mut sw, 0.01).unwrap();
        let ns = c.info().period.ns_per_count().unwrap();
        for work_ns in [3_000u64, 31_337, 77_777, 250_001] {
            let a = c.start();
            tl.advance(work_ns * 1000);
            let b = c.read();
            let got = b.wrapping_sub(a) as f64 * ns;
            assert!(
                (got - work_ns as f64).abs() <= 60.0,
                "{work_ns} ns timed as {got}"
            );
        }
    }

    /// A clamp whose reads cost `extra` ps more than calibration saw, once `slow` is set.
    struct Slowed<'a> {
        inner: Clamp<SimTime>,
        tl: &'a Timeline,
        slow: std::rc::Rc<std::cell::Cell<u64>>,
    }

    impl Clock for Slowed<'_> {
        fn info(&self) -> &ClockInfo {
            self.inner.info()
        }
        fn read(&mut self) -> u64 {
            self.tl.advance(self.slow.get());
            self.inner.read()
        }
    }

    #[test]
    fn a_stop_converts_its_reads_at_the_pace_of_the_moment() {
        let tl = Timeline::new(0);
        let mut sw = tl.stopwatch();
        let slow = std::rc::Rc::new(std::cell::Cell::new(0));
        let base = Slowed {
            inner: clamp(&tl),
            tl: &tl,
            slow: slow.clone(),
        };
        let mut c = Interpolated::calibrate(base, 100_000, &mut sw, 0.01).unwrap();
        let ns = c.info().period.ns_per_count().unwrap();
        // Reads now cost 40 ns, not the 25 calibrated: a drift of 60%. Within 2.5 reads.
        slow.set(15_000);
        for work_ns in [3_000u64, 31_337, 77_777, 250_001] {
            let a = c.start();
            tl.advance(work_ns * 1000);
            let b = c.stop();
            let got = b.wrapping_sub(a) as f64 * ns;
            assert!(
                (got - work_ns as f64).abs() <= 100.0,
                "{work_ns} ns timed as {got} by stop"
            );
            // A plain read converts its reads at calibration's 25 ns: short by 15/40 of the spin.
            let a = c.start();
            tl.advance(work_ns * 1000);
            let b = c.read();
            let got = b.wrapping_sub(a) as f64 * ns;
            let off = (work_ns as f64 - got).abs();
            let spun = (100_000 - work_ns % 100_000) as f64;
            assert!(
                (off - spun * 15.0 / 40.0).abs() <= 200.0,
                "{work_ns} ns timed as {got} by read"
            );
        }
    }

    #[test]
    fn a_frozen_coarse_clock_fails_calibration_within_its_budget() {
        let tl = Timeline::new(0);
        let mut sw = tl.stopwatch();
        let frozen = crate::synthetic::Frozen::new(SimTime::new(&tl, 25_000, 0, 1), 5);
        let e = Interpolated::calibrate(frozen, 1000, &mut sw, 0.01)
            .err()
            .unwrap();
        assert!(matches!(e, Error::Frozen { .. }), "{e}");
        assert!(tl.now_ps() < 2_000_000_000_000);
    }

    /// A 1 µs counter that stops advancing after `until` reads.
    struct Stops {
        inner: Counter<SimTime>,
        reads: u64,
        until: u64,
        last: u64,
    }

    impl Clock for Stops {
        fn info(&self) -> &ClockInfo {
            self.inner.info()
        }
        fn read(&mut self) -> u64 {
            self.reads += 1;
            // Time goes on (the read still costs), the value stops.
            let v = self.inner.read();
            if self.reads <= self.until {
                self.last = v;
            }
            self.last
        }
    }

    #[test]
    fn a_stall_after_calibration_is_a_fault_not_a_hang() {
        let tl = Timeline::new(0);
        let mut sw = tl.stopwatch();
        let inner = Counter::new(
            SimTime::new(&tl, 1_000, 0, 1),
            crate::clock::Ratio::integer(1).unwrap(),
            1000,
            64,
        )
        .unwrap();
        let base = Stops {
            inner,
            reads: 0,
            until: 3_000_000,
            last: 0,
        };
        // No time floor: simulated reads are so fast that a quarter second is 2.5e8 of them.
        let mut c = Interpolated::calibrate(base, 1000, &mut sw, 0.001)
            .unwrap()
            .stall_after(0.0);
        assert!(c.take_fault().is_none());
        let before = c.read();
        assert!(c.take_fault().is_none());
        // Past `until` the base is frozen: each read gives up after a bounded spin.
        for _ in 0..3_000 {
            c.read();
        }
        assert!(matches!(c.take_fault(), Some(ClockFault::Stalled { .. })));
        assert!(c.read() >= before);
        assert!(Interpolated::calibrate(clamp(&tl), 1, &mut sw, 0.01).is_err());
    }
}
