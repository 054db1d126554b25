//! Level bookkeeping: how many levels the budget affords and the level each
//! transform is encoded at.

use super::*;

/// How many plaintext-multiplication levels fit the budget at `level`: each
/// product with a dense plaintext costs about log2(t) + log2(N) bits; fresh
/// noise and the rotations' key-switching noise need about log2(t) + 20 more.
pub fn affordable_levels(context: &Context, level: usize) -> usize {
    let log_q = context.log2_modulus(level).unwrap_or(0.0);
    let log_t = log2_biguint(context.plaintext_modulus());
    let log_n = (context.ring_degree() as f64).log2();
    let fresh = log_t + log_n / 2.0 + 20.0;
    (((log_q - 1.0 - fresh) / level_cost_bits(context)).floor()).max(0.0) as usize
}

/// Noise budget one FFT level costs: a product with a dense plaintext
/// (log2 t + log2 N bits) plus a little for sums and rotations.
pub(crate) fn level_cost_bits(context: &Context) -> f64 {
    log2_biguint(context.plaintext_modulus()) + (context.ring_degree() as f64).log2() + 2.0
}

fn log2_biguint(x: &num_bigint::BigUint) -> f64 {
    let bits = x.bits();
    if bits <= 52 {
        return (x.to_u64_digits().first().copied().unwrap_or(0) as f64).log2();
    }
    let shifted = x >> (bits - 52);
    (shifted.to_u64_digits()[0] as f64).log2() + (bits - 52) as f64
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
        .collect()
}

/// The level for the input of transform `i` of a plan starting at `level`:
/// each earlier level grew the noise by at least log2(t) + log2(N) - 10 bits,
/// so that many bits of modulus can be dropped without losing budget.
pub(crate) fn level_after(context: &Context, level: usize, i: usize) -> usize {
    let log_t = log2_biguint(context.plaintext_modulus());
    let log_n = (context.ring_degree() as f64).log2();
    let top = context.log2_modulus(level).unwrap_or(0.0);
    let keep = top - i as f64 * (log_t + log_n - 10.0);
    (0..=level)
        .find(|&l| context.log2_modulus(l).unwrap_or(0.0) >= keep)
        .unwrap_or(level)
}
