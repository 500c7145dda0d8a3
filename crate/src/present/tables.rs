//! Rows and columns: the summary, the details under the plots, a counter's frequency,
//! CPU against wall time.

use super::*;

/// A counter's frequency, measured and claimed: "TSC: 2445.406 MHz measured against …".
pub fn frequency(f: &CounterFrequency) -> String {
    let mut s = format!("{}: ", f.clock);
    match (f.measured_hz, &f.against) {
        (Some(hz), Some(a)) => s.push_str(&format!("{:.3} MHz measured against {a}", hz / 1e6)),
        _ => s.push_str("frequency not measured (no clock of this counter ran)"),
    }
    for c in &f.claims {
        s.push_str(&format!("; {:.3} MHz by {}", c.hz / 1e6, c.source));
    }
    if let Some(inv) = f.invariant {
        s.push_str(if inv {
            "; invariant"
        } else {
            "; not invariant"
        });
    }
    s
}

/// The columns of [`SummaryRow::cells`].
pub const SUMMARY_COLUMNS: [&str; 8] = [
    "clock",
    "claimed",
    "tick",
    "verdict",
    "explains",
    "read cost",
    "shortest block",
    "fit slope",
];

/// The columns of the page's comparison of its clocks with a native report's.
pub const COMPARE_COLUMNS: [&str; 5] = ["clock", "tick", "claimed", "read cost", "fit slope"];

/// One clock's line of the summary, every cell in words, with its notes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryRow {
    /// The cells under [`SUMMARY_COLUMNS`].
    pub cells: Vec<String>,
    /// Every note ([`notes`]).
    pub notes: Vec<String>,
    /// The tick in ns, for ordering; not shown.
    pub tick_ns: Option<f64>,
    /// How the edges fall ([`grid_key`]), when known; not shown.
    pub grid: Option<&'static str>,
}

impl SummaryRow {
    /// The row of clock `c` of a report whose counters are `counters`. A clock that is not
    /// available here says so where its tick would be, and has dashes for its figures.
    pub fn new(c: &ClockReport, counters: &[CounterFrequency]) -> Self {
        let cells = if c.available {
            // Jitter beside the tick ("100.000 µs, edges jittered"); a fixed grid in the notes.
            let jittered = c.tick.as_ref().and_then(|t| t.edge_grid.as_ref());
            vec![
                c.info.name.clone(),
                claimed(c),
                match (
                    jittered.filter(|g| g.grid == Grid::Jittered),
                    c.tick.as_ref(),
                ) {
                    (Some(_), Some(t)) => {
                        format!(
                            "{}, {}",
                            tick(c, counters),
                            grid_label(t).unwrap_or_default()
                        )
                    }
                    _ => tick(c, counters),
                },
                verdict(c),
                explains(c),
                read_cost(c),
                min_block(c),
                slope(c),
            ]
        } else {
            let mut cells = vec![DASH.to_string(); SUMMARY_COLUMNS.len()];
            cells[0] = c.info.name.clone();
            cells[1] = claimed(c);
            cells[2] = "not available".into();
            cells
        };
        Self {
            cells,
            notes: notes(c),
            tick_ns: c.tick.as_ref().and_then(|t| t.told_ns()),
            grid: c
                .tick
                .as_ref()
                .and_then(|t| t.edge_grid.as_ref())
                .map(|g| grid_key(g.grid)),
        }
    }

    /// The cell under `column` of [`SUMMARY_COLUMNS`] ("tick", "read cost"...).
    pub fn cell(&self, column: &str) -> &str {
        SUMMARY_COLUMNS
            .iter()
            .position(|c| *c == column)
            .and_then(|i| self.cells.get(i))
            .map_or(DASH, String::as_str)
    }
}

/// The tick result in a sentence, as the page writes it under the tick plots.
pub fn tick_detail(c: &ClockReport, counters: &[CounterFrequency]) -> Option<String> {
    let t = c.tick.as_ref()?;
    let e: &TickEstimate = &t.estimate;
    let smallest = counts_or_duration(e.smallest_nonzero, t.ns_per_count);
    let diff_sort = e
        .smallest_diff_sort
        .map_or(DASH.into(), |d| counts_or_duration(d, t.ns_per_count));
    let claim = match &c.info.claimed {
        Some(k) => format!("{} by {}", duration(k.ns), k.source),
        None => "nothing".into(),
    };
    Some(format!(
        "Tick {} ({}; explains {} of {} intervals). Smallest difference {smallest}; smallest \
         step of the sorted values {diff_sort}; Krutar's GCD over whole counts {}. Claimed: \
         {claim}; {}. {} edges, {} timings in {:.2} s.",
        tick(c, counters),
        method_label(e.method),
        percent(e.share_explained),
        e.intervals,
        counts_or_duration(t.exact_gcd as f64, t.ns_per_count),
        verdict_label(t.verdict),
        t.edges,
        t.timings,
        t.elapsed_s,
    ))
}

