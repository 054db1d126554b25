//! The frame every protocol message travels in: what it is (kind), whom it
//! binds (circuit, session, proof, sender), a list of byte sections, and a
//! SHA-256 checksum (against corruption; not a MAC).
//!
//! ```text
//! "HECO" | version u8 | kind u8 | circuit [32] | session [32] | proof u64 | sender u32
//!        | sections u32 | (seal u8 | length u64 | bytes)* | SHA-256 [32]
//! ```
//! Integers are little-endian; the server's sender index is `u32::MAX`.
//!
//! A section is plain (seal 0) or sealed (seal 1). A sealed section is an
//! object that ends with a 32-byte checksum of its own bytes before it (an
//! he-threshold share message, BLAKE3; an engine ciphertext, SHA-256), whose
//! reader checks that trailer; the frame's checksum covers its seal, its length and its
//! 32-byte trailer, not its bytes again. The frame's checksum covers the
//! whole of a plain section. Every byte is thus hashed once on each side,
//! and a change anywhere is refused: by the frame (header, seals, lengths,
//! plain bytes, trailers) or by the section's reader (a sealed body).
//! Version 1 hashed sealed sections twice; it is refused by name.

use sha2::{Digest, Sha256};

use crate::transport::Role;

const MAGIC: &[u8; 4] = b"HECO";
const VERSION: u8 = 2;
const HEADER: usize = 4 + 1 + 1 + 32 + 32 + 8 + 4 + 4;
const CHECKSUM: usize = 32;
/// Bytes before a section's own: its seal and length.
pub(crate) const SECTION_HEADER: usize = 9;
const SERVER: u32 = u32::MAX;

/// A section of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section<'a> {
    /// Bytes the frame's checksum covers.
    Plain(&'a [u8]),
    /// An object ending with a 32-byte checksum of its bytes before it, which
    /// its reader checks (only for such readers: [`he_threshold::ShareMessage`],
    /// [`helib_rs::Ciphertext`]); the frame covers its trailer.
    Sealed(&'a [u8]),
}

impl<'a> Section<'a> {
    fn bytes(&self) -> &'a [u8] {
        match *self {
            Section::Plain(bytes) | Section::Sealed(bytes) => bytes,
        }
    }

    /// What the frame's checksum covers of the section's bytes.
    fn covered(&self) -> &'a [u8] {
        match *self {
            Section::Plain(bytes) => bytes,
            Section::Sealed(bytes) => &bytes[bytes.len().saturating_sub(CHECKSUM)..],
        }
    }
}

/// What a message carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Upload = 1,
    Broadcast = 2,
    Convert = 3,
    Aggregates = 4,
    CShare = 5,
}

