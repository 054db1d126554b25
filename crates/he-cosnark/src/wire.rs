//! The frame every protocol message travels in: what it is (kind), whom it
//! binds (circuit, session, proof, sender), a list of byte sections, and a
//! SHA-256 checksum (against corruption; not a MAC).
//!
//! ```text
//! "HECO" | version u8 | kind u8 | circuit [32] | session [32] | proof u64 | sender u32
//!        | sections u32 | (length u64 | bytes)* | SHA-256 [32]
//! ```
//! Integers are little-endian; the server's sender index is `u32::MAX`.

use sha2::{Digest, Sha256};

use crate::transport::Role;

const MAGIC: &[u8; 4] = b"HECO";
const VERSION: u8 = 1;
const HEADER: usize = 4 + 1 + 1 + 32 + 32 + 8 + 4 + 4;
const CHECKSUM: usize = 32;
const SERVER: u32 = u32::MAX;

/// What a message carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Upload = 1,
    Broadcast = 2,
    Convert = 3,
    Opening = 4,
    CShare = 5,
}

impl Kind {
    fn from_u8(value: u8) -> Option<Self> {
        [
            Kind::Upload,
            Kind::Broadcast,
            Kind::Convert,
            Kind::Opening,
            Kind::CShare,
        ]
        .into_iter()
        .find(|k| *k as u8 == value)
    }
}

/// What a message is bound to: checked by every receiver before it reads
/// the sections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub kind: Kind,
    pub circuit: [u8; 32],
    pub session: [u8; 32],
    pub proof: u64,
    pub sender: Role,
}

impl std::fmt::Display for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a {:?} message of proof {} from {} (session {}, circuit {})",
            self.kind,
            self.proof,
            self.sender,
            hex8(&self.session),
            hex8(&self.circuit)
        )
    }
}

fn hex8(bytes: &[u8; 32]) -> String {
    bytes[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// A message: its header and its sections.
pub(crate) fn encode(header: &Header, sections: &[&[u8]]) -> Vec<u8> {
    let body: usize = sections.iter().map(|s| 8 + s.len()).sum();
    let mut out = Vec::with_capacity(HEADER + body + CHECKSUM);
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.push(header.kind as u8);
    out.extend_from_slice(&header.circuit);
    out.extend_from_slice(&header.session);
    out.extend_from_slice(&header.proof.to_le_bytes());
    let sender = match header.sender {
        Role::Party(i) => i,
        Role::Server => SERVER,
    };
    out.extend_from_slice(&sender.to_le_bytes());
    out.extend_from_slice(&(sections.len() as u32).to_le_bytes());
    for section in sections {
        out.extend_from_slice(&(section.len() as u64).to_le_bytes());
        out.extend_from_slice(section);
    }
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    out
}

/// The header and sections of `bytes`, or what is wrong with them.
pub(crate) fn decode(bytes: &[u8]) -> Result<(Header, Vec<&[u8]>), String> {
    if bytes.len() < HEADER + CHECKSUM {
        return Err(format!("{} bytes is shorter than any message", bytes.len()));
    }
    let (body, sum) = bytes.split_at(bytes.len() - CHECKSUM);
    if Sha256::digest(body).as_slice() != sum {
        return Err("the checksum does not match".into());
    }
    if &body[..4] != MAGIC {
        return Err("not a collaborative-proof message".into());
    }
    if body[4] != VERSION {
        return Err(format!(
            "format version {} (this build reads {VERSION})",
            body[4]
        ));
    }
    let kind = Kind::from_u8(body[5]).ok_or_else(|| format!("unknown kind {}", body[5]))?;
    let array = |at: usize| -> [u8; 32] {
        let mut a = [0u8; 32];
        a.copy_from_slice(&body[at..at + 32]);
        a
    };
    let u64_at = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().unwrap_or([0; 8]));
    let u32_at = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap_or([0; 4]));
    let sender = match u32_at(78) {
        SERVER => Role::Server,
        i => Role::Party(i),
    };
    let header = Header {
        kind,
        circuit: array(6),
        session: array(38),
        proof: u64_at(70),
        sender,
    };
    let count = u32_at(82) as usize;
    let mut sections = Vec::new();
    let mut at = HEADER;
    for index in 0..count {
        let length = body
            .get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
            .ok_or_else(|| format!("section {index} has no length"))?;
        let start = at + 8;
        let end = usize::try_from(length)
            .ok()
            .and_then(|l| start.checked_add(l))
            .filter(|&end| end <= body.len())
            .ok_or_else(|| format!("section {index} ({length} bytes) runs past the message"))?;
        sections.push(&body[start..end]);
        at = end;
    }
    if at != body.len() {
        return Err(format!("{} bytes follow the last section", body.len() - at));
    }
    Ok((header, sections))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            kind: Kind::Convert,
            circuit: [1; 32],
            session: [2; 32],
            proof: 7,
            sender: Role::Party(3),
        }
    }

    #[test]
    fn a_message_reads_back_and_every_change_is_refused() {
        let bytes = encode(&header(), &[b"abc", b"", b"defg"]);
        let (read, sections) = decode(&bytes).unwrap();
        assert_eq!(read, header());
        assert_eq!(sections, vec![&b"abc"[..], b"", b"defg"]);
        for at in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[at] ^= 1;
            assert!(decode(&changed).is_err(), "byte {at}");
        }
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len]).is_err(), "length {len}");
        }
    }

    #[test]
    fn the_server_is_its_own_sender() {
        let h = Header {
            sender: Role::Server,
            ..header()
        };
        assert_eq!(decode(&encode(&h, &[])).unwrap().0.sender, Role::Server);
    }
}
