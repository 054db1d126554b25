//! Errors of the transport: each names the peer (or its address) and the
//! cause.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::peer::PeerId;

/// What a peer sent that no honest peer sends (after the handshake).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Violation {
    /// A frame header declared a payload longer than the receiver's limit;
    /// nothing was allocated for it.
    #[error("a frame declared {declared} bytes, more than the limit of {max}")]
    FrameTooLarge {
        /// The declared payload length.
        declared: u64,
        /// The receiver's limit ([`crate::NetConfig::max_frame`]).
        max: u64,
    },
    /// A frame's round tag is not one the session uses.
    #[error("a frame has round tag {tag}, the session uses tags 0..{count}")]
    UnknownRound {
        /// The tag received.
        tag: u8,
        /// The number of round tags in use ([`crate::NetConfig::rounds`]).
        count: u16,
    },
    /// The TLS layer rejected what arrived (bytes that are no TLS record of
    /// this connection, a bad MAC).
    #[error("TLS: {0}")]
    Tls(String),
}

/// A failed network step.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The configuration is inconsistent (a missing address, a zero timeout,
    /// the own role among the peers' roles, ...).
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    /// A certificate, key or CA file could not be read or used.
    #[error("{}: {reason}", path.display())]
    Credentials {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A local I/O step outside any connection failed (building the
    /// runtime, writing generated certificates).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The own listening address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A connection this role opened to `peer` failed: unreachable until
    /// the deadline, or refused in the TLS handshake or the hello (wrong CA,
    /// a certificate for another role, another session).
    #[error("connection to {peer} at {addr} failed: {reason}")]
    Connect {
        /// The role dialed.
        peer: PeerId,
        /// Its address.
        addr: String,
        /// Why it failed.
        reason: String,
    },
    /// The mesh was not complete by the connect deadline: the roles that
    /// never connected, and every incoming connection that was refused
    /// meanwhile (its address and why).
    #[error(
        "after {waited:?} no authenticated connection from {}{}",
        list(missing),
        refusals(refused)
    )]
    SetupTimeout {
        /// How long setup waited.
        waited: Duration,
        /// The roles without a connection.
        missing: Vec<PeerId>,
        /// Incoming connections that were refused: "address: reason".
        refused: Vec<String>,
    },
    /// No message from `peer` in `round` arrived in time.
    #[error("no message from {peer} in round {round} within {waited:?}")]
    Timeout {
        /// The sender waited for.
        peer: PeerId,
        /// The round.
        round: u8,
        /// How long the receive waited.
        waited: Duration,
    },
    /// The connection to `peer` is closed or lost; no more messages will
    /// arrive from it (those that arrived before are still delivered).
    #[error("{peer} disconnected (waiting in round {round}): {reason}")]
    Disconnected {
        /// The peer.
        peer: PeerId,
        /// The round of the failed send or receive.
        round: u8,
        /// How the connection ended.
        reason: String,
    },
    /// `peer` sent something no honest peer sends; its connection is
    /// closed.
    #[error("{peer} broke the protocol: {violation}")]
    Protocol {
        /// The peer.
        peer: PeerId,
        /// What it sent.
        violation: Violation,
    },
    /// A message to send is longer than the frame limit.
    #[error("a message of {len} bytes to {peer} exceeds the frame limit of {max} bytes")]
    MessageTooLarge {
        /// The receiver.
        peer: PeerId,
        /// The message length.
        len: u64,
        /// The limit ([`crate::NetConfig::max_frame`]).
        max: u64,
    },
    /// A send or receive named a role that is not in the session (or the own
    /// role).
    #[error("{0} is not a peer of this session")]
    UnknownPeer(PeerId),
    /// A send or receive named a round tag the session does not use.
    #[error("round tag {round} is not used, the session uses tags 0..{count}")]
    UnknownRound {
        /// The tag.
        round: u8,
        /// The number of round tags in use.
        count: u16,
    },
    /// Closing could not confirm that the messages queued for `peer` left:
    /// its connection failed first, or the close timeout passed.
    #[error("messages queued for {peer} may not have been delivered: {reason}")]
    Undelivered {
        /// The peer.
        peer: PeerId,
        /// Why.
        reason: String,
    },
    /// The network was closed.
    #[error("the network is closed")]
    Closed,
    /// A blocking call was made from within an asynchronous runtime.
    #[error("he-net's blocking API was called from within an async runtime")]
    InsideRuntime,
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The peer this error is about, when it is about one.
    pub fn peer(&self) -> Option<PeerId> {
        match self {
            Error::Connect { peer, .. }
            | Error::Timeout { peer, .. }
            | Error::Disconnected { peer, .. }
            | Error::Protocol { peer, .. }
            | Error::MessageTooLarge { peer, .. }
            | Error::Undelivered { peer, .. }
            | Error::UnknownPeer(peer) => Some(*peer),
            _ => None,
        }
    }

    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

fn list(roles: &[PeerId]) -> String {
    let names: Vec<String> = roles.iter().map(ToString::to_string).collect();
    names.join(", ")
}

fn refusals(refused: &[String]) -> String {
    if refused.is_empty() {
        String::new()
    } else {
        format!("; refused: {}", refused.join("; "))
    }
}
