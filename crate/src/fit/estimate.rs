//! The fits' estimators: least squares, the least-values fit (the line under every point
//! with the least total excess, from the lower convex hull) and the tick-quantized step.
//! Pure functions of (x, y): the experiment that times the runs is in `experiment.rs`.

use serde::{Deserialize, Serialize};

use crate::caveat::Caveat;
use crate::error::{invalid, Error, Result};

/// A straight line `intercept + slope × x`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// Change of y per unit of x.
    pub slope: f64,
    /// y at x = 0.
    pub intercept: f64,
}

impl Line {
    /// The line's value at `x`.
    pub fn at(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }
}

/// Ordinary least squares.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ols {
    /// The fitted line.
    pub line: Line,
    /// Coefficient of determination (1 when all points lie on the line; 1 too when y is
    /// constant and so is the fit).
    pub r2: f64,
    /// Standard error of the slope (0 with two points).
    pub slope_stderr: f64,
}

fn finite_pairs(x: &[f64], y: &[f64]) -> Result<Vec<(f64, f64)>> {
    if x.len() != y.len() {
        return Err(invalid(
            "points",
            format!("{} x values but {} y values", x.len(), y.len()),
        ));
    }
    // Sized at once: a million points grown by doubling copy 32 MB more (in wasm, with the
    // memory grown at each step).
    let mut p = Vec::with_capacity(x.len());
    p.extend(
        x.iter()
            .zip(y)
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .map(|(&a, &b)| (a, b)),
    );
    Ok(p)
}

/// Points so close in x (subnormal differences) or so far apart in y that the slope overflows.
fn too_close() -> Error {
    Error::NoData(Caveat::NoFiniteSlope)
}

