//! The lab's state over whole runs: results, exports, a file's analysis, digests side by
//! side.

use super::*;

/// The page's unit menu offers the core's units, by their names, each once.
#[test]
fn the_analysis_form_offers_the_cores_units() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../index.html")).unwrap();
    let at = page
        .find("<select id=\"analyze-unit\"")
        .expect("the unit menu");
    let menu = &page[at..at + page[at..].find("</select>").unwrap()];
    let mut offered: Vec<&str> = menu
        .split("<option value=\"")
        .skip(1)
        .filter_map(|o| o.split('"').next())
        .collect();
    offered.sort_unstable();
    let mut units: Vec<&str> = Unit::ALL.iter().map(|u| u.key()).collect();
    units.sort_unstable();
    assert_eq!(offered, units);
}

#[test]
fn a_run_keeps_its_results_and_only_export_hands_out_the_report() {
    let mut s = LabState::new(Context::default());
    s.set_settings(&RawSettings::default()).unwrap();
    s.start();
    s.add_failure(ClockId::DateNow, "the worker failed");
    let rows = s
        .add_readings(ClockId::Raf, &[0.0, 16.6, 33.3, 50.0, 66.6, 83.3], 0.1)
        .unwrap();
    assert_eq!(rows.cell("clock"), "requestAnimationFrame timestamp");
    s.finish(&PageFacts::default());
    assert_eq!(s.rows().len(), 2);
    assert_eq!(s.crossings(), Crossings::default());
    let json = s.export().unwrap().to_json().unwrap();
    let back = Report::from_json(&json).unwrap();
    assert_eq!(back.clocks.len(), 2);
    // The notes of the failed clock are the command's words for the same result.
    assert_eq!(
        s.rows()[0].1.notes,
        present::notes(&back.clocks[0]),
        "{json}"
    );
    assert_eq!(s.crossings().reports_out, 1);
    assert!(s.export_csv().unwrap()[0].csv.contains("the worker failed"));
    assert_eq!(s.crossings().reports_out, 2);
}

/// A suspended AudioContext's clocks stand still: the reason is the suspension, not a
/// frozen clock; a running one that stands still is frozen.
#[test]
fn a_suspended_audio_clock_is_named_as_suspended() {
    let ctx = Context {
        audio_sample_rate: Some(44_100.0),
        ..Default::default()
    };
    let still = [0.0; 40];
    for (suspended, says) in [(true, "suspended"), (false, "did not advance")] {
        let mut s = LabState::new(ctx.clone());
        s.set_settings(&RawSettings::default()).unwrap();
        s.start();
        s.set_audio_suspended(suspended);
        let row = s
            .add_readings(ClockId::AudioCurrentTime, &still, 0.5)
            .unwrap();
        let notes = row.notes.join(" ");
        assert!(notes.contains(says), "{suspended}: {notes}");
    }
}

#[test]
fn a_run_a_file_and_a_link_side_by_side() {
    let mut s = LabState::new(Context::default());
    s.set_settings(&RawSettings::default()).unwrap();
    s.start();
    s.add_readings(ClockId::Raf, &[0.0, 16.6, 33.3, 50.0, 66.6, 83.3], 0.1)
        .unwrap();
    s.finish(&PageFacts::default());
    let d = s.share().unwrap();
    let link = serde_json::to_string(&d).unwrap();
    assert_eq!(d.from, "a shared result");
    assert!(
        !link.contains("timings"),
        "a link carries no samples: {link}"
    );
    let mut other = d.clone();
    other.from = "bob.json".into();
    assert!(s
        .add_digest(other.clone())
        .unwrap()
        .starts_with("bob.json: 1 clock"));
    // The same file again replaces itself.
    s.add_digest(other).unwrap();
    s.open_shared(d).unwrap();
    let m = s.matrix(class::Column::Report, false);
    assert_eq!(m.len(), 1);
    let from: Vec<&str> = m[0].rows.iter().map(|r| r.cells[0].as_str()).collect();
    assert_eq!(from, ["a shared result", "bob.json", "this page"]);
    assert_eq!(s.crossings().digests_in, 3);
    let mut bad = s.shared.clone().unwrap();
    bad.who.cpu = "x".repeat(400);
    assert!(s.add_digest(bad).is_err());
    s.clear_digests();
    assert_eq!(s.matrix(class::Column::Report, false)[0].rows.len(), 2);
}

