//! Bytes of encrypted polynomials: the layout, then each block's engine bytes.
//!
//! Layout (little-endian): the magic `b"HEPOLY\0\x01"`, then `stride`,
//! `width`, `origin` (i64), `len` and the block count as 8-byte integers,
//! then per block its byte length (8 bytes) and the ciphertext bytes of
//! [`Ciphertext::to_bytes`]. Loading checks everything against the context
//! before keeping it: each block through [`Ciphertext::from_bytes`], the
//! layout for consistency, the blocks for a common level and factor.

use ark_ff::PrimeField;
use helib_rs::{Ciphertext, Context};

use crate::error::{Error, Result};
use crate::layout::BlockLayout;
use crate::polynomial::{encoder, inconsistency, EncryptedPolynomial};

const MAGIC: &[u8; 8] = b"HEPOLY\0\x01";

impl<F: PrimeField> EncryptedPolynomial<F> {
    /// The serialized polynomial (see the module docs).
    ///
    /// # Errors
    /// Engine failures.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = MAGIC.to_vec();
        let l = &self.layout;
        put_size(&mut out, l.stride)?;
        put_size(&mut out, l.width)?;
        out.extend_from_slice(&l.origin.to_le_bytes());
        put_size(&mut out, l.len)?;
        put_size(&mut out, self.blocks.len())?;
        for block in &self.blocks {
            let bytes = block.to_bytes()?;
            put_size(&mut out, bytes.len())?;
            out.extend_from_slice(&bytes);
        }
        Ok(out)
    }

    /// Loads a polynomial of `context` from [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// [`Error::Malformed`] for bytes that do not hold a consistent
    /// polynomial (among them a length beyond what the blocks cover, however
    /// large); [`Error::Engine`] for a block the engine rejects;
    /// [`Error::FieldMismatch`] when t is not F's modulus.
    pub fn from_bytes(context: &Context, bytes: &[u8]) -> Result<Self> {
        encoder::<F>(context)?;
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(MAGIC.len())? != MAGIC {
            return Err(malformed("wrong magic or version"));
        }
        let stride = reader.size()?;
        let width = reader.size()?;
        let origin = i64::from_le_bytes(reader.word()?);
        let len = reader.size()?;
        let count = reader.size()?;
        if count == 0 || count > context.ring_degree() {
            return Err(malformed(format!("{count} blocks")));
        }
        let layout = BlockLayout {
            stride,
            width,
            origin,
            len,
        };
        let mut blocks = Vec::with_capacity(count);
        for _ in 0..count {
            let size = reader.size()?;
            blocks.push(Ciphertext::from_bytes(context, reader.take(size)?)?);
        }
        if reader.at != bytes.len() {
            return Err(malformed("trailing bytes"));
        }
        if let Some(reason) = inconsistency(&blocks, &layout) {
            return Err(malformed(reason));
        }
        Ok(Self::from_parts(blocks, layout))
    }
}

fn malformed(reason: impl Into<String>) -> Error {
    Error::Malformed(reason.into())
}

/// Appends a size as 8 little-endian bytes.
fn put_size(out: &mut Vec<u8>, size: usize) -> Result<()> {
    let size = u64::try_from(size)
        .map_err(|_| Error::InvalidArgument(format!("the size {size} does not fit 64 bits")))?;
    out.extend_from_slice(&size.to_le_bytes());
    Ok(())
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(count)
            .filter(|&end| end <= self.bytes.len());
        let end = end.ok_or_else(|| malformed("truncated"))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn word(&mut self) -> Result<[u8; 8]> {
        let mut word = [0u8; 8];
        word.copy_from_slice(self.take(8)?);
        Ok(word)
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.word()?))
    }

    fn size(&mut self) -> Result<usize> {
        usize::try_from(self.u64()?).map_err(|_| malformed("a size does not fit this machine"))
    }
}
