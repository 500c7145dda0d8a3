//! End to end: `ticklab serve` refuses hostile requests (a table of them, each also a row of
//! docs/bad-inputs.md), serves a burst of concurrent requests, closes stalled and idle
//! clients while serving others, survives a descriptor limit and binds loopback unless
//! told otherwise.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{native_report, BIN};
use ticklab_browser::{assert_bad_inputs_listed, bad_input_row, serve};

/// Sends `request` as is (no client normalises the path) and returns the status and head.
fn raw(url: &str, request: &str) -> (u16, String) {
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = TcpStream::connect(addr).expect("server up");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    // The server may answer and close before an oversized request is all sent.
    let _ = s.write_all(request.as_bytes());
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let head = text.split("\r\n\r\n").next().unwrap_or("").to_lowercase();
    (status, head)
}

fn get(url: &str, method: &str, path: &str) -> (u16, String) {
    raw(
        url,
        &format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"),
    )
}

#[test]
fn hostile_requests_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("www/pkg")).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(site.join("www/pkg/x.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(site.join("www/pkg/x.wasm.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path(), site.join("out")).unwrap();
    let report = native_report(dir.path());
    let (_server, url) = serve(Path::new(BIN), &site, &report, &[]).unwrap();

    // The control: the page, with the headers that isolate it and lock it to its origin.
    let (status, head) = get(&url, "GET", "/");
    assert_eq!(status, 200);
    for h in [
        "cross-origin-opener-policy: same-origin",
        "cross-origin-embedder-policy: require-corp",
        "content-security-policy: default-src 'self'",
        "x-content-type-options: nosniff",
    ] {
        assert!(head.contains(h), "missing {h} in {head}");
    }
    assert!(get(&url, "GET", "/www/pkg/x.wasm")
        .1
        .contains("content-type: application/wasm"));
    // The gzipped copy beside a file is not what this server sends.
    let (status, head) = raw(
        &url,
        "GET /www/pkg/x.wasm HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status, 200);
    assert!(!head.contains("content-encoding"), "{head}");
    assert_eq!(get(&url, "HEAD", "/index.html").0, 200);
    let (status, head) = get(&url, "GET", "/native/report.json");
    assert_eq!(status, 200);
    assert!(head.contains("application/json"));

    let hostile: [(&str, &str, &[u16]); 14] = [
        ("GET", "/../secret.txt", &[400, 404]),
        ("GET", "/%2e%2e/secret.txt", &[400, 404]),
        ("GET", "/%2E%2E%2Fsecret.txt", &[400, 404]),
        ("GET", "/www/..%2f..%2fsecret.txt", &[400, 404]),
        ("GET", "/www/%2e%2e/%2e%2e/secret.txt", &[400, 404]),
        ("GET", "//etc/passwd", &[400, 404]),
        ("GET", "/%2fetc%2fpasswd", &[400, 404]),
        ("GET", "/..%5c..%5csecret.txt", &[400, 404]),
        ("GET", "/out/secret.txt", &[400, 404]),
        ("GET", "/index.html%00.js", &[400, 404]),
        ("POST", "/index.html", &[405]),
        ("PUT", "/evil.html", &[405]),
        ("DELETE", "/index.html", &[405]),
        ("OPTIONS", "/", &[405]),
    ];
    let mut table = String::from("method path -> status\n");
    let mut rows = Vec::new();
    let outcome = |want: &[u16]| {
        let w: Vec<String> = want
            .iter()
            .map(|c| match c {
                0 => "the connection closed".to_string(),
                c => c.to_string(),
            })
            .collect();
        format!("{}, the server goes on", w.join(" or "))
    };
    for (method, path, want) in hostile {
        let (status, _) = get(&url, method, path);
        table.push_str(&format!("{method} {path} -> {status}\n"));
        assert!(
            want.contains(&status),
            "{method} {path}: {status}, want {want:?}"
        );
        rows.push(bad_input_row(
            "server",
            &format!("`{method} {path}`"),
            &outcome(want),
        ));
    }
    // Malformed and oversized requests, sent as raw bytes.
    let long_header = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(1 << 20)
    );
    let many_headers = format!(
        "GET / HTTP/1.1\r\nHost: x\r\n{}\r\n",
        (0..200)
            .map(|i| format!("X-{i}: 1\r\n"))
            .collect::<String>()
    );
    let long_uri = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(100_000));
    let raw_cases: [(&str, String, &[u16]); 8] = [
        (
            "a request line of garbage",
            "GARBAGE\r\n\r\n".into(),
            &[400],
        ),
        (
            "HTTP/9.9",
            "GET / HTTP/9.9\r\nHost: x\r\n\r\n".into(),
            &[400],
        ),
        ("a 1 MiB header", long_header, &[431]),
        ("200 headers", many_headers, &[431]),
        ("a 100 000-byte path", long_uri, &[414]),
        (
            "GET announcing a 10 GB body",
            "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000000\r\n\r\nabc".into(),
            &[413],
        ),
        (
            "POST of 2 KiB",
            format!(
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2048\r\n\r\n{}",
                "a".repeat(2048)
            ),
            &[413],
        ),
        (
            "a path of bytes that are not UTF-8",
            "GET /%ff%fe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".into(),
            &[400],
        ),
    ];
    for (what, request, want) in &raw_cases {
        let (status, _) = raw(&url, request);
        table.push_str(&format!("{what} -> {status}\n"));
        assert!(want.contains(&status), "{what}: {status}, want {want:?}");
        // After each, the page is still served.
        assert_eq!(get(&url, "GET", "/").0, 200, "after {what}");
        rows.push(bad_input_row("server", what, &outcome(want)));
    }
    eprintln!("{table}");
    assert!(!site.join("evil.html").exists());
    assert_bad_inputs_listed("server", &rows);

    // Without isolation the same page comes without COOP/COEP.
    let (_plain, url) = serve(Path::new(BIN), &site, &report, &["--no-isolation"]).unwrap();
    let (status, head) = get(&url, "GET", "/");
    assert_eq!(status, 200);
    assert!(!head.contains("cross-origin-opener-policy"), "{head}");
    assert!(head.contains("content-security-policy"));
}

