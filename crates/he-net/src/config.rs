//! What a role needs to join the mesh: its role, addresses, credentials,
//! session id, timeouts and limits ([`NetConfig`]).

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::peer::PeerId;

/// The default frame limit: 2 GiB of payload.
pub const DEFAULT_MAX_FRAME: u64 = 2 << 30;

/// A session's 32-byte identifier; both ends of every connection state it
/// in their hello and refuse a peer of another session.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionId(pub [u8; 32]);

impl fmt::Debug for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SessionId({self})")
    }
}

impl fmt::Display for SessionId {
    /// Lowercase hex.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// Paths of a role's TLS credentials, all PEM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    /// The role's certificate chain, leaf first. The leaf names the role as
    /// a DNS subject alternative name ([`PeerId::dns_name`]) and allows
    /// both TLS server and client authentication.
    pub cert_chain: PathBuf,
    /// The leaf's private key (PKCS#8, PKCS#1 or SEC1).
    pub private_key: PathBuf,
    /// The CA certificate(s) every peer's chain must lead to.
    pub ca: PathBuf,
}

/// A role's network configuration.
///
/// Fields are public; [`NetConfig::new`] fills in the defaults and
/// [`NetConfig::validate`] (called by [`crate::Network::connect`]) checks
/// them.
#[derive(Clone, Debug)]
pub struct NetConfig {
    /// The own role.
    pub me: PeerId,
    /// The address to accept connections on (needed when a later role
    /// exists: every role accepts from the roles after it in the mesh
    /// order).
    pub listen: SocketAddr,
    /// The address (`host:port`) of every role of the session. An entry
    /// for the own role is allowed and ignored; every other entry is a peer.
    pub roles: BTreeMap<PeerId, String>,
    /// The TLS credentials.
    pub credentials: Credentials,
    /// The session; peers of another session are refused.
    pub session: SessionId,
    /// How long [`crate::Network::connect`] waits for the whole mesh
    /// (dial retries included). Default 60 s.
    pub connect_timeout: Duration,
    /// How long one TLS handshake plus hello may take. Default 10 s. A
    /// dialer whose handshake runs past it dials again (a peer too busy to
    /// answer in time) until the connect timeout; a refused handshake is
    /// not retried.
    pub handshake_timeout: Duration,
    /// How long [`crate::Network::receive`] waits for a message. Default
    /// 120 s.
    pub receive_timeout: Duration,
    /// How long closing waits for queued messages to leave and for the
    /// peers to close their side. Default 10 s.
    pub close_timeout: Duration,
    /// The largest payload of one frame, in bytes, in both directions.
    /// Default [`DEFAULT_MAX_FRAME`] (2 GiB).
    pub max_frame: u64,
    /// The number of round tags in use: tags are `0..rounds`; a frame with
    /// another tag is a protocol violation. Default 256 (every tag).
    pub rounds: u16,
    /// Worker threads of the transport's own runtime (TLS and socket work
    /// in the background). Default 2.
    pub io_threads: usize,
}

impl NetConfig {
    /// A configuration with the default timeouts and limits.
    pub fn new(
        me: PeerId,
        listen: SocketAddr,
        roles: BTreeMap<PeerId, String>,
        credentials: Credentials,
        session: SessionId,
    ) -> Self {
        NetConfig {
            me,
            listen,
            roles,
            credentials,
            session,
            connect_timeout: Duration::from_secs(60),
            handshake_timeout: Duration::from_secs(10),
            receive_timeout: Duration::from_secs(120),
            close_timeout: Duration::from_secs(10),
            max_frame: DEFAULT_MAX_FRAME,
            rounds: 256,
            io_threads: 2,
        }
    }

    /// The peers: every role in [`NetConfig::roles`] but the own one.
    pub fn peers(&self) -> impl Iterator<Item = (PeerId, &str)> + '_ {
        self.roles
            .iter()
            .filter(|(role, _)| **role != self.me)
            .map(|(role, addr)| (*role, addr.as_str()))
    }

    /// Whether some peer dials this role (so it must listen).
    pub fn accepts_any(&self) -> bool {
        self.peers().any(|(peer, _)| peer.dials(self.me))
    }

    /// Checks the configuration.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for no peers, a zero timeout, a zero frame
    /// limit or round count, a round count above 256, or no I/O thread.
    pub fn validate(&self) -> Result<()> {
        let invalid = |what: &str| Err(Error::InvalidConfig(what.to_owned()));
        if self.peers().next().is_none() {
            return invalid("no peers: `roles` names no role but the own");
        }
        for (name, t) in [
            ("connect_timeout", self.connect_timeout),
            ("handshake_timeout", self.handshake_timeout),
            ("receive_timeout", self.receive_timeout),
            ("close_timeout", self.close_timeout),
        ] {
            if t.is_zero() {
                return invalid(&format!("{name} is zero"));
            }
        }
        if self.max_frame == 0 {
            return invalid("max_frame is zero");
        }
        if self.rounds == 0 || self.rounds > 256 {
            return invalid(&format!("rounds is {}, not in 1..=256", self.rounds));
        }
        if self.io_threads == 0 {
            return invalid("io_threads is zero");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> NetConfig {
        let roles = BTreeMap::from([
            (PeerId::Server, "127.0.0.1:1".to_owned()),
            (PeerId::Party(0), "127.0.0.1:2".to_owned()),
        ]);
        let creds = Credentials {
            cert_chain: "c".into(),
            private_key: "k".into(),
            ca: "ca".into(),
        };
        NetConfig::new(
            PeerId::Party(0),
            "127.0.0.1:0".parse().expect("literal address"),
            roles,
            creds,
            SessionId([7; 32]),
        )
    }

    #[test]
    fn peers_exclude_the_own_role() {
        let c = config();
        assert_eq!(c.peers().map(|p| p.0).collect::<Vec<_>>(), [PeerId::Server]);
        assert!(!c.accepts_any());
        assert!(c.validate().is_ok());
        assert_eq!(SessionId([0xab; 32]).to_string().len(), 64);
    }

    #[test]
    fn bad_values_are_refused() {
        let mut c = config();
        c.rounds = 0;
        assert!(matches!(c.validate(), Err(Error::InvalidConfig(_))));
        let mut c = config();
        c.receive_timeout = Duration::ZERO;
        assert!(matches!(c.validate(), Err(Error::InvalidConfig(_))));
        let mut c = config();
        c.roles.remove(&PeerId::Server);
        assert!(matches!(c.validate(), Err(Error::InvalidConfig(_))));
    }
}