#[test]
fn timings_in_ms_with_float_noise_show_a_100_us_tick() {
    let text: String = (1..400)
        .map(|i| format!("{}\n", (i % 37 + 1) as f64 * 0.1))
        .collect();
    assert!(
        text.contains("0.30000000000000004"),
        "the noise is in the file"
    );
    let json = |b: &[u8]| serde_json::from_slice(b).map_err(|e| e.to_string());
    let mut s = LabState::new(Context::default());
    let a = s
        .analyze(text.as_bytes(), "t.txt", "ms", "auto", &json)
        .unwrap();
    assert_eq!(a.tick_ns, Some(100_000.0));
    let tick = a.detail.iter().find(|r| r[0] == "tick").unwrap();
    assert!(tick[1].starts_with("100.000 µs"), "{:?}", a.detail);
    assert!(
        a.bands[1].starts_with("200 µs (2 ticks): "),
        "{:?}",
        a.bands
    );
    assert_eq!(s.analysed().unwrap().series.values.len(), 399);
    let e = s
        .analyze(b"1\nx\n", "bad.txt", "ms", "auto", &json)
        .unwrap_err();
    assert!(e.contains("line 2"), "{e}");
    assert!(s.analyze(b"1", "t", "furlongs", "auto", &json).is_err());
    assert!(s.analyze(b"1", "t", "ms", "guesses", &json).is_err());
}

/// A table pasted into the page: every column a row, in the words of `ticklab
/// analyze`'s table, a column of words and one of equal values with their reasons;
/// readings of the epoch in ms with their unit.
#[test]
fn every_column_of_a_table_is_a_row_in_the_commands_words() {
    let mut text = String::from("browser,ms,date_now,same\n");
    for i in 0..200u64 {
        let ms = (i * 7919 % 40 + 1) as f64 * 0.1;
        text.push_str(&format!(
            "Chrome,{ms},{},5\n",
            1_732_550_000_000 + i * 3 + i % 2
        ));
    }
    let json = |b: &[u8]| serde_json::from_slice(b).map_err(|e| e.to_string());
    let mut s = LabState::new(Context::default());
    let a = s
        .analyze(text.as_bytes(), "t.csv", "ms", "auto", &json)
        .unwrap();
    assert_eq!(a.columns, &present::analysis::COLUMNS_COLUMNS[..]);
    let an = analyze::examine(
        text.as_bytes(),
        None,
        "t.csv",
        Some(analyze::Unit::Ms),
        &json,
        None,
    )
    .unwrap();
    let want: Vec<Vec<String>> = an
        .series
        .iter()
        .map(present::analysis::column_row)
        .collect();
    assert_eq!(a.overview, want);
    let row = |name: &str| a.overview.iter().find(|r| r[0] == name).unwrap().clone();
    assert_eq!(row("browser")[4], "not numbers: skipped");
    assert_eq!(row("same")[4], "all alike: no step");
    assert_eq!(row("date_now")[2], "readings");
    // Steps of 2 and 4 ms alone: a 2 ms clock, or one of 1 ms read every 2 or 4 ms.
    assert_eq!(row("date_now")[3], "ambiguous: 2.000 ms, 1.000 ms");
    assert_eq!(row("ms")[2], "durations");
}

#[test]
fn export_before_a_run_says_so() {
    let mut s = LabState::new(Context::default());
    assert!(s.share().unwrap_err().contains("run the lab first"));
    assert!(s.export().unwrap_err().contains("run the lab first"));
    assert!(s.settings().is_err());
}

mod counted {
    use super::*;