/// 1 000 requests in flight at once: every connection is opened, then every request sent,
/// then every answer read, so the server holds all of them together.
#[test]
fn a_burst_of_1000_concurrent_requests_is_all_served() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("www/pkg")).unwrap();
    let page = "<!doctype html><title>t</title>".repeat(100);
    std::fs::write(site.join("index.html"), &page).unwrap();
    let wasm = vec![7u8; 200_000];
    std::fs::write(site.join("www/pkg/x.wasm"), &wasm).unwrap();
    let report = native_report(dir.path());
    let report_len = std::fs::metadata(&report).unwrap().len() as usize;
    let (_server, url) = serve(Path::new(BIN), &site, &report, &[]).unwrap();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let paths = [
        ("/", page.len()),
        ("/www/pkg/x.wasm", wasm.len()),
        ("/native/report.json", report_len),
    ];
    const N: usize = 1000;
    let started = std::time::Instant::now();
    let mut conns: Vec<TcpStream> = (0..N)
        .map(|i| {
            let s = TcpStream::connect(&addr).unwrap_or_else(|e| panic!("connection {i}: {e}"));
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            s
        })
        .collect();
    for (i, s) in conns.iter_mut().enumerate() {
        let path = paths[i % paths.len()].0;
        s.write_all(
            format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .unwrap_or_else(|e| panic!("request {i}: {e}"));
    }
    let mut errors = Vec::new();
    let mut bytes = 0usize;
    for (i, s) in conns.iter_mut().enumerate() {
        let mut out = Vec::new();
        if let Err(e) = s.read_to_end(&mut out) {
            errors.push(format!("request {i}: {e}"));
            continue;
        }
        let want = paths[i % paths.len()].1;
        let split = out.windows(4).position(|w| w == b"\r\n\r\n");
        let ok =
            out.starts_with(b"HTTP/1.1 200") && split.is_some_and(|h| out.len() - h - 4 == want);
        if !ok {
            errors.push(format!(
                "request {i}: {:?} ({} bytes)",
                String::from_utf8_lossy(&out[..out.len().min(40)]),
                out.len()
            ));
        }
        bytes += out.len();
    }
    let took = started.elapsed().as_secs_f64();
    eprintln!(
        "burst: {N} concurrent requests, {} served whole, {} errors, {:.1} MB in {took:.2} s",
        N - errors.len(),
        errors.len(),
        bytes as f64 / 1e6
    );
    assert!(
        errors.is_empty(),
        "{} errors: {:?}",
        errors.len(),
        &errors[..errors.len().min(5)]
    );
    // And it still serves afterwards.
    assert_eq!(get(&url, "GET", "/").0, 200);
    assert_bad_inputs_listed(
        "server load",
        &[bad_input_row(
            "server load",
            &format!("{N} requests in flight at once"),
            "every one served whole; the server goes on",
        )],
    );
}

/// A site of one small page in `dir`/site.
fn tiny_site(dir: &Path) -> PathBuf {
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    site
}

/// Opens `n` connections that each send half a request head and stall; the ones refused
/// (the listen queue full) are counted, not kept.
fn stalled(addr: &str, n: usize) -> (Vec<TcpStream>, usize) {
    let mut open = Vec::new();
    let mut refused = 0;
    for _ in 0..n {
        match TcpStream::connect(addr) {
            Ok(mut s) => {
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ");
                open.push(s);
            }
            Err(_) => refused += 1,
        }
    }
    (open, refused)
}

