//! The atlas: what browsers and machines resolve, pooled from the runs their owners chose
//! to add. A run is reduced to a [`Submission`]: the engine and its major version, the OS
//! family, isolated or not, a bucket of logical CPUs, a native CPU's vendor and family, and
//! each clock's tick, read cost and verdict; nothing else. Runs fall into cells
//! ([`CellKey`]); a cell's figures ([`Cell`]) are its ticks' modes with their shares, its
//! read cost's median and its verdicts, held against what the engine documents
//! ([`crate::claims`]). Which cells are shown (enough distinct senders) is the server's.

use serde::{Deserialize, Serialize};

use crate::claims::{documented_clamp, Browser};
use crate::digest::{Digest, PAGE_NOW};
use crate::present::{duration, verdict_label, DASH};
use crate::report::Report;
use crate::tick::Verdict;

/// The finest tick a clock can have: below a nanosecond is no clock the lab reads.
pub const MIN_TICK_NS: f64 = 1.0;
/// The coarsest: a tick of more than 10 s is no timer anyone times code with.
pub const MAX_TICK_NS: f64 = 1e10;
/// The longest read: ten seconds.
pub const MAX_READ_NS: f64 = 1e10;
/// Most characters of a clock's name or a CPU family.
pub const MAX_NAME: usize = 80;
/// Most clocks in a submission.
pub const MAX_CLOCKS: usize = 64;

/// The engines a run names ("native" for the command's).
pub const ENGINES: [&str; 6] = [
    "Chromium",
    "Edge",
    "Firefox",
    "Safari",
    "another browser",
    NATIVE,
];
/// A native run's engine.
pub const NATIVE: &str = "native";
/// The OS families, "other" for the rest.
pub const OS_FAMILIES: [&str; 8] = [
    "Android", "iOS", "iPadOS", "ChromeOS", "Windows", "macOS", "Linux", "other",
];
/// The buckets of logical CPUs.
pub const CPU_BUCKETS: [&str; 7] = ["1", "2", "3-4", "5-8", "9-16", "17-32", "33 or more"];

/// The words every verdict of a run is written with, and the dash.
fn verdicts() -> [&'static str; 9] {
    use Verdict::*;
    [
        Matches,
        CoarserThanClaimed,
        FinerThanClaimed,
        NoClaim,
        Unknown,
        TooBusy,
        AtLeastClaimed,
        BelowClaimedMinimum,
    ]
    .map(verdict_label)
    .into_iter()
    .chain([DASH])
    .collect::<Vec<_>>()
    .try_into()
    .unwrap_or([DASH; 9])
}

/// One run as the atlas takes it: what is sent, all of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// One of [`ENGINES`].
    pub engine: String,
    /// Its major version; none for a native run.
    pub version: Option<u32>,
    /// One of [`OS_FAMILIES`].
    pub os: String,
    /// Whether the page was cross-origin isolated; none for a native run.
    pub isolated: Option<bool>,
    /// One of [`CPU_BUCKETS`], when known.
    pub cpus: Option<String>,
    /// A native run's CPU vendor and family ("AMD EPYC", "Intel Core i7", "Apple M2").
    pub cpu_family: Option<String>,
    /// Its clocks.
    pub clocks: Vec<SharedClock>,
}

/// One clock of a submission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedClock {
    /// Its name as the lab gives it.
    pub clock: String,
    /// Its tick, when measured.
    pub tick_ns: Option<f64>,
    /// The cost of one read, when measured.
    pub read_ns: Option<f64>,
    /// The verdict on its claim, in the lab's words.
    pub verdict: String,
}

/// The bucket of `n` logical CPUs.
pub fn cpu_bucket(n: u32) -> &'static str {
    let i = match n {
        0 | 1 => 0,
        2 => 1,
        3..=4 => 2,
        5..=8 => 3,
        9..=16 => 4,
        17..=32 => 5,
        _ => 6,
    };
    CPU_BUCKETS[i]
}

