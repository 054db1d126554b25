//! The watchdog of a rank's collectives: a peer that died or stopped
//! answering ends the rank instead of hanging the job.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Ends the rank when one collective takes longer than the timeout: a peer
/// that died or stopped answering cannot make the job hang.
pub(crate) struct Watchdog {
    rank: usize,
    timeout_ms: AtomicU64,
    waiting: Mutex<Option<(Instant, &'static str)>>,
    stop: AtomicBool,
}

impl Watchdog {
    pub(crate) fn start(rank: usize, timeout: Duration) -> Arc<Self> {
        let dog = Arc::new(Self {
            rank,
            timeout_ms: AtomicU64::new(timeout.as_millis() as u64),
            waiting: Mutex::new(None),
            stop: AtomicBool::new(false),
        });
        let watcher = Arc::clone(&dog);
        std::thread::spawn(move || watcher.watch());
        dog
    }

    pub(crate) fn set_timeout(&self, timeout: Duration) {
        self.timeout_ms
            .store(timeout.as_millis() as u64, Ordering::Relaxed);
    }

    /// Ends the watching thread (at its next look).
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    fn watch(&self) {
        while !self.stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(50));
            let limit = Duration::from_millis(self.timeout_ms.load(Ordering::Relaxed));
            let waiting = *self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((since, step)) = waiting {
                if since.elapsed() > limit {
                    eprintln!(
                        "he-mpi: rank {}: {step} did not finish within {:.1} s (a peer rank is lost \
                         or stuck); ending this rank",
                        self.rank,
                        limit.as_secs_f64()
                    );
                    std::process::exit(3);
                }
            }
        }
    }

    pub(crate) fn guard(self: &Arc<Self>, step: &'static str) -> WatchGuard {
        *self.waiting.lock().unwrap_or_else(|e| e.into_inner()) = Some((Instant::now(), step));
        WatchGuard(Arc::clone(self))
    }
}

/// Clears the watchdog's wait when a collective ends.
pub(crate) struct WatchGuard(Arc<Watchdog>);

impl Drop for WatchGuard {
    fn drop(&mut self) {
        *self.0.waiting.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}