/// Seconds until every one of `conns` is closed by the server (read returns end of file or an
/// error), or None if one is still open after `limit`.
fn all_closed_within(conns: &mut [TcpStream], limit: Duration) -> Option<f64> {
    let t0 = std::time::Instant::now();
    for s in conns.iter_mut() {
        let left = limit.checked_sub(t0.elapsed())?;
        s.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .unwrap();
        let mut buf = [0u8; 512];
        loop {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => continue, // a 408 before the close
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut =>
                {
                    return None
                }
                Err(_) => break, // reset: closed too
            }
        }
    }
    Some(t0.elapsed().as_secs_f64())
}

/// A whole GET of the page on a fresh connection: its status and the seconds it took.
fn timed_get(addr: &str) -> (u16, f64) {
    let t0 = std::time::Instant::now();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let status = std::str::from_utf8(out.get(9..12).unwrap_or(b"0"))
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, t0.elapsed().as_secs_f64())
}

/// 300 clients that send half a head and stall, and one kept alive and idle after its
/// response, are all closed within 30 s (the head's 10 s limit); a normal GET meanwhile is
/// served at once.
#[test]
fn stalled_and_idle_clients_are_closed_while_others_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let site = tiny_site(dir.path());
    let report = native_report(dir.path());
    let (_server, url) = serve(Path::new(BIN), &site, &report, &[]).unwrap();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let (mut conns, refused) = stalled(&addr, 300);
    assert_eq!(refused, 0);
    let mut idle = TcpStream::connect(&addr).unwrap();
    idle.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let (status, took) = timed_get(&addr);
    assert_eq!(status, 200);
    assert!(
        took < 2.0,
        "a GET beside 300 stalled clients took {took:.2} s"
    );
    conns.push(idle);
    let closed = all_closed_within(&mut conns, Duration::from_secs(30));
    eprintln!(
        "stalled: 300 half heads and 1 idle kept-alive connection closed after {closed:?} s; \
         a GET meanwhile {:.1} ms",
        took * 1e3
    );
    assert!(
        closed.is_some(),
        "a stalled or idle connection was open after 30 s"
    );
    assert_eq!(timed_get(&addr).0, 200);
    assert_bad_inputs_listed(
        "slow clients",
        &[bad_input_row(
            "slow clients",
            "300 connections that send half a request head and stall, and one kept alive and idle",
            "all closed within 30 s (10 s after their last byte); a GET meanwhile served within 2 s",
        )],
    );
}

/// Under a limit of 256 descriptors, 1 000 stalled connection attempts (more than the
/// server may hold) leave normal requests served: within 30 s, as the stalled ones are
/// closed (in 1 s each once the server is nearly full).
#[cfg(unix)]
#[test]
fn under_256_descriptors_1000_stalled_attempts_leave_requests_served() {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let site = tiny_site(dir.path());
    let mut cmd = Command::new(BIN);
    cmd.args(["serve", "--port", "0", "--root"])
        .arg(&site)
        .stdout(std::process::Stdio::piped());
    // Safe: only setrlimit, async-signal-safe, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 256,
                rlim_max: 256,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _guard = Kill(child);
    let addr = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let (mut conns, refused) = stalled(&addr, 1000);
    let mut took = Vec::new();
    for _ in 0..3 {
        let (status, t) = timed_get(&addr);
        assert_eq!(status, 200, "a GET after 1000 stalled attempts");
        took.push(t);
    }
    let closed = all_closed_within(&mut conns, Duration::from_secs(60));
    eprintln!(
        "256 descriptors: {} stalled connections ({refused} refused by the listen queue); \
         GETs served in {took:.1?} s; every stalled one closed after {closed:?} s",
        conns.len()
    );
    assert!(took[0] < 30.0, "the first GET took {:.1} s", took[0]);
    assert!(took[1] < 2.0 && took[2] < 2.0, "{took:?}");
    assert_bad_inputs_listed(
        "slow clients, 256 descriptors",
        &[bad_input_row(
            "slow clients, 256 descriptors",
            "1 000 stalled connection attempts under `ulimit -n 256`",
            "a GET served within 30 s, the next ones within 2 s; the server goes on",
        )],
    );
}

