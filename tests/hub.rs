//! `ticklab hub` for real: two instances on one throwaway PostgreSQL cluster (initdb into a
//! temporary directory, on loopback, as nobody; never the machine's own). A run sent to one
//! instance reaches the teacher's view held by the other; SIGTERM drains; the class
//! server's hostile posts and the hub's own refusals (another class's key, guessed codes,
//! classes made in a loop); SIGKILL of an instance in a burst of 1 000 posts from 100
//! classes; PostgreSQL stopped at once in a burst and started again; 100 classes of 30
//! sending within a minute across both instances. The atlas: tests/hub/atlas.rs.

#[path = "hub/atlas.rs"]
mod atlas;
mod common;
#[path = "hub/deploy.rs"]
mod deploy;
#[path = "hub/strangers.rs"]
mod strangers;

use std::collections::{HashMap, HashSet};
use std::net::Ipv4Addr;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::http::{digest, follow_with, hostile_posts, puts, request, student, Event, HERE};
use common::BIN;
use serde_json::Value;
use ticklab_browser::postgres::Cluster;
use ticklab_browser::{assert_bad_inputs_listed, bad_input_row, start_hub, HubServer};

/// A cluster and two hub instances on it.
struct Two {
    pg: Cluster,
    a: HubServer,
    b: HubServer,
}

fn two() -> Two {
    let pg = Cluster::start().unwrap();
    let bin = std::path::Path::new(BIN);
    let a = start_hub(bin, &pg.url(), 0, &[]);
    let b = start_hub(bin, &pg.url(), 0, &[]);
    Two { pg, a, b }
}