/// Least squares of `y` on `x` over the finite pairs: slope = cov(x, y) / var(x).
/// Fails with fewer than two distinct x.
pub fn ols(x: &[f64], y: &[f64]) -> Result<Ols> {
    let p = finite_pairs(x, y)?;
    let n = p.len() as f64;
    if p.len() < 2 {
        return Err(Error::NoData(Caveat::FewerThanTwoPoints));
    }
    let mx = p.iter().map(|q| q.0).sum::<f64>() / n;
    let my = p.iter().map(|q| q.1).sum::<f64>() / n;
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for &(a, b) in &p {
        let (dx, dy) = (a - mx, b - my);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if sxx.is_nan() || sxx <= 0.0 || !sxx.is_finite() || !sxy.is_finite() {
        return Err(Error::NoData(Caveat::FewerThanTwoXs));
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    if !(slope.is_finite() && intercept.is_finite()) {
        return Err(too_close());
    }
    let sse = (syy - slope * sxy).max(0.0);
    let r2 = if syy > 0.0 { 1.0 - sse / syy } else { 1.0 };
    let slope_stderr = if p.len() > 2 {
        (sse / (n - 2.0) / sxx).sqrt()
    } else {
        0.0
    };
    Ok(Ols {
        line: Line { slope, intercept },
        r2,
        slope_stderr,
    })
}

/// Krutar's least-values fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeastValues {
    /// The line under every point.
    pub line: Line,
    /// Sum of the points' excess over the line: the least any line under them has.
    pub total_excess: f64,
    /// x of the two hull points the line passes through.
    pub through: (f64, f64),
}

/// f64 → u64 keeping the order of `f64::total_cmp`, and back.
fn order_key(x: f64) -> u64 {
    let b = x.to_bits() as i64;
    ((b ^ (((b >> 63) as u64) >> 1) as i64) as u64) ^ (1 << 63)
}

fn from_order_key(k: u64) -> f64 {
    let b = (k ^ (1 << 63)) as i64;
    f64::from_bits((b ^ (((b >> 63) as u64) >> 1) as i64) as u64)
}

type Point = (f64, f64);

std::thread_local! {
    /// The radix sort's second buffer, kept between calls: fresh pages cost a fault each, and
    /// for a million points those faults took half the time of a fit natively (wasm keeps its
    /// memory anyway).
    static SORT_BUF: std::cell::RefCell<Vec<Point>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sorts points by x: a least-significant-digit radix sort on 16-bit digits of the order
/// key, skipping digits all points share (the low mantissa bits of whole-number sizes).
/// Linear, and free of the comparison calls that made a million-point sort 2.8× slower in
/// wasm than natively. Keys are kept in place of x (as bits) while sorting.
fn sort_by_x(p: &mut [Point]) {
    const DIGITS: usize = 4;
    const BUCKETS: usize = 1 << 16;
    if p.len() < 1 << 12 {
        // Ties in x may come in any order.
        crate::stats::sort_pairs(p);
        return;
    }
    let key = |q: &Point| q.0.to_bits();
    for q in p.iter_mut() {
        q.0 = f64::from_bits(order_key(q.0));
    }
    let mut counts = vec![0usize; DIGITS * BUCKETS];
    for q in p.iter() {
        let k = key(q);
        for d in 0..DIGITS {
            counts[d * BUCKETS + ((k >> (16 * d)) & 0xffff) as usize] += 1;
        }
    }
    SORT_BUF.with_borrow_mut(|buf| {
        buf.clear();
        buf.resize(p.len(), (0.0, 0.0));
        let mut in_buf = false; // where the latest pass left the points
        for d in 0..DIGITS {
            let c = &mut counts[d * BUCKETS..(d + 1) * BUCKETS];
            if c.contains(&p.len()) {
                continue;
            }
            let mut sum = 0;
            for n in c.iter_mut() {
                (*n, sum) = (sum, sum + *n);
            }
            let (from, to): (&[Point], &mut [Point]) = if in_buf {
                (&buf[..], &mut *p)
            } else {
                (&*p, &mut buf[..])
            };
            for q in from {
                let b = ((key(q) >> (16 * d)) & 0xffff) as usize;
                to[c[b]] = *q;
                c[b] += 1;
            }
            in_buf = !in_buf;
        }
        if in_buf {
            p.copy_from_slice(buf);
        }
    });
    for q in p.iter_mut() {
        q.0 = from_order_key(q.0.to_bits());
    }
}

/// The least-values fit of the finite pairs: the line below every point whose total excess
/// is least. Needs two distinct x.
pub fn least_values(x: &[f64], y: &[f64]) -> Result<LeastValues> {
    let mut p = finite_pairs(x, y)?;
    if p.is_empty() {
        return Err(Error::NoData(Caveat::FewerThanTwoPoints));
    }
    let n = p.len() as f64;
    // One pass for the sums, the largest magnitudes and whether x is in order.
    let (mut sum_x, mut sum_y, mut max_x, mut max_y) = (0.0, 0.0, 0.0f64, 0.0f64);
    let (mut sorted, mut last) = (true, f64::NEG_INFINITY);
    for &(a, b) in &p {
        sum_x += a;
        sum_y += b;
        max_x = max_x.max(a.abs());
        max_y = max_y.max(b.abs());
        sorted &= last <= a;
        last = a;
    }
    let mean_x = sum_x / n;
    if !sorted {
        sort_by_x(&mut p);
    }
    // Andrew's monotone chain, lower hull.
    let mut hull: Vec<(f64, f64)> = Vec::new();
    for &q in &p {
        if let Some(&last) = hull.last() {
            if last.0 == q.0 {
                // Of equal x only the lowest can be on the hull.
                if q.1 >= last.1 {
                    continue;
                }
                hull.pop();
            }
        }
        while hull.len() >= 2 {
            let (o, a) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            let cross = (a.0 - o.0) * (q.1 - o.1) - (a.1 - o.1) * (q.0 - o.0);
            if cross <= 0.0 {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(q);
    }
    if hull.len() < 2 {
        return Err(Error::NoData(Caveat::FewerThanTwoXs));
    }
    // The hull edge whose x-range holds mean(x) maximises intercept + slope × mean(x).
    let i = match hull.partition_point(|h| h.0 <= mean_x) {
        0 => 0,
        k if k >= hull.len() => hull.len() - 2,
        k => k - 1,
    };
    let (a, b) = (hull[i], hull[i + 1]);
    let slope = (b.1 - a.1) / (b.0 - a.0);
    let intercept = a.1 - slope * a.0;
    if !(slope.is_finite() && intercept.is_finite()) {
        return Err(too_close());
    }
    let line = Line { slope, intercept };
    // The hull's turn test multiplies differences, which underflow to zero for points
    // hundreds of orders of magnitude apart (a coverage-guided fuzzer found x = 1e-321 beside
    // 1e-120): then the line can pass over a point. Such input gets no line rather than one
    // that is not under all the points.
    let tolerance = 1e-12 * (max_y + slope.abs() * max_x);
    if p.iter().any(|q| q.1 - line.at(q.0) < -tolerance) {
        return Err(Error::NoData(Caveat::SpanTooWide));
    }
    Ok(LeastValues {
        line,
        total_excess: sum_y - n * line.at(mean_x),
        through: (a.0, b.0),
    })
}

/// A staircase `tick × floor((offset + slope × x) / tick)`: what a clock of that tick shows
/// for a duration growing on the line.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The underlying line (true durations).
    pub line: Line,
    /// The tick the durations are quantized to.
    pub tick: f64,
    /// Points lying exactly on the staircase.
    pub on_steps: u64,
}

impl Step {
    /// The staircase's value at `x`.
    pub fn at(&self, x: f64) -> f64 {
        self.tick * (self.line.at(x) / self.tick).floor()
    }
}

/// Fits a staircase of the given slope and tick to (x, y): the offset is the one that puts
/// the most points exactly on a step, each point allowing offsets with
/// `y ≤ offset + slope·x < y + tick`. Ties take the lowest offset.
pub fn step_fit(x: &[f64], y: &[f64], slope: f64, tick: f64) -> Result<Step> {
    if !(tick.is_finite() && tick > 0.0 && slope.is_finite()) {
        return Err(invalid(
            "step",
            format!("tick {tick}, slope {slope}: need a finite positive tick and finite slope"),
        ));
    }
    let p = finite_pairs(x, y)?;
    if p.is_empty() {
        return Err(Error::NoData(Caveat::NoPointForStaircase));
    }
    // Sweep the interval endpoints: +1 at y − slope·x, −1 at that plus the tick, each
    // kept negated, so the pairs' one order puts an end before a start at the same place.
    let mut ev: Vec<(f64, f64)> = Vec::with_capacity(2 * p.len());
    for &(a, b) in &p {
        let lo = b - slope * a;
        ev.push((lo, -1.0));
        ev.push((lo + tick, 1.0));
    }
    crate::stats::sort_pairs(&mut ev);
    let (mut depth, mut best, mut at) = (0i32, 0i32, ev[0].0);
    for (i, &(v, d)) in ev.iter().enumerate() {
        depth -= d as i32;
        if depth > best {
            best = depth;
            // The middle of the best stretch, away from float trouble at its ends.
            at = ev.get(i + 1).map_or(v, |next| 0.5 * (v + next.0));
        }
    }
    Ok(Step {
        line: Line {
            slope,
            intercept: at,
        },
        tick,
        on_steps: best as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn ols_matches_closed_form() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = [3.0, 5.0, 7.0, 9.0];
        let f = ols(&x, &y).unwrap();
        assert!((f.line.slope - 2.0).abs() < 1e-12);
        assert!((f.line.intercept - 1.0).abs() < 1e-12);
        assert!((f.r2 - 1.0).abs() < 1e-12);
        assert!(ols(&[1.0, 1.0], &[2.0, 3.0]).is_err());
        assert!(ols(&[1.0], &[2.0, 3.0]).is_err());
    }

    #[test]
    fn radix_sort_orders_like_total_cmp() {
        let mut rng = SplitMix64::new(5);
        let mut p: Vec<(f64, f64)> = (0..10_000)
            .map(|i| {
                let x = match i % 4 {
                    0 => rng.unit() * 1e6,
                    1 => -rng.unit() * 1e-3,
                    2 => (rng.below(50) as f64) - 25.0,
                    _ => 0.0,
                };
                (x, i as f64)
            })
            .collect();
        let mut want = p.clone();
        want.sort_by(|a, b| a.0.total_cmp(&b.0));
        sort_by_x(&mut p);
        let xs = |v: &[(f64, f64)]| v.iter().map(|q| q.0.to_bits()).collect::<Vec<_>>();
        assert_eq!(xs(&p), xs(&want));
        let mut ys: Vec<u64> = p.iter().map(|q| q.1 as u64).collect();
        ys.sort_unstable();
        assert!(ys.iter().enumerate().all(|(i, &y)| i as u64 == y));
    }

    /// A coverage-guided fuzzer's find (fuzz/, the `fits` target): x from 0 to 1e-120 with
    /// subnormals, where the hull's turn test underflows. No line, rather than one over a point.
    #[test]
    fn points_too_far_apart_in_magnitude_get_no_line_rather_than_a_wrong_one() {
        let p = [
            (1.0024079488616814e-299, 1.428773550779439e-101),
            (2.39179611e-315, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (0.0, 7.291122019556399e-304),
            (0.0, 1.265e-321),
            (1.265e-321, -3.051862586289644e-05),
            (5.73651855214771e-309, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (1.012e-320, 0.0),
            (8.289046e-317, 4.483094639250374e-120),
            (4.483094640249093e-120, 4.483094640249093e-120),
            (1.93e-322, 0.0),
            (0.0, 0.0),
            (1.69759663277e-313, 0.0),
            (4.890537174e-315, 0.0),
            (0.0, 0.0),
            (0.0, 5.818e-320),
            (0.0, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (2.716237179105e-312, 0.0),
            (0.0, 0.0),
            (0.0, 0.0),
            (5.964208834047145e-212, 5.964208835435795e-212),
            (5.964208835435795e-212, 1.2205156960835812e-207),
        ];
        let (x, y): (Vec<f64>, Vec<f64>) = p.iter().copied().unzip();
        match least_values(&x, &y) {
            Ok(l) => {
                for (a, b) in x.iter().zip(&y) {
                    assert!(b - l.line.at(*a) >= -1e-9, "({a}, {b}) under {:?}", l.line);
                }
            }
            Err(e) => assert!(e.to_string().contains("orders of magnitude"), "{e}"),
        }
    }

    #[test]
    fn least_values_lies_under_all_points() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [2.0, 2.5, 4.0, 4.2, 6.0];
        let f = least_values(&x, &y).unwrap();
        for (a, b) in x.iter().zip(&y) {
            assert!(b - f.line.at(*a) >= -1e-12);
        }
    }

    #[test]
    fn step_fit_puts_quantized_points_on_steps() {
        // True durations 0.359 × x quantized to 0.5: the Moiré example of "Tuning a Timer".
        let x: Vec<f64> = (1..=40).map(f64::from).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|&a| 0.5 * ((0.1 + 0.359 * a) / 0.5).floor())
            .collect();
        let s = step_fit(&x, &y, 0.359, 0.5).unwrap();
        assert_eq!(s.on_steps, 40);
        for (a, b) in x.iter().zip(&y) {
            assert!((b - s.at(*a)).abs() < 1e-9);
        }
    }
}