/// The OS family a report or a user agent names ("linux", "Linux", "Mac OS X" ...).
pub fn os_family(os: &str) -> &'static str {
    let o = os.to_ascii_lowercase();
    let keys: [(&str, &'static str); 9] = [
        ("android", "Android"),
        ("iphone", "iOS"),
        ("ios", "iOS"),
        ("ipad", "iPadOS"),
        ("chrome", "ChromeOS"),
        ("windows", "Windows"),
        ("mac", "macOS"),
        ("darwin", "macOS"),
        ("linux", "Linux"),
    ];
    // "ipados" holds "ios": the longer names are tried first.
    if o.contains("ipados") {
        return "iPadOS";
    }
    keys.iter()
        .find(|(k, _)| o.contains(k))
        .map_or("other", |(_, f)| f)
}

/// A CPU's vendor and family from its full name, without its model: "Intel(R) Core(TM)
/// i7-8650U CPU @ 1.90GHz" is "Intel Core i7", "AMD EPYC 7B13 64-Core Processor" is "AMD
/// EPYC", "Apple M2 Pro" is "Apple M2". None when the name says nothing.
pub fn cpu_family(name: &str) -> Option<String> {
    let clean = name
        .replace("(R)", " ")
        .replace("(TM)", " ")
        .replace("(tm)", " ");
    let mut out: Vec<String> = Vec::new();
    for w in clean.split_whitespace() {
        if matches!(w, "CPU" | "Processor" | "@") || out.len() == 3 {
            break;
        }
        let first_digit = w.starts_with(|c: char| c.is_ascii_digit());
        if first_digit {
            break;
        }
        if w.chars().any(|c| c.is_ascii_digit()) {
            // A model's family is its part before a dash ("i7-8650U"), or the word ("M2").
            let family = w.split('-').next().unwrap_or(w);
            out.push(family.chars().take(MAX_NAME).collect());
            break;
        }
        out.push(w.chars().take(MAX_NAME).collect());
    }
    let family = out.join(" ");
    (!family.is_empty() && family != DASH).then_some(family)
}

/// The CPU bucket of a digest's CPU column: "8 logical CPUs" or "5-8 logical CPUs".
fn bucket_of(cpu: &str) -> Option<String> {
    let n = cpu.strip_suffix(" logical CPUs")?;
    match n.parse::<u32>() {
        Ok(n) => Some(cpu_bucket(n).into()),
        Err(_) => CPU_BUCKETS.contains(&n).then(|| n.to_string()),
    }
}

impl Submission {
    /// A digest reduced to what the atlas takes (a page's digest, a class's row), checked.
    pub fn of(d: &Digest) -> Result<Self, String> {
        let w = &d.who;
        let (engine, version) = if w.browser == NATIVE {
            (NATIVE.to_string(), None)
        } else {
            match w.browser.rsplit_once(' ') {
                Some((name, v)) if v.parse::<u32>().is_ok() => (name.to_string(), v.parse().ok()),
                _ => (w.browser.clone(), None),
            }
        };
        let native = engine == NATIVE;
        let isolated = match w.isolation.as_str() {
            "isolated" if !native => Some(true),
            "not isolated" if !native => Some(false),
            _ => None,
        };
        let cpus = bucket_of(&w.cpu);
        let cpu_family = if native && cpus.is_none() && w.cpu != DASH {
            cpu_family(&w.cpu)
        } else {
            None
        };
        let clocks = d
            .clocks
            .iter()
            .map(|c| SharedClock {
                clock: c.figures.clock.clone(),
                tick_ns: c.tick_ns,
                read_ns: c.read_ns,
                verdict: c.figures.verdict.clone(),
            })
            .collect();
        Self {
            engine,
            version,
            os: os_family(&w.os).into(),
            isolated,
            cpus,
            cpu_family,
            clocks,
        }
        .check()
    }

    /// A native report reduced to what the atlas takes: its digest's, with its count of
    /// logical CPUs in a bucket.
    pub fn of_report(r: &Report) -> Result<Self, String> {
        let mut s = Self::of(&Digest::of(r, ""))?;
        if let Some(n) = r.environment.cpus {
            s.cpus = Some(cpu_bucket(n).into());
        }
        Ok(s)
    }