/// A class made on `port` by a teacher at `from`: the status and the answer.
fn create(port: u16, from: Ipv4Addr) -> (u16, Value) {
    let (s, body) = request(from, port, "POST", "/hub/classes", JSON, b"{}");
    (s, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// The content type the hub's page starts a class with.
const JSON: &[(&str, &str)] = &[("Content-Type", "application/json")];

/// A class made on `port` from `from`, which must succeed.
fn class(port: u16, from: Ipv4Addr) -> Value {
    let (s, c) = create(port, from);
    assert_eq!(s, 201, "{c}");
    c
}

/// The teacher's headers for class `c` (its code and its key).
fn teacher_of(c: &Value) -> Vec<(String, String)> {
    vec![
        (
            "Authorization".into(),
            format!("Bearer {}", c["key"].as_str().unwrap()),
        ),
        ("X-Ticklab-Class".into(), c["code"].as_str().unwrap().into()),
    ]
}

fn as_refs(h: &[(String, String)]) -> Vec<(&str, &str)> {
    h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

/// A teacher's request for class `c` on `port`.
fn teach(port: u16, c: &Value, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let h = teacher_of(c);
    request(HERE, port, method, path, &as_refs(&h), body)
}

/// The live view of class `c` on `port`, from `last` on.
fn view(port: u16, c: &Value, last: Option<i64>) -> mpsc::Receiver<Event> {
    let h = teacher_of(c);
    follow_with(port, &as_refs(&h), last)
}

/// A student's post of `d` to class `code` on `port`, from `from`: status and answer.
fn send(port: u16, from: Ipv4Addr, code: &str, who: &str, d: &Value) -> (u16, String) {
    common::http::post(from, port, code, who, &who[..8], d)
}

/// The address a class's students post from (a school behind one router each).
fn school(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 2, (i / 250) as u8, (i % 250 + 1) as u8)
}

/// Every row of the hub's database, by class code and student, as the database holds it.
fn stored(pg: &Cluster) -> HashMap<(String, String), Value> {
    let out = pg
        .psql(
            "SELECT coalesce(json_agg(json_build_object('code', c.code, 'student', r.student, \
             'nickname', r.nickname, 'digest', r.digest)), '[]') \
             FROM run r JOIN class c ON c.id = r.class",
        )
        .unwrap();
    let rows: Vec<Value> = serde_json::from_str(&out).unwrap();
    rows.into_iter()
        .map(|r| {
            let key = (
                r["code"].as_str().unwrap().to_string(),
                r["student"].as_str().unwrap().to_string(),
            );
            (key, r)
        })
        .collect()
}

/// Every stored row whole: its digest reads back in the core, named after its nickname.
fn assert_whole(rows: &HashMap<(String, String), Value>) {
    for r in rows.values() {
        let d = ticklab::digest::Digest::from_json(r["digest"].as_str().unwrap()).unwrap();
        assert!(d.from.starts_with(r["nickname"].as_str().unwrap()), "{r}");
        assert_eq!(d.clocks.len(), 2, "{r}");
    }
}

/// Waits up to `limit` for `port`'s /readyz to answer 200.
fn ready_within(port: u16, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if request(HERE, port, "GET", "/readyz", &[], b"").0 == 200 {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn a_run_sent_to_one_instance_reaches_the_view_on_the_other_and_sigterm_drains() {
    let t = two();
    for s in [&t.a, &t.b] {
        assert!(ready_within(s.port, Duration::from_secs(10)));
        assert_eq!(request(HERE, s.port, "GET", "/healthz", &[], b"").0, 200);
        let (st, terms) = request(HERE, s.port, "GET", "/hub/terms", &[], b"");
        assert_eq!(st, 200);
        let terms: Value = serde_json::from_str(&terms).unwrap();
        assert_eq!(
            (terms["open_hours"].as_u64(), terms["kept_days"].as_u64()),
            (Some(24), Some(30))
        );
    }
    let c = class(t.a.port, HERE);
    let code = c["code"].as_str().unwrap();
    assert_eq!(
        c["join"],
        format!("http://127.0.0.1:{}/?class={code}", t.a.port)
    );
    assert!(c["teacher"]
        .as_str()
        .unwrap()
        .starts_with(&format!("class.html#class={code}&key=")));
    let live = view(t.b.port, &c, None);
    let first = live.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(first.kind, "class");
    assert_eq!(
        first.data["join"][0],
        format!("http://127.0.0.1:{}/?class={code}", t.b.port)
    );
    assert_eq!(first.data["hub"]["kept_days"], 30);
    let d = digest("Chromium 156", "isolated", 5_000.0);
    let sent = Instant::now();
    for i in 0..3 {
        let (s, b) = send(t.a.port, HERE, code, &student(i), &d);
        assert_eq!(s, 201, "{b}");
    }
    let seen = puts(&live, 3, Duration::from_secs(10));
    assert_eq!(seen.len(), 3, "{seen:?}");
    eprintln!(
        "three runs sent to A on B's view after {:.0} ms",
        seen.last().unwrap().at.duration_since(sent).as_secs_f64() * 1e3
    );
    let (s, rows) = teach(t.b.port, &c, "GET", "/class/rows.json", b"");
    assert_eq!(s, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&rows).unwrap()["rows"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // The hub sends the headers that make a student's page cross-origin isolated.
    let (s, _) = request(HERE, t.b.port, "GET", &format!("/?class={code}"), &[], b"");
    assert_eq!(s, 200);
    let head = raw_head(t.b.port, &format!("/?class={code}"));
    assert!(
        head.contains("cross-origin-opener-policy: same-origin"),
        "{head}"
    );
    assert!(
        head.contains("cross-origin-embedder-policy: require-corp"),
        "{head}"
    );

    // SIGTERM: the view hears it should come again, its stream ends, the instance exits
    // cleanly; the other goes on.
    let mut b = t.b;
    b.terminate();
    let end = Instant::now() + Duration::from_secs(5);
    while live
        .recv_timeout(end.saturating_duration_since(Instant::now()))
        .is_ok()
    {}
    assert!(
        Instant::now() < end,
        "the live view was not ended within 5 s of SIGTERM"
    );
    let status = wait_exit(&mut b.child, Duration::from_secs(15)).expect("exited");
    assert!(status.success(), "{status}");
    let said: Vec<String> = b.log.try_iter().collect();
    for l in &said {
        let v: Value =
            serde_json::from_str(l).unwrap_or_else(|_| panic!("not a JSON log line: {l}"));
        assert!(v["level"].is_string() && v["message"].is_string(), "{l}");
    }
    assert!(said.iter().any(|l| l.contains("stopping")), "{said:#?}");
    let (s, b2) = send(t.a.port, HERE, code, &student(9), &d);
    assert_eq!(s, 201, "{b2}");
}

/// The head of a GET, lowercased.
fn raw_head(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_lowercase();
    text.split("\r\n\r\n").next().unwrap_or("").to_string()
}

fn wait_exit(child: &mut std::process::Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if let Ok(Some(s)) = child.try_wait() {
            return Some(s);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn the_hub_refuses_what_a_class_does_and_keys_guesses_and_floods_of_classes() {
    let t = two();
    let c = class(t.a.port, HERE);
    let code = c["code"].as_str().unwrap().to_string();
    let chromium = digest("Chromium 156", "isolated", 5_000.0);
    let mut rows = Vec::new();
    for (what, body, want, why) in hostile_posts(&code, &student(2), &chromium) {
        let (status, answer) = request(
            Ipv4Addr::new(127, 0, 0, 2),
            t.b.port,
            "POST",
            "/class/runs",
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        );
        assert_eq!(status, want, "{what}: {answer}");
        assert!(answer.contains(why), "{what}: {answer}");
        rows.push(bad_input_row("hub", what, &format!("{want}, the reason")));
    }
    // A teacher's key of one class used on another, or no class named.
    let other = class(t.b.port, HERE);
    let mut crossed = c.clone();
    crossed["code"] = other["code"].clone();
    for (method, path) in [
        ("GET", "/class/events"),
        ("GET", "/class/rows.json"),
        ("GET", "/class/rows.csv"),
        ("GET", "/class/plot.svg"),
        ("GET", "/class/join.svg"),
        ("POST", "/class/close"),
        ("POST", "/class/remove"),
    ] {
        let (s, b) = teach(t.a.port, &crossed, method, path, b"{\"student\":\"x\"}");
        assert_eq!(s, 403, "{method} {path}: {b}");
        let auth = format!("Bearer {}", c["key"].as_str().unwrap());
        let (s, _) = request(
            HERE,
            t.a.port,
            method,
            path,
            &[("Authorization", &auth)],
            b"",
        );
        assert_eq!(s, 403, "{method} {path} with no class named");
    }
    assert_eq!(
        teach(t.b.port, &c, "GET", "/class/rows.json", b"").0,
        200,
        "its own key"
    );
    rows.push(bad_input_row(
        "hub",
        "a teacher's key of one class used on another, or with no class named",
        "403",
    ));
    // The class's own routes still work after all that: closed by its teacher.
    assert_eq!(teach(t.b.port, &other, "POST", "/class/close", b"").0, 200);
    let (s, b) = send(
        t.a.port,
        HERE,
        other["code"].as_str().unwrap(),
        &student(5),
        &chromium,
    );
    assert_eq!(s, 403, "{b}");
    assert!(b.contains("closed"), "{b}");

    // Join codes guessed in a loop by one student of an address: 403 each until its share
    // is spent, then 429, and then even the right code is refused to that student; its
    // 30 classmates behind the same address all post.
    let guesser = Ipv4Addr::new(127, 0, 0, 3);
    // Codes of the right shape (the join code's alphabet), counted up from QAAAAA.
    let alphabet = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
    let guess = |n: usize| -> String {
        (0..5)
            .map(|k| alphabet[(n / 31usize.pow(k)) % 31] as char)
            .fold("Q".to_string(), |mut s, ch| {
                s.push(ch);
                s
            })
    };
    let mut refused_at = None;
    for n in 0..200 {
        let (s, b) = send(t.a.port, guesser, &guess(n), &student(7), &chromium);
        match s {
            403 => assert!(b.contains("no class has this code"), "{b}"),
            429 => {
                refused_at = Some(n);
                break;
            }
            other => panic!("guess {n}: {other} {b}"),
        }
    }
    let n = refused_at.expect("guessing was never refused");
    assert_eq!(n, 60, "refused after {n} guesses");
    let (s, b) = send(t.a.port, guesser, &code, &student(7), &chromium);
    assert_eq!(s, 429, "the right code after the guesses: {b}");
    assert!(b.contains("join codes"), "{b}");
    for i in 0..30 {
        let (s, b) = send(t.a.port, guesser, &code, &student(100 + i), &chromium);
        assert_eq!(s, 201, "classmate {i} of the guesser: {b}");
    }
    rows.push(bad_input_row(
        "hub",
        "61 join codes no class has from one student of an address in 10 minutes",
        "403 each, then 429 for that student's posts, the right code too; its classmates' \
         posts from the same address are taken",
    ));

    // Classes made in a loop from one address, on both instances: the limit is the
    // database's, so it holds across them.
    let maker = Ipv4Addr::new(127, 0, 0, 4);
    for i in 0..30 {
        let port = if i % 2 == 0 { t.a.port } else { t.b.port };
        let (s, made) = create(port, maker);
        assert_eq!(s, 201, "class {i}: {made}");
    }
    let (s, b) = request(maker, t.b.port, "POST", "/hub/classes", JSON, b"{}");
    assert_eq!(s, 429, "{b}");
    assert!(b.contains("30 classes"), "{b}");
    assert_eq!(create(t.a.port, Ipv4Addr::new(127, 0, 0, 5)).0, 201);
    rows.push(bad_input_row(
        "hub",
        "a 31st class within the hour from one address, on either instance",
        "429, the reason",
    ));
    assert_eq!(
        request(HERE, t.a.port, "GET", "/hub/classes", &[], b"").0,
        405
    );
    // Another site's form, or a request that says it comes from one.
    for (what, headers) in [
        (
            "a form",
            vec![("Content-Type", "application/x-www-form-urlencoded")],
        ),
        (
            "another site's JSON",
            vec![
                ("Content-Type", "application/json"),
                ("Origin", "https://elsewhere.example"),
                ("Sec-Fetch-Site", "cross-site"),
            ],
        ),
    ] {
        let (s, b) = request(HERE, t.a.port, "POST", "/hub/classes", &headers, b"{}");
        assert_eq!(s, 403, "{what}: {b}");
        assert!(b.contains("hub's own page"), "{what}: {b}");
    }
    rows.push(bad_input_row(
        "hub",
        "`POST /hub/classes` from another site (a form, or `Sec-Fetch-Site: cross-site`)",
        "403, the reason",
    ));
    rows.push(bad_input_row("hub", "`GET /hub/classes`", "405"));
    assert_bad_inputs_listed("hub", &rows);
}

/// An acknowledged run: its class's index, its student, when it was acknowledged.
type Ack = (usize, String, Instant);

/// Posts `n` runs (students of `classes` in turn) from `threads` threads, each to
/// `ports[i % 2]`, moving on to the other port when an instance does not answer (a load
/// balancer's retry) and waiting as Retry-After says on a 503; what was acknowledged
/// comes on the channel as (class index, student, when acknowledged).
fn burst(
    classes: &[Value],
    per_class: usize,
    ports: [u16; 2],
    threads: usize,
    budget: Duration,
) -> (mpsc::Receiver<Ack>, Vec<std::thread::JoinHandle<usize>>) {
    let d = digest("Firefox 140", "isolated", 20_000.0);
    let (tx, rx) = mpsc::channel();
    let jobs: Vec<(usize, usize)> = (0..per_class)
        .flat_map(|s| (0..classes.len()).map(move |c| (c, s)))
        .collect();
    let codes: Vec<String> = classes
        .iter()
        .map(|c| c["code"].as_str().unwrap().to_string())
        .collect();
    let handles = (0..threads)
        .map(|t| {
            let mine: Vec<(usize, usize)> = jobs.iter().copied().skip(t).step_by(threads).collect();
            let (tx, d, codes) = (tx.clone(), d.clone(), codes.clone());
            std::thread::spawn(move || {
                let end = Instant::now() + budget;
                let mut unavailable = 0;
                for (k, (c, s)) in mine.into_iter().enumerate() {
                    let who = student(c * 1000 + s);
                    let mut port = ports[k % 2];
                    loop {
                        assert!(
                            Instant::now() < end,
                            "post of {who} not acknowledged within {budget:?}"
                        );
                        let (st, b) = send(port, school(c), &codes[c], &who, &d);
                        match st {
                            201 => {
                                let _ = tx.send((c, who, Instant::now()));
                                break;
                            }
                            0 => port = if port == ports[0] { ports[1] } else { ports[0] },
                            503 => {
                                assert!(b.contains("ask again"), "{b}");
                                unavailable += 1;
                                std::thread::sleep(Duration::from_millis(250));
                            }
                            other => panic!("{who}: {other} {b}"),
                        }
                    }
                }
                unavailable
            })
        })
        .collect();
    (rx, handles)
}

#[test]
fn a_sigkill_of_one_instance_mid_burst_loses_nothing_acknowledged() {
    let t = two();
    let classes: Vec<Value> = (0..100)
        .map(|i| class(if i % 2 == 0 { t.a.port } else { t.b.port }, school(i)))
        .collect();
    // The teacher of class 0 watches on A, which is killed.
    let live = view(t.a.port, &classes[0], None);
    assert_eq!(
        live.recv_timeout(Duration::from_secs(10)).unwrap().kind,
        "class"
    );
    let (acks, posters) = burst(
        &classes,
        10,
        [t.a.port, t.b.port],
        8,
        Duration::from_secs(120),
    );
    let mut a = t.a;
    let mut acked: Vec<(usize, String)> = Vec::new();
    for (c, who, _) in acks.iter() {
        acked.push((c, who));
        if acked.len() == 300 {
            a.child.kill().unwrap();
            break;
        }
    }
    acked.extend(acks.iter().map(|(c, w, _)| (c, w)));
    for p in posters {
        p.join().unwrap();
    }
    let _ = a.child.wait();
    assert_eq!(
        acked.len(),
        1000,
        "every post acknowledged, through B after the kill"
    );
    let rows = stored(&t.pg);
    let lost: Vec<&(usize, String)> = acked
        .iter()
        .filter(|(c, w)| {
            !rows.contains_key(&(classes[*c]["code"].as_str().unwrap().to_string(), w.clone()))
        })
        .collect();
    assert!(
        lost.is_empty(),
        "{} acknowledged runs lost: {lost:?}",
        lost.len()
    );
    assert_eq!(rows.len(), 1000);
    assert_whole(&rows);
    // The view on A ended with it; it comes back to B with the last id it had and catches
    // up on every run of its class.
    let mut seen: HashSet<String> = HashSet::new();
    let mut last = None;
    for e in live.try_iter() {
        if e.kind == "put" {
            seen.insert(e.data["student"].as_str().unwrap().to_string());
        }
        last = e.id.or(last);
    }
    let again = view(t.b.port, &classes[0], last);
    let want: HashSet<String> = acked
        .iter()
        .filter(|(c, _)| *c == 0)
        .map(|(_, w)| w.clone())
        .collect();
    for e in puts(
        &again,
        want.len() - seen.len().min(want.len()),
        Duration::from_secs(10),
    ) {
        seen.insert(e.data["student"].as_str().unwrap().to_string());
    }
    assert_eq!(seen, want, "class 0's view, caught up through B");
    eprintln!(
        "{} runs acknowledged, {} before the kill; class 0's view had {} and caught up",
        acked.len(),
        300,
        want.len()
    );
}

#[test]
fn postgres_stopped_at_once_mid_burst_gives_503s_then_recovers_losing_nothing() {
    let t = two();
    let classes: Vec<Value> = (0..20).map(|i| class(t.a.port, school(i))).collect();
    let (acks, posters) = burst(
        &classes,
        20,
        [t.a.port, t.b.port],
        8,
        Duration::from_secs(120),
    );
    let mut acked = Vec::new();
    for (c, who, _) in acks.iter() {
        acked.push((c, who));
        if acked.len() == 100 {
            break;
        }
    }
    t.pg.crash().unwrap();
    let down = Instant::now();
    // While it is down, both instances say they are not ready.
    std::thread::sleep(Duration::from_millis(500));
    for s in [&t.a, &t.b] {
        let (st, b) = request(HERE, s.port, "GET", "/readyz", &[], b"");
        assert_eq!(st, 503, "{b}");
    }
    std::thread::sleep(Duration::from_millis(1500));
    t.pg.up().unwrap();
    acked.extend(acks.iter().map(|(c, w, _)| (c, w)));
    let unavailable: usize = posters.into_iter().map(|p| p.join().unwrap()).sum();
    assert!(
        unavailable > 0,
        "no post was answered 503 while the database was down"
    );
    assert_eq!(acked.len(), 400);
    for s in [&t.a, &t.b] {
        assert!(
            ready_within(s.port, Duration::from_secs(15)),
            "not ready again"
        );
    }
    let mut a = t.a;
    let mut b = t.b;
    assert!(
        a.child.try_wait().unwrap().is_none() && b.child.try_wait().unwrap().is_none(),
        "an instance restarted"
    );
    let rows = stored(&t.pg);
    for (c, w) in &acked {
        assert!(
            rows.contains_key(&(classes[*c]["code"].as_str().unwrap().to_string(), w.clone())),
            "{w} lost"
        );
    }
    assert_eq!(rows.len(), 400);
    assert_whole(&rows);
    eprintln!(
        "{unavailable} posts answered 503 while PostgreSQL was down for {:.1} s; all 400 kept",
        down.elapsed().as_secs_f64()
    );
    // The live views work again: a new view on A hears a run sent to B.
    let live = view(a.port, &classes[1], None);
    let (s, _) = send(
        b.port,
        school(1),
        classes[1]["code"].as_str().unwrap(),
        &student(99_999),
        &digest("Safari 18", "isolated", 1_000.0),
    );
    assert_eq!(s, 201);
    let got = puts(&live, 21, Duration::from_secs(10));
    assert!(
        got.iter().any(|e| e.data["student"] == student(99_999)),
        "{got:?}"
    );
    let _ = (a.child.kill(), b.child.kill());
}

#[test]
fn a_hundred_classes_of_thirty_send_within_a_minute_across_both_instances() {
    let t = two();
    let classes: Vec<Value> = (0..100)
        .map(|i| class(if i % 2 == 0 { t.a.port } else { t.b.port }, school(i)))
        .collect();
    // Each teacher watches on the instance its class was not made on.
    let views: Vec<mpsc::Receiver<Event>> = classes
        .iter()
        .enumerate()
        .map(|(i, c)| view(if i % 2 == 0 { t.b.port } else { t.a.port }, c, None))
        .collect();
    for v in &views {
        assert_eq!(
            v.recv_timeout(Duration::from_secs(10)).unwrap().kind,
            "class"
        );
    }
    let start = Instant::now();
    let (acks, posters) = burst(
        &classes,
        30,
        [t.a.port, t.b.port],
        16,
        Duration::from_secs(60),
    );
    let mut acked: HashMap<String, Instant> = HashMap::new();
    for (_, who, at) in acks.iter() {
        acked.insert(who, at);
    }
    for p in posters {
        assert_eq!(p.join().unwrap(), 0, "a 503 with the database up");
    }
    let took = start.elapsed();
    assert_eq!(acked.len(), 3000);
    assert!(took < Duration::from_secs(60), "3 000 runs took {took:?}");
    let mut lags = Vec::new();
    for (i, v) in views.iter().enumerate() {
        let got = puts(v, 30, Duration::from_secs(10));
        let students: HashSet<&str> = got
            .iter()
            .filter_map(|e| e.data["student"].as_str())
            .collect();
        assert_eq!(students.len(), 30, "class {i}'s view");
        for e in &got {
            let w = e.data["student"].as_str().unwrap();
            lags.push(e.at.saturating_duration_since(acked[w]).as_secs_f64() * 1e3);
        }
    }
    lags.sort_by(f64::total_cmp);
    eprintln!(
        "3 000 runs of 100 classes in {:.1} s ({:.0}/s); on the other instance's view: median {:.0} ms, p99 {:.0} ms",
        took.as_secs_f64(),
        3000.0 / took.as_secs_f64(),
        lags[lags.len() / 2],
        lags[lags.len() * 99 / 100]
    );
    assert_eq!(stored(&t.pg).len(), 3000);
}
