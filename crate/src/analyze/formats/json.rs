//! The JSON files of other timing tools: Criterion's `sample.json` and `estimates.json`,
//! hyperfine's `--export-json`, pytest-benchmark's `--benchmark-json`, JMH's `-rf json`.

use super::*;

/// What a JSON value is, for messages (without writing it out: it may be huge).
pub(super) fn kind_of(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.as_f64().map_or("a number".into(), |f| f.to_string()),
        Value::String(t) => format!("\"{}\"", shorten(t)),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

pub(super) fn numbers(v: &Value, what: &str, name: &str) -> Result<Vec<f64>, Error> {
    let a = v
        .as_array()
        .ok_or_else(|| usage(format!("{name}: {what} is not a list of numbers")))?;
    if a.len() > MAX_VALUES {
        return Err(usage(format!(
            "{name}: more than {MAX_VALUES} values; analyze a sample of them"
        )));
    }
    a.iter()
        .enumerate()
        .map(|(i, x)| {
            let f = x.as_f64().filter(|f| f.is_finite() && *f >= 0.0);
            f.ok_or_else(|| {
                usage(format!(
                    "{name}: {what}[{i}] is {}, not a finite non-negative number",
                    kind_of(x)
                ))
            })
        })
        .collect()
}

pub(super) fn read_json(bytes: &[u8], name: &str, json: JsonParser) -> Result<Vec<Series>> {
    let v: Value = json(bytes).map_err(|e| usage(format!("'{name}' is not valid JSON: {e}")))?;
    json_series(&v, name)?.ok_or_else(|| {
        usage(format!(
            "'{name}' is JSON, but not a kind ticklab reads: Criterion's sample.json or \
             estimates.json, hyperfine's --export-json, pytest-benchmark's --benchmark-json, \
             JMH's -rf json, or an array of numbers"
        ))
    })
}

/// The series of a JSON document, or none when it is no format ticklab knows.
pub fn json_series(v: &Value, name: &str) -> Result<Option<Vec<Series>>> {
    // Criterion's sample.json: total time of each sample in ns, and its iterations.
    if let (Some(times), Some(iters)) = (v.get("times"), v.get("iters")) {
        let times = numbers(times, "times", name)?;
        let iters = numbers(iters, "iters", name)?;
        if times.len() != iters.len() {
            return Err(usage(format!(
                "{name}: {} times but {} iteration counts",
                times.len(),
                iters.len()
            )));
        }
        let mut s = Series::json(
            name.to_string(),
            Format::CriterionSample,
            Some(Unit::Ns),
            times,
        );
        if let (Some(lo), Some(hi)) = (
            iters.iter().copied().reduce(f64::min),
            iters.iter().copied().reduce(f64::max),
        ) {
            s.notes.push(Caveat::IterationTotals { lo, hi });
        }
        return Ok(Some(vec![s]));
    }
    // Criterion's estimates.json: point estimates of per-iteration statistics.
    if v.get("mean")
        .and_then(|m| m.get("point_estimate"))
        .is_some()
    {
        return Ok(Some(vec![Series::averages(
            name.to_string(),
            Format::CriterionEstimates,
            Some(Unit::Ns),
        )]));
    }
    // hyperfine: results[].times in seconds.
    if let Some(results) = v.get("results").and_then(Value::as_array) {
        if results.iter().all(|r| r.get("times").is_some()) && !results.is_empty() {
            let mut out = Vec::new();
            for (i, r) in results.iter().enumerate() {
                let command = r
                    .get("command")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("command {}", i + 1), str::to_string);
                let times = numbers(&r["times"], "times", name)?;
                out.push(Series::json(
                    command,
                    Format::Hyperfine,
                    Some(Unit::S),
                    times,
                ));
            }
            return Ok(Some(out));
        }
    }
    // pytest-benchmark: benchmarks[].stats.data in seconds, per round divided by the
    // round's iterations.
    if let Some(benches) = v.get("benchmarks").and_then(Value::as_array) {
        if benches.iter().all(|b| b.get("stats").is_some()) && !benches.is_empty() {
            let mut out = Vec::new();
            for (i, b) in benches.iter().enumerate() {
                let bench = ["fullname", "name"]
                    .iter()
                    .find_map(|k| b.get(*k).and_then(Value::as_str))
                    .map_or_else(|| format!("benchmark {}", i + 1), str::to_string);
                let stats = &b["stats"];
                let data = stats.get("data").ok_or_else(|| {
                    usage(format!(
                        "{name}: benchmark '{bench}' has no stats.data (run pytest-benchmark \
                         without --benchmark-skip-data... or with --benchmark-save-data)"
                    ))
                })?;
                let mut data = numbers(data, "stats.data", name)?;
                let iterations = stats
                    .get("iterations")
                    .or_else(|| b.get("options").and_then(|o| o.get("iterations")))
                    .and_then(Value::as_f64)
                    .unwrap_or(1.0);
                let mut notes = Vec::new();
                if iterations > 1.0 && iterations.is_finite() {
                    // Each datum is a round's time over its iterations: undo the division,
                    // and the round as the timer saw it comes back.
                    for d in &mut data {
                        *d *= iterations;
                    }
                    notes.push(Caveat::RoundTimes { iterations });
                }
                let mut s = Series::json(bench, Format::PytestBenchmark, Some(Unit::S), data);
                s.notes = notes;
                out.push(s);
            }
            return Ok(Some(out));
        }
    }
    // JMH: an array of benchmark results.
    if let Some(runs) = v.as_array() {
        if !runs.is_empty() && runs.iter().all(|r| r.get("primaryMetric").is_some()) {
            return jmh(runs, name).map(Some);
        }
        if runs.iter().all(Value::is_number) && !runs.is_empty() {
            let values = numbers(v, "the array", name)?;
            return Ok(Some(vec![Series::json(
                name.to_string(),
                Format::JsonArray,
                None,
                values,
            )]));
        }
    }
    Ok(None)
}

