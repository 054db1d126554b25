//! How messages move between the roles, and what they cost: the
//! [`Transport`] trait (one role's end of the connections), and
//! [`InProcess`], which connects roles running on threads of one process and
//! counts every byte per round.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use helib_rs::zeroize::Zeroizing;

use crate::error::{Error, Result};

/// A role of the protocol: a computing party (its index in the session) or
/// the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Computing party `i` (a key holder).
    Party(u32),
    /// The untrusted server.
    Server,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Role::Party(i) => write!(f, "party {i}"),
            Role::Server => f.write_str("the server"),
        }
    }
}

/// The rounds: the key session (once), then per proof the upload, the
/// encryption to shares, the opening to the designated party and the
/// combination of C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Round {
    /// Collective key generation (once per session).
    Keys,
    /// Parties upload shares-to-encryption of A, B and (r, s), and their
    /// shares of the proof's A and B; the server answers with the encrypted
    /// quotient and r·s, and the opened A and B in G1.
    Upload,
    /// Parties send encryption-to-shares shares of the server's ciphertexts.
    Convert,
    /// The server sends the masked openings to the designated party.
    Open,
    /// Parties send their shares of C; the server combines the proof.
    Combine,
}

impl Round {
    /// Every round, in protocol order.
    pub const ALL: [Round; 5] = [
        Round::Keys,
        Round::Upload,
        Round::Convert,
        Round::Open,
        Round::Combine,
    ];

    /// The rounds of one proof (every round but the key session).
    pub const PROOF: [Round; 4] = [Round::Upload, Round::Convert, Round::Open, Round::Combine];

    /// The round's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Round::Keys => "keys",
            Round::Upload => "upload",
            Round::Convert => "convert",
            Round::Open => "open",
            Round::Combine => "combine",
        }
    }
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One role's end of the connections to the other roles. Messages of one
/// sender to one receiver in one round arrive in the order sent.
pub trait Transport {
    /// The role this end speaks for.
    fn role(&self) -> Role;

    /// Sends `bytes` to `to` in `round`.
    ///
    /// # Errors
    /// The transport's own failures (a closed connection, an unknown role).
    fn send(&mut self, to: Role, round: Round, bytes: Vec<u8>) -> Result<()>;

    /// Sends `bytes` that only `to` may see (a Shamir dealing): the
    /// transport makes no copy it does not wipe, and wipes the bytes once
    /// sent, or when they are never delivered. The receiver wraps what
    /// [`receive`](Self::receive) returns in [`Zeroizing`].
    ///
    /// # Errors
    /// As [`send`](Self::send).
    fn send_secret(&mut self, to: Role, round: Round, bytes: Zeroizing<Vec<u8>>) -> Result<()>;

    /// Sends the same `bytes` to each of `to` in `round`, in that order.
    /// This default sends a copy to all but the last; a transport whose
    /// connections can share one buffer sends it without copies.
    ///
    /// # Errors
    /// As [`send`](Self::send), for the first role refused (the roles
    /// before it have been sent the bytes).
    fn send_to_each(&mut self, to: &[Role], round: Round, bytes: Vec<u8>) -> Result<()> {
        if let Some((&last, others)) = to.split_last() {
            for &role in others {
                self.send(role, round, bytes.clone())?;
            }
            self.send(last, round, bytes)?;
        }
        Ok(())
    }

    /// The next message from `from` in `round`.
    ///
    /// # Errors
    /// [`Error::Missing`] when none arrives: the sender has gone, or the
    /// transport's time limit passed.
    fn receive(&mut self, from: Role, round: Round) -> Result<Vec<u8>>;

    /// What this role sent and received in `round` so far.
    fn traffic(&self, round: Round) -> Traffic;
}

/// Bytes a role sent and received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes sent.
    pub sent: u64,
    /// Bytes received.
    pub received: u64,
}

impl Traffic {
    /// Sent plus received.
    pub fn total(&self) -> u64 {
        self.sent + self.received
    }

    /// The traffic since `earlier` (a snapshot of the same counter).
    pub fn since(&self, earlier: Traffic) -> Traffic {
        Traffic {
            sent: self.sent.saturating_sub(earlier.sent),
            received: self.received.saturating_sub(earlier.received),
        }
    }

    /// The sum of two counts.
    pub fn plus(&self, other: Traffic) -> Traffic {
        Traffic {
            sent: self.sent + other.sent,
            received: self.received + other.received,
        }
    }
}

/// A message waiting in the hub: a secret one is wiped if it is never
/// received.
enum Queued {
    Public(Vec<u8>),
    Secret(Zeroizing<Vec<u8>>),
}

impl Queued {
    /// The bytes, handed over without a copy.
    fn into_bytes(self) -> Vec<u8> {
        match self {
            Queued::Public(bytes) => bytes,
            Queued::Secret(mut bytes) => std::mem::take(&mut *bytes),
        }
    }
}