impl Kind {
    fn from_u8(value: u8) -> Option<Self> {
        [
            Kind::Upload,
            Kind::Broadcast,
            Kind::Convert,
            Kind::Aggregates,
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

/// A message: its header and its sections (a sealed section must hold at
/// least its 32-byte trailer).
pub(crate) fn encode(header: &Header, sections: &[Section<'_>]) -> Vec<u8> {
    let body = (sections.iter())
        .map(|s| SECTION_HEADER + s.bytes().len())
        .sum();
    let mut writer = Writer::new(header, body);
    for section in sections {
        match *section {
            Section::Plain(bytes) => writer.plain(bytes),
            Section::Sealed(bytes) => writer.sealed(|out| out.extend_from_slice(bytes)),
        }
    }
    writer.finish()
}

/// Writes a message section by section straight into its buffer: a sealed
/// object writes its own encoding there, so no copy of it is made. The
/// checksum is taken when the message is finished, over the same bytes
/// [`encode`] covers.
pub(crate) struct Writer {
    out: Vec<u8>,
    /// The ranges of `out` the checksum covers after the header, in order.
    covered: Vec<std::ops::Range<usize>>,
    sections: u32,
}

impl Writer {
    /// A message with `header`, room reserved for `body` bytes of sections.
    pub(crate) fn new(header: &Header, body: usize) -> Self {
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
        // The section count, set by `finish`.
        out.extend_from_slice(&0u32.to_le_bytes());
        Self {
            out,
            covered: Vec::new(),
            sections: 0,
        }
    }

    /// Appends a plain section.
    pub(crate) fn plain(&mut self, bytes: &[u8]) {
        let start = self.section_start(0, bytes.len());
        self.out.extend_from_slice(bytes);
        self.covered.push(start..self.out.len());
    }

    /// Appends a sealed section that `write` appends to the buffer (an
    /// object ending with a 32-byte checksum of its bytes before it), and
    /// returns what `write` returned.
    pub(crate) fn sealed<T>(&mut self, write: impl FnOnce(&mut Vec<u8>) -> T) -> T {
        let start = self.section_start(1, 0);
        let object = self.out.len();
        let written = write(&mut self.out);
        let end = self.out.len();
        self.out[start + 1..object].copy_from_slice(&((end - object) as u64).to_le_bytes());
        self.covered.push(start..object);
        self.covered
            .push(end.saturating_sub(CHECKSUM).max(object)..end);
        written
    }

    /// Writes a section's seal and length; where the section starts.
    fn section_start(&mut self, seal: u8, length: usize) -> usize {
        let start = self.out.len();
        self.out.push(seal);
        self.out.extend_from_slice(&(length as u64).to_le_bytes());
        self.sections += 1;
        start
    }

    /// The message, its section count and checksum set.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.out[HEADER - 4..HEADER].copy_from_slice(&self.sections.to_le_bytes());
        let mut sum = Sha256::new();
        sum.update(&self.out[..HEADER]);
        for range in &self.covered {
            sum.update(&self.out[range.clone()]);
        }
        let digest = sum.finalize();
        self.out.extend_from_slice(&digest);
        self.out
    }
}

/// The header and sections of `bytes`, or what is wrong with them. The
/// bytes of a sealed section are not checked here: its reader checks them.
pub(crate) fn decode(bytes: &[u8]) -> Result<(Header, Vec<Section<'_>>), String> {
    if bytes.len() < HEADER + CHECKSUM {
        return Err(format!("{} bytes is shorter than any message", bytes.len()));
    }
    let (body, sum) = bytes.split_at(bytes.len() - CHECKSUM);
    if &body[..4] != MAGIC {
        return Err("not a collaborative-proof message".into());
    }
    if body[4] != VERSION {
        return Err(format!(
            "format version {} (this build reads {VERSION}; version 1 hashed sealed sections twice)",
            body[4]
        ));
    }
    let u64_at = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().unwrap_or([0; 8]));
    let u32_at = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap_or([0; 4]));
    let count = u32_at(82) as usize;
    let mut hasher = Sha256::new();
    hasher.update(&body[..HEADER]);
    let mut sections = Vec::new();
    let mut at = HEADER;
    for index in 0..count {
        let (seal, length) = body
            .get(at..at + 9)
            .map(|b| {
                (
                    b[0],
                    u64::from_le_bytes(b[1..].try_into().unwrap_or([0; 8])),
                )
            })
            .ok_or_else(|| format!("section {index} has no seal and length"))?;
        let start = at + 9;
        let end = usize::try_from(length)
            .ok()
            .and_then(|l| start.checked_add(l))
            .filter(|&end| end <= body.len())
            .ok_or_else(|| format!("section {index} ({length} bytes) runs past the message"))?;
        let section = match seal {
            0 => Section::Plain(&body[start..end]),
            1 if end - start >= CHECKSUM => Section::Sealed(&body[start..end]),
            1 => {
                return Err(format!(
                    "sealed section {index} is shorter than its checksum"
                ))
            }
            other => return Err(format!("section {index} has an unknown seal {other}")),
        };
        hasher.update(&body[at..start]);
        hasher.update(section.covered());
        sections.push(section);
        at = end;
    }
    if at != body.len() {
        return Err(format!("{} bytes follow the last section", body.len() - at));
    }
    if hasher.finalize().as_slice() != sum {
        return Err("the checksum does not match".into());
    }
    let kind = Kind::from_u8(body[5]).ok_or_else(|| format!("unknown kind {}", body[5]))?;
    let array = |at: usize| -> [u8; 32] {
        let mut a = [0u8; 32];
        a.copy_from_slice(&body[at..at + 32]);
        a
    };
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

    /// `payload` followed by the SHA-256 of it, as sealed objects end.
    fn sealed(payload: &[u8]) -> Vec<u8> {
        let mut out = payload.to_vec();
        out.extend_from_slice(&Sha256::digest(payload));
        out
    }

    /// Whether a sealed section's trailer matches its bytes (what its
    /// reader checks).
    fn seal_holds(bytes: &[u8]) -> bool {
        let (body, sum) = bytes.split_at(bytes.len() - CHECKSUM);
        Sha256::digest(body).as_slice() == sum
    }

    #[test]
    fn a_message_reads_back_and_every_change_is_refused() {
        let object = sealed(b"a sealed object");
        let sections = [
            Section::Plain(b"abc"),
            Section::Sealed(&object),
            Section::Plain(b""),
            Section::Plain(b"defg"),
        ];
        let bytes = encode(&header(), &sections);
        let (read, got) = decode(&bytes).unwrap();
        assert_eq!(read, header());
        assert_eq!(got, sections);
        for at in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[at] ^= 1;
            // Refused by the frame, or by the sealed section's reader.
            let refused = match decode(&changed) {
                Err(_) => true,
                Ok((_, got)) => matches!(got[1], Section::Sealed(s) if !seal_holds(s)),
            };
            assert!(refused, "byte {at}");
        }
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len]).is_err(), "length {len}");
        }
    }

    #[test]
    fn a_sealed_section_is_hashed_by_its_trailer_only() {
        // Two frames whose sealed sections differ only before the trailer
        // have the same frame checksum: the frame does not hash them again.
        let (one, two) = (sealed(b"first"), sealed(b"first"));
        let mut two = two;
        two[0] ^= 1;
        let a = encode(&header(), &[Section::Sealed(&one)]);
        let b = encode(&header(), &[Section::Sealed(&two)]);
        assert_eq!(a[a.len() - CHECKSUM..], b[b.len() - CHECKSUM..]);
        // A plain section is covered whole.
        let c = encode(&header(), &[Section::Plain(&one)]);
        let d = encode(&header(), &[Section::Plain(&two)]);
        assert_ne!(c[c.len() - CHECKSUM..], d[d.len() - CHECKSUM..]);
    }

    #[test]
    fn unknown_seals_short_sealed_sections_and_version_1_are_refused() {
        let mut bytes = encode(&header(), &[Section::Plain(b"abc")]);
        bytes[HEADER] = 2;
        assert!(decode(&bytes).unwrap_err().contains("unknown seal 2"));
        let bytes = encode(&header(), &[Section::Plain(&[0u8; 31])]);
        let mut short = bytes.clone();
        short[HEADER] = 1;
        assert!(decode(&short)
            .unwrap_err()
            .contains("shorter than its checksum"));
        let mut old = bytes;
        old[4] = 1;
        assert!(decode(&old).unwrap_err().contains("version 1"));
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
