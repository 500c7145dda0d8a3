//! Numeric helpers of the estimators: a radix sort, rounding without a call, clusters of
//! sorted values.

use super::*;

/// Sorts by an LSD radix sort on 11-bit digits (six passes at most), skipping the digits
/// every key shares (a million doubles of one magnitude differ in four or five of them):
/// several times faster than a comparison sort.
pub(super) fn radix_sort(keys: &mut Vec<u64>) {
    pub(super) const BITS: u32 = 11;
    pub(super) const BUCKETS: usize = 1 << BITS;
    if keys.len() < 4096 {
        // The keys are positive doubles' bits, which sort as the doubles do: the one float
        // sort serves.
        let mut v: Vec<f64> = keys.iter().map(|&k| f64::from_bits(k)).collect();
        stats::sort_f64(&mut v);
        for (k, x) in keys.iter_mut().zip(v) {
            *k = x.to_bits();
        }
        return;
    }
    let mut other = vec![0u64; keys.len()];
    // Every digit's histogram in one pass: moving the keys does not change them.
    pub(super) const DIGITS: usize = 64usize.div_ceil(BITS as usize);
    let mut counts = vec![[0usize; BUCKETS]; DIGITS];
    for &k in keys.iter() {
        for (d, count) in counts.iter_mut().enumerate() {
            count[((k >> (d as u32 * BITS)) as usize) & (BUCKETS - 1)] += 1;
        }
    }
    for (d, count) in counts.iter_mut().enumerate() {
        if count.contains(&keys.len()) {
            continue;
        }
        let shift = d as u32 * BITS;
        let mut at = 0;
        for c in count.iter_mut() {
            let n = *c;
            *c = at;
            at += n;
        }
        for &k in keys.iter() {
            let b = ((k >> shift) as usize) & (BUCKETS - 1);
            other[count[b]] = k;
            count[b] += 1;
        }
        std::mem::swap(keys, &mut other);
    }
}

/// 1.5 × 2^52: added to a double below 2^51 and taken away again, it leaves it rounded.
pub(super) const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

/// `x` rounded to a whole number, without a call into libm (x86-64 has no rounding
/// instruction before SSE4.1): adding and taking away 1.5 × 2^52 leaves no fraction.
#[inline(always)]
pub(super) fn rnd(x: f64) -> f64 {
    if x.abs() < 2.0e15 {
        (x + ROUND_MAGIC) - ROUND_MAGIC
    } else {
        x.round()
    }
}

/// `x` rounded down, with [`rnd`].
#[inline(always)]
pub(super) fn flo(x: f64) -> f64 {
    let r = rnd(x);
    if r > x {
        r - 1.0
    } else {
        r
    }
}

/// Means of the `max` most populated clusters of sorted values (neighbours within `merge`
/// join), when some cluster holds more than one value.
pub(super) fn crowded(sorted: &[f64], merge: f64, max: usize) -> Vec<f64> {
    let mut top: Vec<(usize, usize, usize)> = Vec::new(); // (count, start, end)
    let mut start = 0;
    for i in 1..=sorted.len() {
        if i == sorted.len() || sorted[i] - sorted[i - 1] > merge {
            let c = i - start;
            if c > 1 && (top.len() < max || c > top[top.len() - 1].0) {
                let at = top.partition_point(|t| t.0 >= c);
                top.insert(at, (c, start, i));
                top.truncate(max);
            }
            start = i;
        }
    }
    top.iter()
        .map(|&(_, a, b)| stats::mean(&sorted[a..b]))
        .collect()
}

/// Means of the first `max` clusters of sorted values (neighbours within `merge` join).
pub(super) fn cluster_means(sorted: &[f64], merge: f64, max: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=sorted.len() {
        if i == sorted.len() || sorted[i] - sorted[i - 1] > merge {
            out.push(stats::mean(&sorted[start..i]));
            if out.len() >= max {
                break;
            }
            start = i;
        }
    }
    out
}

/// The smallest steps of diff(sort()) above `floor`, in order (a few dozen).
pub(super) fn small_gaps(sorted: &[f64], floor: f64) -> Vec<f64> {
    let keep = BASES * 8;
    // The smallest so far, in order; most gaps are larger than all of them.
    let mut best: Vec<f64> = Vec::with_capacity(keep + 1);
    for w in sorted.windows(2) {
        let g = w[1] - w[0];
        if g > floor && (best.len() < keep || g < best[keep - 1]) {
            let at = best.partition_point(|&b| b <= g);
            best.insert(at, g);
            best.truncate(keep);
        }
    }
    best
}
