//! A page's own reads of its clock beside the lab's through WebAssembly. The lab's make the
//! same call and cross besides, so the page's own are never dearer at their best: when
//! they are, the page's loop has not yet been compiled (an engine compiles on threads of
//! its own, which a busy machine starves). Beside two busy loops WebKit's JavaScript once
//! read performance.now at 179 ns against the lab's 60.6 ns through WebAssembly.

use ticklab::caveat::Caveat;
use ticklab::clock::{Clock, ClockInfo, Ratio};
use ticklab::overhead::{self, OverheadOptions, OverheadResult};
use ticklab::run::{quiet, Budget, Run};
use ticklab::synthetic::*;

/// A counter read through a crossing (25 ns and 35 ns a read), whose own side reads it at
/// 180 ns a read until the simulated time reaches `compiled_ps`, at 41 ns after.
struct Tiered {
    inner: Counter<SimTime>,
    tl: Timeline,
    compiled_ps: u64,
}

impl Clock for Tiered {
    fn info(&self) -> &ClockInfo {
        self.inner.info()
    }
    fn read(&mut self) -> u64 {
        self.tl.advance(35_000);
        self.inner.read()
    }
    fn read_many(&mut self, n: u64) -> bool {
        let each = if self.tl.now_ps() < self.compiled_ps {
            180_000
        } else {
            41_000
        };
        self.tl.advance(n * each);
        true
    }
}

fn measure(compiled_s: f64) -> OverheadResult {
    let tl = Timeline::new(0);
    let inner = Counter::new(
        SimTime::new(&tl, 25_000, 0, 1),
        Ratio::integer(1).unwrap(),
        1,
        64,
    )
    .unwrap();
    let mut clock = Tiered {
        inner,
        tl: tl.clone(),
        compiled_ps: (compiled_s * 1e12) as u64,
    };
    let mut sw = tl.stopwatch();
    let mut q = quiet;
    // The page's budget for a worker's clock.
    let opts = OverheadOptions::new(Budget::new(0.1, 100_000).unwrap());
    let mut run = Run::new(&mut sw, &mut q);
    overhead::measure(&mut clock, 1.0, &mut run, &opts).unwrap()
}

/// Compiled after the budget: the blocks go on until the page's loop is at its best, within
/// the crossing's limit, and both costs are told.
#[test]
fn blocks_go_on_until_the_pages_own_loop_is_at_its_best() {
    let r = measure(0.3);
    assert!(r.elapsed_s > 0.3 && r.elapsed_s < 0.5, "{} s", r.elapsed_s);
    let (lab, own) = (r.per_read_ns.unwrap(), r.own_per_read_ns.unwrap());
    assert!((lab - 60.0).abs() < 1.0, "{lab}");
    assert!((own - 41.0).abs() < 1.0, "{own}");
    assert!(
        !r.caveats
            .iter()
            .any(|c| matches!(c, Caveat::OwnDearer { .. })),
        "{:?}",
        r.caveats
    );
    let told = ticklab::present::crossing(&r).unwrap();
    assert!(told.starts_with("Crossing from JavaScript"), "{told}");
}

/// Never compiled: the blocks stop at the crossing's limit, the lab's cost is told and the
/// page's is a dash with its reason, never a figure dearer than the lab's.
#[test]
fn a_pages_own_loop_dearer_than_the_labs_is_not_told() {
    let r = measure(f64::INFINITY);
    assert!(
        r.elapsed_s >= overhead::CROSSING_LIMIT_S && r.elapsed_s < overhead::CROSSING_LIMIT_S + 0.1,
        "{} s",
        r.elapsed_s
    );
    assert!((r.per_read_ns.unwrap() - 60.0).abs() < 1.0);
    assert_eq!(r.own_per_read_ns, None);
    assert_eq!(r.own_per_read_counts, None);
    let dearer = r
        .caveats
        .iter()
        .find(|c| matches!(c, Caveat::OwnDearer { .. }))
        .unwrap_or_else(|| panic!("{:?}", r.caveats));
    let words = ticklab::present::caveat(dearer);
    assert!(words.contains("not told"), "{words}");
    assert_eq!(ticklab::present::crossing(&r), None);
}
