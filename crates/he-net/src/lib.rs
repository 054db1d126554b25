//! Mutually authenticated TLS 1.3 transport between the roles of a
//! collaborative proof: N computing parties and one server, each its own
//! process, in a full mesh of connections.
//!
//! - **Identity.** Every role presents a certificate from PEM files and
//!   trusts one CA. A role's identity is the DNS name in its certificate:
//!   `server.cosnark` or `party-<i>.cosnark` ([`PeerId::dns_name`]). After
//!   the handshake both ends exchange a hello stating the 32-byte session
//!   id and their role; a peer of another session, a role that contradicts
//!   its certificate, or a certificate not issued by the CA is refused with
//!   an error naming the peer's address and the reason.
//! - **Mesh.** Roles are ordered server, party 0, party 1, …; each role
//!   dials every role before it and accepts from every role after it,
//!   retrying refused dials until [`NetConfig::connect_timeout`], so the
//!   start order does not matter.
//! - **Frames.** Inside TLS, each message is one frame: the payload length
//!   (u64 big-endian), the round tag (u8), the payload. A declared length
//!   above [`NetConfig::max_frame`] (2 GiB by default) is refused before
//!   anything is allocated.
//! - **Calls.** [`Network::send`] queues and returns; background tasks on
//!   the network's own small runtime write and read, and incoming frames
//!   wait in per-(peer, round) queues for [`Network::receive`], which has
//!   a timeout. A peer that disconnects or misbehaves makes the receives
//!   from it fail at once with an error naming it.
//! - **Counts.** Frame bytes per round ([`Network::traffic`]) and socket
//!   bytes in total ([`Network::wire_traffic`]).
//!
//! ```no_run
//! use std::collections::BTreeMap;
//! use he_net::{certs, NetConfig, Network, PeerId, SessionId};
//!
//! # fn main() -> he_net::Result<()> {
//! let dir = std::path::Path::new("/tmp/session-certs");
//! let creds = certs::generate(dir, certs::session_roles(2))?;
//! let roles: BTreeMap<PeerId, String> = [
//!     (PeerId::Server, "127.0.0.1:7000".to_owned()),
//!     (PeerId::Party(0), "127.0.0.1:7001".to_owned()),
//!     (PeerId::Party(1), "127.0.0.1:7002".to_owned()),
//! ]
//! .into();
//! // In the process of party 1 (the others run the same with their role):
//! let me = PeerId::Party(1);
//! let listen = roles[&me].parse().expect("an address");
//! let config = NetConfig::new(me, listen, roles, creds[&me].clone(), SessionId([7; 32]));
//! let mut net = Network::connect(config)?;
//! net.send(PeerId::Server, 0, b"hello".to_vec())?;
//! let reply = net.receive(PeerId::Server, 1)?;
//! println!("{} bytes back; round 0 moved {:?}", reply.len(), net.traffic(0));
//! net.close()?;
//! # Ok(())
//! # }
//! ```

pub mod certs;
mod config;
mod counters;
mod error;
mod frame;
mod handshake;
mod hello;
mod inbox;
mod link;
mod mesh;
mod network;
mod peer;
#[cfg(test)]
mod raw_peer_tests;
mod tls;

pub use config::{Credentials, NetConfig, SessionId, DEFAULT_MAX_FRAME};
pub use counters::Traffic;
pub use error::{Error, Result, Violation};
pub use frame::HEADER_LEN;
pub use hello::HELLO_LEN;
pub use network::Network;
pub use peer::{ParsePeerIdError, PeerId, DNS_SUFFIX};
