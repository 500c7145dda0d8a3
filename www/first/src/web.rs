//! performance.now as the core's clock, and the module's one export: the headline measured
//! here, in the worker that loads this module.

use ticklab::clock::{ClockInfo, FloatClock};
use ticklab::Clock;
use wasm_bindgen::JsCast;
use web_sys::Performance;

/// The performance object of this global (window or worker).
pub fn performance() -> Result<Performance, String> {
    let g = js_sys::global();
    if let Some(w) = g.dyn_ref::<web_sys::Window>() {
        return w
            .performance()
            .ok_or_else(|| "no window.performance".into());
    }
    if let Some(w) = g.dyn_ref::<web_sys::WorkerGlobalScope>() {
        return w.performance().ok_or_else(|| "no self.performance".into());
    }
    Err("neither a window nor a worker: no performance object".into())
}

/// A clock whose source gives milliseconds, described by `info`. Boxed: one copy of
/// FloatClock's code for every page clock, not one a closure.
pub fn float_clock(info: ClockInfo, f: impl FnMut() -> f64 + 'static) -> Box<dyn Clock> {
    let f: Box<dyn FnMut() -> f64> = Box::new(f);
    let mut c = FloatClock::milliseconds(info.name.clone(), info.kind, f);
    *c.info_mut() = info;
    Box::new(c)
}

/// performance.now as the clock `info` describes, and the stopwatch (the same clock, in
/// seconds) its budgets are kept by.
pub fn performance_now(info: ClockInfo) -> Result<(Box<dyn Clock>, impl FnMut() -> f64), String> {
    let perf = performance()?;
    let p = perf.clone();
    Ok((float_clock(info, move || p.now()), move || {
        perf.now() / 1000.0
    }))
}

/// The headline, measured here: `{tick_ns, tick, verdict, isolation}`, the tick of
/// performance.now in this global and its words, for a page of `user_agent`, cross-origin
/// isolated or not; pass 0 is a short first look, pass 1 a longer one.
#[cfg(feature = "module")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn headline(
    user_agent: &str,
    isolated: bool,
    pass: u32,
) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsError> {
    use js_sys::{Object, Reflect};
    use wasm_bindgen::{JsError, JsValue};
    let info = crate::worker_now_info(user_agent, isolated);
    let (mut clock, mut stopwatch) = performance_now(info).map_err(|e| JsError::new(&e))?;
    let report = crate::measure(clock.as_mut(), &mut stopwatch, pass);
    // A worker is a secure context when its page is; a page over plain http from another
    // machine is not, and no reload can isolate it.
    let secure = Reflect::get(&js_sys::global(), &"isSecureContext".into())
        .map_or(true, |v| v.as_bool() != Some(false));
    let h = crate::headline(&report, user_agent, isolated, secure);
    let o = Object::new();
    let set = |k: &str, v: JsValue| Reflect::set(&o, &k.into(), &v).map(|_| ());
    let tick_ns = h.tick_ns.map_or(JsValue::NULL, JsValue::from);
    set("tick_ns", tick_ns)
        .and_then(|_| set("tick", h.tick.into()))
        .and_then(|_| set("verdict", h.verdict.into()))
        .and_then(|_| set("isolation", h.isolation.into()))
        .map_err(|_| JsError::new("the headline could not be handed to the page"))?;
    Ok(o.into())
}
