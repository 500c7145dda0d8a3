use super::*;
use crate::digest::{DigestClock, Figures, Who};

fn digest(browser: &str, os: &str, isolation: &str, cpu: &str, ticks: &[(&str, f64)]) -> Digest {
    Digest {
        from: "a shared result".into(),
        place: "browser".into(),
        who: Who {
            browser: browser.into(),
            os: os.into(),
            isolation: isolation.into(),
            cpu: cpu.into(),
        },
        clocks: ticks
            .iter()
            .map(|(name, t)| DigestClock {
                figures: Figures {
                    clock: (*name).into(),
                    tick: duration(*t),
                    read_cost: "25 ns".into(),
                    verdict: "matches the claim".into(),
                },
                tick_ns: Some(*t),
                read_ns: Some(25.0),
            })
            .collect(),
    }
}

#[test]
fn a_page_s_digest_keeps_only_the_listed_fields() {
    let d = digest(
        "Chromium 156",
        "Linux",
        "isolated",
        "12 logical CPUs",
        &[(PAGE_NOW, 5000.0)],
    );
    let s = Submission::of(&d).unwrap();
    assert_eq!(s.engine, "Chromium");
    assert_eq!(s.version, Some(156));
    assert_eq!(s.os, "Linux");
    assert_eq!(s.isolated, Some(true));
    assert_eq!(s.cpus.as_deref(), Some("9-16"));
    assert_eq!(s.cpu_family, None);
    let text = serde_json::to_string(&s).unwrap();
    assert!(
        !text.contains("shared result") && !text.contains("12"),
        "{text}"
    );
    // A bucket already made reads the same.
    let d = digest(
        "Firefox 153",
        "Windows",
        "not isolated",
        "5-8 logical CPUs",
        &[(PAGE_NOW, 1e6)],
    );
    assert_eq!(Submission::of(&d).unwrap().cpus.as_deref(), Some("5-8"));
}

#[test]
fn a_native_digest_names_its_cpu_family_not_its_model() {
    let d = digest(
        "native",
        "linux",
        "-",
        "AMD EPYC 7B13 64-Core Processor",
        &[("CLOCK_MONOTONIC", 1.0)],
    );
    let s = Submission::of(&d).unwrap();
    assert_eq!(
        (s.engine.as_str(), s.version, s.isolated),
        (NATIVE, None, None)
    );
    assert_eq!(s.os, "Linux");
    assert_eq!(s.cpu_family.as_deref(), Some("AMD EPYC"));
    assert_eq!(
        cpu_family("Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz").as_deref(),
        Some("Intel Core i7")
    );
    assert_eq!(cpu_family("Apple M2 Pro").as_deref(), Some("Apple M2"));
    assert_eq!(
        cpu_family("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz").as_deref(),
        Some("Intel Xeon Platinum")
    );
    assert_eq!(cpu_family("-"), None);
}

#[test]
fn impossible_values_and_forged_fields_are_refused_with_a_reason() {
    let good = Submission::of(&digest(
        "Safari 17",
        "macOS",
        "not isolated",
        "8 logical CPUs",
        &[(PAGE_NOW, 1e6)],
    ))
    .unwrap();
    let with = |f: &dyn Fn(&mut Submission)| {
        let mut s = good.clone();
        f(&mut s);
        s.check().unwrap_err()
    };
    assert!(with(&|s| s.clocks[0].tick_ns = Some(0.5)).contains("1 ns to 10 s"));
    assert!(with(&|s| s.clocks[0].tick_ns = Some(2e10)).contains("1 ns to 10 s"));
    assert!(with(&|s| s.clocks[0].read_ns = Some(-1.0)).contains("read cost"));
    assert!(with(&|s| s.clocks[0].tick_ns = None).contains("no clock's tick"));
    assert!(with(&|s| s.engine = "Netscape".into()).contains("engine"));
    assert!(with(&|s| s.os = "Plan 9".into()).contains("OS"));
    assert!(with(&|s| s.cpus = Some("12".into())).contains("bucket"));
    assert!(with(&|s| s.clocks[0].verdict = "lovely".into()).contains("verdict"));
    assert!(with(&|s| s.cpu_family = Some("AMD".into())).contains("CPU family"));
    assert!(with(&|s| s.clocks[0].clock = "x".repeat(81)).contains("name"));
    assert!(with(&|s| s.clocks.clear()).contains("clocks"));
    // NaN and infinities never pass: JSON has none, and the ranges hold them out.
    assert!(with(&|s| s.clocks[0].tick_ns = Some(f64::NAN)).contains("1 ns"));
    // Fields beyond the list do not read.
    let text = serde_json::to_string(&good)
        .unwrap()
        .replace("\"os\"", "\"ua\":\"Mozilla\",\"os\"");
    assert!(serde_json::from_str::<Submission>(&text).is_err());
}

#[test]
fn modes_shares_median_and_the_claim_of_a_cell() {
    let key = Submission::of(&digest(
        "Chromium 156",
        "Linux",
        "not isolated",
        "8 logical CPUs",
        &[(PAGE_NOW, 1e5)],
    ))
    .unwrap()
    .cell();
    assert_eq!(key.name(), "Chromium 156 on Linux, not isolated");
    assert_eq!(key.claim().unwrap().0, 100_000.0);
    let cell = |ticks: Counted<f64>| Cell {
        key: key.clone(),
        senders: 33,
        runs: 33,
        clocks: vec![CellClock {
            clock: PAGE_NOW.into(),
            ticks,
            read_median_ns: median(&vec![(20.0, 10), (30.0, 1), (400.0, 22)]),
            verdicts: vec![
                ("matches the claim".into(), 32),
                ("coarser than claimed".into(), 1),
            ],
        }],
    };
    let agree = cell(vec![(mode_of(99_999.7), 32), (mode_of(1e6), 1)]);
    let c = &agree.clocks[0];
    assert_eq!(c.modes_text(), "100 µs 97 %, 1 ms 3 %");
    assert_eq!(c.read_median(), Some(400.0));
    // The lower median: 2 of 4 reaches half.
    assert_eq!(
        median(&vec![(3.0, 1), (1.0, 1), (2.0, 1), (4.0, 1)]),
        Some(2.0)
    );
    assert_eq!(median(&vec![]), None);
    assert_eq!(agree.flag(), None);
    assert_eq!(
        agree.likeness(PAGE_NOW, 100_010.0).unwrap(),
        "like 97 % of Chromium 156 on Linux, not isolated"
    );
    let disagree = cell(vec![(5000.0, 30), (1e5, 3)]);
    assert!(disagree
        .flag()
        .unwrap()
        .contains("5 µs (91 %), is not the 100 µs documented"));
    let p = disagree.published();
    assert_eq!(p.claim_ns, Some(1e5));
    let csv = csv(&[disagree]);
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.starts_with(&CSV_COLUMNS.join(",")));
}

#[test]
fn buckets_and_rounding() {
    assert_eq!(
        [1, 2, 4, 8, 16, 32, 64].map(cpu_bucket),
        ["1", "2", "3-4", "5-8", "9-16", "17-32", "33 or more"]
    );
    assert_eq!(mode_of(41.666), 41.7);
    assert_eq!(mode_of(16_666_666.7), 16_700_000.0);
    assert_eq!(read_bucket(27.4), 27.0);
    assert_eq!(os_family("Mac OS X"), "macOS");
    assert_eq!(os_family("iPadOS"), "iPadOS");
    assert_eq!(os_family("-"), "other");
}