    /// Refuses what no run of the lab sends: an engine, OS, bucket or verdict not in its
    /// list, a native run with a version or an isolation, a browser's with a CPU family,
    /// a name too long, a tick or read cost no clock can have.
    pub fn check(self) -> Result<Self, String> {
        let listed = |what: &str, v: &str, list: &[&str]| {
            if list.contains(&v) {
                Ok(())
            } else {
                Err(format!(
                    "{what} '{}' is not one of: {}",
                    clip(v),
                    list.join(", ")
                ))
            }
        };
        listed("the engine", &self.engine, &ENGINES)?;
        listed("the OS", &self.os, &OS_FAMILIES)?;
        if let Some(b) = &self.cpus {
            listed("the CPUs' bucket", b, &CPU_BUCKETS)?;
        }
        let native = self.engine == NATIVE;
        if native && (self.version.is_some() || self.isolated.is_some()) {
            return Err("a native run has no browser version and no isolation".into());
        }
        if !native && self.cpu_family.is_some() {
            return Err("a browser's run names no CPU family".into());
        }
        if self.version.is_some_and(|v| v == 0 || v > 100_000) {
            return Err("the version is not a browser's major version".into());
        }
        let long = |s: &str| s.chars().count() > MAX_NAME || s.chars().any(char::is_control);
        if self.cpu_family.as_deref().is_some_and(long) {
            return Err(format!(
                "the CPU family is over {MAX_NAME} characters or has controls"
            ));
        }
        if self.clocks.is_empty() || self.clocks.len() > MAX_CLOCKS {
            return Err(format!(
                "a run has 1 to {MAX_CLOCKS} clocks, not {}",
                self.clocks.len()
            ));
        }
        let verdicts = verdicts();
        for c in &self.clocks {
            if c.clock.is_empty() || long(&c.clock) {
                return Err(format!(
                    "a clock's name is empty, over {MAX_NAME} characters or has controls"
                ));
            }
            listed("the verdict", &c.verdict, &verdicts)?;
            if let Some(t) = c.tick_ns {
                if !(MIN_TICK_NS..=MAX_TICK_NS).contains(&t) {
                    return Err(format!(
                        "{}: a tick of {t} ns is no clock's (1 ns to 10 s)",
                        clip(&c.clock)
                    ));
                }
            }
            if let Some(r) = c.read_ns {
                if !(0.0..=MAX_READ_NS).contains(&r) {
                    return Err(format!(
                        "{}: a read cost of {r} ns is no clock's (0 to 10 s)",
                        clip(&c.clock)
                    ));
                }
            }
        }
        if self.clocks.iter().all(|c| c.tick_ns.is_none()) {
            return Err("a run with no clock's tick adds nothing to the atlas".into());
        }
        Ok(self)
    }

    /// The cell it falls in.
    pub fn cell(&self) -> CellKey {
        CellKey {
            engine: self.engine.clone(),
            version: self.version,
            os: self.os.clone(),
            isolated: self.isolated,
            cpu_family: self.cpu_family.clone(),
        }
    }

    /// What is sent, a line a field, for the command to print before it sends.
    pub fn lines(&self) -> Vec<String> {
        let opt = |v: Option<String>| v.unwrap_or_else(|| DASH.into());
        let mut out = vec![
            format!("engine: {}", self.engine),
            format!("version: {}", opt(self.version.map(|v| v.to_string()))),
            format!("OS: {}", self.os),
            format!(
                "isolated: {}",
                opt(self.isolated.map(|i| if i { "yes" } else { "no" }.into()))
            ),
            format!("logical CPUs: {}", opt(self.cpus.clone())),
            format!("CPU family: {}", opt(self.cpu_family.clone())),
        ];
        for c in &self.clocks {
            out.push(format!(
                "{}: tick {}, read {}, {}",
                c.clock,
                c.tick_ns.map_or(DASH.into(), duration),
                c.read_ns.map_or(DASH.into(), duration),
                c.verdict
            ));
        }
        out
    }
}

/// A text cut for an error message.
fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// The value a tick is counted under: three significant digits, so that a clamp read as
/// 99 999.7 ns and one read as 100 000 ns are one mode.
pub fn mode_of(tick_ns: f64) -> f64 {
    round_to(tick_ns, 3)
}

