//! `ticklab class`: the page served as `ticklab serve` serves it, and a class: students open
//! the join URL (a short code in it) on any machine of the room's network, run the lab and
//! send their run; the teacher's view (its URL carries a random key) shows each as it is
//! stored. The class lives in a SQLite file ([`store`]); started again on the same file, it
//! goes on.

pub(crate) mod extract;
pub mod limits;
pub mod paths;
mod refusal;
pub mod routes;
pub mod state;
pub mod store;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use self::store::sqlite::SqliteStore;
use self::store::ClassStore;
use crate::cli::ClassArgs;
use crate::error::CliError;
use crate::serve::{self, Site};

/// Letters and digits no one misreads (no 0/O, 1/I/L): what a class types.
pub(crate) const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/// How long a join code is: 31^6, about 900 million codes, against at most
/// [`limits::ADDRESS_PER_MINUTE`] guesses a minute from one address.
pub(crate) const CODE_LENGTH: usize = 6;

/// SHA-256 in hex: a teacher's key as a hub keeps it (which opens no class), and what a
/// student's row is named by.
pub(crate) fn sha256_hex(key: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn random_bytes<const N: usize>() -> Result<[u8; N], getrandom::Error> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b)?;
    Ok(b)
}

/// A fresh join code.
pub(crate) fn new_code() -> Result<String, getrandom::Error> {
    // Rejection sampling: each letter equally likely.
    let mut out = String::new();
    while out.len() < CODE_LENGTH {
        let n = CODE_ALPHABET.len() as u16;
        for b in random_bytes::<16>()? {
            if u16::from(b) < 256 - 256 % n && out.len() < CODE_LENGTH {
                out.push(CODE_ALPHABET[usize::from(u16::from(b) % n)] as char);
            }
        }
    }
    Ok(out)
}

/// A fresh teacher's key: 128 random bits, in hex.
pub(crate) fn new_key() -> Result<String, getrandom::Error> {
    Ok(random_bytes::<16>()?
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// The addresses students reach this machine at: for an unspecified bind, every IPv4
/// address of an interface but loopback; otherwise the one bound.
fn join_hosts(bind: IpAddr) -> Vec<IpAddr> {
    if !bind.is_unspecified() {
        return vec![bind];
    }
    let mut out: Vec<IpAddr> = if_addrs::get_if_addrs()
        .unwrap_or_default()
        .into_iter()
        .map(|i| i.ip())
        .filter(|ip| ip.is_ipv4() && !ip.is_loopback())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The join URL's QR code, drawn for a terminal of light text on a dark background.
fn qr(url: &str) -> Option<String> {
    use qrcode::render::unicode::Dense1x2;
    let code = qrcode::QrCode::new(url.as_bytes()).ok()?;
    Some(
        code.render::<Dense1x2>()
            .dark_color(Dense1x2::Light)
            .light_color(Dense1x2::Dark)
            .quiet_zone(true)
            .build(),
    )
}

pub fn class(a: ClassArgs) -> Result<(), CliError> {
    // A request the database fails is told to the teacher's terminal.
    crate::logs::init(crate::cli::LogFormat::Text);
    let (mut site, what) = Site::new(a.root.as_deref(), a.report.as_deref())?;
    let store = SqliteStore::open(&a.db)?;
    let random = |e: getrandom::Error| CliError::Randomness(e.to_string());
    let (code, key) = (new_code().map_err(random)?, new_key().map_err(random)?);
    site.hide(&a.db);
    let rt = serve::runtime()?;
    rt.block_on(async move {
        let class = store.open_class(a.new, &code, &key).await?;
        let runs = store.rows(class.id).await?.len();
        let (listener, local) = serve::listen(a.bind, a.port).await?;
        let port = local.port();
        let hosts = join_hosts(a.bind);
        let join = |h: &IpAddr| {
            format!(
                "http://{}/?class={}",
                SocketAddr::new(*h, port),
                class.code
            )
        };
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let one = routes::OneClass {
            class: class.clone(),
            join: hosts.iter().map(join).collect(),
        };
        let state = Arc::new(routes::ClassState::new(store, one, stopping));
        let standing = if runs == 0 && !class.closed {
            "new or empty".to_string()
        } else {
            format!(
                "going on: {runs} run{}{}",
                if runs == 1 { "" } else { "s" },
                if class.closed { ", closed to new ones" } else { "" }
            )
        };
        println!(
            "ticklab class {}: kept in {} ({standing}); serving {what}",
            class.code,
            a.db.display()
        );
        if hosts.is_empty() {
            println!(
                "students: this machine has no network address but loopback; they cannot reach it"
            );
        } else {
            println!("students open:");
            for h in &hosts {
                println!("  {}", join(h));
            }
        }
        if !a.no_qr {
            if let Some(q) = hosts.first().and_then(|h| qr(&join(h))) {
                println!("{q}");
            }
        }
        let teacher_host = if a.bind.is_unspecified() || a.bind.is_loopback() {
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        } else {
            a.bind
        };
        println!(
            "teacher's view (on this machine; its key runs the class, keep it to yourself):\n  http://{}/class.html#key={}",
            SocketAddr::new(teacher_host, port),
            class.key
        );
        if a.bind.is_loopback() {
            println!("listening on {local}: only this machine can reach the class");
        } else {
            println!(
                "listening on {local}: every machine that reaches this one on these networks \
                 can open the page and, with the code, send a run; the page there is plain \
                 http, so coarser clocks (the guide's \"A class, live\" says which; a hub, over \
                 HTTPS, measures the finer ones)"
            );
        }
        println!(
            "Ctrl-C stops; `ticklab class --db {}` goes on with this class, --new starts another",
            a.db.display()
        );
        let app = serve::app(
            site,
            !a.no_isolation,
            Some(routes::router(state)),
        );
        let stop_on_signal = async move {
            serve::stop_signal().await;
            let _ = stop.send(true);
        };
        serve::run(listener, app, serve::connection_cap(), stop_on_signal).await;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_keys_are_fresh_and_of_their_alphabet() {
        let a = new_code().unwrap();
        assert_eq!(a.len(), CODE_LENGTH);
        assert!(a.bytes().all(|b| CODE_ALPHABET.contains(&b)));
        let codes: std::collections::HashSet<String> =
            (0..50).map(|_| new_code().unwrap()).collect();
        assert!(codes.len() > 45, "{codes:?}");
        let k = new_key().unwrap();
        assert_eq!(k.len(), 32);
        assert_ne!(k, new_key().unwrap());
    }
}
