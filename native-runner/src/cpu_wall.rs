//! `ticklab cpu-vs-wall`: the matrix multiply of "Performance Metrics and Measurement" timed
//! by wall and CPU clocks, and the first pass over fresh memory of the MacResearch tutorial
//! "Performance and Time" against warm passes.

use std::hint::black_box;
use std::time::Instant;

use serde::Serialize;
use ticklab::workload::{Matmul, Workload};

use crate::cli::CpuWallArgs;
use crate::output::{self, Table};
use crate::CliError;

#[derive(Serialize)]
struct Row {
    n: u64,
    wall_s: f64,
    process_cpu_s: Option<f64>,
    thread_cpu_s: Option<f64>,
    mflops_wall: f64,
    mflops_cpu: Option<f64>,
}

#[derive(Serialize)]
struct ColdWarm {
    mib: usize,
    cold_s: f64,
    warm_s: f64,
    ratio: f64,
    sum: f64,
}

#[derive(Serialize)]
struct CpuWallReport {
    runs: usize,
    matmul: Vec<Row>,
    cold_vs_warm: ColdWarm,
}

#[cfg(unix)]
fn cpu_s(id: libc::clockid_t) -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // Safe: valid id and out-pointer.
    let ok = unsafe { libc::clock_gettime(id, &mut ts) } == 0;
    ok.then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}

fn process_cpu() -> Option<f64> {
    #[cfg(unix)]
    return cpu_s(libc::CLOCK_PROCESS_CPUTIME_ID);
    #[cfg(not(unix))]
    None
}

fn thread_cpu() -> Option<f64> {
    #[cfg(unix)]
    return cpu_s(libc::CLOCK_THREAD_CPUTIME_ID);
    #[cfg(not(unix))]
    None
}

fn parse_sizes(s: &str) -> Result<Vec<u64>, CliError> {
    let max = Matmul::default().max_n();
    let sizes: Result<Vec<u64>, _> = s.split(',').map(|t| t.trim().parse::<u64>()).collect();
    let sizes = sizes.map_err(|_| {
        CliError::Usage(format!(
            "bad --n '{s}': expected whole numbers separated by commas"
        ))
    })?;
    if sizes.is_empty() || sizes.iter().any(|&n| n == 0 || n > max) {
        return Err(CliError::Usage(format!(
            "bad --n '{s}': each size must be 1 to {max}"
        )));
    }
    Ok(sizes)
}

fn min(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Sum of square roots over `data`, the loop of the MacResearch tutorial "Performance and Time".
fn pass(data: &[f64]) -> f64 {
    black_box(data).iter().map(|x| x.sqrt()).sum()
}

pub fn cpu_vs_wall(a: CpuWallArgs) -> Result<(), CliError> {
    let sizes = parse_sizes(&a.n)?;
    if !(1..=1000).contains(&a.runs) {
        return Err(CliError::Usage(format!(
            "--runs {}: expected 1 to 1000",
            a.runs
        )));
    }
    if !(1..=4096).contains(&a.cold_mib) {
        return Err(CliError::Usage(format!(
            "--cold-mib {}: expected 1 to 4096",
            a.cold_mib
        )));
    }
    let mut m = Matmul::default();
    m.prepare(*sizes.iter().max().unwrap_or(&1))
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let mut rows = Vec::new();
    for &n in &sizes {
        m.run(n); // warm-up
        let (mut wall, mut pcpu, mut tcpu) = (f64::INFINITY, None, None);
        for _ in 0..a.runs {
            let (p0, t0, w0) = (process_cpu(), thread_cpu(), Instant::now());
            m.run(n);
            let w = w0.elapsed().as_secs_f64();
            let (p1, t1) = (process_cpu(), thread_cpu());
            wall = wall.min(w);
            pcpu = min(pcpu, p0.zip(p1).map(|(a, b)| b - a));
            tcpu = min(tcpu, t0.zip(t1).map(|(a, b)| b - a));
        }
        let flops = 2.0 * (n as f64).powi(3);
        rows.push(Row {
            n,
            wall_s: wall,
            process_cpu_s: pcpu,
            thread_cpu_s: tcpu,
            mflops_wall: flops / wall / 1e6,
            mflops_cpu: tcpu.filter(|&t| t > 0.0).map(|t| flops / t / 1e6),
        });
    }

    // Fresh memory: vec! of zeros maps pages that are only faulted in on first touch.
    let len = a.cold_mib * (1 << 20) / 8;
    let fresh = vec![0.0f64; len];
    let t = Instant::now();
    let mut sum = pass(&fresh);
    let cold = t.elapsed().as_secs_f64();
    let mut warm = f64::INFINITY;
    for _ in 0..4 {
        let t = Instant::now();
        sum += pass(&fresh);
        warm = warm.min(t.elapsed().as_secs_f64());
    }
    let report = CpuWallReport {
        runs: a.runs,
        matmul: rows,
        cold_vs_warm: ColdWarm {
            mib: a.cold_mib,
            cold_s: cold,
            warm_s: warm,
            ratio: cold / warm,
            sum,
        },
    };
    if a.json {
        let s =
            serde_json::to_string_pretty(&report).map_err(|e| CliError::Output(e.to_string()))?;
        return output::print(&s);
    }
    let secs = |s: f64| ticklab::present::duration(s * 1e9);
    let opt = |s: Option<f64>| s.map_or("-".into(), secs);
    if a.csv {
        let mut text = String::from("n,wall_s,process_cpu_s,thread_cpu_s,mflops_wall,mflops_cpu\n");
        for r in &report.matmul {
            text.push_str(&format!(
                "{},{},{},{},{},{}\n",
                r.n,
                r.wall_s,
                r.process_cpu_s.map_or(String::new(), |v| v.to_string()),
                r.thread_cpu_s.map_or(String::new(), |v| v.to_string()),
                r.mflops_wall,
                r.mflops_cpu.map_or(String::new(), |v| v.to_string())
            ));
        }
        return output::print(&text);
    }
    let mut t = Table::of("N|wall|process CPU|thread CPU|MFLOPS (wall)|MFLOPS (thread CPU)");
    for r in &report.matmul {
        t.row(vec![
            r.n.to_string(),
            secs(r.wall_s),
            opt(r.process_cpu_s),
            opt(r.thread_cpu_s),
            format!("{:.0}", r.mflops_wall),
            r.mflops_cpu.map_or("-".into(), |v| format!("{v:.0}")),
        ]);
    }
    let mut text = format!("matrix multiply, minimum of {} runs per N:\n", a.runs);
    text.push_str(&t.render());
    let c = &report.cold_vs_warm;
    text.push_str(&format!(
        "\nsum of square roots over {} MiB of fresh memory:\n  first pass (cold: page faults) {}\n  warm passes (minimum of 4)     {}\n  cold / warm {:.2}; the sum is {} because fresh memory is zero-filled\n",
        c.mib,
        secs(c.cold_s),
        secs(c.warm_s),
        c.ratio,
        c.sum
    ));
    output::print(&text)
}
