//! Every limit of a class, defined here once: how large a post, how many a minute from a
//! student and from an address, how long a nickname, how many rows; and the sliding window
//! that counts posts per key, in memory (a restart forgets them, which costs a flood one
//! more minute at most), with a bound on the keys kept so a flood of fresh ids cannot grow
//! it without end.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Most bytes of a post: a digest of every clock a page has is a few kilobytes.
pub const MAX_POST: usize = 64 * 1024;
/// Most posts of one student a minute.
pub const STUDENT_PER_MINUTE: usize = 10;
/// Most posts from one address a minute: a class of 500 behind one router, each sending
/// once, and then some.
pub const ADDRESS_PER_MINUTE: usize = 600;
/// The window the two rates above are counted over.
pub const RATE_WINDOW: Duration = Duration::from_secs(60);
/// Most join codes no class has that one address may send a hub per [`GUESS_WINDOW`]
/// (counted by each instance: with N instances, at most N times this). Past it, every post
/// from the address is refused until the window frees: 31^6 codes are not found by
/// guessing at this rate.
pub const GUESSES_PER_WINDOW: usize = 60;
pub const GUESS_WINDOW: Duration = Duration::from_secs(600);
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
/// Most students, and addresses, whose posts are counted at once.
pub const MOST_STUDENTS_COUNTED: usize = 50_000;
pub const MOST_ADDRESSES_COUNTED: usize = 2_000;
/// Most characters of a nickname (the page's field says the same: a test holds it to it).
pub const MAX_NICKNAME: usize = 40;
/// Most rows a class holds.
pub const MAX_ROWS: u64 = 500;
/// How often the live view hears from the server when nothing happens, so that a proxy or
/// a browser does not take the stream for dead.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How soon a live view that lost its stream asks again.
pub const RECONNECT: Duration = Duration::from_secs(1);

/// At most `most` events per `window` for each key, of at most `most_keys` keys: past
/// that, the keys with nothing left in their window are dropped, and if none has, a new
/// key is refused (a flood of ids, not a class).
pub struct Limit<K> {
    most: usize,
    window: Duration,
    most_keys: usize,
    keys: Mutex<HashMap<K, VecDeque<Instant>>>,
}

impl<K: Hash + Eq + Clone> Limit<K> {
    /// `most` events per `window`, for `most_keys` keys at once.
    pub fn new(most: usize, window: Duration, most_keys: usize) -> Self {
        Self {
            most,
            window,
            most_keys,
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// The time until `key` may have an event again, when it has had its most within the
    /// window; none when it may now (nothing is counted).
    pub fn full(&self, key: &K, now: Instant) -> Option<Duration> {
        let keys = self.keys.lock().unwrap_or_else(|p| p.into_inner());
        let q = keys.get(key)?;
        let live: Vec<&Instant> = q
            .iter()
            .filter(|t| now.saturating_duration_since(**t) < self.window)
            .collect();
        (live.len() >= self.most).then(|| {
            self.window
                .saturating_sub(now.saturating_duration_since(*live[0]))
        })
    }

    /// Counts an event of `key` at `now` when it is within the limit; `Err` with the time
    /// until it would be.
    pub fn take(&self, key: &K, now: Instant) -> Result<(), Duration> {
        let mut keys = self.keys.lock().unwrap_or_else(|p| p.into_inner());
        let window = self.window;
        let fresh = |q: &mut VecDeque<Instant>| {
            while q
                .front()
                .is_some_and(|t| now.saturating_duration_since(*t) >= window)
            {
                q.pop_front();
            }
        };
        if !keys.contains_key(key) && keys.len() >= self.most_keys {
            keys.retain(|_, q| {
                fresh(q);
                !q.is_empty()
            });
            if keys.len() >= self.most_keys {
                return Err(window);
            }
        }
        let q = keys.entry(key.clone()).or_default();
        fresh(q);
        if q.len() >= self.most {
            let oldest = *q.front().expect("full, so not empty");
            return Err(window.saturating_sub(now.saturating_duration_since(oldest)));
        }
        q.push_back(now);
        Ok(())
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
        let l = Limit::new(10, Duration::from_secs(60), 100);
        let t0 = Instant::now();
        for i in 0..10 {
            assert!(l.take(&"ann", t0 + Duration::from_secs(i)).is_ok());
        }
        // The 11th within the minute waits for the first to leave the window.
        let wait = l.take(&"ann", t0 + Duration::from_secs(10)).unwrap_err();
        assert_eq!(wait, Duration::from_secs(50));
        assert!(l.take(&"bob", t0 + Duration::from_secs(10)).is_ok());
        assert!(l.take(&"ann", t0 + Duration::from_secs(60)).is_ok());
    }

    #[test]
    fn a_flood_of_fresh_keys_is_bounded() {
        let l = Limit::new(1, Duration::from_secs(60), 1000);
        let t0 = Instant::now();
        for i in 0..1000 {
            assert!(l.take(&i, t0).is_ok());
        }
        assert!(l.take(&1000, t0).is_err());
        // A minute later the old keys are gone and new ones come in.
        assert!(l.take(&1001, t0 + Duration::from_secs(61)).is_ok());
        assert!(l.keys.lock().unwrap().len() <= 2);
    }
}
