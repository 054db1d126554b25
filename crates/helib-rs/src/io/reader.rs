//! Reading a checked word stream.

use super::checksum::Checksum;
use crate::error::{io_error, Error, Result};
use std::io::Read;

/// Reads a checked word stream (see the [module docs](super)); a stream that
/// ends early gives [`Error::Malformed`]. It reads exactly the stream's bytes
/// (no read-ahead) and keeps no buffer: large reads go straight from `inner`
/// into their destination, so give it an unbuffered source (a file itself);
/// a `BufReader` holding bytes turns each large read into a copy.
#[derive(Debug)]
pub struct WordReader<R: Read> {
    inner: R,
    sum: Checksum,
    /// Whether the checkpoints are compared (see
    /// [`skip_checkpoints`](Self::skip_checkpoints)).
    checked: bool,
}

impl<R: Read> WordReader<R> {
    /// A stream reading from `inner`.
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            sum: Checksum::new(),
            checked: true,
        }
    }

    /// From here on, stops summing the words and reads each checkpoint
    /// without comparing it, for a stream whose every byte a MAC the caller
    /// checks at its end covers: a changed stream then fails the MAC, which
    /// is what the caller acts on, and the checksum would be a second pass
    /// over the same bytes. Every field is still range-checked and every
    /// residue checked against its prime as it is read, so a changed stream
    /// still gives an error or a well-formed transform, as a forged one does.
    pub fn skip_checkpoints(&mut self) {
        self.checked = false;
    }

    /// Reads one word.
    ///
    /// # Errors
    /// [`Error::Malformed`] when the stream ends; [`Error::Io`] when reading fails.
    pub fn word(&mut self) -> Result<u64> {
        let mut w = [0u64; 1];
        self.words(&mut w)?;
        Ok(w[0])
    }

    /// Reads a word that must be at most `max` (`what` names it in the error).
    ///
    /// # Errors
    /// [`Error::Malformed`] when it is larger or the stream ends; [`Error::Io`].
    pub fn bounded(&mut self, what: &str, max: u64) -> Result<u64> {
        let w = self.word()?;
        if w > max {
            return Err(Error::Malformed(format!("{what} is {w}, above {max}")));
        }
        Ok(w)
    }

    /// Reads a 0/1 flag.
    ///
    /// # Errors
    /// [`Error::Malformed`] for another value or when the stream ends; [`Error::Io`].
    pub fn flag(&mut self, what: &str) -> Result<bool> {
        Ok(self.bounded(what, 1)? == 1)
    }

    /// Fills `out`.
    ///
    /// # Errors
    /// [`Error::Malformed`] when the stream ends; [`Error::Io`] when reading fails.
    pub fn words(&mut self, out: &mut [u64]) -> Result<()> {
        let len = std::mem::size_of_val(out);
        // SAFETY: `out` is a live, exclusively borrowed slice of `len` bytes;
        // u8 has alignment 1 and every byte pattern is a valid u64, so viewing
        // it as bytes for the duration of the read is sound.
        let bytes = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), len) };
        self.inner.read_exact(bytes).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::Malformed("the data ends early (truncated)".into())
            } else {
                io_error(e)
            }
        })?;
        for w in out.iter_mut() {
            *w = u64::from_le(*w);
        }
        if self.checked {
            self.sum.update(out);
        }
        Ok(())
    }

    /// Reads a checkpoint and compares it with the running checksum (only
    /// reads it after [`skip_checkpoints`](Self::skip_checkpoints)).
    ///
    /// # Errors
    /// [`Error::Malformed`] when they differ (the data is corrupted) or the
    /// stream ends; [`Error::Io`].
    pub fn checkpoint(&mut self) -> Result<()> {
        let expected = self.sum.value();
        let stored = self.word()?;
        // Fuzzing builds (`--cfg fuzzing`, set by helib-sys/fuzz/run.sh only)
        // read checkpoints without comparing them, so that mutated inputs
        // reach the parser and the checks behind it, as the engine's fuzzed
        // decoders skip their checksums.
        if self.checked && stored != expected && !cfg!(fuzzing) {
            return Err(Error::Malformed(format!(
                "checksum mismatch after {} bytes: the data is corrupted",
                8 * (self.sum.words - 1)
            )));
        }
        Ok(())
    }

    /// Errors unless the underlying reader is at its end.
    ///
    /// # Errors
    /// [`Error::Malformed`] when bytes follow; [`Error::Io`].
    pub fn expect_end(&mut self) -> Result<()> {
        let mut byte = [0u8; 1];
        match self.inner.read(&mut byte) {
            Ok(0) => Ok(()),
            Ok(_) => Err(Error::Malformed(
                "unexpected bytes after the end of the data".into(),
            )),
            Err(e) => Err(io_error(e)),
        }
    }
}
