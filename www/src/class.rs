//! A class side by side: each report reduced to a digest (who measured, and every clock's
//! tick, read cost and verdict in the lab's words), the digests put in one matrix of clocks ×
//! reports, sorted, and exported as CSV. A result link carries the same digest.

use serde::Serialize;
pub use ticklab::digest::{browser_and_version, os_of, Digest, DigestClock, FIGURES, WHO};

/// What the report of the machine serving the page is called when taken in.
pub const SERVER: &str = "the server";

/// The matrix's columns after the clock (each group's heading), in order: what a sort
/// names, never a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Report,
    Browser,
    Os,
    Isolation,
    Cpu,
    Tick,
    ReadCost,
    Verdict,
}

impl Column {
    /// Every column, in the matrix's order.
    pub const ALL: [Column; 8] = [
        Column::Report,
        Column::Browser,
        Column::Os,
        Column::Isolation,
        Column::Cpu,
        Column::Tick,
        Column::ReadCost,
        Column::Verdict,
    ];

    /// The key the page sorts by.
    pub fn key(self) -> &'static str {
        MATRIX_KEYS[self as usize]
    }

    /// The column of `key`.
    pub fn parse(key: &str) -> Result<Column, String> {
        Column::ALL
            .into_iter()
            .find(|c| c.key() == key)
            .ok_or_else(|| format!("no column '{key}' in the matrix"))
    }
}

/// The matrix's column headings, in [`Column::ALL`]'s order.
pub const MATRIX_COLUMNS: [&str; 8] = [
    "report",
    "browser",
    "OS",
    "isolation",
    "CPU",
    "tick",
    "read cost",
    "verdict",
];

/// The columns' keys, in [`Column::ALL`]'s order.
pub const MATRIX_KEYS: [&str; 8] = [
    "report",
    "browser",
    "os",
    "isolation",
    "cpu",
    "tick",
    "read-cost",
    "verdict",
];

// What a digest from a file or a link may hold: far more than any lab makes, small enough
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatrixRow {
    /// "browser" or "native".
    pub place: String,
    /// The cells under [`MATRIX_COLUMNS`].
    pub cells: Vec<String>,
}

/// The rows of one clock, one per report that measured it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    /// The clock.
    pub clock: String,
    /// Its rows.
    pub rows: Vec<MatrixRow>,
}

