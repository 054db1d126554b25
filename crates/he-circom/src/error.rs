//! The error type: every refusal names the file kind, the section and the
//! field it is about.

use std::fmt;

/// The kinds of file this crate reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// A circom constraint system (`.r1cs`).
    R1cs,
    /// A snarkjs witness (`.wtns`).
    Wtns,
    /// A snarkjs Groth16 proving key (`.zkey`).
    Zkey,
    /// A snarkjs powers-of-tau file (`.ptau`).
    Ptau,
    /// A snarkjs `verification_key.json`.
    VerificationKeyJson,
    /// A snarkjs `proof.json`.
    ProofJson,
    /// A snarkjs `public.json`.
    PublicJson,
}

impl FileKind {
    /// The four magic bytes of a binary kind (`None` for the JSON kinds).
    pub fn magic(self) -> Option<[u8; 4]> {
        match self {
            FileKind::R1cs => Some(*b"r1cs"),
            FileKind::Wtns => Some(*b"wtns"),
            FileKind::Zkey => Some(*b"zkey"),
            FileKind::Ptau => Some(*b"ptau"),
            _ => None,
        }
    }

    /// The name of section `section` in this kind of file, where known.
    pub fn section_name(self, section: u32) -> &'static str {
        match (self, section) {
            (FileKind::R1cs, 1) => "header",
            (FileKind::R1cs, 2) => "constraints",
            (FileKind::R1cs, 3) => "wire-to-label map",
            (FileKind::R1cs, 4) => "custom gates list",
            (FileKind::R1cs, 5) => "custom gates applications",
            (FileKind::Wtns, 1) => "header",
            (FileKind::Wtns, 2) => "witness values",
            (FileKind::Zkey, 1) => "protocol header",
            (FileKind::Zkey, 2) => "Groth16 header",
            (FileKind::Zkey, 3) => "IC points",
            (FileKind::Zkey, 4) => "A and B coefficients",
            (FileKind::Zkey, 5) => "A points",
            (FileKind::Zkey, 6) => "B points in G1",
            (FileKind::Zkey, 7) => "B points in G2",
            (FileKind::Zkey, 8) => "C points",
            (FileKind::Zkey, 9) => "H points",
            (FileKind::Zkey, 10) => "contributions",
            (FileKind::Ptau, 1) => "header",
            (FileKind::Ptau, 2) => "tau powers in G1",
            (FileKind::Ptau, 3) => "tau powers in G2",
            (FileKind::Ptau, 4) => "alpha times tau powers in G1",
            (FileKind::Ptau, 5) => "beta times tau powers in G1",
            (FileKind::Ptau, 6) => "beta in G2",
            (FileKind::Ptau, 7) => "contributions",
            (FileKind::Ptau, 12) => "Lagrange tau powers in G1",
            (FileKind::Ptau, 13) => "Lagrange tau powers in G2",
            (FileKind::Ptau, 14) => "Lagrange alpha tau powers in G1",
            (FileKind::Ptau, 15) => "Lagrange beta tau powers in G1",
            _ => "unknown",
        }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::R1cs => "r1cs",
            FileKind::Wtns => "wtns",
            FileKind::Zkey => "zkey",
            FileKind::Ptau => "ptau",
            FileKind::VerificationKeyJson => "verification_key.json",
            FileKind::ProofJson => "proof.json",
            FileKind::PublicJson => "public.json",
        })
    }
}

/// Where in a file a problem is: the kind, the section (binary files) and
/// the field, with the index of the element for repeated fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The kind of file.
    pub kind: FileKind,
    /// The section type, for binary files; `None` for the file's own
    /// header (magic, version, section table) and for JSON files.
    pub section: Option<u32>,
    /// The field, as the format's documentation names it (`nWires`,
    /// `coefficient`, `vk_alpha_1[0]`, …).
    pub field: String,
    /// The index of the element in a repeated field (a constraint, a point,
    /// a witness value), if any.
    pub index: Option<u64>,
}

impl Location {
    /// A field outside any section.
    pub fn file(kind: FileKind, field: impl Into<String>) -> Self {
        Location {
            kind,
            section: None,
            field: field.into(),
            index: None,
        }
    }

    /// A field of section `section`.
    pub fn section(kind: FileKind, section: u32, field: impl Into<String>) -> Self {
        Location {
            kind,
            section: Some(section),
            field: field.into(),
            index: None,
        }
    }

    /// The same field, element `index`.
    pub fn at(mut self, index: u64) -> Self {
        self.index = Some(index);
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(section) = self.section {
            write!(
                f,
                " section {section} ({})",
                self.kind.section_name(section)
            )?;
        }
        write!(f, ", field {}", self.field)?;
        if let Some(index) = self.index {
            write!(f, " #{index}")?;
        }
        Ok(())
    }
}

