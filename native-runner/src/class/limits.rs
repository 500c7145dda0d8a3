//! Every limit of a class, defined here once: how large a post, how many a minute from a
//! student and from a sender, how long a nickname, how many rows; and the keyed limiter
//! that counts them, in memory (a restart forgets them, which costs a flood one more
//! window at most).

use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DashMapStateStore;
use governor::{Quota, RateLimiter};

/// Most bytes of a post: a digest of every clock a page has is a few kilobytes.
pub const MAX_POST: usize = 64 * 1024;
/// Most posts of one student a minute (a burst of them, then one every 6 s).
pub const STUDENT_PER_MINUTE: u32 = 10;
/// Most posts from one sender a minute: a class of 500 behind one router, each sending
/// once, and then some.
pub const ADDRESS_PER_MINUTE: u32 = 600;
/// The window the two rates above are counted over.
pub const RATE_WINDOW: Duration = Duration::from_secs(60);
/// Most join codes no class has that one student of one sender may send a hub per
/// [`GUESS_WINDOW`] (counted by each instance: with N instances, at most N times this).
/// Past it, that student's posts are refused until a guess is free again; their
/// classmates behind the same address are not: 31^6 codes are not found at this rate.
pub const GUESSES_PER_WINDOW: u32 = 60;
/// Most codes no class has from one sender, whatever student ids it makes up, per
/// [`GUESS_WINDOW`]. Past it, the sender's posts reach only the classes it has already
/// posted to (a school's classes go on), and its teachers' routes are refused.
pub const SENDER_GUESSES_PER_WINDOW: u32 = 300;
pub const GUESS_WINDOW: Duration = Duration::from_secs(600);
/// How long a hub remembers a class it looked up (its code, id and key digest), and a
/// code that no class had: a class closed or deleted elsewhere is seen within this.
pub const CLASS_MEMORY: Duration = Duration::from_secs(30);
/// Most classes, and codes no class had, that an instance remembers at once.
pub const MOST_REMEMBERED: u64 = 100_000;
/// Most lookups of classes by code running at once on an instance, of its pool's
/// connections: what anonymous traffic can hold of the database.
pub const LOOKUPS_AT_ONCE: usize = 4;
/// Most classes one address may create on a hub per [`CREATION_WINDOW`] (counted in the
/// database: it holds across every instance). A school's teachers share an address.
pub const CLASSES_PER_WINDOW: i64 = 30;
pub const CREATION_WINDOW: Duration = Duration::from_secs(3600);
/// How long a hub's class takes runs, unless its teacher closes it first.
pub const OPEN_FOR: Duration = Duration::from_secs(24 * 3600);
/// How often a hub closes the classes past their day and deletes those past their keep.
pub const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// How soon to ask again a server that is stopping, or whose database is out of reach.
pub const RETRY_SOON: Duration = Duration::from_secs(2);
/// Most characters of a nickname (the page's field says the same: a test holds it to it).
pub const MAX_NICKNAME: usize = 40;
/// Most runs one sender may add to the atlas a minute (a burst, then one a second): a
/// school behind one address, each of its students adding a run; past it that sender's
/// runs wait, no one else's. A sender counts once a cell a day whatever it sends.
pub const ATLAS_PER_MINUTE: u32 = 60;
/// How long an instance reuses the atlas's cells it read: a flood of reads costs the
/// database one read a period.
pub const ATLAS_MEMORY: Duration = Duration::from_secs(2);
/// Most rows a class holds.
pub const MAX_ROWS: u64 = 500;
/// How often the live view hears from the server when nothing happens, so that a proxy or
/// a browser does not take the stream for dead.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How soon a live view that lost its stream asks again.
pub const RECONNECT: Duration = Duration::from_secs(1);

/// Who a request is counted as: an IPv4 address, or an IPv6 address's /64, the network a
/// provider hands one home or phone (one host may hold all of it, so its 2^64 addresses
/// are one sender).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sender(IpAddr);

impl From<IpAddr> for Sender {
    fn from(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(v4) => Sender(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Sender(IpAddr::V4(v4)),
                None => {
                    let mask = !0u128 << 64;
                    Sender(IpAddr::V6((u128::from(v6) & mask).into()))
                }
            },
        }
    }
}

impl std::fmt::Display for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

impl Sender {
    /// The address (or the /64's first address), as the database keeps a sender.
    pub fn ip(self) -> IpAddr {
        self.0
    }
}