/// The read cost in a sentence, as the page writes it under the overhead plot.
pub fn overhead_detail(c: &ClockReport) -> Option<String> {
    let o = c.overhead.as_ref()?;
    Some(match &o.unusable {
        Some(why) => format!("Read cost: {DASH} ({}).", caveat(why)),
        None => {
            format!(
            "One read costs {} (the least over {} blocks of {} reads; median {}). Time nothing \
             shorter than {} (the Rule of 100).",
            read_cost(c),
            o.blocks,
            o.block_reads,
            counts_or_duration(
                o.distribution.median,
                o.per_read_ns.map(|n| n / o.per_read_counts)
            ),
            min_block(c),
        ) + &crossing(o).map(|w| format!(" {w}")).unwrap_or_default()
        }
    })
}

/// A fit's least-squares slope with its standard error ("0.2451 ns ± 0.3 ps per
/// iteration"), in counts when the period is unknown; a dash when the fit is unusable.
pub fn least_squares(f: &crate::fit::FitResult) -> String {
    match f.ols_slope_ns {
        _ if f.unusable.is_some() => DASH.into(),
        Some(s) => format!(
            "{} ± {} per {}",
            duration(s),
            duration(f.ols.slope_stderr * f.ns_per_count.unwrap_or(1.0)),
            f.unit
        ),
        None => format!("{:.4} counts per {}", f.ols.line.slope, f.unit),
    }
}

/// The first fit in a sentence, as the page writes it under the fit plots.
pub fn fit_detail(c: &ClockReport) -> Option<String> {
    let f = c.fits.first()?;
    Some(match &f.unusable {
        Some(why) => format!("{}: slope {DASH} ({}).", f.workload, caveat(why)),
        None => format!(
            "{}: {} by the least-values fit; least squares says {} per {}. {} sizes, tick {}.",
            f.workload,
            slope(c),
            match f.ols_slope_ns {
                Some(s) => duration(s),
                None => format!("{:.4} counts", f.ols.line.slope),
            },
            f.unit,
            f.points.len(),
            counts_or_duration(f.tick_counts, f.ns_per_count),
        ),
    })
}

/// The columns of the multiply's table, as [`cpu_wall_cells`] fills them.
pub const CPU_WALL_COLUMNS: [&str; 6] = [
    "N",
    "wall",
    "process CPU",
    "thread CPU",
    "MFLOPS (wall)",
    "MFLOPS (thread CPU)",
];

/// The multiply's rows in words, under [`CPU_WALL_COLUMNS`].
pub fn cpu_wall_cells(r: &CpuWall) -> Vec<Vec<String>> {
    let secs = |s: f64| duration(s * 1e9);
    let opt = |s: Option<f64>| s.map_or(DASH.into(), secs);
    r.matmul
        .iter()
        .map(|row| {
            vec![
                row.n.to_string(),
                secs(row.wall_s),
                opt(row.process_cpu_s),
                opt(row.thread_cpu_s),
                format!("{:.0}", row.mflops_wall),
                row.mflops_cpu.map_or(DASH.into(), |v| format!("{v:.0}")),
            ]
        })
        .collect()
}

/// What goes above the multiply's table, and the memory passes below it.
pub fn cpu_wall_words(r: &CpuWall) -> (String, String) {
    let c = &r.cold_vs_warm;
    (
        format!("matrix multiply, minimum of {} runs per N:", r.runs),
        format!(
            "sum of square roots over {} MiB of fresh memory:\n  first pass (cold: page \
             faults) {}\n  warm passes (minimum of 4)     {}\n  cold / warm {:.2}; the sum is \
             {} because fresh memory is zero-filled",
            c.mib,
            duration(c.cold_s * 1e9),
            duration(c.warm_s * 1e9),
            c.ratio,
            c.sum
        ),
    )
}

