//! The page's clocks in real browsers (wasm-bindgen-test-runner drives headless Chromium and
//! Firefox; `cargo xtask test` runs this file in both, in a page that is not cross-origin
//! isolated).
#![cfg(target_arch = "wasm32")]

use serde::Serialize;
use ticklab::report::{ClockReport, Report};
use ticklab::run::{quiet, Flow, Progress};
use ticklab_www::catalogue::{self, Browser, ClockId, Context};
use ticklab_www::settings::{RawSettings, Settings};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn context() -> Context {
    let w = web_sys::window().expect("a window");
    let isolated = js_sys::Reflect::get(&w, &"crossOriginIsolated".into())
        .map(|v| v.is_truthy())
        .unwrap_or(false);
    Context {
        user_agent: w.navigator().user_agent().unwrap_or_default(),
        isolated,
        ..Default::default()
    }
}

fn settings(tick_s: &str) -> Settings {
    Settings::parse(&RawSettings {
        tick_s: tick_s.into(),
        overhead_s: "0.1".into(),
        ..Default::default()
    })
    .unwrap()
}

fn run(id: &str, s: &Settings) -> ClockReport {
    let ctx = context();
    let entry = catalogue::entry(&ctx, ClockId::parse(id).unwrap());
    let mut obs = |p: &Progress<'_>| -> Flow { quiet(p) };
    ticklab_www::measure(&entry, s, false, None, &mut obs).unwrap()
}

#[wasm_bindgen_test]
fn performance_now_tick_is_the_documented_clamp_when_not_isolated() {
    let ctx = context();
    let browser = catalogue::browser(&ctx.user_agent);
    assert!(
        matches!(browser, Browser::Chromium | Browser::Firefox),
        "expected headless Chromium or Firefox, got {}",
        ctx.user_agent
    );
    assert!(
        !ctx.isolated,
        "the test page must not be cross-origin isolated"
    );
    let (want, _) = catalogue::documented_clamp(browser, false).unwrap();
    let r = run("performance.now", &settings("1.5"));
    let t = r
        .tick
        .as_ref()
        .unwrap_or_else(|| panic!("no tick: {:?}", r.errors));
    web_sys::console::log_1(
        &format!(
            "{browser:?}: performance.now tick {:?} ns from {} edges, {} timings",
            t.tick_ns, t.edges, t.timings
        )
        .into(),
    );
    assert_eq!(t.tick_ns, Some(want), "{browser:?}: {:?}", t.estimate);
    assert!(t.estimate.reliable, "{:?}", t.estimate.caveats);
}

#[wasm_bindgen_test]
fn date_now_ticks_in_milliseconds() {
    let r = run("Date.now", &settings("0.5"));
    let t = r.tick.expect("a tick");
    assert_eq!(
        t.tick_ns,
        Some(1e6),
        "{:?} gcd {} edges {:?}",
        t.estimate,
        t.exact_gcd,
        &t.edge_intervals[..20.min(t.edge_intervals.len())]
    );
}

#[wasm_bindgen_test]
fn the_report_has_the_native_json_shape() {
    let mut s = settings("0.2");
    s.fit_s = 0.2;
    let clock = run("sim-chromium", &s);
    assert_eq!(clock.tick.as_ref().and_then(|t| t.tick_ns), Some(100_000.0));
    // Across the boundary as the worker hands it to the page's lab, then to JSON as the
    // export does it; nothing else crosses.
    let js = |e: wasm_bindgen::JsError| wasm_bindgen::JsValue::from(e);
    let ctx = serde_wasm_bindgen::to_value(&context()).unwrap();
    let mut lab = ticklab_www::Lab::new(ctx).map_err(js).unwrap();
    let clock_js = clock
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap();
    lab.add_result("sim-chromium", clock_js)
        .map_err(js)
        .unwrap();
    lab.finish(js_sys::Object::new().into())
        .map_err(js)
        .unwrap();
    let crossed = |lab: &ticklab_www::Lab| -> serde_json::Value {
        serde_wasm_bindgen::from_value(lab.crossings().map_err(js).unwrap()).unwrap()
    };
    assert_eq!(crossed(&lab)["reports_out"], 0);
    assert_eq!(crossed(&lab)["clocks_in"], 1);
    let json = lab.export_json().map_err(js).unwrap();
    assert_eq!(crossed(&lab)["reports_out"], 1);
    let back = Report::from_json(&json).unwrap();
    assert_eq!(back.clocks[0], clock);
    // The same keys, at every level, as a report the native command writes.
    let page: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut native = Report::new(Default::default());
    native.clocks.push(clock.clone());
    let native = serde_json::to_value(&native).unwrap();
    assert_eq!(keys(&page), keys(&native));
}

fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &serde_json::Value, path: String, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    let p = format!("{path}.{k}");
                    out.push(p.clone());
                    walk(x, p, out);
                }
            }
            serde_json::Value::Array(a) => {
                if let Some(x) = a.first() {
                    walk(x, format!("{path}[]"), out);
                }
            }
            _ => {}
        }
    }
    walk(v, String::new(), &mut out);
    out.sort();
    out
}

/// The broken-clock table of the core, compiled to wasm and run in the browser.
#[wasm_bindgen_test]
fn every_broken_clock_ends_in_budget_in_the_browser_too() {
    let failures = ticklab::broken::run_all(&mut |o| {
        console_log!(
            "{}: {:.3} s of {:.3} s; {}",
            o.name,
            o.spent_s,
            o.allowed_s,
            o.summary()
        )
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
