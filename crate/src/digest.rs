//! A report reduced to what a class compares and a result link carries: who measured, and
//! each clock's tick (with its jitter), read cost and verdict in the lab's words; no
//! samples. The page's Compare, its result links, the command and a class server reduce a
//! report the same way, read one from outside with the same checks, and set digests side by
//! side in the same matrix.

use serde::{Deserialize, Serialize};

/// The columns that say who measured.
pub const WHO: [&str; 4] = ["browser", "OS", "isolation", "CPU"];
/// The figures of one clock in a digest, under the summary's column names.
pub const FIGURES: [&str; 4] = ["clock", "tick", "read cost", "verdict"];

/// The clock a class's ticks are plotted by: the page's performance.now as the lab's worker
/// reads it (the page names it so; a class server plots it by this name).
pub const PAGE_NOW: &str = "performance.now (worker)";

/// The most clocks a digest may hold: far more than any lab makes, few enough that a
/// hostile one cannot swamp the page or a class.
pub const MAX_CLOCKS: usize = 64;
/// The longest text a digest's field may hold, in characters.
pub const MAX_TEXT: usize = 300;

/// Who measured, under [`WHO`]'s names. Written as an array of four texts in that order,
/// which keeps result links short and reads every link and class row made before.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct Who {
    /// The browser and its version ("Chromium 156"), or "native".
    pub browser: String,
    /// The operating system.
    pub os: String,
    /// "isolated", "not isolated", or a dash.
    pub isolation: String,
    /// The CPU, or the count of logical CPUs.
    pub cpu: String,
}

/// One clock's figures in the lab's words, under [`FIGURES`]'s names; written as an array
/// in that order, as [`Who`] is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct Figures {
    /// The clock's name.
    pub clock: String,
    /// The tick, with its jitter.
    pub tick: String,
    /// The cost of one read.
    pub read_cost: String,
    /// The verdict on the claim.
    pub verdict: String,
}

const WRONG_SHAPE: &str = "a result has the wrong number of fields";

/// Four texts in order, from the array they are written as.
fn four(v: Vec<String>) -> Result<[String; 4], &'static str> {
    v.try_into().map_err(|_| WRONG_SHAPE)
}

impl TryFrom<Vec<String>> for Who {
    type Error = &'static str;
    fn try_from(v: Vec<String>) -> Result<Self, Self::Error> {
        let [browser, os, isolation, cpu] = four(v)?;
        Ok(Self {
            browser,
            os,
            isolation,
            cpu,
        })
    }
}

impl From<Who> for Vec<String> {
    fn from(w: Who) -> Self {
        vec![w.browser, w.os, w.isolation, w.cpu]
    }
}

impl Who {
    /// The texts under [`WHO`], in its order.
    pub fn cells(&self) -> [&String; 4] {
        [&self.browser, &self.os, &self.isolation, &self.cpu]
    }
}

impl TryFrom<Vec<String>> for Figures {
    type Error = &'static str;
    fn try_from(v: Vec<String>) -> Result<Self, Self::Error> {
        let [clock, tick, read_cost, verdict] = four(v)?;
        Ok(Self {
            clock,
            tick,
            read_cost,
            verdict,
        })
    }
}

impl From<Figures> for Vec<String> {
    fn from(f: Figures) -> Self {
        vec![f.clock, f.tick, f.read_cost, f.verdict]
    }
}

impl Figures {
    /// The texts under [`FIGURES`], in its order.
    pub fn cells(&self) -> [&String; 4] {
        [&self.clock, &self.tick, &self.read_cost, &self.verdict]
    }
}

/// One clock of a digest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DigestClock {
    /// Its figures in words (written as "cells").
    #[serde(rename = "cells")]
    pub figures: Figures,
    /// The tick in ns, for sorting.
    pub tick_ns: Option<f64>,
    /// The read cost in ns, for sorting.
    pub read_ns: Option<f64>,
}

/// A report reduced to what a class compares and a result link carries: no raw samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Digest {
    /// Where it came from (a file's name, "the server", "this page", "a link").
    pub from: String,
    /// "browser" or "native".
    pub place: String,
    /// Who measured.
    pub who: Who,
    /// Its clocks.
    pub clocks: Vec<DigestClock>,
}

/// "Chromium 156", "Firefox 153", "Safari 17" from a user agent.
pub fn browser_and_version(ua: &str) -> String {
    let version = |key: &str| {
        ua.split(key).nth(1).map(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap_or("")
                .to_string()
        })
    };
    let (name, v) = if let Some(v) = version("Firefox/") {
        ("Firefox", Some(v))
    } else if let Some(v) = version("Edg/") {
        ("Edge", Some(v))
    } else if let Some(v) = version("Chrome/").or_else(|| version("Chromium/")) {
        ("Chromium", Some(v))
    } else if ua.contains("Safari/") {
        ("Safari", version("Version/"))
    } else {
        ("another browser", None)
    };
    match v {
        Some(v) if !v.is_empty() => format!("{name} {v}"),
        _ => name.to_string(),
    }
}