/// A burst of `most` events for each key, then one every `window / most`: a GCRA
/// (governor's), one check O(1) whatever the number of keys. Keys whose bucket has been
/// full again for a period (governor's rule) are dropped every [`PRUNE_EVERY`] checks, so
/// a flood of fresh keys costs memory for two windows at most, and no key is ever refused
/// because others are counted.
pub struct Limit<K: Hash + Eq + Clone, C: Clock = DefaultClock> {
    limiter: RateLimiter<K, DashMapStateStore<K>, C, NoOpMiddleware<C::Instant>>,
    clock: C,
    checks: AtomicU64,
}

/// Checks of a [`Limit`] between two prunings of its idle keys.
const PRUNE_EVERY: u64 = 4096;

impl<K: Hash + Eq + Clone> Limit<K> {
    /// `most` events per `window`, as a burst, refilled evenly.
    pub fn new(most: u32, window: Duration) -> Self {
        Self::with_clock(most, window, DefaultClock::default())
    }
}

impl<K: Hash + Eq + Clone, C: Clock + Clone> Limit<K, C> {
    /// The same on `clock` (a test's, moved by hand).
    pub fn with_clock(most: u32, window: Duration, clock: C) -> Self {
        let most = NonZeroU32::new(most).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::with_period(window / most.get())
            .expect("a window longer than nothing")
            .allow_burst(most);
        Self {
            limiter: RateLimiter::dashmap_with_clock(quota, clock.clone()),
            clock,
            checks: AtomicU64::new(0),
        }
    }

    /// Counts an event of `key` when it is within its share; `Err` with the time until
    /// it would be. Decided at once: nothing is counted that is refused.
    pub fn take(&self, key: &K) -> Result<(), Duration> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        self.limiter
            .check_key(key)
            .map_err(|not| not.wait_time_from(self.clock.now()))
    }

    /// How many keys are counted now.
    #[cfg(test)]
    pub fn keys(&self) -> usize {
        self.limiter.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_s_nickname_field_takes_what_the_server_does() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let page = std::fs::read_to_string(root.join("index.html")).unwrap();
        let field = format!("<input id=\"class-nickname\" maxlength=\"{MAX_NICKNAME}\"");
        assert!(
            page.contains(&field),
            "index.html's nickname field is not {field}"
        );
    }

    #[test]
    fn a_key_gets_its_share_per_window_and_no_more() {
        let clock = governor::clock::FakeRelativeClock::default();
        let l = Limit::with_clock(10, Duration::from_secs(60), clock.clone());
        for _ in 0..10 {
            assert!(l.take(&"ann").is_ok());
        }
        // The 11th at once waits for one of the ten to be given back: 6 s.
        assert_eq!(l.take(&"ann").unwrap_err(), Duration::from_secs(6));
        assert!(l.take(&"bob").is_ok());
        clock.advance(Duration::from_secs(6));
        assert!(l.take(&"ann").is_ok());
        assert!(l.take(&"ann").is_err());
        // A full window later, the whole burst again.
        clock.advance(Duration::from_secs(60));
        for _ in 0..10 {
            assert!(l.take(&"ann").is_ok());
        }
    }

    #[test]
    fn a_flood_of_fresh_keys_refuses_none_and_leaves_none_behind() {
        let clock = governor::clock::FakeRelativeClock::default();
        let l = Limit::with_clock(1, Duration::from_secs(60), clock.clone());
        for i in 0..2 * PRUNE_EVERY {
            assert!(l.take(&i).is_ok(), "key {i} refused");
        }
        assert!(l.take(&0).is_err(), "a key past its share");
        // Two windows later, the keys pruned at the next pass are only the fresh ones.
        clock.advance(Duration::from_secs(121));
        for i in 0..PRUNE_EVERY {
            assert!(l.take(&(10 * PRUNE_EVERY + i)).is_ok());
        }
        assert!(l.keys() <= PRUNE_EVERY as usize + 1, "{} keys", l.keys());
    }

    #[test]
    fn an_ipv6_64_is_one_sender_and_v4_is_itself() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff:ffff:ffff:ffff".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(Sender::from(a), Sender::from(b));
        assert_ne!(Sender::from(a), Sender::from(c));
        assert_eq!(Sender::from(a).to_string(), "2001:db8:1:2::/64");
        let v4: IpAddr = "192.0.2.7".parse().unwrap();
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(Sender::from(mapped), Sender::from(v4));
        assert_ne!(
            Sender::from(v4),
            Sender::from("192.0.2.8".parse::<IpAddr>().unwrap())
        );
    }
}
