//! Saving and loading prepared transforms: a stream of little-endian 64-bit
//! words with checkpoints of a running checksum.
//!
//! A prepared transform depends only on public data (the context's
//! parameters, the transform, the [`KeyPolicy`] and the level), never on a
//! key, so one saved copy serves every client of the same parameters. The
//! stream is written and read term by term, never held whole in memory: an
//! [`EncodedTransform`] of N = 2^16 at 21 primes is 11 MiB per diagonal.
//! Residues go between the stream and the engine's own buffers with no
//! intermediate copy ([`EncodedPlaintext::residues`] when writing; when
//! reading, straight into the buffer of the encoding being made, 1 MiB at a
//! time, each piece summed and checked against its primes while in cache).
//! With two or more threads in the rayon pool, the buffers of the next terms
//! are allocated on another thread while one is read.
//!
//! Layout of one transform ([`PreparedTransform::write_to`]): the term kind
//! (1 encoded, 2 plaintext), the level, the [`Schedule`] (row, unit, baby
//! count, offset, giant range, swap flag, key mode, baby pairs), a
//! checkpoint, the term count, each term's stride
//! ([`EncodedPlaintext::stride`]; 1 for a plaintext, so that the buffers of
//! the terms can be made before their payloads are read) and a checkpoint,
//! then per term its slot (giant index, swap, baby index) and payload
//! followed by a checkpoint. An encoded payload is
//! its level, extended flag, correction factor, the two norms of its noise
//! estimate and its residues ([`EncodedPlaintext::export_residues`]); a
//! plaintext payload is [`Plaintext::to_bytes`].
//!
//! A checkpoint is the running checksum of every word before it: sixteen
//! lanes of `(lane ^ word) · K` rotated (lane i takes the words at positions
//! ≡ i mod 16, so the lanes run as independent vector lanes), folded with the
//! word count at the checkpoint. Each step is a
//! bijection of the lane, so a change to any single word is always detected,
//! and other corruptions are missed with probability about 2^-64. It guards
//! against accidents (truncated copies, flipped bits), not against an
//! adversary: it is not a MAC, and a file from an untrusted source can be
//! forged. Loading also checks every field's range and every residue against
//! its prime, so forged bytes give an error or a well-formed transform, not
//! undefined behaviour; but a well-formed transform may still be another one
//! than the one saved (a diagonal negated, two swapped). A loader that must
//! not trust the storage checks what it read against the slot transform it
//! expects with [`PreparedTransform::verify`] (see [`verify`](super::verify)):
//! exact on everything but the residues, which a random test drawn at each
//! load checks to 2^-40.

use super::encoded::PreparedTransform;
use super::schedule::{KeyMode, Schedule, Slot};
use crate::encoded::ResidueImport;
use crate::error::{Error, Result};
use crate::{Context, EncodedPlaintext, Plaintext};
use num_bigint::BigUint;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

#[cfg(doc)]
use super::{EncodedTransform, KeyPolicy};

/// Tag of a transform of encoded plaintexts.
const KIND_ENCODED: u64 = 1;
/// Tag of a transform of plaintexts.
const KIND_PLAIN: u64 = 2;
/// Largest word count a plaintext payload may announce (4 MiB of limbs
/// per coefficient at N = 2^17 is far above any real one).
const MAX_PLAIN_WORDS: u64 = 1 << 24;

/// Lanes of the running checksum: enough independent multiply chains for
/// the vector units (and for a scalar core's multiplier) to stay busy.
const LANES: usize = 16;

/// The running checksum of a word stream (see the [module docs](self)).
#[derive(Debug, Clone, Copy)]
struct Checksum {
    lanes: [u64; LANES],
    words: u64,
}

const MIX: u64 = 0x9e37_79b9_7f4a_7c15;
const FOLD: u64 = 0xc2b2_ae3d_27d4_eb4f;

/// Runs whole rounds (one word per lane) of `data` through `lanes`.
#[inline(always)]
fn rounds(lanes: &mut [u64; LANES], data: &[u64]) {
    let mut l = *lanes;
    for round in data.chunks_exact(LANES) {
        for (lane, &w) in l.iter_mut().zip(round) {
            *lane = Checksum::step(*lane, w);
        }
    }
    *lanes = l;
}

/// [`rounds`] compiled for AVX2 (the lanes become four 4-word vectors).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn rounds_avx2(lanes: &mut [u64; LANES], data: &[u64]) {
    rounds(lanes, data);
}

