//! Tables, CSV, JSON and SVG plots of a report.

use std::io::Write;
use std::path::Path;

use plotters::prelude::*;
use ticklab::report::{ClockReport, CounterFrequency, Report};

use crate::cli::Output;
use crate::CliError;

/// A duration in a readable unit ("41.67 ns", "100.000 µs", "4.000 ms", "1.000 s").
pub fn ns(x: f64) -> String {
    let a = x.abs();
    if !x.is_finite() {
        "-".into()
    } else if a >= 1e9 {
        format!("{:.3} s", x / 1e9)
    } else if a >= 1e6 {
        format!("{:.3} ms", x / 1e6)
    } else if a >= 1e3 {
        format!("{:.3} µs", x / 1e3)
    } else if a >= 1.0 || a == 0.0 {
        format!("{x:.2} ns")
    } else {
        format!("{x:.4} ns")
    }
}

fn opt_ns(x: Option<f64>) -> String {
    x.map_or("-".into(), ns)
}

/// A left-aligned text table.
pub struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Self {
            rows: vec![header.iter().map(|s| s.to_string()).collect()],
        }
    }
    pub fn row(&mut self, r: Vec<String>) {
        self.rows.push(r);
    }
    pub fn render(&self) -> String {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let width: Vec<usize> = (0..cols)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for r in &self.rows {
            let line: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{s:<w$}", w = width[i]))
                .collect();
            out.push_str(line.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}

/// Writes to stdout; a closed pipe is not an error worth a panic.
pub fn print(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| {
        if text.ends_with('\n') {
            Ok(())
        } else {
            out.write_all(b"\n")
        }
    }) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::Output(format!("cannot write the output: {e}"))),
    }
}

pub fn frequency_line(f: &CounterFrequency) -> String {
    let mut s = format!("\n{}: ", f.clock);
    match (f.measured_hz, &f.against) {
        (Some(hz), Some(a)) => s.push_str(&format!("{:.3} MHz measured against {a}", hz / 1e6)),
        _ => s.push_str("frequency not measured"),
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
    s.push('\n');
    s
}

/// Which table to print.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum View {
    Summary,
    Tick,
    Overhead,
    Fit,
}

/// Prints the report as the output flags ask, and writes plots.
pub fn emit(report: &Report, o: &Output, view: View) -> Result<(), CliError> {
    if let Some(dir) = &o.plot {
        plots(report, dir)?;
    }
    if o.json {
        return print(&report.to_json()?);
    }
    if o.csv {
        return print(&ticklab::export::summary(report));
    }
    let mut text = match view {
        View::Summary => summary(report),
        View::Tick => tick_table(report),
        View::Overhead => overhead_table(report),
        View::Fit => fit_table(report),
    };
    for f in &report.environment.counters {
        text.push_str(&frequency_line(f));
    }
    text.push_str(&notes(report));
    print(&text)
}

fn notes(report: &Report) -> String {
    let mut s = String::new();
    for c in &report.clocks {
        let mut lines: Vec<String> = Vec::new();
        if let Some(r) = &c.unavailable_reason {
            lines.push(format!("not available here: {r}"));
        }
        for e in &c.errors {
            lines.push(format!("{} failed: {}", e.experiment, e.message));
        }
        if let Some(t) = &c.tick {
            lines.extend(t.caveats.iter().cloned());
            lines.extend(t.estimate.caveats.iter().cloned());
        }
        for f in &c.fits {
            lines.extend(f.unusable.iter().cloned());
            lines.extend(f.caveats.iter().cloned());
        }
        if let Some(o) = &c.overhead {
            lines.extend(o.unusable.iter().cloned());
            lines.extend(o.caveats.iter().cloned());
            if !o.rule_met {
                lines.push(format!(
                    "overhead blocks shorter than the Rule of 100 asks: error up to {:.1}%",
                    o.block_error_bound * 100.0
                ));
            }
        }
        if !lines.is_empty() {
            s.push_str(&format!("\n{}:\n", c.info.name));
            for l in lines {
                s.push_str(&format!("  - {l}\n"));
            }
        }
    }
    s
}

fn verdict(c: &ClockReport) -> String {
    c.tick.as_ref().map_or("-".into(), |t| {
        format!("{:?}", t.verdict)
            .chars()
            .flat_map(|ch| {
                if ch.is_uppercase() {
                    vec![' ', ch.to_ascii_lowercase()]
                } else {
                    vec![ch]
                }
            })
            .collect::<String>()
            .trim()
            .to_string()
    })
}

