//! The playground of a class: a simulated clock whose tick, jitter, read cost and workload
//! cost per N are set with sliders. Each change runs the lab's own tick, overhead and fit
//! experiments on simulated time, so what the plots show is what the lab would find.

use serde::{Deserialize, Serialize};
use ticklab::characterise::{characterise_with, Plan};
use ticklab::fit::FitOptions;
use ticklab::overhead::OverheadOptions;
use ticklab::present;
use ticklab::report::ClockReport;
use ticklab::run::{Budget, Flow};
use ticklab::synthetic::{Clamp, ClampStyle, SimTime, Timeline};
use ticklab::tick::TickOptions;
use ticklab::workload::{SimWork, WorkloadKind};

/// The sliders' positions as the page reads them: powers of ten for the durations.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub struct Knobs {
    /// log10 of the tick in ns (0 to 6: 1 ns to 1 ms).
    pub tick: f64,
    /// Chromium's jittered clamp when true; a plain floor when false.
    pub jitter: bool,
    /// log10 of one read's cost in ns (1 to 4: 10 ns to 10 µs).
    pub read: f64,
    /// log10 of the workload's cost per N in ns (-1 to 3).
    pub per_n: f64,
}

const TICK: (f64, f64) = (0.0, 6.0);
const READ: (f64, f64) = (1.0, 4.0);
const PER_N: (f64, f64) = (-1.0, 3.0);

// Reads the experiments may take in all, so a change is redrawn in a fraction of a
// second; simulated time is free, reads are not.
const TICK_READS: f64 = 200_000.0;
// Ticks the experiments wait through, for timings enough to show bands, unless that would
// take more than MAX_READS reads.
const TICKS: f64 = 200.0;
const MAX_READS: f64 = 4_000_000.0;
const FIT_RUNS: u64 = 240;

/// The sliders' values in words, as the page shows them beside each slider.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KnobWords {
    /// The tick.
    pub tick: String,
    /// The clamp's style.
    pub jitter: String,
    /// One read's cost.
    pub read: String,
    /// The cost per N.
    pub per_n: String,
}

fn ns(log10: f64, (lo, hi): (f64, f64), what: &str) -> Result<f64, String> {
    if log10.is_finite() && (lo..=hi).contains(&log10) {
        Ok(10f64.powf(log10))
    } else {
        Err(format!(
            "{what}: {log10} is outside the slider's {lo} to {hi}"
        ))
    }
}

impl Knobs {
    /// The values in ns: tick, read cost, cost per N.
    pub fn values(&self) -> Result<(f64, f64, f64), String> {
        Ok((
            ns(self.tick, TICK, "tick")?.round().max(1.0),
            ns(self.read, READ, "read cost")?,
            ns(self.per_n, PER_N, "cost per N")?,
        ))
    }

    /// The values in words.
    pub fn words(&self) -> Result<KnobWords, String> {
        let (tick, read, per_n) = self.values()?;
        Ok(KnobWords {
            tick: present::duration(tick),
            jitter: if self.jitter {
                "jittered as Chromium does".into()
            } else {
                "a plain floor".into()
            },
            read: present::duration(read),
            per_n: format!("{} per N", present::duration(per_n)),
        })
    }
}

