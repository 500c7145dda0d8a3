//! Order statistics, histograms and band detection for samples and plots.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Order statistics of a sample: the minimum first, since the required time is the
/// smallest timing; the mean is kept only to show how far noise drags it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Finite values summarised.
    pub count: u64,
    /// Smallest value.
    pub min: f64,
    /// 5th percentile.
    pub p05: f64,
    /// First quartile.
    pub p25: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub p75: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

/// Sorts `v` in ascending total order (NaN last). One copy of the sort for every crate that
/// sorts floats: each instance of the standard sort weighs about 4 KB of the page.
#[inline(never)]
pub fn sort_f64(v: &mut [f64]) {
    v.sort_unstable_by(f64::total_cmp);
}

/// Sorts pairs by their first value ascending, then their second descending (total order,
/// NaN last). One copy of the sort for every sort of pairs: each instance of the standard
/// sort weighs about 4 KB of the page.
#[inline(never)]
pub fn sort_pairs(v: &mut [(f64, f64)]) {
    v.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
}

/// `v` in ascending total order of `key` (NaN last), equal keys in their order in `v`:
/// a stable sort through the one sort of pairs, so a stable sort costs the page no sort
/// code of its own (the standard one weighs about 1 KB of it gzipped an instance).
pub fn stable_by_key<T>(v: Vec<T>, key: impl Fn(&T) -> f64) -> Vec<T> {
    // The second value descending: the index negated, so ties keep their order.
    let mut order: Vec<(f64, f64)> = v
        .iter()
        .enumerate()
        .map(|(i, x)| (key(x), -(i as f64)))
        .collect();
    sort_pairs(&mut order);
    let mut slots: Vec<Option<T>> = v.into_iter().map(Some).collect();
    order
        .iter()
        .filter_map(|&(_, i)| slots[(-i) as usize].take())
        .collect()
}

impl Summary {
    /// Summarises the finite values of `values`; non-finite ones are ignored.
    /// Fails when no finite value is left.
    pub fn of(values: &[f64]) -> Result<Self> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return Err(Error::NoData(crate::caveat::Caveat::NoFiniteValue));
        }
        sort_f64(&mut v);
        let mean = mean(&v);
        Ok(Self {
            count: v.len() as u64,
            min: v[0],
            p05: quantile_sorted(&v, 0.05),
            p25: quantile_sorted(&v, 0.25),
            median: quantile_sorted(&v, 0.5),
            p75: quantile_sorted(&v, 0.75),
            p95: quantile_sorted(&v, 0.95),
            max: v[v.len() - 1],
            mean,
        })
    }

    /// Summarises integer counts.
    pub fn of_counts(values: &[u64]) -> Result<Self> {
        Self::of(&values.iter().map(|&x| x as f64).collect::<Vec<_>>())
    }
}

/// Arithmetic mean of finite values, dividing before adding so values near f64::MAX do not
/// overflow to infinity. NaN for an empty slice.
pub fn mean(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    values.iter().map(|x| x / n).sum()
}

/// The `q`-quantile (0..=1) of sorted finite values by linear interpolation between order
/// statistics (Hyndman and Fan type 7, as R and NumPy default). NaN for an empty slice.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() || !q.is_finite() {
        return f64::NAN;
    }
    let q = q.clamp(0.0, 1.0);
    let h = q * (sorted.len() - 1) as f64;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Equal-width bins.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Lower edge of the first bin.
    pub lo: f64,
    /// Width of every bin.
    pub width: f64,
    /// Values in each bin.
    pub counts: Vec<u64>,
}

/// A histogram of the finite values in `bins` equal bins (1..=10 000) spanning min to max.
pub fn histogram(values: &[f64], bins: usize) -> Result<Histogram> {
    if !(1..=10_000).contains(&bins) {
        return Err(crate::error::invalid(
            "bins",
            format!("{bins}; expected 1 to 10000"),
        ));
    }
    let s = Summary::of(values)?;
    let span = s.max - s.min;
    let width = if span > 0.0 && span.is_finite() {
        span / bins as f64
    } else {
        1.0
    };
    let mut counts = vec![0u64; bins];
    for &x in values.iter().filter(|x| x.is_finite()) {
        let i = (((x - s.min) / width) as usize).min(bins - 1);
        counts[i] += 1;
    }
    Ok(Histogram {
        lo: s.min,
        width,
        counts,
    })
}

