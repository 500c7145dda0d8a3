//! The command on another CPU: `ticklab` built for aarch64 Linux and run under qemu-user,
//! as `cargo xtask test` builds and finds it (TICKLAB_AARCH64, QEMU_AARCH64,
//! AARCH64_SYSROOT). Emulated timings are no ground truth, so what is asserted is what
//! emulation can show: the command runs, its counter (cntvct_el0) is measured, every clock
//! answers with a tick or a reason, and the report it saves is read back whole.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use ticklab::Report;

fn var(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        panic!("{name} is not set: `cargo xtask test` builds ticklab for aarch64 and installs qemu-user")
    })
}

/// `ticklab args` for aarch64 under qemu, within `limit`.
fn emulated(args: &[&str], limit: Duration) -> Output {
    let bin = var("TICKLAB_AARCH64");
    assert!(bin.is_file(), "no aarch64 build at {}", bin.display());
    let child = Command::new(var("QEMU_AARCH64"))
        .arg("-L")
        .arg(var("AARCH64_SYSROOT"))
        .arg(&bin)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("qemu-aarch64 starts");
    let t0 = Instant::now();
    let pid = child.id();
    // Read on another thread, so a report larger than the pipe does not stall the child.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out = match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // Safe: a signal to our own child, still running.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("ticklab {args:?} under qemu still running after {limit:?}");
        }
    };
    eprintln!(
        "ticklab {args:?} under qemu: {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    out
}

#[test]
fn the_command_runs_on_aarch64_under_emulation() {
    let list = emulated(&["list"], Duration::from_secs(60));
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    let text = String::from_utf8(list.stdout).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("cntvct_el0"))
        .unwrap_or_else(|| panic!("no cntvct_el0 in\n{text}"));
    assert!(row.trim_end().ends_with("yes"), "{row}");
    assert!(
        text.contains("not an x86-64 CPU"),
        "rdtsc's reason:\n{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("aarch64.json");
    let run = emulated(
        &["run", "--json", "--save", saved.to_str().unwrap()],
        Duration::from_secs(300),
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r = Report::from_json(&String::from_utf8(run.stdout).unwrap()).expect("the schema holds");
    assert_eq!(
        r.environment.arch.as_deref(),
        Some("aarch64"),
        "{:?}",
        r.environment
    );
    for c in &r.clocks {
        let answered = c.tick.is_some() || !c.errors.is_empty() || c.unavailable_reason.is_some();
        assert!(answered, "{} has neither a tick nor a reason", c.info.name);
    }
    let cnt = r
        .clocks
        .iter()
        .find(|c| c.info.name == "cntvct_el0")
        .expect("cntvct_el0 in the report");
    assert!(cnt.available, "{cnt:?}");
    assert!(
        cnt.info.period.ns_per_count().is_some(),
        "cntfrq_el0 gives its count: {:?}",
        cnt.info
    );
    // The run shares 2 s among every clock, and an emulated read is slow: its share may be
    // too short for cntvct_el0 (an error, which the check above accepts). Given a budget of
    // its own, it is measured.
    let tick = emulated(
        &["tick", "--clock", "cntvct_el0", "--time", "1", "--json"],
        Duration::from_secs(120),
    );
    assert!(
        tick.status.success(),
        "{}",
        String::from_utf8_lossy(&tick.stderr)
    );
    let alone =
        Report::from_json(&String::from_utf8(tick.stdout).unwrap()).expect("the schema holds");
    let t = alone.clocks[0].tick.as_ref().expect("cntvct_el0 measured");
    assert!(t.estimate.tick >= 1.0, "{t:?}");

    // Read back by the command on both CPUs: the saved file is the report printed.
    let again = Report::from_json(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(again.clocks.len(), r.clocks.len());
    let shown = emulated(&["show", saved.to_str().unwrap()], Duration::from_secs(60));
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let host = Command::new(env!("CARGO_BIN_EXE_ticklab"))
        .arg("show")
        .arg(&saved)
        .output()
        .unwrap();
    assert!(
        host.status.success(),
        "{}",
        String::from_utf8_lossy(&host.stderr)
    );
    assert_eq!(shown.stdout, host.stdout, "the same words on both CPUs");
    assert!(String::from_utf8_lossy(&host.stdout).contains("cntvct_el0"));
}