/// Runs the tick, overhead and fit experiments on the simulated clock the knobs describe.
pub fn run(k: &Knobs, seed: u64) -> Result<ClockReport, String> {
    let (tick_ns, read_ns, per_n_ns) = k.values()?;
    let tl = Timeline::new(1_000_000_000_000);
    // Reads vary by a tenth of their cost, as real ones do.
    let read_ps = (read_ns * 1000.0).round() as u64;
    let src = SimTime::new(&tl, read_ps, read_ps / 10, seed);
    let style = if k.jitter {
        ClampStyle::Chromium
    } else {
        ClampStyle::Firefox
    };
    let mut clock = Clamp::new(src, style, tick_ns as u64, seed).map_err(|e| e.to_string())?;
    clock.info_mut().name = "playground clock".into();
    // Budgets in simulated seconds, sized to a bounded number of reads.
    let spin_s = (TICK_READS * read_ns)
        .max(TICKS * tick_ns)
        .min(MAX_READS * read_ns)
        * 1e-9;
    let b = |s: f64, n: u64| Budget::new(s.clamp(1e-6, 3600.0), n).map_err(|e| e.to_string());
    let mut fit = FitOptions::new(b(3600.0, FIT_RUNS)?);
    fit.points = 24;
    fit.runs = 10;
    fit.seed = seed;
    let plan = Plan {
        tick: TickOptions::new(b(spin_s, 4000)?),
        overhead: Some(OverheadOptions::new(b(spin_s, 200)?)),
        fits: vec![(WorkloadKind::Count, fit)],
    };
    let per_n_ps = per_n_ns * 1000.0;
    // The work varies by a hundredth of a tick and now and then is interrupted: the lesson
    // of the minimum needs something above it.
    let noise = (tick_ns * 10.0).round() as u64;
    let mut build = |_| -> Box<dyn ticklab::workload::Workload> {
        Box::new(
            SimWork::new(&tl, 50_000.0, per_n_ps, noise, seed ^ 0x5a)
                .with_interrupts(50_000, (tick_ns * 3000.0) as u64),
        )
    };
    let mut sw = tl.stopwatch();
    // As a trait object, the experiments are the very code the page's clocks run (and the
    // module carries one copy of them).
    let mut clock: Box<dyn ticklab::Clock> = Box::new(clock);
    characterise_with(
        &mut clock,
        &mut sw,
        &mut |_| Flow::Continue,
        &plan,
        &mut build,
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ticklab::tick::Grid;

    fn knobs(tick: f64, jitter: bool, read: f64, per_n: f64) -> Knobs {
        Knobs {
            tick,
            jitter,
            read,
            per_n,
        }
    }

    #[test]
    fn the_lab_finds_the_playgrounds_tick_and_slope() {
        for (tick, jitter) in [(5.0, false), (5.0, true), (3.0, false), (6.0, true)] {
            let r = run(&knobs(tick, jitter, 1.5, 1.0), 7).unwrap();
            let t = r.tick.as_ref().expect("a tick");
            let want = 10f64.powf(tick);
            let got = t.tick_ns.unwrap();
            assert!((got - want).abs() / want < 0.01, "{tick} {jitter}: {got}");
            let f = &r.fits[0];
            let slope = f.slope_ns.unwrap();
            assert!((slope - 10.0).abs() < 0.5, "{tick} {jitter}: slope {slope}");
        }
    }

    /// The jitter switch is what the edges' grid answers, at every tick the slider offers
    /// with enough reads in a tick to tell.
    #[test]
    fn the_edges_grid_follows_the_jitter_switch() {
        for tick in [4.0, 5.0, 6.0] {
            for jitter in [false, true] {
                for seed in [1, 2, 3] {
                    let r = run(&knobs(tick, jitter, 1.5, 0.0), seed).unwrap();
                    let g = r.tick.as_ref().and_then(|t| t.edge_grid.clone());
                    let g = g.unwrap_or_else(|| panic!("{tick} {jitter}: no grid"));
                    let want = if jitter {
                        Grid::Jittered
                    } else {
                        Grid::NotSeen
                    };
                    assert_eq!(g.grid, want, "{tick} {jitter} {seed}: {g:?}");
                }
            }
        }
    }

    #[test]
    fn knobs_outside_the_sliders_are_refused_and_values_have_words() {
        assert!(run(&knobs(7.0, false, 1.0, 0.0), 1)
            .unwrap_err()
            .contains("tick"));
        assert!(knobs(3.0, false, f64::NAN, 0.0).values().is_err());
        assert!(knobs(3.0, false, 0.5, 0.0).values().is_err());
        let w = knobs(5.0, true, 1.0, 0.0).words().unwrap();
        assert_eq!(w.tick, "100.000 µs");
        assert_eq!(w.read, present::duration(10.0));
        assert!(w.per_n.ends_with("per N"));
    }
}