/// The queues every [`InProcess`] end of one group shares.
#[derive(Default)]
struct Hub {
    queues: HashMap<(Role, Role, Round), VecDeque<Queued>>,
    /// Roles whose end was dropped: nothing more will come from them.
    gone: BTreeSet<Role>,
}

/// The shared state of a group of [`InProcess`] ends.
struct Shared {
    roles: BTreeSet<Role>,
    hub: Mutex<Hub>,
    arrived: Condvar,
}

impl Shared {
    /// The hub; a panicked holder left the queues consistent (every update
    /// is a single push or pop), so a poisoned lock is still usable.
    fn hub(&self) -> MutexGuard<'_, Hub> {
        self.hub
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// One role's end of an in-process group: the roles run on threads of one
/// process and exchange their messages through shared queues. A receive
/// waits until the message arrives, its sender's end is dropped (a role
/// that failed or finished), or the time limit passes.
pub struct InProcess {
    role: Role,
    shared: Arc<Shared>,
    timeout: Duration,
    traffic: BTreeMap<Round, Traffic>,
}

impl InProcess {
    /// How long a receive waits by default.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

    /// Connected ends for the server and parties `0..parties`, server first.
    pub fn group(parties: u32) -> Vec<InProcess> {
        Self::group_of(
            std::iter::once(Role::Server)
                .chain((0..parties).map(Role::Party))
                .collect(),
        )
    }

    /// Connected ends for `roles`, in that order (repeated roles count once).
    pub fn group_of(roles: Vec<Role>) -> Vec<InProcess> {
        let unique: BTreeSet<Role> = roles.iter().copied().collect();
        let shared = Arc::new(Shared {
            roles: unique.clone(),
            hub: Mutex::new(Hub::default()),
            arrived: Condvar::new(),
        });
        let mut seen = BTreeSet::new();
        roles
            .into_iter()
            .filter(|role| seen.insert(*role))
            .map(|role| InProcess {
                role,
                shared: shared.clone(),
                timeout: Self::DEFAULT_TIMEOUT,
                traffic: BTreeMap::new(),
            })
            .collect()
    }

    /// The same end with another receive time limit.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Messages sent to this role and not yet received.
    pub fn pending(&self) -> usize {
        let hub = self.shared.hub();
        hub.queues
            .iter()
            .filter(|((_, to, _), _)| *to == self.role)
            .map(|(_, queue)| queue.len())
            .sum()
    }

    fn enqueue(&mut self, to: Role, round: Round, len: usize, message: Queued) -> Result<()> {
        self.check_peer(to)?;
        self.traffic.entry(round).or_default().sent += len as u64;
        self.shared
            .hub()
            .queues
            .entry((self.role, to, round))
            .or_default()
            .push_back(message);
        self.shared.arrived.notify_all();
        Ok(())
    }

    fn check_peer(&self, peer: Role) -> Result<()> {
        if peer == self.role || !self.shared.roles.contains(&peer) {
            return Err(Error::InvalidArgument(format!(
                "{} has no connection to {peer}",
                self.role
            )));
        }
        Ok(())
    }
}

impl Transport for InProcess {
    fn role(&self) -> Role {
        self.role
    }

    fn send(&mut self, to: Role, round: Round, bytes: Vec<u8>) -> Result<()> {
        self.enqueue(to, round, bytes.len(), Queued::Public(bytes))
    }

    fn send_secret(&mut self, to: Role, round: Round, bytes: Zeroizing<Vec<u8>>) -> Result<()> {
        self.enqueue(to, round, bytes.len(), Queued::Secret(bytes))
    }