/// `s`, cut to [`MAX_TEXT`] characters.
pub(crate) fn clipped(s: &str) -> String {
    s.chars().take(MAX_TEXT).collect()
}

impl Digest {
    /// Checks a digest that came from outside (a link): its shape and its sizes.
    pub fn check(self) -> Result<Self, String> {
        let texts = self
            .who
            .cells()
            .into_iter()
            .chain(self.clocks.iter().flat_map(|c| c.figures.cells()))
            .chain([&self.from, &self.place]);
        if self.clocks.len() > MAX_CLOCKS {
            return Err(format!(
                "a result has {} clocks; at most {MAX_CLOCKS}",
                self.clocks.len()
            ));
        }
        if texts.into_iter().any(|t| t.chars().count() > MAX_TEXT) {
            return Err(format!("a result has a field over {MAX_TEXT} characters"));
        }
        let bad = |x: Option<f64>| x.is_some_and(|v| !(v.is_finite() && v >= 0.0));
        if self.clocks.iter().any(|c| bad(c.tick_ns) || bad(c.read_ns)) {
            return Err("a result has a figure that is not a finite time".into());
        }
        Ok(self)
    }
}

impl Digest {
    /// The clock named `name`, when the digest holds it.
    pub fn clock(&self, name: &str) -> Option<&DigestClock> {
        self.clocks.iter().find(|c| c.name() == name)
    }

    /// Reads a digest from JSON text (a class's submission), with the checks of one from
    /// outside: its shape, its sizes, its figures.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let d: Digest = serde_json::from_str(text).map_err(|e| format!("not a digest: {e}"))?;
        d.check()
    }
}

impl DigestClock {
    /// The clock's name.
    pub fn name(&self) -> &str {
        &self.figures.clock
    }
}

// ---------- digests side by side: the Compare matrix ----------

/// The matrix's columns after the clock (each group's heading), in order: what a sort
/// names, never a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// Where the report came from.
    Report,
    /// The browser and its version.
    Browser,
    /// The operating system.
    Os,
    /// Whether the page was cross-origin isolated.
    Isolation,
    /// The CPU, or the count of logical CPUs.
    Cpu,
    /// The clock's tick (sorted by value).
    Tick,
    /// The cost of one read (sorted by value).
    ReadCost,
    /// The verdict on the claim.
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

/// One report's row in a clock's group.
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
            let name = &c.figures.clock;
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
    crate::stats::sort_pairs(&mut ranked);
    let mut slots: Vec<Option<_>> = groups.into_iter().map(Some).collect();
    let groups = ranked
        .iter()
        .filter_map(|&(_, i)| slots.get_mut((-i) as usize).and_then(Option::take))
        .collect::<Vec<_>>()
        .into_iter();
    let cells = |i: &Item| -> Vec<String> {
        let (w, f) = (&i.d.who, &i.c.figures);
        [
            &i.d.from,
            &w.browser,
            &w.os,
            &w.isolation,
            &w.cpu,
            &f.tick,
            &f.read_cost,
            &f.verdict,
        ]
        .map(String::clone)
        .to_vec()
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
    crate::export::csv(
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

/// What fills a pivot's cells: one of a clock's figures in a digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// The tick, with the verdict's sign after it ([`present::verdict_sign`]).
    Tick,
    /// The cost of one read.
    ReadCost,
    /// The verdict on the claim, in words.
    Verdict,
}

impl Figure {
    /// Every figure, in the order a command lists them.
    pub const ALL: [Figure; 3] = [Figure::Tick, Figure::ReadCost, Figure::Verdict];

    /// The name a command gives it (`--cell`).
    pub fn key(self) -> &'static str {
        match self {
            Figure::Tick => "tick",
            Figure::ReadCost => "read-cost",
            Figure::Verdict => "verdict",
        }
    }
}

/// One clock's row of a pivot: a cell per digest.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PivotRow {
    /// The clock.
    pub clock: String,
    /// A cell per digest, in the digests' order; a dash where a digest has no such clock.
    pub cells: Vec<String>,
}

/// A pivot as CSV: the clock, then a column per digest headed `heads`.
pub fn pivot_csv(heads: &[String], rows: &[PivotRow]) -> String {
    let header: Vec<&str> = std::iter::once("clock")
        .chain(heads.iter().map(String::as_str))
        .collect();
    crate::export::csv(
        &header,
        rows.iter().map(|r| {
            std::iter::once(r.clock.clone())
                .chain(r.cells.iter().cloned())
                .collect()
        }),
    )
}