pub(super) fn jmh(runs: &[Value], name: &str) -> Result<Vec<Series>> {
    let mut out = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let bench = r
            .get("benchmark")
            .and_then(Value::as_str)
            .map_or_else(|| format!("benchmark {}", i + 1), str::to_string);
        let mode = r.get("mode").and_then(Value::as_str).unwrap_or("");
        let m = &r["primaryMetric"];
        let unit = m
            .get("scoreUnit")
            .and_then(Value::as_str)
            .and_then(unit_named);
        let label = format!("{bench} ({mode})");
        match mode {
            "avgt" | "thrpt" => out.push(Series::averages(label, Format::Jmh, unit)),
            "sample" => {
                // rawDataHistogram: forks, iterations, then [value, count] pairs.
                let mut values = Vec::new();
                let forks = m.get("rawDataHistogram").and_then(Value::as_array);
                for fork in forks.into_iter().flatten() {
                    for iteration in fork.as_array().into_iter().flatten() {
                        for pair in iteration.as_array().into_iter().flatten() {
                            let (v, c) = (pair.get(0), pair.get(1));
                            let (Some(v), Some(c)) =
                                (v.and_then(Value::as_f64), c.and_then(Value::as_f64))
                            else {
                                return Err(usage(format!(
                                    "{name}: '{bench}': a histogram entry is not [value, count]"
                                )));
                            };
                            if !(v.is_finite() && v >= 0.0 && c >= 0.0) {
                                return Err(usage(format!(
                                    "{name}: '{bench}': histogram entry [{v}, {c}]"
                                )));
                            }
                            let c = c.min((MAX_VALUES - values.len().min(MAX_VALUES)) as f64);
                            values.extend(std::iter::repeat_n(v, c as usize));
                        }
                    }
                }
                out.push(Series::json(label, Format::Jmh, unit, values));
            }
            _ => {
                // Single shot: rawData holds each iteration's one timing.
                let mut values = Vec::new();
                for fork in m
                    .get("rawData")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    values.extend(numbers(fork, "rawData", name)?);
                }
                out.push(Series::json(label, Format::Jmh, unit, values));
            }
        }
    }
    Ok(out)
}
