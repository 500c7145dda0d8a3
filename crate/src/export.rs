//! CSV of every table and every plot's data, the same from the command and the page.

use crate::present;
use crate::report::{ClockReport, Report};

/// One CSV table and the file name it is offered under.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CsvTable {
    /// File name, ending in `.csv`.
    pub name: String,
    /// The table.
    pub csv: String,
}

/// A file-name-safe form of a clock name ("CLOCK_MONOTONIC" → "clock-monotonic").
pub fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    s.split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

fn opt(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| v.to_string())
}

/// CSV text with CRLF line ends: the header, then the rows. Written here rather than by the
/// csv crate (whose output the tests compare it with): the page's module carries it.
pub fn csv<I: IntoIterator<Item = Vec<String>>>(header: &[&str], rows: I) -> String {
    // The rows gathered first: the writer below is then one copy for every caller's iterator.
    csv_of(header, &rows.into_iter().collect::<Vec<_>>())
}

fn csv_of(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let mut record = |fields: &mut dyn Iterator<Item = &str>| {
        for (i, f) in fields.enumerate() {
            if i > 0 {
                out.push(',');
            }
            // Quoted as the csv crate quotes: a separator, a quote, a line break, or
            // nothing at all in a record of one field.
            if f.contains([',', '"', '\r', '\n']) {
                out.push('"');
                out.push_str(&f.replace('"', "\"\""));
                out.push('"');
            } else {
                out.push_str(f);
            }
        }
        out.push_str("\r\n");
    };
    record(&mut header.iter().copied());
    for r in rows {
        record(&mut r.iter().map(String::as_str));
    }
    out
}

/// Wall against CPU time as CSV: a row per matrix size, in seconds and MFLOPS.
pub fn cpu_wall_csv(r: &crate::cpu_wall::CpuWall) -> String {
    csv(
        &[
            "n",
            "wall_s",
            "process_cpu_s",
            "thread_cpu_s",
            "mflops_wall",
            "mflops_cpu",
        ],
        r.matmul.iter().map(|row| {
            vec![
                row.n.to_string(),
                row.wall_s.to_string(),
                opt(row.process_cpu_s),
                opt(row.thread_cpu_s),
                row.mflops_wall.to_string(),
                opt(row.mflops_cpu),
            ]
        }),
    )
}

/// One row per clock: claim, tick, verdict, read cost, the first fit's slopes, and every
/// note the command and the page show for it.
pub fn summary(report: &Report) -> String {
    csv(
        &[
            "clock",
            "available",
            "claimed_ns",
            "tick_ns",
            "tick_counts",
            "verdict",
            "share_explained",
            "read_ns",
            "min_block_ns",
            "workload",
            "slope_ns_per_unit",
            "ols_slope_ns_per_unit",
            "notes",
        ],
        report.clocks.iter().map(|c| {
            let fit = c.fits.first();
            vec![
                c.info.name.clone(),
                c.available.to_string(),
                opt(c.info.claimed.as_ref().map(|c| c.ns)),
                opt(c.tick.as_ref().and_then(|t| t.tick_ns)),
                opt(c.tick.as_ref().map(|t| t.estimate.tick)),
                c.tick
                    .as_ref()
                    .map_or(String::new(), |t| present::verdict_key(t.verdict).into()),
                opt(c.tick.as_ref().map(|t| t.estimate.share_explained)),
                opt(c.overhead.as_ref().and_then(|o| o.per_read_ns)),
                opt(c.overhead.as_ref().and_then(|o| o.min_block_ns)),
                fit.map_or(String::new(), |f| f.workload.clone()),
                opt(fit.and_then(|f| f.slope_ns)),
                opt(fit.and_then(|f| f.ols_slope_ns)),
                present::notes(c).join("; "),
            ]
        }),
    )
}

fn counts_rows(values: &[u64], ns: Option<f64>) -> impl Iterator<Item = Vec<String>> + '_ {
    values
        .iter()
        .enumerate()
        .map(move |(i, &v)| vec![i.to_string(), v.to_string(), opt(ns.map(|p| v as f64 * p))])
}