/// The engine of a digest's browser, its version left off ("Chromium 156" is "Chromium").
pub fn engine(browser: &str) -> &str {
    match browser.rsplit_once(' ') {
        Some((name, v)) if !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()) => name,
        _ => browser,
    }
}

/// One group of a class's ticks of a clock: an engine and its isolation, and each report's
/// tick in ns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TickGroup {
    /// "Chromium, not isolated".
    pub label: String,
    /// The ticks, one per report, in the order the reports came.
    pub ticks_ns: Vec<f64>,
}

/// The ticks of clock `clock` in each digest that measured one, grouped by engine and
/// isolation, the group with the finest tick first: what a class plots to see that a
/// browser's clamp, not the machine, sets the tick.
pub fn ticks_by_engine(digests: &[&Digest], clock: &str) -> Vec<TickGroup> {
    let mut groups: Vec<TickGroup> = Vec::new();
    for d in digests {
        let Some(tick) = d.clock(clock).and_then(|c| c.tick_ns) else {
            continue;
        };
        let label = format!("{}, {}", engine(&d.who.browser), d.who.isolation);
        match groups.iter_mut().find(|g| g.label == label) {
            Some(g) => g.ticks_ns.push(tick),
            None => groups.push(TickGroup {
                label,
                ticks_ns: vec![tick],
            }),
        }
    }
    let finest = |g: &TickGroup| g.ticks_ns.iter().copied().fold(f64::INFINITY, f64::min);
    crate::stats::stable_by_key(groups, finest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ClockInfo, ClockKind, CountPeriod, Ratio};
    use crate::present::{self, os_of};
    use crate::report::{ClockReport, Environment, Platform, Report};

    #[test]
    fn every_column_is_sorted_by_its_key() {
        for (i, c) in Column::ALL.into_iter().enumerate() {
            assert_eq!(c as usize, i);
            assert_eq!(Column::parse(c.key()), Ok(c));
        }
        assert_eq!(MATRIX_KEYS.len(), MATRIX_COLUMNS.len());
        assert!(Column::parse("5").is_err());
    }
    use crate::run::{Budget, Stop};
    use crate::tick::{self, TickOptions};

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
            a.who.cells(),
            ["Chromium 156", "Linux", "not isolated", "5-8 logical CPUs"]
        );
        assert_eq!(
            n.who.cells(),
            ["native", present::DASH, present::DASH, "AMD EPYC"]
        );
        assert_eq!(
            b.line(),
            "bob.json: 2 clocks, Firefox 153, Linux, isolated, 5-8 logical CPUs"
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
    fn a_class_s_ticks_are_grouped_by_engine_and_isolation() {
        let d = |ua: &str, iso: bool, tick: f64, from: &str| {
            Digest::of(
                &report(Some(ua), iso, &[("performance.now", Some(tick))]),
                from,
            )
        };
        let a = d(CHROME, false, 100_000.0, "a");
        let b = d(FIREFOX, false, 1e6, "b");
        let c = d(PHONE, false, 100_000.0, "c");
        let e = d(FIREFOX, true, 20_000.0, "e");
        let n = Digest::of(
            &report(None, false, &[("CLOCK_MONOTONIC", Some(10.0))]),
            "n",
        );
        let g = ticks_by_engine(&[&a, &b, &c, &e, &n], "performance.now");
        let labels: Vec<&str> = g.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "Firefox, isolated",
                "Chromium, not isolated",
                "Firefox, not isolated"
            ]
        );
        assert_eq!(g[1].ticks_ns.len(), 2);
        assert!((g[1].ticks_ns[0] - 100_000.0).abs() < 1.0);
        assert_eq!(engine("Safari 17"), "Safari");
        assert_eq!(engine("another browser"), "another browser");
        assert_eq!(engine("native"), "native");
    }

    #[test]
    fn a_digest_from_outside_is_checked() {
        let a = Digest::of(
            &report(Some(CHROME), false, &[("performance.now", Some(100_000.0))]),
            "ann.json",
        );
        assert!(a.clone().check().is_ok());
        // Written as arrays of four: any other count is refused as it is read.
        let text = serde_json::to_string(&a).unwrap();
        assert!(
            text.contains(r#""who":["Chromium 156","Linux","not isolated","5-8 logical CPUs"]"#)
        );
        assert_eq!(Digest::from_json(&text).unwrap(), a);
        let short = text.replace(r#","5-8 logical CPUs""#, "");
        assert!(Digest::from_json(&short)
            .unwrap_err()
            .contains("wrong number of fields"));
        let mut bad = a.clone();
        bad.clocks[0].figures.tick = "x".repeat(400);
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
        let clipped: String = long.chars().take(crate::digest::MAX_TEXT).collect();
        assert_eq!(d.clocks[0].figures.clock, clipped);
        assert_eq!(d.who.cpu, clipped);
        assert_eq!(d.from, clipped);
    }
}
