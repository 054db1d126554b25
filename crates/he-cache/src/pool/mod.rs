//! The secure online/offline encryptor: a bounded pool of fresh encryptions
//! of zero, refilled by background threads, each used exactly once.

mod online;

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use helib_rs::{Ciphertext, Context, EncodedPlaintext, Plaintext, PublicKey};
use num_bigint::BigUint;

pub use online::Prepared;

use crate::algebra::{Algebra, Engine};
use crate::encryptor::{check_value, Encryptor, PlaintextEncryptor, Security};
use crate::error::{Error, Result};

/// What an online encryption does when no prepared item is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenDry {
    /// Wait for a worker to prepare one (fails with [`Error::PoolDry`] if the
    /// pool has no workers, since nothing would ever arrive).
    Block,
    /// Encrypt with the public key instead (as slow as fresh encryption, and as secure).
    FallBackToFresh,
    /// Return [`Error::PoolDry`] at once.
    Fail,
}

/// The settings of a [`SecurePool`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolConfig {
    capacity: usize,
    workers: usize,
    when_dry: WhenDry,
}

impl PoolConfig {
    /// A pool holding at most `capacity` prepared items, one background
    /// worker, blocking when dry.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            workers: 1,
            when_dry: WhenDry::Block,
        }
    }

    /// Sets the number of background workers (0: the pool is filled only by
    /// [`SecurePool::fill`] on the caller's thread).
    pub fn workers(mut self, workers: usize) -> Self {
        self.workers = workers;
        self
    }

    /// Sets what happens when the pool is dry.
    pub fn when_dry(mut self, when_dry: WhenDry) -> Self {
        self.when_dry = when_dry;
        self
    }

    fn validate(&self) -> Result<()> {
        if self.capacity == 0 {
            return Err(Error::InvalidConfig(
                "the pool capacity must be at least 1".into(),
            ));
        }
        if self.workers > 256 {
            return Err(Error::InvalidConfig(format!(
                "{} workers were asked for; at most 256 are allowed",
                self.workers
            )));
        }
        Ok(())
    }
}

/// Counters of a pool, read by [`SecurePool::stats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Prepared items waiting.
    pub available: usize,
    /// Items prepared so far.
    pub produced: u64,
    /// Items consumed by online encryptions (each exactly once).
    pub consumed: u64,
    /// Online encryptions that fell back to fresh encryption.
    pub fallbacks: u64,
}

/// A secure online/offline encryptor.
///
/// Offline, background workers keep up to `capacity` items ready, each a
/// fresh public-key encryption of zero E. Online, one item is taken out of the pool — moved, so it can
/// never be used twice — and the message is added: E + (m, 0), a fresh
/// encryption of m. Memory is bounded by
/// [`memory_bound_bytes`](Self::memory_bound_bytes); dropping the pool stops
/// and joins the workers.
///
/// Security is that of fresh encryption: each output contains its own fresh
/// encryption of zero, used for nothing else.
///
/// ```
/// use std::sync::Arc;
/// use he_cache::{Encryptor, PoolConfig, SecurePool, WhenDry};
/// use helib_rs::{Context, Parameters, SecretKey};
/// use num_bigint::BigUint;
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let pool = SecurePool::new(Arc::new(sk.public_key()?), PoolConfig::new(4).workers(1))?;
/// pool.wait_until_full()?;
/// let ct = pool.encrypt_value(&BigUint::from(42u32))?;
/// assert_eq!(sk.decrypt(&ct)?.coefficient(0), Some(BigUint::from(42u32)));
/// # Ok::<(), he_cache::Error>(())
/// ```
pub struct SecurePool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    when_dry: WhenDry,
}

/// What the pool and its workers share.
struct Shared {
    engine: Engine,
    capacity: usize,
    state: Mutex<State>,
    /// Signalled when an item arrives or a worker fails.
    filled: Condvar,
    /// Signalled when an item leaves or the pool shuts down.
    drained: Condvar,
}