/// Everything that can go wrong reading, checking or writing circom and
/// snarkjs files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{kind} file {path}: {source}")]
    Io {
        /// The kind of file.
        kind: FileKind,
        /// The path as given.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file does not start with its kind's magic bytes.
    #[error("{kind}: the magic bytes are {found:?}, expected {expected:?}")]
    BadMagic {
        /// The kind of file expected.
        kind: FileKind,
        /// The bytes found (fewer than four if the file is that short).
        found: Vec<u8>,
        /// The magic of `kind`.
        expected: [u8; 4],
    },
    /// The file's format version is not the one this reader knows.
    #[error("{kind}: format version {found} is not supported (only version {supported})")]
    UnsupportedVersion {
        /// The kind of file.
        kind: FileKind,
        /// The version in the file.
        found: u32,
        /// The version this reader reads.
        supported: u32,
    },
    /// The file ends before a field does.
    #[error("{at}: the field needs {wanted} bytes, only {available} are left")]
    Truncated {
        /// The field that was being read.
        at: Location,
        /// Bytes the field needs.
        wanted: u64,
        /// Bytes left (in its section, or in the file).
        available: u64,
    },
    /// A section's declared size points past the end of the file.
    #[error("{kind} section {section} ({}): its size {size} is more than the {remaining} bytes left in the file", kind.section_name(*section))]
    SectionOverrun {
        /// The kind of file.
        kind: FileKind,
        /// The section type.
        section: u32,
        /// The declared size.
        size: u64,
        /// Bytes left after the section header.
        remaining: u64,
    },
    /// A section appears twice.
    #[error("{kind} section {section} ({}) appears more than once", kind.section_name(*section))]
    DuplicateSection {
        /// The kind of file.
        kind: FileKind,
        /// The section type.
        section: u32,
    },
    /// A required section is missing.
    #[error("{kind} section {section} ({}) is missing", kind.section_name(*section))]
    MissingSection {
        /// The kind of file.
        kind: FileKind,
        /// The section type.
        section: u32,
    },
    /// A section this reader refuses to interpret (circom custom gates,
    /// PLONK-only data).
    #[error("{kind} section {section} ({}) is not supported: {reason}", kind.section_name(*section))]
    UnsupportedSection {
        /// The kind of file.
        kind: FileKind,
        /// The section type.
        section: u32,
        /// Why.
        reason: &'static str,
    },
    /// A section or file is longer than its content.
    #[error("{at}: {extra} bytes are left over after the last field")]
    TrailingBytes {
        /// The last field read.
        at: Location,
        /// The surplus.
        extra: u64,
    },
    /// The prime of a header is not the BN254 modulus expected there.
    #[error("{at}: the prime is not the BN254 {expected} modulus")]
    WrongPrime {
        /// The field.
        at: Location,
        /// `"scalar field"` or `"base field"`.
        expected: &'static str,
    },
    /// A field element is not below its modulus.
    #[error("{at}: the value is not below the field modulus")]
    NotCanonical {
        /// The field.
        at: Location,
    },
    /// A wire (signal) index is out of range.
    #[error("{at}: wire {wire} is out of range (there are {wires} wires)")]
    WireOutOfRange {
        /// The field.
        at: Location,
        /// The index found.
        wire: u64,
        /// The number of wires.
        wires: u64,
    },
    /// A point is not on the curve.
    #[error("{at}: the point is not on the BN254 curve")]
    NotOnCurve {
        /// The field.
        at: Location,
    },
    /// A point is on the curve but outside the prime-order subgroup.
    #[error("{at}: the point is not in the prime-order subgroup")]
    NotInSubgroup {
        /// The field.
        at: Location,
    },
    /// A field holds a value the format forbids (a count that does not add
    /// up, a domain size that is not a power of two, a witness whose first
    /// value is not 1, malformed JSON, …).
    #[error("{at}: {reason}")]
    Invalid {
        /// The field.
        at: Location,
        /// What is wrong, with the values involved.
        reason: String,
    },
    /// A zkey was made for another circuit than the r1cs it is checked
    /// against.
    #[error("the zkey does not match the r1cs: {what}")]
    ZkeyMismatch {
        /// The first difference found.
        what: String,
    },
    /// A witness does not satisfy a constraint system.
    #[error("the witness does not satisfy the r1cs: {what}")]
    Unsatisfied {
        /// The first failing check.
        what: String,
    },
    /// Arguments of a computation do not fit together (lengths, sizes).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The operating system's random generator failed.
    #[error("the operating system's random generator failed: {0}")]
    Random(String),
}

impl Error {
    /// Shorthand for [`Error::Invalid`].
    pub(crate) fn invalid(at: Location, reason: impl Into<String>) -> Self {
        Error::Invalid {
            at,
            reason: reason.into(),
        }
    }
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
