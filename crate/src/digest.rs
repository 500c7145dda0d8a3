//! A report reduced to what a class compares and a result link carries: who measured, and
//! each clock's tick (with its jitter), read cost and verdict in the lab's words; no
//! samples. The page's Compare, its result links, the command and a class server reduce a
//! report the same way, and read one from outside with the same checks.

use serde::{Deserialize, Serialize};

use crate::present::{self, SummaryRow};
use crate::report::{Platform, Report};

/// The columns that say who measured.
pub const WHO: [&str; 4] = ["browser", "OS", "isolation", "CPU"];
/// The figures of one clock in a digest, under the summary's column names.
pub const FIGURES: [&str; 4] = ["clock", "tick", "read cost", "verdict"];

/// The most clocks a digest may hold: far more than any lab makes, few enough that a
/// hostile one cannot swamp the page or a class.
pub const MAX_CLOCKS: usize = 64;
/// The longest text a digest's field may hold, in characters.
pub const MAX_TEXT: usize = 300;

/// One clock of a digest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DigestClock {
    /// The cells under [`FIGURES`].
    pub cells: Vec<String>,
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
    /// The cells under [`WHO`].
    pub who: Vec<String>,
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
    .map_or(present::DASH, |(_, os)| os)
}

fn clipped(s: &str) -> String {
    s.chars().take(MAX_TEXT).collect()
}

impl Digest {
    /// The digest of report `r`, which came from `from`.
    pub fn of(r: &Report, from: &str) -> Self {
        let env = &r.environment;
        let browser = env.platform == Some(Platform::Browser);
        let ua = env.user_agent.as_deref().unwrap_or("");
        let who = [
            if browser {
                browser_and_version(ua)
            } else {
                "native".into()
            },
            match (&env.os, browser) {
                (Some(os), _) => os.clone(),
                (None, true) => os_of(ua).into(),
                (None, false) => present::DASH.into(),
            },
            match env.cross_origin_isolated {
                Some(true) => "isolated".into(),
                Some(false) => "not isolated".into(),
                None => present::DASH.into(),
            },
            match (&env.cpu, env.cpus) {
                (Some(cpu), _) => cpu.clone(),
                (None, Some(n)) => format!("{n} logical CPUs"),
                (None, None) => present::DASH.into(),
            },
        ];
        let clocks = r
            .clocks
            .iter()
            .map(|c| {
                let row = SummaryRow::new(c, &env.counters);
                DigestClock {
                    cells: FIGURES.map(|f| clipped(row.cell(f))).to_vec(),
                    tick_ns: row.tick_ns,
                    read_ns: c
                        .overhead
                        .as_ref()
                        .filter(|o| o.unusable.is_none())
                        .and_then(|o| o.per_read_ns),
                }
            })
            .collect();
        Self {
            from: clipped(from),
            place: if browser { "browser" } else { "native" }.into(),
            who: who.iter().map(|s| clipped(s)).collect(),
            clocks,
        }
    }

    /// Checks a digest that came from outside (a link): its shape and its sizes.
    pub fn check(self) -> Result<Self, String> {
        let texts = self
            .who
            .iter()
            .chain(self.clocks.iter().flat_map(|c| &c.cells))
            .chain([&self.from, &self.place]);
        if self.who.len() != WHO.len() || self.clocks.iter().any(|c| c.cells.len() != FIGURES.len())
        {
            return Err("a result has the wrong number of fields".into());
        }
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

    /// One line saying what it holds.
    pub fn line(&self) -> String {
        let who: Vec<&str> = self
            .who
            .iter()
            .map(String::as_str)
            .filter(|w| *w != present::DASH)
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

impl Digest {
    /// Who measured: the browser and its version ("native" for the command).
    pub fn browser(&self) -> &str {
        self.who.first().map_or("", String::as_str)
    }

    /// Whether the page was cross-origin isolated ("isolated", "not isolated", or a dash).
    pub fn isolation(&self) -> &str {
        self.who.get(2).map_or("", String::as_str)
    }

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
        self.cells.first().map_or("", String::as_str)
    }
}
