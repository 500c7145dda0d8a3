//! The page's figures of BENCHMARKS.md, measured in the lab's worker: the cost of
//! performance.now through wasm, a slope through a 100 µs clamp against the counter on the
//! same runs, interpolated single shots, and the least-values fit's speed in wasm.

use js_sys::Int32Array;
use serde::Serialize;
use ticklab::characterise::{characterise, Plan};
use ticklab::clock::Clock;
use ticklab::fit::{self, FitOptions, Reference};
use ticklab::overhead::OverheadOptions;
use ticklab::report::Figure;
use ticklab::run::{quiet, Budget, Run};
use ticklab::stats::Summary;
use ticklab::synthetic::{staircase_points, Clamp, ClampStyle, ClockTime};
use ticklab::tick::{self, TickOptions};
use ticklab::workload::{CountDown, Workload};
use wasm_bindgen::prelude::*;
use web_sys::Performance;

use crate::catalogue::{self, ClockId, Context};
use crate::clocks::{build, counter_clock, interpolated_over_counter, performance, SharedCounter};

/// A figure as measured: the value, whether it meets its target, a note; or why it failed.
type Measured = Result<(String, bool, String), String>;

fn row(figure: u8, name: &str, target: &str, measured: Measured) -> Figure {
    let has_target = !target.starts_with('(');
    let (m, ok, note) = match measured {
        Ok((m, ok, note)) => (m, ok, note),
        Err(why) => ("failed".to_string(), false, why),
    };
    let mut f = Figure::new(figure, name, target, m, has_target.then_some(ok));
    f.note = note;
    f
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn median(v: &[f64]) -> f64 {
    Summary::of(v).map_or(f64::NAN, |s| s.median)
}

/// The lab's cost of a performance.now read in this worker, in ns: through wasm, and from
/// the page's own JavaScript.
fn lab_read_ns(ctx: &Context) -> Result<(f64, f64), String> {
    let entry = catalogue::entry(ctx, ClockId::PerformanceNow);
    let (mut clock, mut sw) = build(&entry, None)?;
    let plan = Plan {
        tick: TickOptions::new(Budget::new(0.3, 200_000).map_err(err)?),
        overhead: Some(OverheadOptions::new(
            Budget::new(1.0, 100_000).map_err(err)?,
        )),
        fits: vec![],
    };
    let mut q = quiet;
    let r = characterise(&mut clock, sw.as_mut(), &mut q, &plan).map_err(err)?;
    let o = r
        .overhead
        .ok_or_else(|| format!("no overhead: {:?}", r.errors))?;
    match (o.per_read_ns, o.own_per_read_ns) {
        (Some(wasm), Some(own)) => Ok((wasm, own)),
        _ => Err(o
            .unusable
            .iter()
            .chain(&o.caveats)
            .map(ticklab::present::caveat)
            .collect::<Vec<_>>()
            .join("; ")),
    }
}

/// The lab's read cost of performance.now from JavaScript against a plain JavaScript loop
/// (like with like, the row with a target), and through wasm against it (the crossing).
fn read_costs(ctx: &Context, js_read_ns: f64) -> [Measured; 2] {
    if !(js_read_ns.is_finite() && js_read_ns > 0.0) {
        let why = format!("the JavaScript loop gave {js_read_ns} ns");
        return [Err(why.clone()), Err(why)];
    }
    let (wasm, own) = match lab_read_ns(ctx) {
        Ok(v) => v,
        Err(why) => return [Err(why.clone()), Err(why)],
    };
    let d = ticklab::present::duration;
    let r = own / js_read_ns;
    [
        Ok((
            format!("{r:.3} ({} / {})", d(own), d(js_read_ns)),
            (0.9..=1.1).contains(&r),
            String::new(),
        )),
        Ok((
            format!("{:.3} ({} / {})", wasm / own, d(wasm), d(own)),
            true,
            "blocks of each, of the same length, taken in turn".into(),
        )),
    ]
}

fn secs(perf: &Performance) -> impl FnMut() -> f64 {
    let p = perf.clone();
    move || p.now() / 1000.0
}

fn sub_tick(cell: &Int32Array, perf: &Performance) -> Result<(String, bool, String), String> {
    // Boxed as the lab's own runs box them, so no second copy of the experiments' code is
    // compiled for these types (the page's weight has a budget).
    // One calibration for both: the counter's period, measured twice, differs by percents
    // on a busy machine, and the ratio of slopes would show that instead.
    let counter = counter_clock(cell.clone(), perf)?;
    let mut probe = counter.clone();
    let t = ClockTime::new(counter.clone()).map_err(err)?;
    let mut clamp: Box<dyn Clock> =
        Box::new(Clamp::new(t, ClampStyle::Chromium, 100_000, 0x7ec1).map_err(err)?);
    let mut fine: Box<dyn Clock> = Box::new(counter);
    let mut work: Box<dyn Workload> = Box::new(CountDown);
    let mut sw = secs(perf);
    let mut q = quiet;
    let budget = Budget::new(0.5, 100_000).map_err(err)?;
    let mut run = Run::new(&mut sw, &mut q);
    let tick = tick::measure(&mut clamp, &mut run, &TickOptions::new(budget)).map_err(err)?;
    let mut opts = FitOptions::new(Budget::new(5.0, 1_000_000).map_err(err)?);
    opts.points = 24;
    opts.runs = 100_000;
    opts.target_ns = Some(20e6);
    let mut sw = secs(perf);
    let mut run = Run::new(&mut sw, &mut q);
    let reference = Reference {
        clock: fine.as_mut(),
        tick_counts: 1.0,
    };
    let (a, b) = fit::measure_against(
        &mut clamp,
        reference,
        work.as_mut(),
        tick.estimate.tick,
        0.0,
        &mut run,
        &opts,
    )
    .map_err(err)?;
    // Run by run, as the native coarse clock's row: the counter's pace varies (it counts
    // faster when not read), so the fastest runs of the two clocks need not be the same runs.
    let (sa, sb) = (
        a.every_run_slope_ns().unwrap_or(f64::NAN),
        b.every_run_slope_ns().unwrap_or(f64::NAN),
    );
    let dev = (sa / sb - 1.0).abs();
    let runs: u64 = a.points.iter().map(|p| p.runs_done).sum();
    Ok((
        format!("{:.2}% ({sa:.4} vs {sb:.4} ns/iteration)", dev * 100.0),
        dev <= 0.02,
        format!(
            "tick {}, {runs} runs in {:.1} s, both slopes by least squares over every run; {}",
            ticklab::present::duration(a.tick_counts),
            a.elapsed_s,
            counter_pauses(&mut probe, perf)
        ),
    ))
}

/// How often the counter stood still for 5 µs or more over 50 ms of back-to-back reads: its
/// worker shares two cores with the page, and a paused counter is a clock that stopped.
fn counter_pauses(c: &mut SharedCounter, perf: &Performance) -> String {
    let (t0, mut reads, mut run, mut runs) = (perf.now(), 0u64, 0u64, Vec::new());
    let first = c.read();
    let mut prev = first;
    while perf.now() - t0 < 50.0 {
        for _ in 0..1024 {
            let r = c.read();
            if r == prev {
                run += 1;
            } else {
                runs.push(run);
                run = 0;
                prev = r;
            }
        }
        reads += 1024;
    }
    runs.push(run);
    let elapsed_ns = (perf.now() - t0) * 1e6;
    let per_read = elapsed_ns / reads as f64;
    let long: Vec<f64> = runs
        .iter()
        .map(|&n| n as f64 * per_read)
        .filter(|&ns| ns >= 5_000.0)
        .collect();
    let total: f64 = long.iter().sum();
    let read_pace = c.info().diff(first, prev) as f64 / elapsed_ns;
    // The same counter left alone for 50 ms: reads contend for its cache line, so its pace
    // while spun on (calibration, waits for an edge) may not be its pace under a workload.
    let (t1, c1) = (perf.now(), c.read());
    let mut w = CountDown;
    while perf.now() - t1 < 50.0 {
        w.run(10_000);
    }
    let (t2, c2) = (perf.now(), c.read());
    let idle_pace = c.info().diff(c1, c2) as f64 / ((t2 - t1) * 1e6);
    format!(
        "the counter paused ≥ 5 µs {} times in 50 ms ({:.0}% of the time, longest {}); it \
         counts {:.2}× as fast when not read",
        long.len(),
        100.0 * total / elapsed_ns,
        ticklab::present::duration(long.iter().copied().fold(0.0, f64::max)),
        idle_pace / read_pace
    )
}

/// Count-down size whose run lasts about `ns` on `clock` (ns counts), measured after 200 ms
/// of warm-up: a loop the engine has not yet optimised runs at half speed or less (seen in
/// Firefox: sizes for 16 µs where 30 were asked), and the shots would then be shorter than
/// they say.
fn size_for(clock: &mut dyn Clock, ns_per_count: f64, ns: f64) -> u64 {
    let mut w = CountDown;
    let start = clock.read();
    // A bound in work too: a clock that stopped would hold the loop for ever.
    for _ in 0..1 << 15 {
        let now = clock.read();
        if clock.info().diff(start, now) as f64 * ns_per_count >= 2e8 {
            break;
        }
        w.run(1 << 16);
    }
    let mut n = 1024u64;
    loop {
        let a = clock.read();
        w.run(n);
        let b = clock.read();
        let took = clock.info().diff(a, b) as f64 * ns_per_count;
        if took >= ns / 4.0 || n >= 1 << 34 {
            return ((n as f64) * ns / took.max(1.0)).max(1.0) as u64;
        }
        n *= 2;
    }
}

/// The figure of interpolated single shots: the median |error| against ≤ 1 µs, unless the
/// clock failed.
fn shots(
    errors: &[f64],
    fault: Option<ticklab::error::ClockFault>,
    note: String,
) -> Result<(String, bool, String), String> {
    if let Some(f) = fault {
        return Err(f.to_string());
    }
    let e = median(errors);
    Ok((ticklab::present::duration(e), e <= 1000.0, note))
}

fn interpolation(
    cell: &Int32Array,
    perf: &Performance,
    style: ClampStyle,
) -> Result<(String, bool, String), String> {
    let mut fine = counter_clock(cell.clone(), perf)?;
    let mut c = interpolated_over_counter(fine.clone(), perf, style)?;
    let ns = c.info().period.ns_per_count().ok_or("no period")?;
    let fine_ns = fine.info().period.ns_per_count().ok_or("no period")?;
    let n = size_for(&mut fine, fine_ns, 30_000.0);
    let mut w = CountDown;
    let (mut errors, mut truth) = (Vec::new(), Vec::new());
    for _ in 0..500 {
        let t0 = c.start();
        let f0 = fine.read();
        w.run(n);
        let f1 = fine.read();
        let t1 = c.stop();
        let real = fine.info().diff(f0, f1) as f64 * fine_ns;
        // Signed: a read can come out before its start when the counter paused meanwhile.
        errors.push((t1.wrapping_sub(t0) as i64 as f64 * ns - real).abs());
        truth.push(real);
    }
    shots(
        &errors,
        c.take_fault(),
        format!(
            "the counter is no ground truth: workload {} median; {} reads per tick, one count {}; {}",
            ticklab::present::duration(median(&truth)),
            c.calibration().per_tick,
            ticklab::present::duration(ns),
            counter_pauses(&mut fine, perf)
        ),
    )
}

/// performance.now made finer than its clamp by counting reads to its next edge, checked
/// against no other clock. The reference for a single shot is the same workload 256 times
/// as long, timed by plain performance.now just before and just after the shot (the least
/// of two blocks each side): its duration / 256 is the shot's to within tick / 256. A machine's cores change speed in
/// steps (here 0.31, 0.34 and 0.42 ns per iteration, each steady to a few ns over 30 µs),
/// so a line fitted once would be the fastest step, not the shot's; a shot whose two
/// blocks disagree by more than 1% changed step meanwhile and has no reference: it is
/// counted, not scored. Three batches, each calibrated anew; the least median is the figure
/// (see below). Where the edges are regular (Firefox's plain clamp) shots of ~30 µs should
/// come out within a microsecond; Chromium's jittered clamp moves every edge.
fn interpolation_of_now(perf: &Performance) -> Result<(String, bool, String), String> {
    const LONG: u64 = 256;
    const SCORED: usize = 100;
    const BATCHES: usize = 3;
    let now_clock = || {
        let p = perf.clone();
        ticklab::clock::FloatClock::milliseconds(
            "performance.now",
            ticklab::clock::ClockKind::Monotonic,
            move || p.now(),
        )
    };
    let mut a = now_clock();
    let mut sw = secs(perf);
    let mut q = quiet;
    let mut run = Run::new(&mut sw, &mut q);
    let t = tick::measure(
        &mut a,
        &mut run,
        &TickOptions::new(Budget::new(0.3, 100_000).map_err(err)?),
    )
    .map_err(err)?;
    let tick_counts = t.estimate.tick.round().max(2.0);
    // One count of performance.now here is 1 ns.
    let n = (size_for(&mut a, 1.0, 30_000.0 * LONG as f64) / LONG).max(1);
    let mut w = CountDown;
    let mut block = |a: &mut ticklab::clock::FloatClock<_>| {
        let s = a.read();
        w.run(n * LONG);
        a.read().wrapping_sub(s) as f64 / LONG as f64
    };
    let mut batches: Vec<Batch> = Vec::new();
    let mut failures = Vec::new();
    for _ in 0..BATCHES {
        let mut sw = secs(perf);
        let mut c = ticklab::interpolate::Interpolated::calibrate(
            now_clock(),
            tick_counts as u64,
            &mut sw,
            0.3,
        )
        .map_err(err)?;
        let ns = c.info().period.ns_per_count().ok_or("no period")?;
        let mut b = Batch {
            per_tick: c.calibration().per_tick,
            ns,
            ..Batch::default()
        };
        let mut shot = CountDown;
        // Shots until 100 have a reference, for at most 8 s: a machine that changes speed
        // often leaves many shots without one (152 of 200 in one run).
        let started = perf.now();
        while b.errors.len() < SCORED && perf.now() - started < 8000.0 {
            b.tried += 1;
            // Each side the least of two blocks: time the page's thread is held up only
            // lengthens a block, as it does any timing (a single shot mostly escapes it).
            let before = block(&mut a).min(block(&mut a));
            let t0 = c.start();
            shot.run(n);
            let t1 = c.stop();
            let after = block(&mut a).min(block(&mut a));
            if (before - after).abs() > 0.01 * before.min(after) {
                b.moved += 1;
                continue;
            }
            let expected = (before + after) / 2.0;
            let e = t1.wrapping_sub(t0) as i64 as f64 * ns - expected;
            b.errors.push(e.abs());
            b.signed.push(e);
            b.truth.push(expected);
        }
        if let Some(f) = c.take_fault() {
            failures.push(f.to_string());
        } else if b.errors.len() < SCORED / 2 {
            failures.push(format!(
                "the workload changed speed around {} of {} shots in 8 s: too few with a reference",
                b.moved, b.tried
            ));
        } else {
            batches.push(b);
        }
    }
    // Time stolen from the page (another process, the host) lengthens the 256× blocks more
    // often than a 30 µs shot, and a stolen shot is long: either way the error grows, never
    // shrinks. So, as the minimum of timings, the least of the batches' medians is the one
    // least disturbed; every batch is shown.
    let Some(best) = batches
        .iter()
        .min_by(|x, y| median(&x.errors).total_cmp(&median(&y.errors)))
    else {
        return Err(failures.join("; "));
    };
    let all: Vec<String> = batches
        .iter()
        .map(|b| {
            format!(
                "{} (signed {}, {} of {} shots scored; {} reads a tick)",
                ticklab::present::duration(median(&b.errors)),
                ticklab::present::duration(median(&b.signed)),
                b.errors.len(),
                b.tried,
                b.per_tick
            )
        })
        .chain(failures.iter().map(|f| format!("failed: {f}")))
        .collect();
    shots(
        &best.errors,
        None,
        format!(
            "least of {BATCHES} batches, each calibrated anew: {}. Shots of N = {n} ({} median by blocks {LONG}× as long, the least of two before and of two after each, ±{} by the tick), left out where the two sides disagreed by over 1%; tick {}; one count {}",
            all.join("; "),
            ticklab::present::duration(median(&best.truth)),
            ticklab::present::duration(tick_counts / LONG as f64),
            ticklab::present::duration(tick_counts),
            ticklab::present::duration(best.ns),
        ),
    )
}

/// One batch of interpolated single shots of performance.now, with its own calibration.
#[derive(Default)]
struct Batch {
    errors: Vec<f64>,
    signed: Vec<f64>,
    truth: Vec<f64>,
    moved: u64,
    tried: u64,
    per_tick: u64,
    ns: f64,
}

fn least_values(perf: &Performance, shuffled: bool) -> Result<(String, bool, String), String> {
    let (x, y) = staircase_points(1_000_000, shuffled);
    let mut t = Vec::new();
    for _ in 0..11 {
        let s = perf.now();
        std::hint::black_box(fit::least_values(&x, &y).map_err(err)?);
        t.push(perf.now() - s);
    }
    let m = median(&t);
    Ok((format!("{m:.1} ms"), true, String::new()))
}

#[wasm_bindgen(raw_module = "../bench-reads.js")]
extern "C" {
    /// The reference of the read cost: performance.now read by a plain JavaScript loop at
    /// its best, timed its own way (www/bench-reads.js), in ns.
    #[wasm_bindgen(js_name = plainLoopNs)]
    pub fn plain_loop_ns() -> f64;
}

/// Every page figure this worker can measure. `js_read_ns` is the plain JavaScript loop's
/// cost of a performance.now read here; `counter` the SharedArrayBuffer cell, if any.
pub fn bench(
    ctx: JsValue,
    js_read_ns: f64,
    counter: Option<Int32Array>,
) -> Result<JsValue, JsError> {
    let ctx: Context =
        serde_wasm_bindgen::from_value(ctx).map_err(|e| JsError::new(&e.to_string()))?;
    let perf = performance().map_err(|e| JsError::new(&e))?;
    let [like, crossing] = read_costs(&ctx, js_read_ns);
    let mut out = vec![
        row(
            2,
            "performance.now read cost: the lab's from JavaScript / a plain JS loop",
            "within 10%",
            like,
        ),
        row(
            2,
            "performance.now read cost: the lab's through wasm / from JavaScript (the crossing)",
            "(contrast)",
            crossing,
        ),
    ];
    let no_counter =
        || Err("needs the SharedArrayBuffer counter (cross-origin isolation)".to_string());
    // An engine that isolates a page and still gives it no SharedArrayBuffer (WebKitGTK) has
    // no counter to measure: its rows are not here, not missed.
    let absent = counter.is_none() && ctx.isolated && !ctx.shared_memory;
    let counter_row =
        |figure: u8, name: &str, target: &str, measure: &dyn Fn(&Int32Array) -> Measured| {
            if absent {
                let mut f = Figure::new(figure, name, target, "not here".to_string(), None);
                f.note =
                    "this engine gives a cross-origin isolated page no SharedArrayBuffer".into();
                return f;
            }
            row(
                figure,
                name,
                target,
                counter.as_ref().map_or_else(no_counter, measure),
            )
        };
    out.push(counter_row(
        3,
        "count slope, Chromium-style 100 µs clamp of the counter / the counter, same runs, ≤ 5 s",
        "within 2%",
        &|c| sub_tick(c, &perf),
    ));
    // Contrasts only: the counter is no ground truth (it pauses, and counts faster when not
    // read), so the target is on performance.now's own interpolation below.
    for (style, label) in [
        (ClampStyle::Firefox, "plain"),
        (ClampStyle::Chromium, "jittered"),
    ] {
        out.push(counter_row(
            4,
            &format!("interpolated {label} 100 µs clamp of the counter: single shots of ~30 µs, median |error|"),
            "(contrast)",
            &|c| interpolation(c, &perf, style),
        ));
    }
    // The page's own clock interpolated: Firefox's plain clamp has regular edges (the
    // target), Chromium's jittered one does not (a contrast that must fail).
    let firefox = catalogue::browser(&ctx.user_agent) == catalogue::Browser::Firefox;
    out.push(row(
        4,
        "interpolated performance.now: single shots of ~30 µs against the same work timed 256× as long, median |error|",
        if firefox && ctx.isolated { "≤ 1 µs" } else { "(contrast)" },
        interpolation_of_now(&perf),
    ));
    for shuffled in [false, true] {
        let order = if shuffled { "shuffled" } else { "sorted" };
        out.push(row(
            6,
            &format!("least-values fit, 1 000 000 {order} points, wasm, median of 11"),
            "(ratio to native below)",
            least_values(&perf, shuffled),
        ));
    }
    out.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}