impl Checksum {
    fn new() -> Self {
        let mut lanes = [0u64; LANES];
        let mut seed = 0x243f_6a88_85a3_08d3u64;
        for lane in &mut lanes {
            *lane = seed;
            seed = Self::step(seed, 0x1319_8a2e_0370_7344);
        }
        Self { lanes, words: 0 }
    }

    #[inline(always)]
    fn step(lane: u64, word: u64) -> u64 {
        (lane ^ word).wrapping_mul(MIX).rotate_left(29)
    }

    /// Feeds one word to its lane.
    #[inline(always)]
    fn single(&mut self, w: u64) {
        let i = (self.words % LANES as u64) as usize;
        self.lanes[i] = Self::step(self.lanes[i], w);
        self.words += 1;
    }

    fn update(&mut self, words: &[u64]) {
        // Lane i takes the words at stream positions ≡ i mod LANES: single
        // words up to the next round, whole rounds, then single words.
        let behind = (LANES - (self.words % LANES as u64) as usize) % LANES;
        let (head, rest) = words.split_at(behind.min(words.len()));
        for &w in head {
            self.single(w);
        }
        let (whole, tail) = rest.split_at(rest.len() - rest.len() % LANES);
        #[cfg(target_arch = "x86_64")]
        if whole.len() >= 4 * LANES && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { rounds_avx2(&mut self.lanes, whole) };
        } else {
            rounds(&mut self.lanes, whole);
        }
        #[cfg(not(target_arch = "x86_64"))]
        rounds(&mut self.lanes, whole);
        self.words += whole.len() as u64;
        for &w in tail {
            self.single(w);
        }
    }

    /// The value a checkpoint stores.
    fn value(&self) -> u64 {
        let mut h = self.words.wrapping_mul(FOLD);
        for lane in self.lanes {
            h = (h ^ lane).wrapping_mul(FOLD).rotate_left(31);
        }
        h ^ (h >> 29)
    }
}

/// The error for an I/O failure.
fn io_error(e: std::io::Error) -> Error {
    Error::Io {
        kind: e.kind(),
        message: e.to_string(),
    }
}

/// Writes a checked word stream (see the [module docs](self)).
#[derive(Debug)]
pub struct WordWriter<W: Write> {
    inner: W,
    sum: Checksum,
    bytes: Vec<u8>,
}

/// Words per piece of a large slice: each piece is summed and then written
/// (or read and then summed and checked) while it is in cache.
const PIECE_WORDS: usize = 1 << 17;

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

/// Reads a checked word stream (see the [module docs](self)); a stream that
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

/// A kind of term a [`PreparedTransform`] can save and load.
pub trait StoredTerm: sealed::Sealed + Sized {}
impl StoredTerm for EncodedPlaintext {}
impl StoredTerm for Plaintext {}

mod sealed {
    use super::*;

    /// The payload of one term.
    pub trait Sealed: Sized {
        const KIND: u64;
        /// What a term's payload is read into, made before its words are
        /// read (possibly ahead, on another thread).
        type Target: Send + 'static;
        /// What sizes the term's target, written before the terms so that
        /// targets can be made ahead: an encoding's stride; 1 for a plaintext.
        fn stride(&self) -> Result<usize>;
        fn write<W: Write>(&self, out: &mut WordWriter<W>) -> Result<()>;
        /// The target of one term of stride `stride` of a transform at
        /// `level` in `mode`.
        fn target(
            context: &Context,
            level: usize,
            mode: KeyMode,
            stride: usize,
        ) -> Result<Self::Target>;
        fn read<R: Read>(
            context: &Context,
            level: usize,
            mode: KeyMode,
            target: Self::Target,
            input: &mut WordReader<R>,
        ) -> Result<Self>;
    }

    impl Sealed for EncodedPlaintext {
        const KIND: u64 = KIND_ENCODED;
        type Target = ResidueImport;

        fn stride(&self) -> Result<usize> {
            EncodedPlaintext::stride(self)
        }

        fn write<W: Write>(&self, out: &mut WordWriter<W>) -> Result<()> {
            let (residues, (linf, l1)) = self.residues()?;
            let factor = self.correction_factor().to_u64_digits();
            out.word(self.level() as u64)?;
            out.word(u64::from(self.is_extended()))?;
            out.word(factor.len() as u64)?;
            out.words(&factor)?;
            out.words(&[linf.to_bits(), l1.to_bits(), residues.len() as u64])?;
            out.words(residues)
        }

