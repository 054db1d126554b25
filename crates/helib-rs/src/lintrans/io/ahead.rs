//! Reading ahead: the buffers of a saved transform's next terms, made on
//! another thread while one term is read.

use crate::error::{Error, Result};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// The targets of a transform's terms, made ahead: [`fill`](Self::fill), on
/// another thread, makes them in order while the reader
/// [`take`](Self::take)s them in order; whichever comes to a term first makes
/// its target, so the reader never waits for a target nobody is making.
pub(super) struct Ahead<P> {
    state: Mutex<AheadState<P>>,
    made: Condvar,
}

struct AheadState<P> {
    slots: Vec<AheadSlot<P>>,
    stopped: bool,
}

enum AheadSlot<P> {
    Free,
    Making,
    Made(Result<P>),
    Taken,
}

impl<P> Ahead<P> {
    pub(super) fn new(count: usize) -> Self {
        Self {
            state: Mutex::new(AheadState {
                slots: (0..count).map(|_| AheadSlot::Free).collect(),
                stopped: false,
            }),
            made: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, AheadState<P>> {
        // Nothing panics while holding the lock; a poisoned one is still whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes the targets of the free slots in order (slot i's with
    /// `make(i)`), until the reader stops.
    pub(super) fn fill(&self, make: &impl Fn(usize) -> Result<P>) {
        for i in 0.. {
            {
                let mut state = self.lock();
                if state.stopped || i >= state.slots.len() {
                    return;
                }
                if !matches!(state.slots[i], AheadSlot::Free) {
                    continue;
                }
                state.slots[i] = AheadSlot::Making;
            }
            let made = make(i);
            self.lock().slots[i] = AheadSlot::Made(made);
            self.made.notify_all();
        }
    }

    /// The target of slot `i`: made ahead, or by `make(i)` here when nobody
    /// started it yet.
    pub(super) fn take(&self, i: usize, make: &impl Fn(usize) -> Result<P>) -> Result<P> {
        let mut state = self.lock();
        loop {
            match std::mem::replace(&mut state.slots[i], AheadSlot::Taken) {
                AheadSlot::Free => {
                    drop(state);
                    return make(i);
                }
                AheadSlot::Made(made) => return made,
                AheadSlot::Making => {
                    state.slots[i] = AheadSlot::Making;
                    state = self
                        .made
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                AheadSlot::Taken => {
                    return Err(Error::Engine {
                        status: crate::error::Status::Internal,
                        message: "a saved transform's term was read twice".into(),
                    })
                }
            }
        }
    }

    /// Ends [`fill`](Self::fill) at its next slot (the reader is done or failed).
    pub(super) fn stop(&self) {
        self.lock().stopped = true;
    }
}
