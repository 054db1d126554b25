//! Writing a checked word stream.

use super::checksum::Checksum;
use crate::error::{io_error, Result};
use std::io::Write;

#[cfg(doc)]
use crate::error::Error;

/// Writes a checked word stream (see the [module docs](super)).
#[derive(Debug)]
pub struct WordWriter<W: Write> {
    inner: W,
    sum: Checksum,
    bytes: Vec<u8>,
}

/// Words per piece of a large slice: each piece is summed and then written
/// (or read and then summed and checked) while it is in cache.
pub(crate) const PIECE_WORDS: usize = 1 << 17;

/// `words` as their little-endian bytes, on a little-endian target.
#[cfg(target_endian = "little")]
fn le_bytes(words: &[u64]) -> &[u8] {
    // SAFETY: the slice is live for the borrow and spans exactly
    // size_of_val(words) bytes; u8 has alignment 1, and on a little-endian
    // target a u64's memory is its little-endian bytes.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(words)) }
}

impl<W: Write> WordWriter<W> {
    /// A stream writing to `inner` (buffered inside: a plain file is fine).
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            sum: Checksum::new(),
            bytes: Vec::with_capacity(1 << 16),
        }
    }

    /// Writes one word.
    ///
    /// # Errors
    /// [`Error::Io`] when the underlying writer fails.
    pub fn word(&mut self, word: u64) -> Result<()> {
        self.words(&[word])
    }

    /// Writes `words`.
    ///
    /// # Errors
    /// [`Error::Io`] when the underlying writer fails.
    pub fn words(&mut self, words: &[u64]) -> Result<()> {
        #[cfg(target_endian = "little")]
        if 8 * words.len() >= self.bytes.capacity() {
            // Large slices go out as they are, piece by piece, with no copy.
            self.drain()?;
            for piece in words.chunks(PIECE_WORDS) {
                self.sum.update(piece);
                self.inner.write_all(le_bytes(piece)).map_err(io_error)?;
            }
            return Ok(());
        }
        self.sum.update(words);
        for chunk in words.chunks(1 << 13) {
            if self.bytes.len() + 8 * chunk.len() > self.bytes.capacity() {
                self.drain()?;
            }
            for w in chunk {
                self.bytes.extend_from_slice(&w.to_le_bytes());
            }
        }
        Ok(())
    }

    /// Writes the running checksum of everything written so far.
    ///
    /// # Errors
    /// [`Error::Io`] when the underlying writer fails.
    pub fn checkpoint(&mut self) -> Result<()> {
        let value = self.sum.value();
        self.word(value)
    }

    /// Writes out the buffer and flushes the underlying writer.
    ///
    /// # Errors
    /// [`Error::Io`] when the underlying writer fails.
    pub fn flush(&mut self) -> Result<()> {
        self.drain()?;
        self.inner.flush().map_err(io_error)
    }

    fn drain(&mut self) -> Result<()> {
        self.inner.write_all(&self.bytes).map_err(io_error)?;
        self.bytes.clear();
        Ok(())
    }
}

impl<W: Write> Drop for WordWriter<W> {
    fn drop(&mut self) {
        // Best effort; callers who care call `flush` and see its error.
        let _ = self.drain();
    }
}
