//! The container shared by circom's and snarkjs's binary files: four magic
//! bytes, a `u32` version, a `u32` section count, then the sections, each a
//! `u32` type, a `u64` size and `size` bytes of body (all little-endian).
//!
//! [`BinFile::parse`] checks the magic, the version and every section's
//! size against the bytes really left, refuses duplicate sections (no
//! valid file has any) and bytes after the last section, and hands out the
//! sections' bodies as slices of the input: it allocates one entry per
//! section, and there cannot be more sections than twelfths of the file.
//!
//! ```
//! use he_circom::binfile::BinFile;
//! use he_circom::FileKind;
//!
//! // A wtns container with one empty section of type 1.
//! let mut bytes = b"wtns".to_vec();
//! bytes.extend_from_slice(&2u32.to_le_bytes()); // version
//! bytes.extend_from_slice(&1u32.to_le_bytes()); // one section
//! bytes.extend_from_slice(&1u32.to_le_bytes()); // type 1
//! bytes.extend_from_slice(&0u64.to_le_bytes()); // size 0
//! let file = BinFile::parse(FileKind::Wtns, &bytes, 2)?;
//! assert_eq!(file.section(1)?, &[] as &[u8]);
//! assert!(file.section(2).is_err()); // missing
//! # Ok::<(), he_circom::Error>(())
//! ```
//!
//! [`write_header`] and [`write_section_header`] write the same container
//! (for files whose section sizes are known before their bodies).

use std::io::{self, Write};

use crate::error::{Error, FileKind, Location, Result};

/// Writes a container's header: `kind`'s magic, `version` and the number
/// of sections that follow.
///
/// # Errors
/// The writer's errors; [`io::ErrorKind::InvalidInput`] if `kind` is not
/// a binary container kind.
pub fn write_header(
    w: &mut impl Write,
    kind: FileKind,
    version: u32,
    sections: u32,
) -> io::Result<()> {
    let magic = kind.magic().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{kind} is not a binary container kind"),
        )
    })?;
    w.write_all(&magic)?;
    w.write_all(&version.to_le_bytes())?;
    w.write_all(&sections.to_le_bytes())
}

/// Writes a section's header: its type and the size of the body that
/// follows.
///
/// # Errors
/// The writer's errors.
pub fn write_section_header(w: &mut impl Write, section: u32, size: u64) -> io::Result<()> {
    w.write_all(&section.to_le_bytes())?;
    w.write_all(&size.to_le_bytes())
}

/// A parsed container: the version and the sections' bodies, borrowed from
/// the input.
#[derive(Clone, Debug)]
pub struct BinFile<'a> {
    kind: FileKind,
    version: u32,
    sections: Vec<(u32, &'a [u8])>,
}

impl<'a> BinFile<'a> {
    /// Parses the container of a `kind` file of format version `version`.
    ///
    /// # Errors
    /// [`Error::BadMagic`], [`Error::UnsupportedVersion`],
    /// [`Error::Truncated`] (a header cut short),
    /// [`Error::SectionOverrun`] (a size past the end),
    /// [`Error::DuplicateSection`], [`Error::TrailingBytes`] (bytes after
    /// the declared sections), and [`Error::InvalidArgument`] if `kind` is
    /// not a binary kind.
    pub fn parse(kind: FileKind, data: &'a [u8], version: u32) -> Result<Self> {
        let expected = kind.magic().ok_or_else(|| {
            Error::InvalidArgument(format!("{kind} is not a binary container kind"))
        })?;
        if data.len() < 4 || data[..4] != expected {
            return Err(Error::BadMagic {
                kind,
                found: data[..data.len().min(4)].to_vec(),
                expected,
            });
        }
        let mut r = Reader::new(kind, None, &data[4..]);
        let found = r.u32("version")?;
        if found != version {
            return Err(Error::UnsupportedVersion {
                kind,
                found,
                supported: version,
            });
        }
        let count = r.u32("section count")?;
        let mut sections: Vec<(u32, &'a [u8])> = Vec::new();
        for index in 0..u64::from(count) {
            r.index = Some(index);
            let section = r.u32("section type")?;
            let size = r.u64("section size")?;
            let remaining = r.remaining() as u64;
            if size > remaining {
                return Err(Error::SectionOverrun {
                    kind,
                    section,
                    size,
                    remaining,
                });
            }
            if sections.iter().any(|(t, _)| *t == section) {
                return Err(Error::DuplicateSection { kind, section });
            }
            let body = r.take(size, "section body")?;
            sections.push((section, body));
        }
        r.index = None;
        r.finish("last section")?;
        Ok(BinFile {
            kind,
            version,
            sections,
        })
    }

    /// The kind of file.
    pub fn kind(&self) -> FileKind {
        self.kind
    }

    /// The format version.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The section types and sizes, in file order.
    pub fn sections(&self) -> impl Iterator<Item = (u32, usize)> + '_ {
        self.sections.iter().map(|(t, body)| (*t, body.len()))
    }

