//! How messages move between the roles, and what they cost: the
//! [`Transport`] trait, and [`InProcess`], which delivers within one process
//! and counts every byte per role and round.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;

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

/// Moves opaque messages between roles. Messages of one sender to one
/// receiver in one round arrive in the order sent.
pub trait Transport {
    /// Sends `bytes` from `from` to `to` in `round`.
    ///
    /// # Errors
    /// The transport's own failures (a closed connection).
    fn send(&mut self, from: Role, to: Role, round: Round, bytes: Vec<u8>) -> Result<()>;

    /// The next message from `from` to `to` in `round`.
    ///
    /// # Errors
    /// [`Error::Missing`] when none arrives.
    fn receive(&mut self, to: Role, from: Role, round: Round) -> Result<Vec<u8>>;
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

    fn add(&mut self, other: Traffic) {
        self.sent += other.sent;
        self.received += other.received;
    }
}

/// Delivery within one process, counting bytes per role and round (a byte
/// is counted as sent when sent and as received when taken).
#[derive(Debug, Default)]
pub struct InProcess {
    queues: HashMap<(Role, Role, Round), VecDeque<Vec<u8>>>,
    traffic: BTreeMap<(Role, Round), Traffic>,
}

impl InProcess {
    /// An empty transport.
    pub fn new() -> Self {
        Self::default()
    }

    /// What `role` sent and received in `round` so far.
    pub fn traffic(&self, role: Role, round: Round) -> Traffic {
        self.traffic
            .get(&(role, round))
            .copied()
            .unwrap_or_default()
    }

    /// What `role` sent and received in the proof rounds (every round but
    /// the key session).
    pub fn proof_traffic(&self, role: Role) -> Traffic {
        let mut total = Traffic::default();
        for round in Round::ALL.into_iter().filter(|r| *r != Round::Keys) {
            total.add(self.traffic(role, round));
        }
        total
    }

    /// Forgets the counts (the queues stay).
    pub fn reset_counts(&mut self) {
        self.traffic.clear();
    }

    /// Counts a message of `bytes` bytes from `from` to `to` that moved
    /// outside the transport (as a value within this process).
    pub fn record(&mut self, from: Role, to: Role, round: Round, bytes: usize) {
        self.traffic.entry((from, round)).or_default().sent += bytes as u64;
        self.traffic.entry((to, round)).or_default().received += bytes as u64;
    }

    /// Messages sent and not yet received.
    pub fn pending(&self) -> usize {
        self.queues.values().map(VecDeque::len).sum()
    }
}

impl Transport for InProcess {
    fn send(&mut self, from: Role, to: Role, round: Round, bytes: Vec<u8>) -> Result<()> {
        self.traffic.entry((from, round)).or_default().sent += bytes.len() as u64;
        self.queues
            .entry((from, to, round))
            .or_default()
            .push_back(bytes);
        Ok(())
    }

    fn receive(&mut self, to: Role, from: Role, round: Round) -> Result<Vec<u8>> {
        let bytes = self
            .queues
            .get_mut(&(from, to, round))
            .and_then(VecDeque::pop_front)
            .ok_or(Error::Missing {
                from,
                round: round.name(),
            })?;
        self.traffic.entry((to, round)).or_default().received += bytes.len() as u64;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_counted_once_per_side_and_round() {
        let mut net = InProcess::new();
        net.send(Role::Party(0), Role::Server, Round::Upload, vec![0; 10])
            .unwrap();
        net.send(Role::Server, Role::Party(0), Round::Convert, vec![0; 3])
            .unwrap();
        assert_eq!(net.pending(), 2);
        assert_eq!(
            net.receive(Role::Server, Role::Party(0), Round::Upload)
                .unwrap()
                .len(),
            10
        );
        assert_eq!(net.traffic(Role::Party(0), Round::Upload).sent, 10);
        assert_eq!(net.traffic(Role::Server, Round::Upload).received, 10);
        assert_eq!(net.proof_traffic(Role::Party(0)).total(), 10);
        assert!(matches!(
            net.receive(Role::Server, Role::Party(1), Round::Upload),
            Err(Error::Missing {
                from: Role::Party(1),
                ..
            })
        ));
    }
}
