//! The roles of a session ([`PeerId`]), their order in the mesh and the
//! names their certificates carry.

use std::fmt;
use std::str::FromStr;

/// The DNS suffix of every role name in a certificate: party `i` is
/// `party-<i>.cosnark`, the server is `server.cosnark`.
pub const DNS_SUFFIX: &str = "cosnark";

/// A role of a session: a computing party (its index) or the server.
///
/// Roles are ordered server first, then parties by index; a role dials every
/// role before it and accepts connections from every role after it (see
/// [`PeerId::dials`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerId {
    /// Computing party `i`.
    Party(u32),
    /// The server.
    Server,
}

impl PeerId {
    /// The position of the role in the mesh order: the server is 0, party
    /// `i` is `i + 1`.
    pub fn rank(self) -> u64 {
        match self {
            PeerId::Server => 0,
            PeerId::Party(i) => u64::from(i) + 1,
        }
    }

    /// Whether this role opens the connection to `other` (it does when
    /// `other` comes first in the mesh order; the other one accepts).
    pub fn dials(self, other: PeerId) -> bool {
        other.rank() < self.rank()
    }

    /// The DNS name (subject alternative name) a certificate of this role
    /// carries: `party-<i>.cosnark` or `server.cosnark`.
    pub fn dns_name(self) -> String {
        match self {
            PeerId::Server => format!("server.{DNS_SUFFIX}"),
            PeerId::Party(i) => format!("party-{i}.{DNS_SUFFIX}"),
        }
    }

    /// A short name for file names and logs: `party-<i>` or `server`.
    pub fn slug(self) -> String {
        match self {
            PeerId::Server => "server".to_owned(),
            PeerId::Party(i) => format!("party-{i}"),
        }
    }

    /// The role's 5-byte wire form (in the hello): a kind byte (0 for a
    /// party, 1 for the server) and the party index, big-endian (0 for the
    /// server).
    pub(crate) fn to_wire(self) -> [u8; 5] {
        let (kind, index) = match self {
            PeerId::Party(i) => (0u8, i),
            PeerId::Server => (1u8, 0),
        };
        let i = index.to_be_bytes();
        [kind, i[0], i[1], i[2], i[3]]
    }

    /// The role of a 5-byte wire form, `None` for an unknown kind or a
    /// server with a nonzero index.
    pub(crate) fn from_wire(bytes: [u8; 5]) -> Option<PeerId> {
        let index = u32::from_be_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]);
        match (bytes[0], index) {
            (0, i) => Some(PeerId::Party(i)),
            (1, 0) => Some(PeerId::Server),
            _ => None,
        }
    }
}

impl PartialOrd for PeerId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PeerId {
    /// The mesh order: the server, then parties by index.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl fmt::Display for PeerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerId::Party(i) => write!(f, "party {i}"),
            PeerId::Server => f.write_str("the server"),
        }
    }
}

/// A role name that is neither `server` nor `party-<i>` (or `party<i>`, `p<i>`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a role: {0:?} (expected `server` or `party-<index>`)")]
pub struct ParsePeerIdError(String);

impl FromStr for PeerId {
    type Err = ParsePeerIdError;

    /// Parses `server` or `party-<i>` (also `party<i>` and `p<i>`),
    /// case-insensitively.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "server" {
            return Ok(PeerId::Server);
        }
        let digits = lower
            .strip_prefix("party-")
            .or_else(|| lower.strip_prefix("party"))
            .or_else(|| lower.strip_prefix('p'));
        match digits {
            Some(d) if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => d
                .parse()
                .map(PeerId::Party)
                .map_err(|_| ParsePeerIdError(s.to_owned())),
            _ => Err(ParsePeerIdError(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_dialing() {
        let mut roles = vec![PeerId::Party(2), PeerId::Server, PeerId::Party(0)];
        roles.sort();
        assert_eq!(roles, [PeerId::Server, PeerId::Party(0), PeerId::Party(2)]);
        assert!(PeerId::Party(0).dials(PeerId::Server));
        assert!(PeerId::Party(3).dials(PeerId::Party(1)));
        assert!(!PeerId::Server.dials(PeerId::Party(0)));
        assert!(!PeerId::Party(1).dials(PeerId::Party(1)));
    }

    #[test]
    fn names_and_wire_form_round_trip() {
        for role in [PeerId::Server, PeerId::Party(0), PeerId::Party(u32::MAX)] {
            assert_eq!(PeerId::from_wire(role.to_wire()), Some(role));
            assert_eq!(role.slug().parse::<PeerId>(), Ok(role));
        }
        assert_eq!(PeerId::Party(3).dns_name(), "party-3.cosnark");
        assert_eq!(PeerId::Server.dns_name(), "server.cosnark");
        assert_eq!(PeerId::from_wire([1, 0, 0, 0, 1]), None);
        assert_eq!(PeerId::from_wire([7, 0, 0, 0, 0]), None);
        assert!("party-".parse::<PeerId>().is_err());
        assert!("party-99999999999".parse::<PeerId>().is_err());
        assert_eq!("P7".parse::<PeerId>(), Ok(PeerId::Party(7)));
    }
}