/// A horizontal band of timings: values that sit at one level (a multiple of the tick).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// Mean of the values in the band.
    pub level: f64,
    /// Values in the band.
    pub count: u64,
    /// Smallest value in the band.
    pub lo: f64,
    /// Largest value in the band.
    pub hi: f64,
}

/// Groups the finite values into bands: sorted values closer than `gap` to their neighbour
/// share a band. With `gap` a fraction of the tick, each band is one multiple of the tick,
/// which is what the raw and sorted plots show as horizontal lines. Bands come in order of
/// level; at most `max_bands` of the most populated are kept.
pub fn bands(values: &[f64], gap: f64, max_bands: usize) -> Vec<Band> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() || gap.is_nan() || gap < 0.0 {
        return Vec::new();
    }
    sort_f64(&mut v);
    let mut out: Vec<Band> = Vec::new();
    let mut start = 0;
    for i in 1..=v.len() {
        if i == v.len() || v[i] - v[i - 1] > gap {
            let run = &v[start..i];
            out.push(Band {
                level: mean(run),
                count: run.len() as u64,
                lo: run[0],
                hi: run[run.len() - 1],
            });
            start = i;
        }
    }
    if out.len() > max_bands {
        // Built in ascending level, so a stable sort by count (most first) leaves equal
        // counts in level order; the kept ones back in level order.
        out = stable_by_key(out, |b| -(b.count as f64));
        out.truncate(max_bands);
        out = stable_by_key(out, |b| b.level);
    }
    out
}

/// At most `max` values taken at an even stride, first and order kept, so a plot of a
/// long run still shows its whole course.
pub fn decimate<T: Copy>(values: &[T], max: usize) -> Vec<T> {
    if values.len() <= max {
        return values.to_vec();
    }
    if max == 0 {
        return Vec::new();
    }
    (0..max)
        .map(|i| values[(i as u128 * values.len() as u128 / max as u128) as usize])
        .collect()
}

/// Consecutive differences of the sorted values: the diff(sort()) view of "Finding Timer Resolution and Overhead".
pub fn diff_of_sorted(values: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    sort_f64(&mut v);
    v.windows(2).map(|w| w[1] - w[0]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stable_sort_by_key_keeps_ties_in_order_and_nan_last() {
        let v = vec![
            (3.0, 'a'),
            (f64::NAN, 'b'),
            (1.0, 'c'),
            (3.0, 'd'),
            (1.0, 'e'),
            (-0.0, 'f'),
        ];
        let sorted: String = stable_by_key(v, |x| x.0).iter().map(|x| x.1).collect();
        assert_eq!(sorted, "fceadb");
    }

    #[test]
    fn summary_orders_and_ignores_nan() {
        let s = Summary::of(&[3.0, f64::NAN, 1.0, 2.0, 4.0, 100.0]).unwrap();
        assert_eq!(s.count, 5);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.median, 3.0);
        assert_eq!(s.max, 100.0);
        assert_eq!(s.mean, 22.0);
        assert!(Summary::of(&[f64::NAN]).is_err());
        assert!(Summary::of(&[]).is_err());
    }

    #[test]
    fn quantiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_sorted(&v, 0.5), 2.5);
        assert_eq!(quantile_sorted(&v, 0.0), 1.0);
        assert_eq!(quantile_sorted(&v, 1.0), 4.0);
        assert!(quantile_sorted(&[], 0.5).is_nan());
    }

    #[test]
    fn histogram_puts_max_in_last_bin() {
        let h = histogram(&[0.0, 1.0, 2.0, 3.0, 4.0], 4).unwrap();
        assert_eq!(h.counts, vec![1, 1, 1, 2]);
        assert!(histogram(&[1.0], 0).is_err());
        let flat = histogram(&[5.0, 5.0], 3).unwrap();
        assert_eq!(flat.counts.iter().sum::<u64>(), 2);
    }

    #[test]
    fn bands_find_tick_levels() {
        let v = [100.0, 100.0, 200.0, 201.0, 100.0, 300.0, 200.0];
        let b = bands(&v, 25.0, 10);
        let levels: Vec<u64> = b.iter().map(|b| b.count).collect();
        assert_eq!(levels, vec![3, 3, 1]);
        assert_eq!(bands(&v, 25.0, 2).len(), 2);
    }

    #[test]
    fn decimate_keeps_order_and_bounds() {
        let v: Vec<u32> = (0..1000).collect();
        let d = decimate(&v, 10);
        assert_eq!(d.len(), 10);
        assert_eq!(d[0], 0);
        assert!(d.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(decimate(&v[..5], 10).len(), 5);
    }
}