    /// The body of section `section`, which the format requires.
    ///
    /// # Errors
    /// [`Error::MissingSection`].
    pub fn section(&self, section: u32) -> Result<&'a [u8]> {
        self.optional_section(section).ok_or(Error::MissingSection {
            kind: self.kind,
            section,
        })
    }

    /// The body of section `section`, if the file has it.
    pub fn optional_section(&self, section: u32) -> Option<&'a [u8]> {
        self.sections
            .iter()
            .find(|(t, _)| *t == section)
            .map(|(_, body)| *body)
    }

    /// Refuses the file if it has section `section`.
    ///
    /// # Errors
    /// [`Error::UnsupportedSection`] with `reason`.
    pub fn refuse(&self, section: u32, reason: &'static str) -> Result<()> {
        match self.optional_section(section) {
            Some(_) => Err(Error::UnsupportedSection {
                kind: self.kind,
                section,
                reason,
            }),
            None => Ok(()),
        }
    }

    /// A reader over section `section`'s body.
    pub(crate) fn reader(&self, section: u32) -> Result<Reader<'a>> {
        Ok(Reader::new(
            self.kind,
            Some(section),
            self.section(section)?,
        ))
    }
}

/// A little-endian cursor over a section, whose errors name the section,
/// the field and (when set) the element index.
#[derive(Clone, Debug)]
pub(crate) struct Reader<'a> {
    kind: FileKind,
    section: Option<u32>,
    data: &'a [u8],
    pos: usize,
    /// The element the next reads belong to, for the errors.
    pub(crate) index: Option<u64>,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(kind: FileKind, section: Option<u32>, data: &'a [u8]) -> Self {
        Reader {
            kind,
            section,
            data,
            pos: 0,
            index: None,
        }
    }

    /// The location of `field` at the current element.
    pub(crate) fn loc(&self, field: &str) -> Location {
        Location {
            kind: self.kind,
            section: self.section,
            field: field.to_owned(),
            index: self.index,
        }
    }

    /// Bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: u64, field: &str) -> Result<&'a [u8]> {
        let available = self.remaining() as u64;
        if n > available {
            return Err(Error::Truncated {
                at: self.loc(field),
                wanted: n,
                available,
            });
        }
        // n <= remaining <= usize::MAX
        let n = n as usize;
        let bytes = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    /// The next `N` bytes as an array.
    pub(crate) fn array<const N: usize>(&mut self, field: &str) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N as u64, field)?);
        Ok(out)
    }

    pub(crate) fn u32(&mut self, field: &str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn u64(&mut self, field: &str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(field)?))
    }

    /// Checks that `count` elements of `size` bytes fit in what is left,
    /// before anything is allocated for them.
    pub(crate) fn ensure(&self, count: u64, size: u64, field: &str) -> Result<()> {
        let available = self.remaining() as u64;
        match count.checked_mul(size) {
            Some(wanted) if wanted <= available => Ok(()),
            wanted => Err(Error::Truncated {
                at: self.loc(field),
                wanted: wanted.unwrap_or(u64::MAX),
                available,
            }),
        }
    }

    /// Checks that nothing is left; `last` names the last field read.
    pub(crate) fn finish(&self, last: &str) -> Result<()> {
        match self.remaining() {
            0 => Ok(()),
            extra => Err(Error::TrailingBytes {
                at: self.loc(last),
                extra: extra as u64,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(magic: &[u8], version: u32, sections: &[(u32, u64, &[u8])]) -> Vec<u8> {
        let mut out = magic.to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&(sections.len() as u32).to_le_bytes());
        for (t, size, body) in sections {
            out.extend_from_slice(&t.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(body);
        }
        out
    }

    #[test]
    fn sections_in_any_order() {
        let bytes = container(b"r1cs", 1, &[(2, 3, b"abc"), (1, 1, b"x")]);
        let file = BinFile::parse(FileKind::R1cs, &bytes, 1).unwrap();
        assert_eq!(file.section(1).unwrap(), b"x");
        assert_eq!(file.section(2).unwrap(), b"abc");
        assert_eq!(file.sections().collect::<Vec<_>>(), vec![(2, 3), (1, 1)]);
        assert!(matches!(
            file.section(3),
            Err(Error::MissingSection { section: 3, .. })
        ));
    }

    #[test]
    fn refusals() {
        let ok = container(b"zkey", 1, &[(1, 4, b"abcd")]);
        assert!(BinFile::parse(FileKind::Zkey, &ok, 1).is_ok());
        assert!(matches!(
            BinFile::parse(FileKind::R1cs, &ok, 1),
            Err(Error::BadMagic { .. })
        ));
        assert!(matches!(
            BinFile::parse(FileKind::Zkey, &ok, 2),
            Err(Error::UnsupportedVersion { found: 1, .. })
        ));
        let over = container(b"zkey", 1, &[(1, 5, b"abcd")]);
        assert!(matches!(
            BinFile::parse(FileKind::Zkey, &over, 1),
            Err(Error::SectionOverrun {
                section: 1,
                size: 5,
                remaining: 4,
                ..
            })
        ));
        let huge = container(b"zkey", 1, &[(1, u64::MAX, b"")]);
        assert!(matches!(
            BinFile::parse(FileKind::Zkey, &huge, 1),
            Err(Error::SectionOverrun { .. })
        ));
        let twice = container(b"zkey", 1, &[(1, 0, b""), (1, 0, b"")]);
        assert!(matches!(
            BinFile::parse(FileKind::Zkey, &twice, 1),
            Err(Error::DuplicateSection { section: 1, .. })
        ));
        let mut trailing = ok.clone();
        trailing.push(0);
        assert!(matches!(
            BinFile::parse(FileKind::Zkey, &trailing, 1),
            Err(Error::TrailingBytes { extra: 1, .. })
        ));
        // A count of 2^32 - 1 sections in a short file: refused at the
        // first missing header, nothing allocated up front.
        let mut many = b"zkey".to_vec();
        many.extend_from_slice(&1u32.to_le_bytes());
        many.extend_from_slice(&u32::MAX.to_le_bytes());
        let err = BinFile::parse(FileKind::Zkey, &many, 1).unwrap_err();
        assert!(matches!(err, Error::Truncated { .. }), "{err}");
        assert!(err.to_string().contains("section type"), "{err}");
    }

    #[test]
    fn the_writers_make_what_the_parser_reads() {
        let mut bytes = Vec::new();
        write_header(&mut bytes, FileKind::Ptau, 1, 2).unwrap();
        write_section_header(&mut bytes, 1, 3).unwrap();
        bytes.extend_from_slice(b"abc");
        write_section_header(&mut bytes, 7, 0).unwrap();
        assert_eq!(bytes, container(b"ptau", 1, &[(1, 3, b"abc"), (7, 0, b"")]));
        let file = BinFile::parse(FileKind::Ptau, &bytes, 1).unwrap();
        assert_eq!(file.section(1).unwrap(), b"abc");
        assert!(write_header(&mut Vec::new(), FileKind::ProofJson, 1, 0).is_err());
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = container(b"wtns", 2, &[(1, 2, b"ab"), (2, 1, b"c")]);
        for len in 0..bytes.len() {
            assert!(BinFile::parse(FileKind::Wtns, &bytes[..len], 2).is_err());
        }
    }

    #[test]
    fn reader_names_the_field() {
        let mut r = Reader::new(FileKind::R1cs, Some(1), &[1, 0, 0, 0, 7]);
        assert_eq!(r.u32("n8").unwrap(), 1);
        r.index = Some(3);
        let err = r.u32("prime").unwrap_err();
        assert_eq!(
            err.to_string(),
            "r1cs section 1 (header), field prime #3: the field needs 4 bytes, only 1 are left"
        );
        assert!(r.ensure(u64::MAX, 2, "x").is_err());
        assert!(r.ensure(1, 1, "x").is_ok());
        assert!(matches!(
            r.finish("y"),
            Err(Error::TrailingBytes { extra: 1, .. })
        ));
    }
}
