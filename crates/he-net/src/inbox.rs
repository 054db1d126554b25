//! The messages that arrived from one peer, queued per round until the
//! caller takes them, and how the peer's connection ended.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use crate::error::Violation;

/// How a connection ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The peer closed it, or it was lost: why.
    Disconnected(String),
    /// The peer broke the protocol.
    Violation(Violation),
    /// This end closed the network.
    Local,
}

/// Why [`Inbox::take`] returned no message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TakeError {
    /// The deadline passed.
    TimedOut,
    /// The connection ended and nothing is queued in the round.
    Ended(Ending),
}

#[derive(Debug, Default)]
struct State {
    queues: HashMap<u8, VecDeque<Vec<u8>>>,
    ending: Option<Ending>,
}

/// One peer's incoming messages, filled by its reader task and emptied by
/// the caller's blocking receives.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    state: Mutex<State>,
    changed: Condvar,
}

impl Inbox {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a message of `round`.
    pub fn push(&self, round: u8, message: Vec<u8>) {
        self.lock()
            .queues
            .entry(round)
            .or_default()
            .push_back(message);
        self.changed.notify_all();
    }

    /// Records how the connection ended (the first ending stays) and wakes
    /// every waiting receive.
    pub fn end(&self, ending: Ending) {
        let mut state = self.lock();
        if state.ending.is_none() {
            state.ending = Some(ending);
        }
        drop(state);
        self.changed.notify_all();
    }

    /// How the connection ended, if it did.
    pub fn ending(&self) -> Option<Ending> {
        self.lock().ending.clone()
    }

    /// The next message of `round`, waiting until `deadline`. Messages that
    /// arrived before the connection ended are still delivered.
    ///
    /// # Errors
    /// [`TakeError::Ended`] once the connection has ended and the round's
    /// queue is empty; [`TakeError::TimedOut`] at the deadline.
    pub fn take(&self, round: u8, deadline: Instant) -> Result<Vec<u8>, TakeError> {
        let mut state = self.lock();
        loop {
            if let Some(message) = state.queues.get_mut(&round).and_then(VecDeque::pop_front) {
                return Ok(message);
            }
            if let Some(ending) = &state.ending {
                return Err(TakeError::Ended(ending.clone()));
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(TakeError::TimedOut);
            }
            state = self
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Messages queued and not yet taken.
    pub fn pending(&self) -> usize {
        self.lock().queues.values().map(VecDeque::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn messages_come_in_order_per_round_and_survive_the_end() {
        let inbox = Inbox::default();
        inbox.push(1, b"a".to_vec());
        inbox.push(2, b"x".to_vec());
        inbox.push(1, b"b".to_vec());
        inbox.end(Ending::Disconnected("gone".into()));
        inbox.end(Ending::Local);
        let soon = Instant::now() + Duration::from_millis(10);
        assert_eq!(inbox.take(1, soon), Ok(b"a".to_vec()));
        assert_eq!(inbox.take(1, soon), Ok(b"b".to_vec()));
        assert_eq!(inbox.pending(), 1);
        assert_eq!(
            inbox.take(1, soon),
            Err(TakeError::Ended(Ending::Disconnected("gone".into())))
        );
        assert_eq!(inbox.take(2, soon), Ok(b"x".to_vec()));
    }

    #[test]
    fn a_waiting_take_wakes_on_push_and_on_end() {
        let inbox = Arc::new(Inbox::default());
        let far = Instant::now() + Duration::from_secs(20);
        let pusher = {
            let inbox = inbox.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                inbox.push(0, vec![1]);
                std::thread::sleep(Duration::from_millis(20));
                inbox.end(Ending::Local);
            })
        };
        assert_eq!(inbox.take(0, far), Ok(vec![1]));
        let started = Instant::now();
        assert_eq!(inbox.take(0, far), Err(TakeError::Ended(Ending::Local)));
        assert!(started.elapsed() < Duration::from_secs(5));
        pusher.join().expect("the pusher thread");
        let past = Instant::now();
        assert_eq!(inbox.take(3, past), Err(TakeError::Ended(Ending::Local)));
    }

    #[test]
    fn take_times_out() {
        let inbox = Inbox::default();
        let started = Instant::now();
        let deadline = started + Duration::from_millis(30);
        assert_eq!(inbox.take(0, deadline), Err(TakeError::TimedOut));
        assert!(started.elapsed() >= Duration::from_millis(30));
    }
}