        fn target(
            context: &Context,
            level: usize,
            mode: KeyMode,
            stride: usize,
        ) -> Result<ResidueImport> {
            ResidueImport::begin(context, level, mode == KeyMode::Fast, stride)
        }

        fn read<R: Read>(
            context: &Context,
            level: usize,
            mode: KeyMode,
            mut target: ResidueImport,
            input: &mut WordReader<R>,
        ) -> Result<Self> {
            let own = input.bounded("an encoding's level", context.max_level() as u64)? as usize;
            if own != level {
                return Err(Error::Malformed(format!(
                    "an encoding at level {own} in a transform at level {level}"
                )));
            }
            let extended = input.flag("an encoding's extended flag")?;
            if extended != (mode == KeyMode::Fast) {
                return Err(Error::Malformed(
                    "an encoding's form does not match the transform's key mode".into(),
                ));
            }
            let factor_len = input.bounded("a correction factor's length", 64)? as usize;
            let mut factor = vec![0u64; factor_len];
            input.words(&mut factor)?;
            let factor = BigUint::from_slice(
                &factor
                    .iter()
                    .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                    .collect::<Vec<_>>(),
            );
            let linf = f64::from_bits(input.word()?);
            let l1 = f64::from_bits(input.word()?);
            let words = target.buffer().len() as u64;
            let announced = input.word()?;
            if announced != words {
                return Err(Error::Malformed(format!(
                    "an encoding announces {announced} residues, its level, form and stride imply {words}"
                )));
            }
            // Straight into the engine's buffer, piece by piece: each piece
            // is summed and range-checked right after it is read.
            let mut done = 0;
            while done < target.buffer().len() {
                let end = (done + PIECE_WORDS).min(target.buffer().len());
                input.words(&mut target.buffer()[done..end])?;
                target.check(end)?;
                done = end;
            }
            target.finish(&factor, (linf, l1))
        }
    }

    impl Sealed for Plaintext {
        const KIND: u64 = KIND_PLAIN;
        type Target = ();

        fn stride(&self) -> Result<usize> {
            Ok(1)
        }

        fn write<W: Write>(&self, out: &mut WordWriter<W>) -> Result<()> {
            let bytes = self.to_bytes()?;
            let words: Vec<u64> = bytes
                .chunks(8)
                .map(|c| {
                    let mut w = [0u8; 8];
                    w[..c.len()].copy_from_slice(c);
                    u64::from_le_bytes(w)
                })
                .collect();
            out.word(bytes.len() as u64)?;
            out.words(&words)
        }

        fn target(_context: &Context, _level: usize, _mode: KeyMode, stride: usize) -> Result<()> {
            if stride != 1 {
                return Err(Error::Malformed(format!(
                    "a plaintext term announces stride {stride}; plaintexts have stride 1"
                )));
            }
            Ok(())
        }

        fn read<R: Read>(
            context: &Context,
            _level: usize,
            _mode: KeyMode,
            _target: (),
            input: &mut WordReader<R>,
        ) -> Result<Self> {
            let len = input.bounded("a plaintext's byte count", 8 * MAX_PLAIN_WORDS)? as usize;
            let mut words = vec![0u64; len.div_ceil(8)];
            input.words(&mut words)?;
            let bytes: Vec<u8> = words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take(len)
                .collect();
            Plaintext::from_bytes(context, &bytes)
        }
    }
}

impl<T: StoredTerm> PreparedTransform<T> {
    /// Writes the transform to `out` (layout in the [module docs](self)),
    /// one term at a time.
    ///
    /// # Errors
    /// [`Error::Io`] when writing fails; engine errors exporting a term.
    pub fn write_to<W: Write>(&self, out: &mut WordWriter<W>) -> Result<()> {
        out.word(T::KIND)?;
        out.word(self.level() as u64)?;
        write_schedule(self.schedule(), out)?;
        out.checkpoint()?;
        out.word(self.terms().len() as u64)?;
        for term in self.terms().values() {
            out.word(term.stride()? as u64)?;
        }
        out.checkpoint()?;
        for (slot, term) in self.terms() {
            out.words(&[slot.giant as u64, u64::from(slot.swap), slot.baby as u64])?;
            term.write(out)?;
            out.checkpoint()?;
        }
        Ok(())
    }