#[derive(Default)]
struct State {
    items: VecDeque<Prepared<Ciphertext>>,
    /// Items being prepared (counted against the capacity).
    in_flight: usize,
    shutdown: bool,
    failure: Option<helib_rs::Error>,
    produced: u64,
    consumed: u64,
    fallbacks: u64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker panicking while holding the lock leaves consistent data
        // (only counters and a queue), so a poisoned lock is still usable.
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn wait<'a>(&self, cv: &Condvar, guard: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        cv.wait(guard).unwrap_or_else(|poison| poison.into_inner())
    }

    /// Reserves a slot to prepare an item; `false` if full (or shut down).
    fn reserve(state: &mut State, capacity: usize) -> bool {
        if state.shutdown || state.items.len() + state.in_flight >= capacity {
            return false;
        }
        state.in_flight += 1;
        true
    }

    /// Prepares one item outside the lock and stores it (or the failure).
    fn produce(&self) -> Result<()> {
        let item = Prepared::new(&self.engine);
        let mut state = self.lock();
        state.in_flight -= 1;
        match item {
            Ok(item) => {
                state.items.push_back(item);
                state.produced += 1;
                // Both blocked callers and `wait_until_full` wait on this:
                // wake them all so none misses an item meant for it.
                self.filled.notify_all();
                Ok(())
            }
            Err(Error::Engine(error)) => {
                state.failure = Some(error.clone());
                self.filled.notify_all();
                Err(Error::PoolStopped(error))
            }
            Err(other) => Err(other),
        }
    }

    /// The background worker: keep the pool full until shutdown or failure.
    fn work(&self) {
        loop {
            let mut state = self.lock();
            while !state.shutdown && !Self::reserve(&mut state, self.capacity) {
                state = self.wait(&self.drained, state);
            }
            if state.shutdown {
                return;
            }
            drop(state);
            if self.produce().is_err() {
                return;
            }
        }
    }
}

impl SecurePool {
    /// Starts a pool under `pk` (its workers begin filling at once).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for a zero capacity or too many workers;
    /// engine failures while making the unit ciphertext.
    pub fn new(pk: Arc<PublicKey>, config: PoolConfig) -> Result<Self> {
        config.validate()?;
        let engine = Engine::new(pk);
        let shared = Arc::new(Shared {
            engine,
            capacity: config.capacity,
            state: Mutex::new(State::default()),
            filled: Condvar::new(),
            drained: Condvar::new(),
        });
        let mut pool = Self {
            shared,
            workers: Vec::with_capacity(config.workers),
            when_dry: config.when_dry,
        };
        for index in 0..config.workers {
            let shared = Arc::clone(&pool.shared);
            let handle = std::thread::Builder::new()
                .name(format!("he-cache-pool-{index}"))
                .spawn(move || shared.work())
                .map_err(|e| Error::InvalidConfig(format!("cannot start a worker: {e}")))?;
            pool.workers.push(handle);
        }
        Ok(pool)
    }

    /// Prepares up to `count` items on the caller's thread (never beyond the
    /// capacity); returns how many were added.
    ///
    /// # Errors
    /// [`Error::PoolStopped`] when preparing fails.
    pub fn fill(&self, count: usize) -> Result<usize> {
        let mut added = 0;
        while added < count {
            let reserved = Shared::reserve(&mut self.shared.lock(), self.shared.capacity);
            if !reserved {
                break;
            }
            self.shared.produce()?;
            added += 1;
        }
        Ok(added)
    }

    /// Like [`fill`](Self::fill), but prepares the items side by side on
    /// rayon's thread pool: all the slots are reserved first, then each is
    /// filled by one fresh encryption of zero. The engine's own threads
    /// (`Parameters::threads`) work inside each encryption and do not
    /// coordinate with rayon's: with several cores, give the engine one
    /// thread and let rayon take the cores, or cap rayon
    /// (`RAYON_NUM_THREADS`). The background workers keep running meanwhile.
    ///
    /// # Errors
    /// [`Error::PoolStopped`] when preparing an item fails (the other
    /// reserved slots are still filled or released).
    pub fn fill_parallel(&self, count: usize) -> Result<usize> {
        use rayon::prelude::*;
        let reserved = {
            let mut state = self.shared.lock();
            let mut reserved = 0;
            while reserved < count && Shared::reserve(&mut state, self.shared.capacity) {
                reserved += 1;
            }
            reserved
        };
        let outcomes: Vec<Result<()>> = (0..reserved)
            .into_par_iter()
            .map(|_| self.shared.produce())
            .collect();
        outcomes.into_iter().collect::<Result<Vec<()>>>()?;
        Ok(reserved)
    }

