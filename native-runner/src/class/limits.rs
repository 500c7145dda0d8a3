//! How often a student, and an address, may post: a sliding window per key, in memory (a
//! restart forgets them, which costs a flood one more minute at most), with a bound on the
//! keys kept so a flood of fresh ids cannot grow it without end.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
