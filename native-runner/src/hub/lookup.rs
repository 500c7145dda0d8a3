//! A hub's lookups of classes by join code, as a stranger can send them: a code of the
//! wrong shape costs nothing, a class or a miss found is remembered for
//! [`CLASS_MEMORY`], at most [`LOOKUPS_AT_ONCE`] reach the database together, and the
//! codes no class has are counted per student of a sender and per sender. A guesser is
//! stopped before any lookup, so a stopped guesser learns nothing more, not even from the
//! classes an instance remembers.

use std::time::{Duration, Instant};

use moka::sync::Cache;

use crate::class::limits::{
    Limit, Sender, CLASS_MEMORY, GUESSES_PER_WINDOW, GUESS_WINDOW, LOOKUPS_AT_ONCE,
    MOST_REMEMBERED, OPEN_FOR, SENDER_GUESSES_PER_WINDOW,
};
use crate::class::routes::ClassError;
use crate::class::store::{Class, ClassStore, StoreError};

/// Who a guess is counted against: a student id behind a sender, or the sender itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Guesser {
    Student(Sender, String),
    Sender(Sender),
}

/// Whoever asks a class by its code on a hub.
pub enum Asker<'a> {
    /// A student's post: its sender and the id its browser made.
    Student(Sender, &'a str),
    /// A teacher's route: only its sender.
    Teacher(Sender),
}

impl Asker<'_> {
    fn sender(&self) -> Sender {
        match *self {
            Asker::Student(s, _) | Asker::Teacher(s) => s,
        }
    }
}

/// What a hub keeps to look classes up by code.
pub struct Lookups {
    students: Limit<(Sender, String)>,
    senders: Limit<Sender>,
    /// Guessers past their share, until when.
    stopped: Cache<Guesser, Instant>,
    /// The codes each sender has reached a class with: a sender stopped for guessing
    /// still reaches them (a school's classes go on while one of it guesses).
    reached: Cache<(Sender, String), ()>,
    classes: Cache<String, Class>,
    misses: Cache<String, ()>,
    at_once: tokio::sync::Semaphore,
}

impl Default for Lookups {
    fn default() -> Self {
        fn memory<V: Clone + Send + Sync + 'static>() -> Cache<String, V> {
            Cache::builder()
                .max_capacity(MOST_REMEMBERED)
                .time_to_live(CLASS_MEMORY)
                .build()
        }
        Self {
            students: Limit::new(GUESSES_PER_WINDOW, GUESS_WINDOW),
            senders: Limit::new(SENDER_GUESSES_PER_WINDOW, GUESS_WINDOW),
            stopped: Cache::builder()
                .max_capacity(MOST_REMEMBERED)
                .time_to_live(GUESS_WINDOW)
                .build(),
            reached: Cache::builder()
                .max_capacity(MOST_REMEMBERED)
                .time_to_live(OPEN_FOR)
                .build(),
            classes: memory(),
            misses: memory(),
            at_once: tokio::sync::Semaphore::new(LOOKUPS_AT_ONCE),
        }
    }
}

/// How long a lookup waits for its turn at the database before it is refused as the
/// database being out of reach (503, asked again).
const TURN_WAIT: Duration = Duration::from_secs(5);

impl Lookups {
    /// The class of `code` for `asker`; none when no class has it (counted as a guess);
    /// refused when the asker guessed past its share.
    pub async fn class<S: ClassStore>(
        &self,
        store: &S,
        code: &str,
        asker: Asker<'_>,
    ) -> Result<Option<Class>, ClassError> {
        // A code of another shape is no class's, and costs no query.
        if !(code.len() == crate::class::CODE_LENGTH
            && code
                .bytes()
                .all(|b| crate::class::CODE_ALPHABET.contains(&b)))
        {
            return Ok(None);
        }
        let sender = asker.sender();
        let reached = self.reached.contains_key(&(sender, code.to_string()));
        let mut guessers = vec![Guesser::Sender(sender)];
        if let Asker::Student(s, id) = asker {
            guessers.insert(0, Guesser::Student(s, id.to_string()));
        }
        let now = Instant::now();
        for g in &guessers {
            // A school's classes go on while one of it guesses: only the guesser's own
            // id, or the codes the sender never reached, wait.
            let skip = reached && matches!(g, Guesser::Sender(_));
            if let Some(until) = self.stopped.get(g).filter(|u| *u > now && !skip) {
                return Err(ClassError::Guessing { wait: until - now });
            }
        }
        let found = self.find(store, code).await?;
        match &found {
            Some(_) => self.reached.insert((sender, code.to_string()), ()),
            None => {
                let mut wait = None;
                if let Asker::Student(s, id) = asker {
                    if let Err(w) = self.students.take(&(s, id.to_string())) {
                        wait = Some((guessers[0].clone(), w));
                    }
                }
                if let Err(w) = self.senders.take(&sender) {
                    wait = wait.or(Some((Guesser::Sender(sender), w)));
                }
                if let Some((g, w)) = wait {
                    self.stopped.insert(g, now + w);
                    return Err(ClassError::Guessing { wait: w });
                }
            }
        }
        Ok(found)
    }

    /// The class of `code` as remembered, or as the store says (waiting its turn).
    async fn find<S: ClassStore>(
        &self,
        store: &S,
        code: &str,
    ) -> Result<Option<Class>, ClassError> {
        if let Some(c) = self.classes.get(code) {
            return Ok(Some(c));
        }
        if self.misses.contains_key(code) {
            return Ok(None);
        }
        self.fresh(store, code).await
    }

    /// The class of `code` as the store says now, remembered.
    pub async fn fresh<S: ClassStore>(
        &self,
        store: &S,
        code: &str,
    ) -> Result<Option<Class>, ClassError> {
        let _turn = tokio::time::timeout(TURN_WAIT, self.at_once.acquire())
            .await
            .map_err(|_| StoreError::Busy)?
            .expect("the semaphore is never closed");
        let found = store.class_by_code(code).await?;
        match &found {
            Some(c) => self.classes.insert(code.to_string(), c.clone()),
            None => {
                self.classes.invalidate(code);
                self.misses.insert(code.to_string(), ());
            }
        }
        Ok(found)
    }

    /// Forgets `code`'s class: it closed, or another may come to hold the code.
    pub fn forget(&self, code: &str) {
        self.classes.invalidate(code);
        self.misses.invalidate(code);
    }
}