/// The value a read cost is counted under: two significant digits (its median is then
/// within 5 %).
pub fn read_bucket(ns: f64) -> f64 {
    round_to(ns, 2)
}

fn round_to(x: f64, digits: i32) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    // Rounded through its decimal text: a division by a power of ten is not exact.
    let places = (digits - 1 - x.log10().floor() as i32).max(0) as usize;
    let scale = 10f64.powi(digits - 1 - x.log10().floor() as i32);
    let r = (x * scale).round() / scale;
    format!("{r:.places$}").parse().unwrap_or(r)
}

/// A counted value in its unit, its digits and no more: "100 µs", "41.7 ns", "16.7 ms".
pub fn short_duration(ns: f64) -> String {
    let (scale, unit) = crate::present::unit_of(ns);
    format!("{} {unit}", round_to(ns / scale, 3))
}

/// A cell: runs of one engine version, on one OS family, isolated or not (browsers); of
/// one CPU family on one OS family (native).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    /// One of [`ENGINES`].
    pub engine: String,
    /// Its major version.
    pub version: Option<u32>,
    /// One of [`OS_FAMILIES`].
    pub os: String,
    /// Isolated or not, for a browser.
    pub isolated: Option<bool>,
    /// A native run's CPU family.
    pub cpu_family: Option<String>,
}

impl CellKey {
    /// "Chromium 156 on Linux, isolated", "native on Linux, AMD EPYC".
    pub fn name(&self) -> String {
        let mut s = self.engine.clone();
        if let Some(v) = self.version {
            s += &format!(" {v}");
        }
        s += &format!(" on {}", self.os);
        match self.isolated {
            Some(true) => s += ", isolated",
            Some(false) => s += ", not isolated",
            None => {}
        }
        if let Some(f) = &self.cpu_family {
            s += &format!(", {f}");
        }
        s
    }

    /// What the engine documents for performance.now in this context.
    pub fn claim(&self) -> Option<(f64, &'static str)> {
        let b = match self.engine.as_str() {
            "Chromium" | "Edge" => Browser::Chromium,
            "Firefox" => Browser::Firefox,
            "Safari" => Browser::Safari,
            _ => return None,
        };
        documented_clamp(b, self.isolated?)
    }
}

/// Values counted, each with its runs.
pub type Counted<T> = Vec<(T, i64)>;

/// One clock's figures in a cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellClock {
    /// The clock.
    pub clock: String,
    /// Its ticks (as [`mode_of`] counts them) with their runs.
    pub ticks: Counted<f64>,
    /// The [`median`] of its read costs (as [`read_bucket`] counts them).
    pub read_median_ns: Option<f64>,
    /// Its verdicts with their runs.
    pub verdicts: Counted<String>,
}

/// A cell's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Which cell.
    pub key: CellKey,
    /// Distinct senders counted in it.
    pub senders: i64,
    /// Runs counted in it (one a sender a day at most).
    pub runs: i64,
    /// Its clocks, as their runs named them.
    pub clocks: Vec<CellClock>,
}

/// `counted` sorted by runs, most first (then by value), with each one's share.
fn shares<T: Clone + PartialOrd>(counted: &Counted<T>) -> Vec<(T, f64)> {
    let total: i64 = counted.iter().map(|c| c.1).sum();
    let mut v = counted.clone();
    v.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal))
    });
    v.into_iter()
        .map(|(x, n)| (x, n as f64 / total.max(1) as f64))
        .collect()
}

/// The lower median of counted values: the first, in order, whose running count reaches
/// half the total. The hub's database keeps each cell's by this rule as runs arrive
/// (`ticklab_atlas_roll`), from the counts alone.
pub fn median(counted: &Counted<f64>) -> Option<f64> {
    let mut v = counted.clone();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: i64 = v.iter().map(|r| r.1).sum();
    let mut seen = 0;
    v.into_iter().find_map(|(x, n)| {
        seen += n;
        (2 * seen >= total && total > 0).then_some(x)
    })
}

/// A share as a whole percent, "<1 %" when it rounds to none.
pub fn share_text(share: f64) -> String {
    let p = (share * 100.0).round();
    if p == 0.0 && share > 0.0 {
        "<1 %".into()
    } else {
        format!("{p} %")
    }
}