    /// Reads a transform [`write_to`](Self::write_to) wrote, for `context`.
    /// Every field is range-checked and every term's slot must fit the
    /// schedule; the checkpoints catch corrupted bytes.
    ///
    /// # Errors
    /// [`Error::Malformed`] for a stream that is not such a transform
    /// (another term kind, out-of-range fields, a checksum mismatch, an end
    /// before the transform's); [`Error::Io`] when reading fails.
    pub fn read_from<R: Read>(context: &Context, input: &mut WordReader<R>) -> Result<Self> {
        let kind = input.word()?;
        if kind != T::KIND {
            return Err(Error::Malformed(format!(
                "a transform of term kind {kind} where kind {} was expected",
                T::KIND
            )));
        }
        let level = input.bounded("a transform's level", context.max_level() as u64)? as usize;
        let schedule = read_schedule(context, input)?;
        input.checkpoint()?;
        let row = context.ring_degree() / 2;
        let count = input.bounded("a transform's term count", 2 * row as u64)? as usize;
        let mut strides = vec![0u64; count];
        input.words(&mut strides)?;
        input.checkpoint()?;
        // Each stride is checked where it is used: by the target it sizes.
        let strides: Vec<usize> = strides
            .into_iter()
            .map(|s| usize::try_from(s).unwrap_or(usize::MAX))
            .collect();
        let mode = schedule.mode();
        let target = |i: usize| T::target(context, level, mode, strides[i]);
        let terms = if count < 2 || rayon::current_num_threads() < 2 {
            read_terms::<T, R>(context, level, &schedule, count, input, target)?
        } else {
            // The terms' targets (the engine's fresh buffers, whose pages
            // the kernel zero-fills) are made ahead on another thread of the
            // pool while this one reads. The job is detached, so the reader
            // never waits for the pool to start it: when it starts late, it
            // finds the slots taken (or the reader stopped) and ends.
            let ahead = std::sync::Arc::new(Ahead::new(count));
            let filler = std::sync::Arc::clone(&ahead);
            let own = context.clone();
            let own_strides = strides.clone();
            rayon::spawn(move || filler.fill(&|i| T::target(&own, level, mode, own_strides[i])));
            let terms = read_terms::<T, R>(context, level, &schedule, count, input, |i| {
                ahead.take(i, &target)
            });
            ahead.stop();
            terms?
        };
        Ok(PreparedTransform::from_parts(
            context.clone(),
            level,
            schedule,
            terms,
        ))
    }
}

/// Reads `count` terms of a transform at `level` with `schedule`, each into
/// the target `target(i)` gives.
fn read_terms<T: StoredTerm, R: Read>(
    context: &Context,
    level: usize,
    schedule: &Schedule,
    count: usize,
    input: &mut WordReader<R>,
    mut target: impl FnMut(usize) -> Result<T::Target>,
) -> Result<BTreeMap<Slot, T>> {
    let row = context.ring_degree() / 2;
    let mut terms = BTreeMap::new();
    let mut last: Option<Slot> = None;
    let (giant_min, giant_max) = schedule.giant_range();
    for i in 0..count {
        let giant = input.word()? as i64;
        let swap = input.flag("a term's swap flag")?;
        let baby = input.bounded("a term's baby index", row as u64)? as usize;
        let slot = Slot { giant, swap, baby };
        if !(giant_min..=giant_max).contains(&giant)
            || schedule.babies().binary_search(&(swap, baby)).is_err()
            || last.is_some_and(|l| l >= slot)
        {
            return Err(Error::Malformed(
                "a term's place does not fit the transform's schedule".into(),
            ));
        }
        last = Some(slot);
        let term = T::read(context, level, schedule.mode(), target(i)?, input)?;
        input.checkpoint()?;
        terms.insert(slot, term);
    }
    Ok(terms)
}

/// The targets of a transform's terms, made ahead: [`fill`](Self::fill), on
/// another thread, makes them in order while the reader
/// [`take`](Self::take)s them in order; whichever comes to a term first makes
/// its target, so the reader never waits for a target nobody is making.
struct Ahead<P> {
    state: Mutex<AheadState<P>>,
    made: Condvar,
}

struct AheadState<P> {
    slots: Vec<AheadSlot<P>>,
    stopped: bool,
}