    /// Blocks until the pool is full (returns at once without workers).
    ///
    /// # Errors
    /// [`Error::PoolStopped`] when a worker failed.
    pub fn wait_until_full(&self) -> Result<()> {
        let shared = &self.shared;
        let mut state = shared.lock();
        loop {
            if let Some(error) = &state.failure {
                return Err(Error::PoolStopped(error.clone()));
            }
            if self.workers.is_empty() || state.items.len() >= shared.capacity {
                return Ok(());
            }
            state = shared.wait(&shared.filled, state);
        }
    }

    /// The counters.
    pub fn stats(&self) -> PoolStats {
        let state = self.shared.lock();
        PoolStats {
            available: state.items.len(),
            produced: state.produced,
            consumed: state.consumed,
            fallbacks: state.fallbacks,
        }
    }

    /// The most prepared items the pool holds.
    pub fn capacity(&self) -> usize {
        self.shared.capacity
    }

    /// An upper bound on the memory the prepared items take: capacity ×
    /// 2 polynomials × N × (L + 1) residues of 8 bytes.
    pub fn memory_bound_bytes(&self) -> usize {
        let context = self.shared.engine.context();
        let ciphertext = 2 * context.ring_degree() * (context.max_level() + 1) * 8;
        self.shared.capacity * ciphertext
    }

    /// Takes one item, or `None` when the policy says to fall back.
    fn take(&self) -> Result<Option<Prepared<Ciphertext>>> {
        let shared = &self.shared;
        let mut state = shared.lock();
        loop {
            if let Some(item) = state.items.pop_front() {
                state.consumed += 1;
                shared.drained.notify_one();
                return Ok(Some(item));
            }
            if let Some(error) = &state.failure {
                return Err(Error::PoolStopped(error.clone()));
            }
            match self.when_dry {
                WhenDry::Block if !self.workers.is_empty() => {
                    state = shared.wait(&shared.filled, state);
                }
                WhenDry::Block | WhenDry::Fail => return Err(Error::PoolDry),
                WhenDry::FallBackToFresh => {
                    state.fallbacks += 1;
                    return Ok(None);
                }
            }
        }
    }
}

impl Drop for SecurePool {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.drained.notify_all();
        for worker in self.workers.drain(..) {
            // A worker that panicked has nothing left to clean up.
            let _joined = worker.join();
        }
    }
}

impl std::fmt::Debug for SecurePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecurePool")
            .field("capacity", &self.shared.capacity)
            .field("workers", &self.workers.len())
            .field("when_dry", &self.when_dry)
            .field("stats", &self.stats())
            .finish()
    }
}

impl Encryptor for SecurePool {
    fn name(&self) -> String {
        "pool-online".into()
    }

    fn security(&self) -> Security {
        Security::Secure
    }

    fn context(&self) -> &Context {
        self.shared.engine.context()
    }

    fn encrypt_value(&self, value: &BigUint) -> Result<Ciphertext> {
        check_value(self.context(), value)?;
        match self.take()? {
            Some(item) => item.encrypt(&self.shared.engine, value),
            None => self.shared.engine.encrypt_fresh(value),
        }
    }
}

impl PlaintextEncryptor for SecurePool {
    /// Online: encode `plaintext` (an NTT per prime) and add it to a prepared
    /// encryption of zero.
    fn encrypt_plaintext(&self, plaintext: &Plaintext) -> Result<Ciphertext> {
        if !self.context().same_as(plaintext.context()) {
            return Err(helib_rs::Error::ContextMismatch.into());
        }
        match self.take()? {
            Some(item) => {
                let mut zero = item.into_zero();
                zero.add_plain_assign(&EncodedPlaintext::for_addition_to(plaintext, &zero)?)?;
                Ok(zero)
            }
            None => Ok(self.shared.engine.public_key().encrypt(plaintext)?),
        }
    }
}