/// Unless told otherwise the server listens on loopback only: its socket's local address in
/// the kernel's table is 127.0.0.1.
#[cfg(target_os = "linux")]
#[test]
fn the_server_binds_loopback_unless_told_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "x").unwrap();
    let report = native_report(dir.path());
    let listening = |port: u16| -> Vec<String> {
        let table = std::fs::read_to_string("/proc/net/tcp").unwrap()
            + &std::fs::read_to_string("/proc/net/tcp6").unwrap_or_default();
        table
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let (addr, p) = f.get(1)?.split_once(':')?;
                (f.get(3) == Some(&"0A") && u16::from_str_radix(p, 16).ok()? == port)
                    .then(|| addr.to_string())
            })
            .collect()
    };
    let port_of = |url: &str| -> u16 {
        url.trim_end_matches('/')
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (_s, url) = serve(Path::new(BIN), &site, &report, &[]).unwrap();
    assert_eq!(
        listening(port_of(&url)),
        vec!["0100007F".to_string()],
        "{url}"
    );
    let (_s, url) = serve(Path::new(BIN), &site, &report, &["--bind", "0.0.0.0"]).unwrap();
    assert_eq!(
        listening(port_of(&url)),
        vec!["00000000".to_string()],
        "{url}"
    );
}

/// The page the binary carries (the built site, put in by native-runner/build.rs): served
/// with no `--root` from a directory holding nothing, byte for byte the built site's, with
/// the same headers and refusals as a folder's, and a validator that saves a second
/// download.
#[test]
fn the_page_the_binary_carries_is_served_from_an_empty_directory() {
    let site = std::env::var_os("TICKLAB_SITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::target().join("site"));
    let wasm = std::fs::read(site.join("www/pkg/ticklab_www_bg.wasm")).unwrap_or_else(|e| {
        panic!(
            "no built page in {} ({e}); run `cargo xtask web` (cargo xtask test does)",
            site.display()
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let report = native_report(dir.path());
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--port", "0", "--report"])
        .arg(&report)
        .current_dir(&empty)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = Kill(child);
    if !line.contains("the page it carries") {
        let mut err = String::new();
        let _ = child.0.stderr.take().unwrap().read_to_string(&mut err);
        panic!("not serving a carried page: {line:?} {err}");
    }
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .to_string();
    let addr = url.trim_start_matches("http://").trim_end_matches('/');

    let body = |path: &str, extra: &str| -> (String, Vec<u8>) {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{extra}\r\n"
        )
        .unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        let at = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        (
            String::from_utf8_lossy(&out[..at]).to_lowercase(),
            out[at + 4..].to_vec(),
        )
    };
    let (head, got) = body("/www/pkg/ticklab_www_bg.wasm", "");
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-type: application/wasm"), "{head}");
    assert!(
        got == wasm,
        "{} bytes, not the built {}",
        got.len(),
        wasm.len()
    );
    let (head, got) = body("/", "");
    assert_eq!(got, std::fs::read(site.join("index.html")).unwrap());
    for h in [
        "content-type: text/html",
        "cross-origin-opener-policy: same-origin",
        "cross-origin-embedder-policy: require-corp",
        "content-security-policy: default-src 'self'",
        "x-content-type-options: nosniff",
        "cache-control: no-cache",
    ] {
        assert!(head.contains(h), "missing {h} in {head}");
    }
    assert!(body("/sw.js", "").0.contains("text/javascript"));
    // The validator: the same file again costs a 304 and no body; a stale one, the file.
    let etag = head
        .lines()
        .find_map(|l| l.strip_prefix("etag: "))
        .expect("an etag")
        .to_string();
    let (again, none) = body("/", &format!("If-None-Match: {etag}\r\n"));
    assert!(again.starts_with("http/1.1 304"), "{again}");
    assert!(none.is_empty());
    let (stale, full) = body("/", "If-None-Match: \"0-0\"\r\n");
    assert!(
        stale.starts_with("http/1.1 200") && !full.is_empty(),
        "{stale}"
    );
    // HEAD: the head, no body.
    let (status, head) = get(&url, "HEAD", "/www/pkg/ticklab_www_bg.wasm");
    assert_eq!(status, 200);
    assert!(
        head.contains(&format!("content-length: {}", wasm.len())),
        "{head}"
    );
    assert_eq!(get(&url, "GET", "/native/report.json").0, 200);
    for (method, path, want) in [
        ("GET", "/nothing.html", &[404][..]),
        ("GET", "/../secret.txt", &[400, 404]),
        ("GET", "/www/%2e%2e/%2e%2e/etc/passwd", &[400, 404]),
        ("GET", "/..%5c..%5csecret.txt", &[400, 404]),
        ("GET", "/index.html%00.js", &[400, 404]),
        ("GET", "/www/pkg/ticklab_www_bg.wasm.gz", &[404]),
        ("GET", "/%ff%fe", &[400]),
        ("POST", "/index.html", &[405]),
        ("PUT", "/evil.html", &[405]),
    ] {
        let (status, _) = get(&url, method, path);
        assert!(
            want.contains(&status),
            "{method} {path}: {status}, want {want:?}"
        );
    }
    assert!(std::fs::read_dir(&empty).unwrap().next().is_none());
}