/// The tick as a person reads it: "10.01 ns (26 TSC counts)", "≤ 1.000 ms" for an upper
/// bound, "-" when there is none.
fn tick_text(c: &ClockReport, counters: &[CounterFrequency]) -> String {
    let Some(t) = &c.tick else {
        return "-".into();
    };
    let e = &t.estimate;
    let bound = if e.found() && e.reliable { "" } else { "≤ " };
    let mut s = match t.tick_ns {
        Some(v) => format!("{bound}{}", ns(v)),
        None => format!("{bound}{} counts", e.tick),
    };
    if !e.found() {
        return s;
    }
    // A tick of several counts of the clock's own counter, or of a measured counter (the
    // TSC under CLOCK_MONOTONIC), in those counts; past a few hundred counts a whole
    // number is a coincidence, not a step.
    if c.info.kind == ticklab::clock::ClockKind::Counter && e.tick >= 2.0 {
        if let Some(k) = e
            .exact
            .and_then(|x| whole_or_half(x.num as f64 / x.den as f64))
        {
            s.push_str(&format!(" ({k} counts)"));
            return s;
        }
    }
    if let Some(v) = t.tick_ns.filter(|_| e.reliable) {
        for f in counters {
            let Some(hz) = f.measured_hz.filter(|h| *h > 0.0) else {
                continue;
            };
            let k = v * hz * 1e-9;
            if f.clock == c.info.name || !(2.0..=256.0).contains(&k) {
                continue;
            }
            if let Some(k) = whole_or_half(k) {
                s.push_str(&format!(" ({k} {} counts)", short_name(&f.clock)));
                break;
            }
        }
    }
    s
}

/// `k` written as a whole or half number of counts ("26", "24.5") when it is one to within
/// a fiftieth of a count (a counter that steps 24 and 25 in turn moves 24.5 a tick);
/// otherwise none: 2445.4 counts is no step of that counter.
fn whole_or_half(k: f64) -> Option<String> {
    let near = |x: f64| (x - x.round()).abs() <= 0.02;
    if near(k) {
        Some(format!("{}", k.round()))
    } else if near(2.0 * k) {
        Some(format!("{:.1}", (2.0 * k).round() / 2.0))
    } else {
        None
    }
}

/// "TSC" for the rdtsc family's counter.
fn short_name(counter: &str) -> &str {
    if counter.contains("rdtsc") || counter == "TSC" {
        "TSC"
    } else {
        counter
    }
}

fn slope_text(c: &ClockReport) -> String {
    c.fits.first().map_or("-".into(), |f| match f.slope_ns {
        _ if f.unusable.is_some() => "-".into(),
        Some(s) => format!("{} /{}", ns(s), f.unit),
        None => format!("{:.4} counts/{}", f.least_values.line.slope, f.unit),
    })
}

fn summary(report: &Report) -> String {
    let mut t = Table::new(&[
        "clock",
        "claimed",
        "tick",
        "verdict",
        "explains",
        "read cost",
        "min block",
        "fit slope",
    ]);
    for c in &report.clocks {
        if !c.available {
            t.row(vec![c.info.name.clone(), "unavailable".into()]);
            continue;
        }
        t.row(vec![
            c.info.name.clone(),
            opt_ns(c.info.claimed.as_ref().map(|c| c.ns)),
            tick_text(c, &report.environment.counters),
            verdict(c),
            c.tick.as_ref().map_or("-".into(), |t| {
                format!("{:.1}%", t.estimate.share_explained * 100.0)
            }),
            opt_ns(c.overhead.as_ref().and_then(|o| o.per_read_ns)),
            opt_ns(c.overhead.as_ref().and_then(|o| o.min_block_ns)),
            slope_text(c),
        ]);
    }
    t.render()
}

fn tick_table(report: &Report) -> String {
    let mut t = Table::new(&[
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
    ]);
    for c in &report.clocks {
        let Some(k) = &c.tick else {
            t.row(vec![c.info.name.clone(), "-".into()]);
            continue;
        };
        let f = k.ns_per_count;
        let conv = |x: f64| f.map_or(format!("{x} counts"), |p| ns(x * p));
        t.row(vec![
            c.info.name.clone(),
            opt_ns(k.claimed_ns),
            tick_text(c, &report.environment.counters),
            verdict(c),
            format!("{:.1}%", k.estimate.share_explained * 100.0),
            format!("{:?}", k.estimate.method).to_lowercase(),
            conv(k.estimate.smallest_nonzero),
            k.estimate.smallest_diff_sort.map_or("-".into(), conv),
            k.edges.to_string(),
            k.reads_per_change
                .as_ref()
                .map_or("-".into(), |r| format!("{:.0}", r.median)),
        ]);
    }
    t.render()
}

