//! Level bookkeeping: how many levels the budget affords, the level each
//! transform is encoded at, and running encoded levels in turn.

use crate::error::{Error, Result};
use ark_ff::{FftField, PrimeField};
use helib_rs::lintrans::{EncodedTransform, KeyPolicy, SlotTransform};
use helib_rs::{noise, BatchEncoder, Ciphertext, Context, GaloisKeys};

/// How many plaintext-multiplication levels fit the budget at `level`:
/// [`helib_rs::noise::affordable_transform_levels`] for the context's
/// modulus at that level, ring and plaintext modulus (each level costs about
/// log2 t + log2 N bits; fresh noise and the rotations' key-switching noise
/// about log2 t + 20 more).
pub fn affordable_levels(context: &Context, level: usize) -> usize {
    let log_q = context.log2_modulus(level).unwrap_or(0.0);
    let (ring, log_t) = ring_and_log_t(context);
    noise::affordable_transform_levels(log_q, ring, log_t)
}

/// Noise budget one FFT level costs ([`noise::transform_level_bits`]).
pub(crate) fn level_cost_bits(context: &Context) -> f64 {
    let (ring, log_t) = ring_and_log_t(context);
    noise::transform_level_bits(ring, log_t)
}

/// The ring degree and log2 t the noise model takes for `context`.
fn ring_and_log_t(context: &Context) -> (usize, f64) {
    (
        context.ring_degree(),
        noise::log2(context.plaintext_modulus()),
    )
}

/// Encodes each transform at the level its input will have: the first at
/// `level`, later ones lower by the primes earlier levels' noise growth frees.
pub(super) fn encode_all<F: PrimeField + FftField>(
    transforms: &[SlotTransform<F>],
    keys: KeyPolicy,
    encoder: &BatchEncoder<F>,
    level: usize,
) -> Result<Vec<EncodedTransform>> {
    let context = encoder.context();
    transforms
        .iter()
        .enumerate()
        .map(|(i, t)| EncodedTransform::new(t, keys, encoder, level_after(context, level, i)))
        .collect::<helib_rs::Result<_>>()
        .map_err(Error::from)
}

/// The level for the input of transform `i` of a plan starting at `level`:
/// each earlier level grew the noise by at least
/// [`noise::transform_level_drop_bits`], so that many bits of modulus can be
/// dropped without losing budget.
pub(crate) fn level_after(context: &Context, level: usize, i: usize) -> usize {
    let (ring, log_t) = ring_and_log_t(context);
    let top = context.log2_modulus(level).unwrap_or(0.0);
    let keep = top - i as f64 * noise::transform_level_drop_bits(ring, log_t);
    (0..=level)
        .find(|&l| context.log2_modulus(l).unwrap_or(0.0) >= keep)
        .unwrap_or(level)
}

/// Runs `levels` in turn on `x`, each on its input switched down to the
/// level it was encoded at.
pub(crate) fn run_levels<'a>(
    levels: impl IntoIterator<Item = &'a EncodedTransform>,
    x: &Ciphertext,
    keys: &GaloisKeys,
) -> Result<Ciphertext> {
    let mut current = x.clone();
    for transform in levels {
        // Drop the primes the previous level's noise growth made unnecessary.
        if current.level() > transform.level() {
            current.mod_switch_to_assign(transform.level())?;
        }
        current = transform.apply(&current, keys)?;
    }
    Ok(current)
}
