//! Coefficient limbs below t read as centred integers: the lift, the dot
//! with a challenge vector, the norms the engine records, and the engine's
//! choice of stride.

use super::modular::SignedSum;
use crate::Context;
use num_bigint::BigUint;

/// The engine's marker for the norms of the zero polynomial.
pub(super) const ZERO_NORM: f64 = -1e300;

/// The engine's choice of stride for `n` coefficients of `width` limbs:
/// the largest power of two s ≤ N / 16 such that every nonzero
/// coefficient sits at a multiple of s.
pub(super) fn sparsity_stride(limbs: &[u64], n: usize, width: usize) -> usize {
    let positions = limbs
        .chunks_exact(width)
        .enumerate()
        .skip(1)
        .filter(|(_, c)| c.iter().any(|&l| l != 0))
        .fold(0usize, |acc, (j, _)| acc | j);
    let widest = n / n.min(helib_sys::HELIB_MIN_COMPACT_LENGTH as usize);
    if positions == 0 {
        widest
    } else {
        widest.min(1 << positions.trailing_zeros())
    }
}

/// The centred lift of coefficients below t: c − t above t/2.
pub(super) struct Centred {
    t: Vec<u64>,
    half: Vec<u64>,
    width: usize,
}

impl Centred {
    pub(super) fn new(context: &Context) -> Self {
        let width = context.plain_limbs();
        let t = context.plaintext_modulus();
        Self {
            t: padded_limbs(t, width),
            half: padded_limbs(&(t >> 1u32), width),
            width,
        }
    }

    /// `c`'s magnitude into `out` and whether it is negative.
    fn lift(&self, c: &[u64], out: &mut [u64]) -> bool {
        if compare(c, &self.half) == std::cmp::Ordering::Greater {
            let mut borrow = false;
            for ((o, &a), &b) in out.iter_mut().zip(&self.t).zip(c) {
                let (d, b1) = a.overflowing_sub(b);
                let (d, b2) = d.overflowing_sub(u64::from(borrow));
                *o = d;
                borrow = b1 || b2;
            }
            true
        } else {
            out.copy_from_slice(c);
            false
        }
    }

    /// `Σ_j u_j · c_(j·stride)` over j < N / stride, c centred.
    pub(super) fn dot(&self, limbs: &[u64], stride: usize, u: &[u64]) -> SignedSum {
        let mut sum = SignedSum::new(self.width);
        let mut magnitude = vec![0u64; self.width];
        for (c, &u) in limbs.chunks_exact(self.width).step_by(stride).zip(u) {
            let negative = self.lift(c, &mut magnitude);
            sum.add(u, &magnitude, negative);
        }
        sum
    }

    /// log2 of the sup and l1 norms of the centred coefficients, as the
    /// engine records them (its marker for the zero polynomial).
    pub(super) fn norms(&self, limbs: &[u64], stride: usize) -> (f64, f64) {
        let mut magnitude = vec![0u64; self.width];
        let (mut linf, mut l1) = (0f64, 0f64);
        for c in limbs.chunks_exact(self.width).step_by(stride) {
            self.lift(c, &mut magnitude);
            let value = magnitude
                .iter()
                .rev()
                .fold(0f64, |v, &l| v * 18_446_744_073_709_551_616.0 + l as f64);
            l1 += value;
            linf = linf.max(value);
        }
        let log = |x: f64| if x > 0.0 { x.log2() } else { ZERO_NORM };
        (log(linf), log(l1))
    }
}

/// `value`'s limbs, zero-padded to `width`.
pub(super) fn padded_limbs(value: &BigUint, width: usize) -> Vec<u64> {
    let mut limbs = value.to_u64_digits();
    limbs.resize(width.max(limbs.len()), 0);
    limbs
}

/// Compares little-endian limb vectors of one length.
fn compare(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    a.iter().rev().cmp(b.iter().rev())
}
