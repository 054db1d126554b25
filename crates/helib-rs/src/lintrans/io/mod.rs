//! Saving and loading prepared transforms: a stream of little-endian 64-bit
//! words with checkpoints of a running checksum ([`crate::io`]).
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
//! The checkpoints guard against accidents (truncated copies, flipped
//! bits), not against an adversary (see [`crate::io`]). Loading also checks
//! every field's range and every residue against its prime, so forged bytes
//! give an error or a well-formed transform, not undefined behaviour; but a
//! well-formed transform may still be another one than the one saved (a
//! diagonal negated, two swapped). A loader that must
//! not trust the storage checks what it read against the slot transform it
//! expects with [`PreparedTransform::verify`] (see [`verify`](super::verify)):
//! exact on everything but the residues, which a random test drawn at each
//! load checks to 2^-40.

mod ahead;
mod schedule;
mod term;

use super::encoded::PreparedTransform;
use super::schedule::{Schedule, Slot};
use crate::error::{Error, Result};
use crate::Context;
use ahead::Ahead;
use schedule::{read_schedule, write_schedule};
use std::collections::BTreeMap;
use std::io::{Read, Write};

#[cfg(doc)]
use super::{EncodedTransform, KeyPolicy};
#[cfg(doc)]
use crate::{EncodedPlaintext, Plaintext};

pub use crate::io::{WordReader, WordWriter};
pub use term::StoredTerm;

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
