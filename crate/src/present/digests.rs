//! Digests in words: a report reduced to the lab's words (what a result link and a class
//! carry), a line saying what one holds, and digests side by side: the pivot, and a
//! comparison's table and its runs.

use super::*;
use crate::comparison::{page_clock_starved, Comparison, EngineRun};
use crate::digest::{
    browser_and_version, clipped, Digest, DigestClock, Figure, Figures, PivotRow, Who, FIGURES,
};
use crate::report::Platform;

/// The operating system a user agent names.
pub fn os_of(ua: &str) -> &'static str {
    [
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iPadOS"),
        ("CrOS", "ChromeOS"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("Linux", "Linux"),
    ]
    .iter()
    .find(|(key, _)| ua.contains(key))
    .map_or(DASH, |(_, os)| os)
}

impl Digest {
    /// The digest of report `r`, which came from `from`.
    pub fn of(r: &Report, from: &str) -> Self {
        let env = &r.environment;
        let browser = env.platform == Some(Platform::Browser);
        let ua = env.user_agent.as_deref().unwrap_or("");
        let who = Who {
            browser: clipped(&if browser {
                browser_and_version(ua)
            } else {
                "native".into()
            }),
            os: clipped(match (&env.os, browser) {
                (Some(os), _) => os,
                (None, true) => os_of(ua),
                (None, false) => DASH,
            }),
            isolation: match env.cross_origin_isolated {
                Some(true) => "isolated",
                Some(false) => "not isolated",
                None => DASH,
            }
            .into(),
            cpu: clipped(&match (&env.cpu, env.cpus) {
                (Some(cpu), _) => cpu.clone(),
                (None, Some(n)) => format!("{} logical CPUs", crate::atlas::cpu_bucket(n)),
                (None, None) => DASH.into(),
            }),
        };
        let clocks = r
            .clocks
            .iter()
            .map(|c| {
                let row = SummaryRow::new(c, &env.counters);
                let [clock, tick, read_cost, verdict] = FIGURES.map(|f| clipped(row.cell(f)));
                DigestClock {
                    figures: Figures {
                        clock,
                        tick,
                        read_cost,
                        verdict,
                    },
                    tick_ns: row.tick_ns,
                    // What a caller there pays: a page's own JavaScript, where measured.
                    read_ns: c
                        .overhead
                        .as_ref()
                        .filter(|o| o.unusable.is_none())
                        .and_then(|o| o.own_per_read_ns.or(o.per_read_ns)),
                }
            })
            .collect();
        Self {
            from: clipped(from),
            place: if browser { "browser" } else { "native" }.into(),
            who,
            clocks,
        }
    }

    /// One line saying what it holds.
    pub fn line(&self) -> String {
        let who: Vec<&str> = self
            .who
            .cells()
            .into_iter()
            .map(String::as_str)
            .filter(|w| *w != DASH)
            .collect();
        format!(
            "{}: {} clock{}, {}",
            self.from,
            self.clocks.len(),
            if self.clocks.len() == 1 { "" } else { "s" },
            who.join(", ")
        )
    }
}

/// Clocks × digests, a cell of each: a row per clock (finest best tick first, as in the
/// matrix), a column per digest. What sets a machine's clocks beside its browsers'.
pub fn pivot(digests: &[&Digest], figure: Figure) -> Vec<PivotRow> {
    let mut names: Vec<String> = Vec::new();
    for d in digests {
        for c in &d.clocks {
            if !names.iter().any(|n| n == c.name()) {
                names.push(c.name().to_string());
            }
        }
    }
    let best = |name: &str| {
        digests
            .iter()
            .filter_map(|d| d.clock(name).and_then(|c| c.tick_ns))
            .fold(f64::INFINITY, f64::min)
    };
    let mut ranked: Vec<(f64, f64)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (best(n), -(i as f64)))
        .collect();
    crate::stats::sort_pairs(&mut ranked);
    ranked
        .iter()
        .map(|&(_, i)| {
            let clock = names[(-i) as usize].clone();
            let cells = digests
                .iter()
                .map(|d| match d.clock(&clock) {
                    None => DASH.to_string(),
                    Some(c) => {
                        let f = &c.figures;
                        match figure {
                            Figure::Tick => {
                                let sign = verdict_sign(&f.verdict);
                                if sign.is_empty() {
                                    f.tick.clone()
                                } else {
                                    format!("{} {sign}", f.tick)
                                }
                            }
                            Figure::ReadCost => f.read_cost.clone(),
                            Figure::Verdict => f.verdict.clone(),
                        }
                    }
                })
                .collect();
            PivotRow { clock, cells }
        })
        .collect()
}

/// A column's heading: "native", "Chromium isolated", "Firefox not isolated".
pub fn engine_heading(engine: &str, isolated: Option<bool>) -> String {
    match isolated {
        None => engine.to_string(),
        Some(true) => format!("{engine} isolated"),
        Some(false) => format!("{engine} not isolated"),
    }
}

impl EngineRun {
    /// The column's heading: see [`engine_heading`].
    pub fn heading(&self) -> String {
        engine_heading(&self.engine, self.isolated)
    }
}

impl Comparison {
    /// The runs that ended with a report, each with its digest (named by its heading).
    pub fn measured(&self) -> Vec<(&EngineRun, Digest)> {
        self.runs
            .iter()
            .filter_map(|r| Some((r, Digest::of(r.report.as_ref()?, &r.heading()))))
            .collect()
    }

    /// The table: the headings of the measured runs, and a row per clock.
    pub fn table(&self, figure: Figure) -> (Vec<String>, Vec<PivotRow>) {
        let measured = self.measured();
        let heads = measured.iter().map(|(r, _)| r.heading()).collect();
        let digests: Vec<&Digest> = measured.iter().map(|(_, d)| d).collect();
        (heads, pivot(&digests, figure))
    }
}

/// Who sent a digest, as a class's list says it: "Chromium 156, isolated".
pub fn sender(d: &Digest) -> String {
    [d.who.browser.as_str(), d.who.isolation.as_str()]
        .into_iter()
        .filter(|w| !w.is_empty() && *w != DASH)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A comparison's run in a line: who ran, how long, how many times; or why it did not.
pub fn engine_run_line(run: &EngineRun) -> String {
    let mut line = format!("{}: ", run.heading());
    match (&run.report, &run.failure) {
        (Some(r), _) => {
            let who = match (&run.version, &r.environment.user_agent) {
                (Some(v), _) => format!("{} {v}", run.engine),
                (None, Some(ua)) => browser_and_version(ua),
                (None, None) => [r.environment.os.as_deref(), r.environment.cpu.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            line.push_str(&who);
            if let Some(s) = run.seconds {
                line.push_str(&format!(", {s:.1} s"));
            }
            if let Some(n) = run.attempts {
                line.push_str(&if page_clock_starved(r) {
                    format!(" (run {n} times: the browser starved the lab's worker each time)")
                } else {
                    format!(
                        " (run {n} times: the browser starved the lab's worker in the first {})",
                        n - 1
                    )
                });
            }
            if let Some(why) = interrupted(r) {
                line.push_str(&format!(" ({why})"));
            }
        }
        (None, why) => {
            line.push_str("not measured: ");
            line.push_str(why.as_deref().unwrap_or("no report"));
            if let Some(hint) = &run.hint {
                line.push_str(&format!("; {hint}"));
            }
        }
    }
    line
}