enum AheadSlot<P> {
    Free,
    Making,
    Made(Result<P>),
    Taken,
}

impl<P> Ahead<P> {
    fn new(count: usize) -> Self {
        Self {
            state: Mutex::new(AheadState {
                slots: (0..count).map(|_| AheadSlot::Free).collect(),
                stopped: false,
            }),
            made: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, AheadState<P>> {
        // Nothing panics while holding the lock; a poisoned one is still whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes the targets of the free slots in order (slot i's with
    /// `make(i)`), until the reader stops.
    fn fill(&self, make: &impl Fn(usize) -> Result<P>) {
        for i in 0.. {
            {
                let mut state = self.lock();
                if state.stopped || i >= state.slots.len() {
                    return;
                }
                if !matches!(state.slots[i], AheadSlot::Free) {
                    continue;
                }
                state.slots[i] = AheadSlot::Making;
            }
            let made = make(i);
            self.lock().slots[i] = AheadSlot::Made(made);
            self.made.notify_all();
        }
    }

    /// The target of slot `i`: made ahead, or by `make(i)` here when nobody
    /// started it yet.
    fn take(&self, i: usize, make: &impl Fn(usize) -> Result<P>) -> Result<P> {
        let mut state = self.lock();
        loop {
            match std::mem::replace(&mut state.slots[i], AheadSlot::Taken) {
                AheadSlot::Free => {
                    drop(state);
                    return make(i);
                }
                AheadSlot::Made(made) => return made,
                AheadSlot::Making => {
                    state.slots[i] = AheadSlot::Making;
                    state = self
                        .made
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                AheadSlot::Taken => {
                    return Err(Error::Engine {
                        status: crate::error::Status::Internal,
                        message: "a saved transform's term was read twice".into(),
                    })
                }
            }
        }
    }

    /// Ends [`fill`](Self::fill) at its next slot (the reader is done or failed).
    fn stop(&self) {
        self.lock().stopped = true;
    }
}

/// The schedule's fields, in order.
fn write_schedule<W: Write>(s: &Schedule, out: &mut WordWriter<W>) -> Result<()> {
    let (giant_min, giant_max) = s.giant_range();
    let mode = match s.mode() {
        KeyMode::Fast => 0,
        KeyMode::MinimalKeys => 1,
    };
    out.words(&[
        s.row() as u64,
        s.unit_step() as u64,
        s.baby_steps() as u64,
        s.offset() as u64,
        giant_min as u64,
        giant_max as u64,
        u64::from(s.uses_swap()),
        mode,
        s.babies().len() as u64,
    ])?;
    for &(swap, k) in s.babies() {
        out.words(&[u64::from(swap), k as u64])?;
    }
    Ok(())
}

/// Reads and range-checks a schedule for `context`'s rows.
fn read_schedule<R: Read>(context: &Context, input: &mut WordReader<R>) -> Result<Schedule> {
    let bad = |what: &str| Error::Malformed(format!("a transform's schedule: {what}"));
    let row = context.ring_degree() / 2;
    if input.word()? != row as u64 {
        return Err(bad("the row length is not the context's"));
    }
    let unit = input.bounded("a schedule's unit step", row as u64)? as usize;
    if !unit.is_power_of_two() {
        return Err(bad("the unit step is not a power of two"));
    }
    let baby = input.bounded("a schedule's baby count", (row / unit) as u64)? as usize;
    if baby == 0 {
        return Err(bad("no baby step"));
    }
    // Every step is in (-R, R], so offsets and giant indices stay within ±2R.
    let limit = 2 * row as i64;
    let signed = |w: u64| -> Result<i64> {
        let v = w as i64;
        if (-limit..=limit).contains(&v) {
            Ok(v)
        } else {
            Err(bad("an index is out of range"))
        }
    };
    let offset = signed(input.word()?)?;
    let giant_min = signed(input.word()?)?;
    let giant_max = signed(input.word()?)?;
    if giant_min > giant_max {
        return Err(bad("the giant range is empty"));
    }
    let uses_swap = input.flag("a schedule's swap flag")?;
    let mode = match input.bounded("a schedule's key mode", 1)? {
        0 => KeyMode::Fast,
        _ => KeyMode::MinimalKeys,
    };
    let count = input.bounded("a schedule's baby pair count", 2 * baby as u64)? as usize;
    let mut babies = Vec::with_capacity(count);
    for _ in 0..count {
        let swap = input.flag("a baby pair's swap flag")?;
        let k = input.bounded("a baby index", baby as u64 - 1)? as usize;
        if babies.last().is_some_and(|&last| last >= (swap, k)) {
            return Err(bad("the baby pairs are not sorted"));
        }
        babies.push((swap, k));
    }
    if uses_swap != babies.iter().any(|&(swap, _)| swap) {
        return Err(bad("the swap flag does not match the baby pairs"));
    }
    Ok(Schedule::from_parts(
        row, unit, baby, offset, giant_min, giant_max, uses_swap, mode, babies,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Parameters;

    /// Raw residues round trip, and the engine refuses residues at or above
    /// their prime, a wrong word count, norms out of range and a level above
    /// the top, whatever a (forged) stream says.
    #[test]
    fn raw_residues_are_checked() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let plain = Plaintext::from_u64s(&context, &[1, 2, 3]).unwrap();
        let level = 1;
        let pt = EncodedPlaintext::for_linear_transform(&plain, level).unwrap();
        let mut residues = vec![0u64; pt.residue_words().unwrap()];
        let norms = pt.export_residues(&mut residues).unwrap();
        let one = BigUint::from(1u32);
        let again =
            EncodedPlaintext::from_residues(&context, level, true, 1, &one, &residues, norms)
                .unwrap();
        let mut copy = vec![0u64; again.residue_words().unwrap()];
        assert_eq!(again.export_residues(&mut copy).unwrap(), norms);
        assert_eq!(copy, residues);

        let load = |level: usize, residues: &[u64], norms: (f64, f64)| {
            EncodedPlaintext::from_residues(&context, level, true, 1, &one, residues, norms)
        };
        let n = context.ring_degree();
        let mut at_prime = residues.clone();
        at_prime[n + 5] = context.chain_primes()[1];
        assert!(matches!(
            load(level, &at_prime, norms),
            Err(Error::Malformed(_))
        ));
        let mut special = residues.clone();
        *special.last_mut().unwrap() = u64::MAX;
        assert!(matches!(
            load(level, &special, norms),
            Err(Error::Malformed(_))
        ));
        assert!(matches!(
            load(level, &residues[1..], norms),
            Err(Error::Malformed(_))
        ));
        assert!(matches!(
            load(0, &residues, norms),
            Err(Error::Malformed(_))
        ));
        for bad in [f64::NAN, f64::INFINITY, -1.0, 1e6] {
            assert!(matches!(
                load(level, &residues, (bad, norms.1)),
                Err(Error::Malformed(_))
            ));
            assert!(matches!(
                load(level, &residues, (norms.0, bad)),
                Err(Error::Malformed(_))
            ));
        }
        let top = context.max_level();
        assert!(matches!(
            load(top + 1, &residues, norms),
            Err(Error::InvalidLevel { .. })
        ));
        let zero = BigUint::from(0u32);
        assert!(matches!(
            EncodedPlaintext::from_residues(&context, level, true, 1, &zero, &residues, norms),
            Err(Error::Malformed(_))
        ));
    }

    /// One encoding's payload as `Sealed::write` lays it out, with the
    /// residues given (possibly out of range), and a checkpoint.
    fn payload(pt: &EncodedPlaintext, residues: &[u64], norms: (f64, f64)) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut w = WordWriter::new(&mut bytes);
        let factor = pt.correction_factor().to_u64_digits();
        w.words(&[pt.level() as u64, u64::from(pt.is_extended())])
            .unwrap();
        w.word(factor.len() as u64).unwrap();
        w.words(&factor).unwrap();
        w.words(&[norms.0.to_bits(), norms.1.to_bits(), residues.len() as u64])
            .unwrap();
        w.words(residues).unwrap();
        w.checkpoint().unwrap();
        w.flush().unwrap();
        drop(w);
        bytes
    }

    /// Reads one payload written by `payload` (and its checkpoint).
    fn read_payload(
        context: &Context,
        level: usize,
        mode: KeyMode,
        bytes: &[u8],
    ) -> Result<EncodedPlaintext> {
        let mut r = WordReader::new(bytes);
        let target = <EncodedPlaintext as sealed::Sealed>::target(context, level, mode, 1)?;
        let pt = <EncodedPlaintext as sealed::Sealed>::read(context, level, mode, target, &mut r)?;
        r.checkpoint()?;
        r.expect_end()?;
        Ok(pt)
    }

    /// Residues read from a stream go straight into the engine's buffer,
    /// 1 MiB at a time, and a residue at or above its prime is refused
    /// wherever it is (the first and last word of every prime, both sides of
    /// a piece boundary), though the stream's checksums are right; the
    /// extended form (special primes) and a buffer of several pieces
    /// included.
    #[test]
    fn streamed_residues_are_range_checked_in_every_piece() {
        let many = Context::new(
            &Parameters::builder()
                .ring_degree(1 << 12)
                .plaintext_modulus(65537u32.into())
                .chain_bits(&[50; 40])
                .allow_insecure()
                .build()
                .unwrap(),
        )
        .unwrap();
        let tests = Context::new(&Parameters::for_tests()).unwrap();
        for (context, mode) in [(&tests, KeyMode::Fast), (&many, KeyMode::MinimalKeys)] {
            let plain = Plaintext::from_u64s(context, &[1, 2, 3, 4]).unwrap();
            let level = context.max_level();
            let pt = match mode {
                KeyMode::Fast => EncodedPlaintext::for_linear_transform(&plain, level),
                KeyMode::MinimalKeys => EncodedPlaintext::for_multiplication(&plain, level),
            }
            .unwrap();
            let (residues, norms) = pt.residues().unwrap();
            let residues = residues.to_vec();
            let good = payload(&pt, &residues, norms);
            let mut written = Vec::new();
            let mut w = WordWriter::new(&mut written);
            sealed::Sealed::write(&pt, &mut w).unwrap();
            w.checkpoint().unwrap();
            w.flush().unwrap();
            drop(w);
            assert_eq!(written, good, "the test's payload is the real layout");
            let back = read_payload(context, level, mode, &good).unwrap();
            assert_eq!(back.residues().unwrap(), (&residues[..], norms));

            let n = context.ring_degree();
            let mut primes = context.chain_primes()[..=level].to_vec();
            if mode == KeyMode::Fast {
                primes.extend_from_slice(context.special_primes());
            }
            assert_eq!(residues.len(), primes.len() * n);
            let mut places: Vec<(usize, u64)> = Vec::new();
            for (r, &q) in primes.iter().enumerate() {
                places.extend([(r * n, q), (r * n + n - 1, q), (r * n + 7, u64::MAX)]);
            }
            for at in [PIECE_WORDS - 1, PIECE_WORDS] {
                if at < residues.len() {
                    places.push((at, primes[at / n]));
                }
            }
            if mode == KeyMode::MinimalKeys {
                assert!(residues.len() > PIECE_WORDS, "several pieces");
            }
            for (at, value) in places {
                let mut bad = residues.clone();
                bad[at] = value;
                match read_payload(context, level, mode, &payload(&pt, &bad, norms)) {
                    Err(Error::Malformed(m)) => assert!(m.contains("prime"), "word {at}: {m}"),
                    other => panic!("word {at}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn checksum_sees_every_single_word_change() {
        // Long enough for whole rounds on the vector path, with a tail.
        let words: Vec<u64> = (0..203u64).map(|i| i.wrapping_mul(MIX)).collect();
        let mut whole = Checksum::new();
        whole.update(&words);
        // Fed in pieces of any size, the sum is the same; the scalar rounds
        // give what the vector ones give.
        let mut scalar = Checksum::new();
        rounds(&mut scalar.lanes, &words[..192]);
        scalar.words = 192;
        scalar.update(&words[192..]);
        assert_eq!(scalar.value(), whole.value());
        for split in [1, 3, 4, 5, 16, 17, 64, 100] {
            let mut parts = Checksum::new();
            for chunk in words.chunks(split) {
                parts.update(chunk);
            }
            assert_eq!(parts.value(), whole.value());
        }
        for i in 0..words.len() {
            for bit in [0, 31, 63] {
                let mut changed = words.clone();
                changed[i] ^= 1 << bit;
                let mut sum = Checksum::new();
                sum.update(&changed);
                assert_ne!(sum.value(), whole.value(), "word {i} bit {bit}");
            }
        }
        // A trailing zero word changes the length, hence the sum.
        let mut longer = Checksum::new();
        longer.update(&words);
        longer.update(&[0]);
        assert_ne!(longer.value(), whole.value());
    }
}