fn overhead_table(report: &Report) -> String {
    let mut t = Table::new(&[
        "clock",
        "tick",
        "read cost",
        "median",
        "p95",
        "block reads",
        "blocks",
        "rule of 100",
        "min block",
    ]);
    for c in &report.clocks {
        let Some(o) = &c.overhead else {
            t.row(vec![c.info.name.clone(), "-".into()]);
            continue;
        };
        let f = c.info.period.ns_per_count();
        let conv = |x: f64| match f {
            _ if o.unusable.is_some() => "-".into(),
            Some(p) if p.is_finite() => ns(x * p),
            _ => format!("{x:.2} counts"),
        };
        t.row(vec![
            c.info.name.clone(),
            tick_text(c, &report.environment.counters),
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
            opt_ns(o.min_block_ns),
        ]);
    }
    t.render()
}

fn fit_table(report: &Report) -> String {
    let mut t = Table::new(&[
        "clock",
        "tick",
        "workload",
        "sizes",
        "runs",
        "least-values slope",
        "least squares",
        "r²",
        "on steps",
    ]);
    for c in &report.clocks {
        for f in &c.fits {
            let ols = match f.ols_slope_ns {
                _ if f.unusable.is_some() => "-".into(),
                Some(s) => format!(
                    "{} ± {} /{}",
                    ns(s),
                    ns(f.ols.slope_stderr * f.ns_per_count.unwrap_or(1.0)),
                    f.unit
                ),
                None => format!("{:.4} counts/{}", f.ols.line.slope, f.unit),
            };
            t.row(vec![
                c.info.name.clone(),
                tick_text(c, &report.environment.counters),
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
                slope_text(c),
                ols,
                format!("{:.5}", f.ols.r2),
                format!("{}/{}", f.step.on_steps, f.points.len()),
            ]);
        }
        if c.fits.is_empty() {
            t.row(vec![c.info.name.clone(), "-".into()]);
        }
    }
    t.render()
}

/// Writes one SVG with `draw` on an area of `size`.
pub fn svg(
    path: &Path,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> Result<(), String>,
) -> Result<(), CliError> {
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)
        .map_err(|e| CliError::Output(format!("{}: {e:?}", path.display())))?;
    draw(&root).map_err(|e| CliError::Output(format!("{}: {e}", path.display())))?;
    root.present()
        .map_err(|e| CliError::Output(format!("{}: {e:?}", path.display())))
}

/// Creates the plot directory, or says why it cannot.
pub fn plot_dir(dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::Usage(format!("--plot {}: cannot create it: {e}", dir.display())))
}

fn plots(report: &Report, dir: &Path) -> Result<(), CliError> {
    plot_dir(dir)?;
    for c in &report.clocks {
        let base = ticklab::export::slug(&c.info.name);
        if let Some(t) = &c.tick {
            let s = ticklab_plot::Scale::for_counts(t.ns_per_count);
            let v: Vec<f64> = t
                .timings_sample
                .iter()
                .map(|&x| x as f64 * s.factor)
                .collect();
            let levels: Vec<f64> = t.bands.iter().map(|b| b.level * s.factor).collect();
            svg(&dir.join(format!("{base}.raw.svg")), (800, 500), |a| {
                ticklab_plot::raw_banded(a, &v, &levels, s.unit)
            })?;
            svg(&dir.join(format!("{base}.sorted.svg")), (800, 500), |a| {
                ticklab_plot::sorted(a, &v, s.unit)
            })?;
            svg(&dir.join(format!("{base}.diffsort.svg")), (800, 500), |a| {
                ticklab_plot::diff_sorted(a, &v, s.unit)
            })?;
            svg(
                &dir.join(format!("{base}.histogram.svg")),
                (800, 500),
                |a| ticklab_plot::histogram(a, &v, 60, s.unit),
            )?;
        }
        if let Some(o) = &c.overhead {
            svg(&dir.join(format!("{base}.overhead.svg")), (800, 500), |a| {
                ticklab_plot::overhead(a, o)
            })?;
        }
        for f in &c.fits {
            svg(
                &dir.join(format!("{base}.fit-{}.svg", f.workload)),
                (900, 600),
                |a| ticklab_plot::fit(a, f),
            )?;
            svg(
                &dir.join(format!("{base}.excess-{}.svg", f.workload)),
                (900, 800),
                |a| ticklab_plot::excess(a, f),
            )?;
        }
    }
    Ok(())
}