    /// A counter read at the edges of a 100 µs clock, its counts per edge jittered by ±20 %:
    /// its tick is one count, as long as one count takes on average.
    #[test]
    fn a_counted_clock_ticks_one_count_at_its_calibrated_rate() {
        let mut s = LabState::new(Context::default());
        s.set_settings(&RawSettings::default()).unwrap();
        s.start();
        let mut rng = ticklab::rng::SplitMix64::new(7);
        for per_edge in [10.3, 0.6, 100.7, 3.4] {
            let (mut t, mut c, mut acc) = (0.0, 0.0f64, 0.0f64);
            let (mut ts, mut cs) = (vec![], vec![]);
            while t < 500.0 {
                t += 0.1;
                acc += per_edge * (0.8 + 0.4 * rng.unit());
                if acc.floor() > c {
                    c = acc.floor();
                    ts.push(t);
                    cs.push(c);
                }
            }
            s.add_counts(ClockId::MessageChannel, &ts, &cs, 0.5)
                .unwrap();
            let tick = s.results.last().unwrap().1.tick.clone().unwrap();
            assert_eq!(tick.exact_gcd, 1);
            // One count by construction: no bound of the sampling's cadence.
            assert!(tick.estimate.reliable && tick.caveats.contains(&Caveat::Counted));
            let truth = 100_000.0 / per_edge;
            let got = tick.tick_ns.unwrap();
            assert!(
                (got / truth - 1.0).abs() < 0.02,
                "{per_edge}: {got} ns against {truth}"
            );
        }
        // A setTimeout chain: five calls at once, then one every 4 ms (HTML's nesting clamp):
        // its rate is the clamped one, the warm-up left out.
        let (mut ts, mut cs) = (vec![], vec![]);
        for i in 0..65 {
            ts.push(if i < 5 {
                0.01 * i as f64
            } else {
                0.04 + 4.0 * (i - 4) as f64
            });
            cs.push(i as f64 + 1.0);
        }
        s.add_counts(ClockId::SetTimeoutChain, &ts, &cs, 0.25)
            .unwrap();
        let got = s
            .results
            .last()
            .unwrap()
            .1
            .tick
            .as_ref()
            .unwrap()
            .tick_ns
            .unwrap();
        assert!((got / 4e6 - 1.0).abs() < 0.01, "{got}");
        // HTML's 4 ms is a floor: a chain at it keeps the promise.
        let verdict = s.results.last().unwrap().1.tick.as_ref().unwrap().verdict;
        assert_eq!(verdict, ticklab::tick::Verdict::AtLeastClaimed);
        // Fewer than two readings, or a count that never moved: a reason, not a rate.
        for (ts, cs) in [(&[1.0][..], &[1.0][..]), (&[1.0, 2.0][..], &[5.0, 5.0][..])] {
            s.add_counts(ClockId::SetTimeoutChain, ts, cs, 0.5).unwrap();
            let r = &s.results.last().unwrap().1;
            assert!(r.tick.is_none() && !r.errors.is_empty());
        }
    }
}

/// A CSS animation read back in Firefox ESR 153 (one reading a task, 1.5 s in headless
/// Firefox, the animation begun 1.1 s before): lengths written to six significant digits,
/// 10 µs at these sizes. Its tick is at most that step, never a tick of it.
#[test]
fn a_css_animation_is_known_to_its_printing() {
    assert_eq!(printed_step(&[0.5, 99.99]), 1e-4);
    assert_eq!(printed_step(&[640.123]), 1e-3);
    assert_eq!(printed_step(&[1099.58, 2466.67]), 1e-2);
    let frames = [
        1099.58, 1116.48, 1132.61, 1149.92, 1166.12, 1182.97, 1216.67, 1265.99, 1316.67, 1366.62,
        1416.67, 1482.83, 1549.69, 1615.98, 1683.31, 1766.17, 1850.0, 1915.87, 1999.43, 2066.67,
        2149.87, 2232.9, 2316.42, 2383.33, 2466.67,
    ];
    // Read a few times a frame, as one reading a task does.
    let readings: Vec<f64> = frames.iter().flat_map(|&f| [f; 4]).collect();
    let mut s = LabState::new(Context {
        apis: crate::catalogue::Apis {
            css_animation: true,
            ..Default::default()
        },
        ..Context::default()
    });
    s.set_settings(&RawSettings::default()).unwrap();
    s.start();
    s.add_readings(ClockId::CssAnimation, &readings, 1.5)
        .unwrap();
    s.finish(&PageFacts::default());
    let report = s.export().unwrap();
    let tick = report.clocks[0].tick.as_ref().expect("a tick or its bound");
    assert_eq!(
        tick.estimate.method,
        ticklab::tick::Method::Precision,
        "{tick:?}"
    );
    assert_eq!(tick.tick_ns, Some(10_000.0));
}