/// The columns of a list of clocks (`ticklab list`).
pub const LIST_COLUMNS: [&str; 7] = [
    "clock",
    "kind",
    "one count",
    "bits",
    "claimed",
    "claimed by",
    "here",
];

/// A clock's row of the list: what it is, and whether it runs here (or why not).
pub fn list_row(i: &crate::clock::ClockInfo, here: Result<(), &str>) -> Vec<String> {
    vec![
        i.name.clone(),
        kind_label(i.kind).into(),
        match i.period.ns_per_count() {
            Some(ns) => duration(ns),
            None if here.is_ok() => "measured when run".into(),
            None => "unknown".into(),
        },
        i.bits.to_string(),
        opt_duration(i.claimed.as_ref().map(|c| c.ns)),
        i.claimed.as_ref().map_or(DASH.into(), |c| c.source.clone()),
        match here {
            Ok(()) => "yes".into(),
            Err(why) => format!("no: {why}"),
        },
    ]
}

/// The tick table's columns (`ticklab tick`).
pub const TICK_COLUMNS: [&str; 10] = [
    "clock",
    "claimed",
    "tick",
    "verdict",
    "explains",
    "method",
    "smallest",
    "diff(sort)",
    "edges",
    "reads/change",
];

/// A clock's row of the tick table.
pub fn tick_row(c: &ClockReport, counters: &[CounterFrequency]) -> Vec<String> {
    let Some(k) = &c.tick else {
        return vec![c.info.name.clone(), DASH.into()];
    };
    let conv = |x: f64| counts_or_duration(x, k.ns_per_count);
    vec![
        c.info.name.clone(),
        opt_duration(k.claimed_ns),
        tick(c, counters),
        verdict(c),
        explains(c),
        method_label(k.estimate.method).into(),
        conv(k.estimate.smallest_nonzero),
        k.estimate.smallest_diff_sort.map_or(DASH.into(), conv),
        k.edges.to_string(),
        k.reads_per_change
            .as_ref()
            .map_or(DASH.into(), |r| format!("{:.0}", r.median)),
    ]
}

/// The overhead table's columns (`ticklab overhead`).
pub const OVERHEAD_COLUMNS: [&str; 9] = [
    "clock",
    "tick",
    "read cost",
    "median",
    "p95",
    "block reads",
    "blocks",
    "rule of 100",
    "shortest block",
];

/// A clock's row of the overhead table.
pub fn overhead_row(c: &ClockReport, counters: &[CounterFrequency]) -> Vec<String> {
    let Some(o) = &c.overhead else {
        return vec![c.info.name.clone(), DASH.into()];
    };
    let f = c.info.period.ns_per_count();
    let conv = |x: f64| match o.unusable {
        Some(_) => DASH.into(),
        None => counts_or_duration(x, f),
    };
    vec![
        c.info.name.clone(),
        tick(c, counters),
        conv(o.per_read_counts),
        conv(o.distribution.median),
        conv(o.distribution.p95),
        o.block_reads.to_string(),
        o.blocks.to_string(),
        if o.rule_met {
            "met".into()
        } else {
            "not met".into()
        },
        min_block(c),
    ]
}

/// The fit table's columns (`ticklab fit`).
pub const FIT_COLUMNS: [&str; 9] = [
    "clock",
    "tick",
    "workload",
    "sizes",
    "runs",
    "least-values slope",
    "least squares",
    "r²",
    "on steps",
];

/// A clock's rows of the fit table: one per fit, or a dash.
pub fn fit_rows(c: &ClockReport, counters: &[CounterFrequency]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for f in &c.fits {
        rows.push(vec![
            c.info.name.clone(),
            tick(c, counters),
            f.workload.clone(),
            format!(
                "{}..{}",
                f.points.first().map_or(0, |p| p.n),
                f.points.last().map_or(0, |p| p.n)
            ),
            f.points
                .iter()
                .map(|p| p.runs_done)
                .sum::<u64>()
                .to_string(),
            slope(c),
            least_squares(f),
            format!("{:.5}", f.ols.r2),
            format!("{}/{}", f.step.on_steps, f.points.len()),
        ]);
    }
    if c.fits.is_empty() {
        rows.push(vec![c.info.name.clone(), DASH.into()]);
    }
    rows
}