/// Clocks × reports: a group per clock, finest best tick first; within a group the rows are
/// sorted by column `sort` (tick and read cost by value, the rest by text), and
/// `descending` reverses them.
pub fn matrix(digests: &[&Digest], sort: Column, descending: bool) -> Vec<Group> {
    struct Item<'a> {
        d: &'a Digest,
        c: &'a DigestClock,
    }
    let mut groups: Vec<(String, Vec<Item>)> = Vec::new();
    for d in digests {
        for c in &d.clocks {
            let name = &c.cells[0];
            match groups.iter_mut().find(|(n, _)| n == name) {
                Some((_, items)) => items.push(Item { d, c }),
                None => groups.push((name.clone(), vec![Item { d, c }])),
            }
        }
    }
    let best = |items: &[Item]| {
        items
            .iter()
            .filter_map(|i| i.c.tick_ns)
            .fold(f64::INFINITY, f64::min)
    };
    // Unstable sorts, made total by the first-seen order (a stable sort's code is larger);
    // the groups' by the core's one sort of pairs, (finest tick, −first seen).
    let mut ranked: Vec<(f64, f64)> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (best(&g.1), -(i as f64)))
        .collect();
    ticklab::stats::sort_pairs(&mut ranked);
    let mut slots: Vec<Option<_>> = groups.into_iter().map(Some).collect();
    let groups = ranked
        .iter()
        .filter_map(|&(_, i)| slots.get_mut((-i) as usize).and_then(Option::take))
        .collect::<Vec<_>>()
        .into_iter();
    let cells = |i: &Item| -> Vec<String> {
        [&i.d.from]
            .into_iter()
            .chain(&i.d.who)
            .chain(&i.c.cells[1..])
            .cloned()
            .collect()
    };
    groups
        .map(|(clock, items)| {
            let mut items: Vec<(usize, Item)> = items.into_iter().enumerate().collect();
            items.sort_unstable_by(|(ia, a), (ib, b)| {
                let by_value = |x: Option<f64>, y: Option<f64>| {
                    x.unwrap_or(f64::INFINITY)
                        .total_cmp(&y.unwrap_or(f64::INFINITY))
                };
                let o = match sort {
                    Column::Tick => by_value(a.c.tick_ns, b.c.tick_ns),
                    Column::ReadCost => by_value(a.c.read_ns, b.c.read_ns),
                    _ => cells(a)
                        .get(sort as usize)
                        .cmp(&cells(b).get(sort as usize))
                        .then(by_value(a.c.tick_ns, b.c.tick_ns)),
                };
                if descending { o.reverse() } else { o }.then(ia.cmp(ib))
            });
            let items: Vec<Item> = items.into_iter().map(|(_, i)| i).collect();
            Group {
                clock,
                rows: items
                    .iter()
                    .map(|i| MatrixRow {
                        place: i.d.place.clone(),
                        cells: cells(i),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The matrix as CSV: one row per clock and report.
pub fn matrix_csv(groups: &[Group]) -> String {
    let header: Vec<&str> = ["clock"].into_iter().chain(MATRIX_COLUMNS).collect();
    ticklab::export::csv(
        &header,
        groups.iter().flat_map(|g| {
            g.rows.iter().map(|r| {
                std::iter::once(g.clock.clone())
                    .chain(r.cells.iter().cloned())
                    .collect()
            })
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ticklab::clock::{ClockInfo, ClockKind, CountPeriod, Ratio};
    use ticklab::present;
    use ticklab::report::{ClockReport, Environment, Platform, Report};

    #[test]
    fn every_column_is_sorted_by_its_key() {
        for (i, c) in Column::ALL.into_iter().enumerate() {
            assert_eq!(c as usize, i);
            assert_eq!(Column::parse(c.key()), Ok(c));
        }
        assert_eq!(MATRIX_KEYS.len(), MATRIX_COLUMNS.len());
        assert!(Column::parse("5").is_err());
    }
    use ticklab::run::{Budget, Stop};
    use ticklab::tick::{self, TickOptions};

    const CHROME: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.7000.1 Safari/537.36";
    const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0";
    const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Mobile Safari/537.36";
    const SAFARI: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

    #[test]
    fn user_agents_name_browser_version_and_os() {
        assert_eq!(browser_and_version(CHROME), "Chromium 156");
        assert_eq!(browser_and_version(FIREFOX), "Firefox 153");
        assert_eq!(browser_and_version(SAFARI), "Safari 17");
        assert_eq!(browser_and_version("curl/8"), "another browser");
        assert_eq!(os_of(CHROME), "Linux");
        assert_eq!(os_of(PHONE), "Android");
        assert_eq!(os_of(SAFARI), "iOS");
        assert_eq!(os_of(""), present::DASH);
    }

    fn report(ua: Option<&str>, isolated: bool, clocks: &[(&str, Option<f64>)]) -> Report {
        let env = Environment {
            platform: Some(if ua.is_some() {
                Platform::Browser
            } else {
                Platform::Native
            }),
            user_agent: ua.map(String::from),
            cross_origin_isolated: ua.map(|_| isolated),
            cpu: ua.is_none().then(|| "AMD EPYC".into()),
            cpus: Some(8),
            ..Default::default()
        };
        let mut r = Report::new(env);
        for (name, tick) in clocks {
            let period = CountPeriod::Exact {
                ns: Ratio::new(1, 1).unwrap(),
            };
            let info = ClockInfo::new(*name, ClockKind::Wall, period);
            let mut c = ClockReport::new(info.clone());
            if let Some(ns) = tick {
                // Readings a tick apart, some skipping one: the tick is found, not given.
                let step = ns.round() as u64;
                let readings: Vec<u64> = (0..200u64).map(|i| (i + i / 3) * step).collect();
                let opts = TickOptions::new(Budget::new(1.0, 1_000_000).unwrap());
                c.tick =
                    Some(tick::from_readings(&info, &readings, 0.5, Stop::Time, &opts).unwrap());
            }
            r.clocks.push(c);
        }
        r
    }

    #[test]
    fn a_matrix_groups_clocks_and_sorts_reports_within() {
        let a = Digest::of(
            &report(Some(CHROME), false, &[("performance.now", Some(100_000.0))]),
            "ann.json",
        );
        let b = Digest::of(
            &report(
                Some(FIREFOX),
                true,
                &[("performance.now", Some(20_000.0)), ("Date.now", Some(1e6))],
            ),
            "bob.json",
        );
        let n = Digest::of(
            &report(None, false, &[("CLOCK_MONOTONIC", Some(10.02))]),
            "the server",
        );
        assert_eq!(
            a.who,
            ["Chromium 156", "Linux", "not isolated", "8 logical CPUs"]
        );
        assert_eq!(n.who, ["native", present::DASH, present::DASH, "AMD EPYC"]);
        assert_eq!(
            b.line(),
            "bob.json: 2 clocks, Firefox 153, Linux, isolated, 8 logical CPUs"
        );
        let m = matrix(&[&a, &b, &n], Column::Tick, false);
        let clocks: Vec<&str> = m.iter().map(|g| g.clock.as_str()).collect();
        assert_eq!(clocks, ["CLOCK_MONOTONIC", "performance.now", "Date.now"]);
        let from: Vec<&str> = m[1].rows.iter().map(|r| r.cells[0].as_str()).collect();
        assert_eq!(from, ["bob.json", "ann.json"]);
        let m = matrix(&[&a, &b, &n], Column::Tick, true);
        assert_eq!(m[1].rows[0].cells[0], "ann.json");
        // By report name, as text.
        let m = matrix(&[&b, &a], Column::Report, false);
        assert_eq!(m[0].rows[0].cells[0], "ann.json");
        assert_eq!(m[0].rows[0].place, "browser");
        let csv = matrix_csv(&m);
        assert!(csv.starts_with("clock,report,browser,OS,isolation,CPU,tick,read cost,verdict\r\n"));
        assert_eq!(csv.lines().count(), 4, "{csv}");
    }

    #[test]
    fn a_digest_from_outside_is_checked() {
        let a = Digest::of(
            &report(Some(CHROME), false, &[("performance.now", Some(100_000.0))]),
            "ann.json",
        );
        assert!(a.clone().check().is_ok());
        let mut bad = a.clone();
        bad.who.pop();
        assert!(bad.check().unwrap_err().contains("wrong number"));
        let mut bad = a.clone();
        bad.clocks[0].cells[1] = "x".repeat(400);
        assert!(bad.check().unwrap_err().contains("over 300"));
        let mut bad = a.clone();
        bad.clocks[0].tick_ns = Some(f64::NAN);
        assert!(bad.check().is_err());
        let mut bad = a;
        bad.clocks = vec![bad.clocks[0].clone(); 65];
        assert!(bad.check().unwrap_err().contains("65 clocks"));
    }

    #[test]
    fn a_report_with_overlong_names_is_shown_clipped_not_refused() {
        let long = "\u{202e}<b>".repeat(4000);
        let mut r = report(None, false, &[(long.as_str(), Some(10.0))]);
        r.environment.cpu = Some(long.clone());
        let d = Digest::of(&r, &long).check().unwrap();
        let clipped: String = long.chars().take(ticklab::digest::MAX_TEXT).collect();
        assert_eq!(d.clocks[0].cells[0], clipped);
        assert_eq!(d.who[3], clipped);
        assert_eq!(d.from, clipped);
    }
}