impl CellClock {
    /// Runs with a tick.
    pub fn runs(&self) -> i64 {
        self.ticks.iter().map(|t| t.1).sum()
    }

    /// The ticks, most common first, with their shares.
    pub fn modes(&self) -> Vec<(f64, f64)> {
        shares(&self.ticks)
    }

    /// "5 µs 97 %, 100 µs 3 %": the modes up to four, then how many more.
    pub fn modes_text(&self) -> String {
        let m = self.modes();
        let mut parts: Vec<String> = m
            .iter()
            .take(4)
            .map(|(t, s)| format!("{} {}", short_duration(*t), share_text(*s)))
            .collect();
        if m.len() > 4 {
            parts.push(format!("{} more", m.len() - 4));
        }
        if parts.is_empty() {
            DASH.into()
        } else {
            parts.join(", ")
        }
    }

    /// The median read cost (of the counted values, each within 5 %).
    pub fn read_median(&self) -> Option<f64> {
        self.read_median_ns
    }

    /// The verdicts, most common first, with their shares.
    pub fn verdict_shares(&self) -> Vec<(String, f64)> {
        shares(&self.verdicts)
    }
}

impl Cell {
    /// The performance.now clock's figures, when the cell has them.
    pub fn page_now(&self) -> Option<&CellClock> {
        self.clocks.iter().find(|c| c.clock == PAGE_NOW)
    }

    /// Why a person should look at this cell: its performance.now's most common tick is
    /// not the documented claim (within 5 %). None when they agree or nothing is claimed.
    pub fn flag(&self) -> Option<String> {
        let (claim, source) = self.key.claim()?;
        let top = self.page_now()?.modes().first().copied()?;
        ((top.0 / claim - 1.0).abs() > 0.05).then(|| {
            format!(
                "performance.now's most common tick, {} ({}), is not the {} documented ({source})",
                short_duration(top.0),
                share_text(top.1),
                short_duration(claim)
            )
        })
    }

    /// "like 97 % of Chromium 156 on Linux, isolated": how common a tick of `tick_ns` on
    /// `clock` is in this cell.
    pub fn likeness(&self, clock: &str, tick_ns: f64) -> Option<String> {
        let c = self.clocks.iter().find(|c| c.clock == clock)?;
        let want = mode_of(tick_ns);
        let share = c
            .modes()
            .into_iter()
            .find(|m| m.0 == want)
            .map_or(0.0, |m| m.1);
        Some(format!("like {} of {}", share_text(share), self.key.name()))
    }
}

/// A cell as the atlas publishes it (its JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Published {
    /// Which cell, and its name.
    #[serde(flatten)]
    pub key: CellKey,
    /// Its name in words.
    pub name: String,
    /// Distinct senders.
    pub senders: i64,
    /// Runs counted.
    pub runs: i64,
    /// What the engine documents for performance.now here, in ns, and where it says so.
    pub claim_ns: Option<f64>,
    /// Where the claim comes from.
    pub claim_source: Option<String>,
    /// Why a person should look at it, when they should.
    pub flag: Option<String>,
    /// Its clocks.
    pub clocks: Vec<PublishedClock>,
}

/// A clock of a published cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PublishedClock {
    /// The clock.
    pub clock: String,
    /// Runs with a tick.
    pub runs: i64,
    /// Its ticks, most common first: `[tick_ns, share]`.
    pub modes: Vec<(f64, f64)>,
    /// The modes in words.
    pub modes_text: String,
    /// The median read cost.
    pub read_median_ns: Option<f64>,
    /// Its verdicts, most common first: `[verdict, share]`.
    pub verdicts: Vec<(String, f64)>,
}

impl Cell {
    /// What the atlas publishes of it.
    pub fn published(&self) -> Published {
        let claim = self.key.claim();
        Published {
            key: self.key.clone(),
            name: self.key.name(),
            senders: self.senders,
            runs: self.runs,
            claim_ns: claim.map(|c| c.0),
            claim_source: claim.map(|c| c.1.to_string()),
            flag: self.flag(),
            clocks: self
                .clocks
                .iter()
                .map(|c| PublishedClock {
                    clock: c.clock.clone(),
                    runs: c.runs(),
                    modes: c.modes(),
                    modes_text: c.modes_text(),
                    read_median_ns: c.read_median(),
                    verdicts: c.verdict_shares(),
                })
                .collect(),
        }
    }
}