    fn receive(&mut self, from: Role, round: Round) -> Result<Vec<u8>> {
        self.check_peer(from)?;
        let missing = Error::Missing {
            from,
            round: round.name(),
        };
        let deadline = Instant::now() + self.timeout;
        let mut hub = self.shared.hub();
        let bytes = loop {
            if let Some(bytes) = hub
                .queues
                .get_mut(&(from, self.role, round))
                .and_then(VecDeque::pop_front)
            {
                break bytes.into_bytes();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if hub.gone.contains(&from) || left.is_zero() {
                return Err(missing);
            }
            hub = self
                .shared
                .arrived
                .wait_timeout(hub, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        };
        drop(hub);
        self.traffic.entry(round).or_default().received += bytes.len() as u64;
        Ok(bytes)
    }

    fn traffic(&self, round: Round) -> Traffic {
        self.traffic.get(&round).copied().unwrap_or_default()
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        self.shared.hub().gone.insert(self.role);
        self.shared.arrived.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_counted_once_per_side_and_round() {
        let mut ends = InProcess::group(1);
        let mut party = ends.pop().unwrap();
        let mut server = ends.pop().unwrap();
        party
            .send(Role::Server, Round::Upload, vec![0; 10])
            .unwrap();
        server
            .send(Role::Party(0), Round::Convert, vec![0; 3])
            .unwrap();
        assert_eq!((server.pending(), party.pending()), (1, 1));
        assert_eq!(
            server.receive(Role::Party(0), Round::Upload).unwrap().len(),
            10
        );
        assert_eq!(party.traffic(Round::Upload).sent, 10);
        assert_eq!(server.traffic(Round::Upload).received, 10);
        assert_eq!(server.traffic(Round::Convert).sent, 3);
        assert_eq!(party.traffic(Round::Convert).received, 0);
    }

    #[test]
    fn one_message_to_each_reaches_every_role_until_one_is_refused() {
        let mut ends = InProcess::group(2);
        let mut second = ends.pop().unwrap();
        let mut first = ends.pop().unwrap();
        let mut server = ends.pop().unwrap();
        let parties = [Role::Party(0), Role::Party(1)];
        server
            .send_to_each(&parties, Round::Open, vec![5; 4])
            .unwrap();
        let stranger = [Role::Party(1), Role::Party(9), Role::Party(0)];
        assert!(matches!(
            server.send_to_each(&stranger, Round::Open, vec![6]),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(
            first.receive(Role::Server, Round::Open).unwrap(),
            vec![5; 4]
        );
        assert_eq!(
            second.receive(Role::Server, Round::Open).unwrap(),
            vec![5; 4]
        );
        // The role before the stranger got its message, the one after not.
        assert_eq!(second.receive(Role::Server, Round::Open).unwrap(), vec![6]);
        assert_eq!((first.pending(), second.pending()), (0, 0));
        assert_eq!(server.traffic(Round::Open).sent, 2 * 4 + 1);
    }

    #[test]
    fn secret_messages_keep_their_place_and_bytes() {
        let mut ends = InProcess::group(2);
        let mut second = ends.pop().unwrap();
        let mut first = ends.pop().unwrap();
        let dealing = |k: u8| (0..=k).collect::<Vec<u8>>();
        first.send(Role::Party(1), Round::Keys, dealing(1)).unwrap();
        for k in [2, 3] {
            let secret = Zeroizing::new(dealing(k));
            first
                .send_secret(Role::Party(1), Round::Keys, secret)
                .unwrap();
        }
        // A secret never received is dropped with the hub (and wiped).
        let unclaimed = Zeroizing::new(dealing(9));
        second
            .send_secret(Role::Party(0), Round::Keys, unclaimed)
            .unwrap();
        for k in [1, 2, 3] {
            let got = Zeroizing::new(second.receive(Role::Party(0), Round::Keys).unwrap());
            assert_eq!(*got, dealing(k));
        }
        assert_eq!(first.traffic(Round::Keys).sent, 2 + 3 + 4);
        assert_eq!(second.traffic(Round::Keys).received, 2 + 3 + 4);
        assert_eq!(first.pending(), 1);
    }

    #[test]
    fn a_receive_ends_when_the_sender_is_gone_or_time_is_up() {
        let mut ends = InProcess::group(2);
        let second = ends.pop().unwrap();
        let first = ends.pop().unwrap();
        let mut server = ends.pop().unwrap().with_timeout(Duration::from_millis(50));
        // Party 1 waits for nothing: the time limit ends the receive.
        let started = Instant::now();
        let outcome = server.receive(Role::Party(1), Round::Upload);
        assert!(matches!(
            outcome,
            Err(Error::Missing {
                from: Role::Party(1),
                ..
            })
        ));
        assert!(started.elapsed() >= Duration::from_millis(50));
        // Party 0 leaves from another thread: the receive ends at once,
        // long before the limit.
        let mut server = server.with_timeout(Duration::from_secs(60));
        let started = Instant::now();
        let leaver = std::thread::spawn(move || drop(first));
        let outcome = server.receive(Role::Party(0), Round::Upload);
        leaver.join().unwrap();
        assert!(matches!(
            outcome,
            Err(Error::Missing {
                from: Role::Party(0),
                ..
            })
        ));
        assert!(started.elapsed() < Duration::from_secs(30));
        drop(second);
    }

    #[test]
    fn messages_arrive_in_order_across_threads_and_unknown_roles_are_refused() {
        let mut ends = InProcess::group(1);
        let mut party = ends.pop().unwrap();
        let mut server = ends.pop().unwrap();
        let sender = std::thread::spawn(move || {
            for i in 0..100u8 {
                party.send(Role::Server, Round::Combine, vec![i]).unwrap();
            }
            party
        });
        for i in 0..100u8 {
            assert_eq!(
                server.receive(Role::Party(0), Round::Combine).unwrap(),
                vec![i]
            );
        }
        let mut party = sender.join().unwrap();
        assert!(matches!(
            party.send(Role::Party(7), Round::Upload, vec![1]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            server.receive(Role::Server, Round::Upload),
            Err(Error::InvalidArgument(_))
        ));
    }
}
