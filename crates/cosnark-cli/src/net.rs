//! he-cosnark's [`Transport`] over he-net's TLS mesh: roles and rounds map
//! one to one, and the network's errors become the prover's; one more tag
//! carries the outcome of each proof ([`crate::outcome`]).

use he_cosnark::{Error, Result, Role, Round, Traffic, Transport};
use he_net::{NetConfig, Network, PeerId};
use zeroize::Zeroizing;

/// One role's end of the session's TLS mesh.
pub struct NetTransport {
    network: Network,
    role: Role,
}

impl NetTransport {
    /// Connects this role to every other role of `config`.
    ///
    /// # Errors
    /// [`Error::Transport`] naming the peer that could not be reached or
    /// was refused.
    pub fn connect(config: NetConfig) -> Result<Self> {
        let role = role_of(config.me);
        let network = Network::connect(config).map_err(|e| transport_error(e, None))?;
        Ok(Self { network, role })
    }

    /// Bytes on the sockets (TLS records included) so far.
    pub fn wire_traffic(&self) -> Traffic {
        let t = self.network.wire_traffic();
        Traffic {
            sent: t.sent,
            received: t.received,
        }
    }

    /// Queues the outcome of a proof (see [`crate::outcome`]) for party
    /// `party`.
    ///
    /// # Errors
    /// [`Error::Transport`] naming the party when its connection has ended.
    pub fn send_outcome(&self, party: u32, bytes: Vec<u8>) -> Result<()> {
        self.network
            .send(PeerId::Party(party), OUTCOME_TAG, bytes)
            .map_err(|e| transport_error(e, None))
    }

    /// The server's next outcome message.
    ///
    /// # Errors
    /// [`Error::Transport`] naming the server: it disconnected, broke the
    /// transport's protocol, or sent nothing within the receive timeout.
    pub fn receive_outcome(&self) -> Result<Vec<u8>> {
        self.network
            .receive(PeerId::Server, OUTCOME_TAG)
            .map_err(|e| transport_error(e, None))
    }

    /// An outcome message of the server that has arrived already, if any
    /// (without waiting): after a failed round, the server's word on why.
    pub fn pending_outcome(&self) -> Option<Vec<u8>> {
        self.network
            .receive_within(PeerId::Server, OUTCOME_TAG, std::time::Duration::ZERO)
            .ok()
    }

    /// The process's socket bytes up to here (as [`Self::wire_traffic`]),
    /// then closes (as [`Self::close`]).
    ///
    /// # Errors
    /// As [`Self::close`].
    pub fn close_counted(self) -> Result<Traffic> {
        let wire = self.wire_traffic();
        self.close()?;
        Ok(wire)
    }

    /// Waits until every queued message has left, then closes.
    ///
    /// # Errors
    /// [`Error::Transport`] when a peer's messages may not have arrived.
    pub fn close(mut self) -> Result<()> {
        self.network.close().map_err(|e| transport_error(e, None))
    }
}

/// The network's name for a role.
pub fn peer_of(role: Role) -> PeerId {
    match role {
        Role::Party(i) => PeerId::Party(i),
        Role::Server => PeerId::Server,
    }
}

/// The prover's name for a peer.
pub fn role_of(peer: PeerId) -> Role {
    match peer {
        PeerId::Party(i) => Role::Party(i),
        PeerId::Server => Role::Server,
    }
}

/// A round's tag on the wire: its place in [`Round::ALL`].
fn tag(round: Round) -> u8 {
    Round::ALL
        .iter()
        .position(|r| *r == round)
        .map_or(u8::MAX, |i| i as u8)
}

/// The number of round tags of the protocol.
pub const ROUND_TAGS: u16 = Round::ALL.len() as u16;

/// The tag of the outcome messages, after the protocol's.
pub const OUTCOME_TAG: u8 = ROUND_TAGS as u8;

/// The number of tags a session uses.
pub const TAGS: u16 = ROUND_TAGS + 1;

fn transport_error(error: he_net::Error, round: Option<Round>) -> Error {
    match (error, round) {
        (he_net::Error::Timeout { peer, .. }, Some(round)) => Error::Missing {
            from: role_of(peer),
            round: round.name(),
        },
        (other, _) => Error::Transport {
            peer: other.peer().map(role_of),
            reason: other.to_string(),
        },
    }
}

impl Transport for NetTransport {
    fn role(&self) -> Role {
        self.role
    }

    fn send(&mut self, to: Role, round: Round, bytes: Vec<u8>) -> Result<()> {
        self.network
            .send(peer_of(to), tag(round), bytes)
            .map_err(|e| transport_error(e, Some(round)))
    }

    fn send_to_each(&mut self, to: &[Role], round: Round, bytes: Vec<u8>) -> Result<()> {
        let peers: Vec<PeerId> = to.iter().map(|&role| peer_of(role)).collect();
        self.network
            .send_to_each(&peers, tag(round), bytes)
            .map_err(|e| transport_error(e, Some(round)))
    }

    fn send_secret(&mut self, to: Role, round: Round, bytes: Zeroizing<Vec<u8>>) -> Result<()> {
        self.network
            .send_secret(peer_of(to), tag(round), bytes)
            .map_err(|e| transport_error(e, Some(round)))
    }

    fn receive(&mut self, from: Role, round: Round) -> Result<Vec<u8>> {
        self.network
            .receive(peer_of(from), tag(round))
            .map_err(|e| transport_error(e, Some(round)))
    }

    fn traffic(&self, round: Round) -> Traffic {
        let t = self.network.traffic(tag(round));
        Traffic {
            sent: t.sent,
            received: t.received,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_and_rounds_map_one_to_one() {
        for role in [Role::Server, Role::Party(0), Role::Party(41)] {
            assert_eq!(role_of(peer_of(role)), role);
        }
        let tags: Vec<u8> = Round::ALL.into_iter().map(tag).collect();
        assert_eq!(tags, (0..ROUND_TAGS as u8).collect::<Vec<_>>());
    }
}