/// One version's ticks of a clock, for the plot across an engine's versions.
#[derive(Clone, Debug, PartialEq)]
pub struct VersionTicks {
    /// The major version.
    pub version: u32,
    /// Its modes, most common first: `(tick_ns, share)`.
    pub modes: Vec<(f64, f64)>,
}

/// A clock's ticks across an engine's versions on one OS family, isolated or not: where a
/// clamp changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Versions {
    /// "Chromium on Linux, not isolated: performance.now (worker) by version".
    pub title: String,
    /// The versions in order.
    pub points: Vec<VersionTicks>,
    /// What the engine documents there.
    pub claim_ns: Option<f64>,
}

/// The ticks of `clock` across the versions of the cells of `engine` on `os`, isolated
/// or not, among `cells`.
pub fn versions(cells: &[&Cell], engine: &str, os: &str, isolated: bool, clock: &str) -> Versions {
    let mut mine: Vec<&Cell> = cells
        .iter()
        .copied()
        .filter(|c| c.key.engine == engine && c.key.os == os && c.key.isolated == Some(isolated))
        .filter(|c| c.key.version.is_some())
        .collect();
    mine.sort_by_key(|c| c.key.version);
    let key = CellKey {
        engine: engine.into(),
        version: None,
        os: os.into(),
        isolated: Some(isolated),
        cpu_family: None,
    };
    Versions {
        title: format!("{}: {clock} by version", key.name()),
        points: mine
            .iter()
            .filter_map(|c| {
                let cc = c.clocks.iter().find(|x| x.clock == clock)?;
                Some(VersionTicks {
                    version: c.key.version?,
                    modes: cc.modes(),
                })
            })
            .collect(),
        claim_ns: key.claim().map(|c| c.0),
    }
}

impl Versions {
    /// The plot in words, its text alternative.
    pub fn words(&self) -> String {
        let mut s = format!("{}.", self.title);
        if let Some(c) = self.claim_ns {
            s += &format!(" Documented: {}.", short_duration(c));
        }
        for p in &self.points {
            let modes: Vec<String> = p
                .modes
                .iter()
                .map(|(t, sh)| format!("{} {}", short_duration(*t), share_text(*sh)))
                .collect();
            s += &format!(" Version {}: {}.", p.version, modes.join(", "));
        }
        s
    }
}

/// The CSV's columns: a row per cell, clock and tick.
pub const CSV_COLUMNS: [&str; 14] = [
    "engine",
    "version",
    "os",
    "isolated",
    "cpu_family",
    "senders",
    "runs",
    "clock",
    "clock_runs",
    "tick_ns",
    "share",
    "read_median_ns",
    "claim_ns",
    "flag",
];

/// The published cells as CSV, under [`CSV_COLUMNS`].
pub fn csv(cells: &[Cell]) -> String {
    let opt = |v: Option<String>| v.unwrap_or_default();
    let mut rows = Vec::new();
    for cell in cells {
        let p = cell.published();
        for c in &p.clocks {
            for (tick, share) in &c.modes {
                rows.push(vec![
                    p.key.engine.clone(),
                    opt(p.key.version.map(|v| v.to_string())),
                    p.key.os.clone(),
                    opt(p.key.isolated.map(|i| i.to_string())),
                    opt(p.key.cpu_family.clone()),
                    p.senders.to_string(),
                    p.runs.to_string(),
                    c.clock.clone(),
                    c.runs.to_string(),
                    tick.to_string(),
                    format!("{share:.4}"),
                    opt(c.read_median_ns.map(|r| r.to_string())),
                    opt(p.claim_ns.map(|r| r.to_string())),
                    opt(p.flag.clone()),
                ]);
            }
        }
    }
    crate::export::csv(&CSV_COLUMNS, rows)
}

#[cfg(test)]
#[path = "atlas_tests.rs"]
mod tests;