/// The data behind one clock's plots: timings, edges, bands, overhead blocks, fit runs.
pub fn clock_tables(c: &ClockReport) -> Vec<CsvTable> {
    let s = slug(&c.info.name);
    let mut out = Vec::new();
    if let Some(t) = &c.tick {
        let ns = t.ns_per_count;
        out.push(CsvTable {
            name: format!("{s}-tick-timings.csv"),
            csv: csv(
                &["index", "counts", "ns"],
                counts_rows(&t.timings_sample, ns),
            ),
        });
        out.push(CsvTable {
            name: format!("{s}-tick-edges.csv"),
            csv: csv(
                &["index", "counts", "ns"],
                counts_rows(&t.edge_intervals, ns),
            ),
        });
        out.push(CsvTable {
            name: format!("{s}-tick-bands.csv"),
            csv: csv(
                &["level_counts", "count", "lo_counts", "hi_counts"],
                t.bands.iter().map(|b| {
                    vec![
                        b.level.to_string(),
                        b.count.to_string(),
                        b.lo.to_string(),
                        b.hi.to_string(),
                    ]
                }),
            ),
        });
    }
    if let Some(o) = &c.overhead {
        let ns = o.per_read_ns.map(|n| n / o.per_read_counts);
        out.push(CsvTable {
            name: format!("{s}-overhead-blocks.csv"),
            csv: csv(
                &["block", "per_read_counts", "per_read_ns"],
                o.samples.iter().enumerate().map(|(i, &v)| {
                    vec![
                        i.to_string(),
                        v.to_string(),
                        opt(ns.filter(|n| n.is_finite()).map(|n| v * n)),
                    ]
                }),
            ),
        });
    }
    for f in &c.fits {
        let rows = f.points.iter().flat_map(|p| {
            p.runs.iter().enumerate().map(move |(i, &r)| {
                vec![
                    p.n.to_string(),
                    p.work.to_string(),
                    i.to_string(),
                    r.to_string(),
                    opt(f.ns_per_count.map(|k| r * k)),
                    (r == p.min).to_string(),
                    opt(p.excess_line.get(i).copied()),
                    opt(p.excess_step.get(i).copied()),
                ]
            })
        });
        out.push(CsvTable {
            name: format!("{s}-fit-{}.csv", slug(&f.workload)),
            csv: csv(
                &[
                    "n",
                    "work",
                    "run",
                    "counts",
                    "ns",
                    "is_minimum",
                    "excess_line_counts",
                    "excess_step_counts",
                ],
                rows,
            ),
        });
    }
    out
}

/// The summary followed by every clock's tables.
pub fn tables(report: &Report) -> Vec<CsvTable> {
    let mut out = vec![CsvTable {
        name: "summary.csv".into(),
        csv: summary(report),
    }];
    for c in &report.clocks {
        out.extend(clock_tables(c));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ClockInfo, ClockKind, CountPeriod};
    use crate::report::Environment;

    #[test]
    fn csv_is_written_as_the_csv_crate_writes_it() {
        let rows = vec![
            vec!["plain".to_string(), "a,b".into(), "say \"hi\"".into()],
            vec!["two\nlines".into(), "µs".into(), " spaced ".into()],
            vec!["".into(), "cr\r".into(), "-".into()],
        ];
        let mut w = ::csv::WriterBuilder::new()
            .terminator(::csv::Terminator::CRLF)
            .from_writer(Vec::new());
        w.write_record(["x", "y", "z"]).unwrap();
        for r in &rows {
            w.write_record(r).unwrap();
        }
        let theirs = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(csv(&["x", "y", "z"], rows), theirs);
    }

    #[test]
    fn fields_are_quoted_and_names_slugged() {
        assert_eq!(
            csv(&["a"], [vec!["say \"hi\"".into()]]),
            "a\r\n\"say \"\"hi\"\"\"\r\n"
        );
        assert_eq!(
            slug("performance.now (main thread)"),
            "performance-now-main-thread"
        );
        let mut r = Report::new(Environment::default());
        r.clocks.push(ClockReport::unavailable(
            ClockInfo::new("x, y", ClockKind::Wall, CountPeriod::NANOSECOND),
            "not here",
        ));
        let t = tables(&r);
        assert_eq!(t.len(), 1);
        assert!(t[0].csv.contains("\"x, y\",false,"));
        assert!(t[0].csv.ends_with("not here\r\n"));
    }
}
