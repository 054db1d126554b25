//! Fusion and separation (paper §3.3): many ciphertexts summed with radix weights into one, split after decryption.
//!
//! Ciphertexts whose slots hold integers m_i < W_i are fused into
//! μ = Σ_i m_i·Π_{j>i} W_j (computed by Horner's rule: one scalar product and
//! one addition per ciphertext), so one decryption recovers them all by
//! repeated division with remainder. Two limits apply:
//!
//! * the plaintext space: Π W_i ≤ t, so with a common W at most ⌊log_W t⌋
//!   ciphertexts fuse (the paper's Eq. 9: W^N − 1 < t);
//! * the noise: the fused noise is about Π_{j≥2} W_j times the largest
//!   input noise, so the product must fit in the remaining noise budget.
//!
//! With the paper's t = 12289 and W = 6 that is 5 ciphertexts; with the
//! 254-bit BN254 modulus it is 98, noise permitting.

use ark_ff::{FftField, PrimeField};
use helib_rs::{Ciphertext, SecretKey};
use num_bigint::BigUint;

use super::{layout, Block, PackedHesc, PackedStream};
use crate::bits::BitStream;
use crate::error::{Error, Result};
use crate::number::{Encoding, StochasticNumber};

/// Noise bits kept in reserve after fusing, on top of the engine's estimate.
const NOISE_MARGIN_BITS: f64 = 2.0;

/// How many ciphertexts with slot values below W fit into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FusionCapacity {
    /// The most that fit the plaintext space: the largest k with W^k ≤ t.
    pub by_plaintext: usize,
    /// The most that fit the noise budget: the largest k with
    /// (k − 1)·log2 W + 1 + margin ≤ budget.
    pub by_noise: usize,
}

impl FusionCapacity {
    /// The capacity for radix `w` ≥ 2, plaintext modulus `t` and a remaining
    /// noise budget of `budget_bits` (e.g.
    /// [`Ciphertext::estimated_budget_bits`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `w` < 2.
    pub fn new(t: &BigUint, w: u64, budget_bits: f64) -> Result<Self> {
        if w < 2 {
            return Err(Error::InvalidArgument(
                "the fusion radix must be at least 2".into(),
            ));
        }
        let mut by_plaintext = 0;
        let mut power = BigUint::from(w);
        while &power <= t {
            by_plaintext += 1;
            power *= w;
        }
        let usable = budget_bits - 1.0 - NOISE_MARGIN_BITS;
        let by_noise = if usable < 0.0 {
            1
        } else {
            (usable / (w as f64).log2()).floor() as usize + 1
        };
        Ok(Self {
            by_plaintext,
            by_noise,
        })
    }

    /// The maximum number of ciphertexts fusable into one (at least 1).
    pub fn max(&self) -> usize {
        self.by_plaintext.min(self.by_noise).max(1)
    }
}

/// One fused ciphertext and the radices of its members (most significant first).
#[derive(Debug)]
pub struct FusedCiphertext {
    ct: Ciphertext,
    radices: Vec<u64>,
    /// (stream, block) of each member, in the same order.
    members: Vec<(usize, usize)>,
}

impl FusedCiphertext {
    /// The fused ciphertext.
    pub fn ciphertext(&self) -> &Ciphertext {
        &self.ct
    }

    /// The radix W_i of each member.
    pub fn radices(&self) -> &[u64] {
        &self.radices
    }
}

/// Where the blocks of one fused stream go back to.
#[derive(Debug, Clone)]
struct StreamShape {
    lanes: usize,
    encoding: Encoding,
    segments: Vec<usize>,
}

/// Several packed streams fused into few ciphertexts.
#[derive(Debug)]
pub struct FusedStreams {
    fused: Vec<FusedCiphertext>,
    streams: Vec<StreamShape>,
}

impl FusedStreams {
    /// The number of ciphertexts to decrypt.
    pub fn ciphertext_count(&self) -> usize {
        self.fused.len()
    }

    /// The fused ciphertexts.
    pub fn fused(&self) -> &[FusedCiphertext] {
        &self.fused
    }

    /// The number of ciphertexts before fusion.
    pub fn original_count(&self) -> usize {
        self.streams.iter().map(|s| s.segments.len()).sum()
    }
}

impl<F: PrimeField + FftField> PackedHesc<F> {
    /// Fuses the ciphertexts of `streams` (in order) into as few as the
    /// plaintext space and noise budget allow, at most `max_group` per
    /// fused ciphertext if given. Each block's radix is its slot bound + 1.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no stream or `max_group` = 0; engine
    /// errors from the scalar products and additions (e.g. mismatched levels).
    pub fn fuse(
        &self,
        streams: &[&PackedStream],
        max_group: Option<usize>,
    ) -> Result<FusedStreams> {
        if streams.is_empty() || max_group == Some(0) {
            return Err(Error::InvalidArgument("nothing to fuse".into()));
        }
        let t = self.plaintext_modulus();
        let limit = max_group.unwrap_or(usize::MAX);
        let members: Vec<((usize, usize), &Block)> = streams
            .iter()
            .enumerate()
            .flat_map(|(s, stream)| {
                stream
                    .blocks
                    .iter()
                    .enumerate()
                    .map(move |(b, block)| ((s, b), block))
            })
            .collect();
        let mut fused = Vec::new();
        let mut start = 0;
        while start < members.len() {
            // Grow the group while the product of radices fits t and the budget.
            let mut product = BigUint::from(1u32);
            let mut budget = f64::INFINITY;
            let mut end = start;
            while end < members.len() && end - start < limit {
                let block = members[end].1;
                let w = block.max_count + 1;
                let next = &product * w;
                let next_budget = budget.min(block.ct.estimated_budget_bits());
                // The first member's multiplier is the product of the others' radices.
                let multiplier_bits =
                    (next.bits() as f64) - (members[start].1.max_count as f64 + 1.0).log2();
                let fits_noise = multiplier_bits + 1.0 + NOISE_MARGIN_BITS <= next_budget;
                if end > start && (&next > t || !fits_noise) {
                    break;
                }
                product = next;
                budget = next_budget;
                end += 1;
            }
            fused.push(fuse_group(&members[start..end])?);
            start = end;
        }
        let shapes = streams
            .iter()
            .map(|s| StreamShape {
                lanes: s.lanes,
                encoding: s.encoding,
                segments: s.blocks.iter().map(|b| b.seg_len).collect(),
            })
            .collect();
        Ok(FusedStreams {
            fused,
            streams: shapes,
        })
    }

    /// Decrypts fused ciphertexts, separates the members by division with
    /// remainder, and returns every stream's lanes as stochastic numbers.
    ///
    /// # Errors
    /// [`Error::Fusion`] when a decrypted value is not a valid mixed-radix
    /// number (e.g. noise overflow); engine errors.
    pub fn decrypt_fused(
        &self,
        sk: &SecretKey,
        fused: &FusedStreams,
    ) -> Result<Vec<Vec<StochasticNumber>>> {
        let mut counts: Vec<Vec<Vec<u64>>> = fused
            .streams
            .iter()
            .map(|s| vec![Vec::new(); s.segments.len()])
            .collect();
        for group in &fused.fused {
            let values = self.decrypt_slots(sk, &group.ct)?;
            let mut digits = vec![vec![0u64; values.len()]; group.radices.len()];
            for (slot, value) in values.iter().enumerate() {
                let repr = value.into_bigint();
                let limbs = repr.as_ref();
                let rest_is_zero = if limbs[1..].iter().all(|&l| l == 0) {
                    // Fast path: the value fits a machine word.
                    let mut v = limbs[0];
                    for (member, &w) in group.radices.iter().enumerate().rev() {
                        digits[member][slot] = v % w;
                        v /= w;
                    }
                    v == 0
                } else {
                    let mut limbs = limbs.to_vec();
                    for (member, &w) in group.radices.iter().enumerate().rev() {
                        digits[member][slot] = divrem_small(&mut limbs, w);
                    }
                    limbs.iter().all(|&l| l == 0)
                };
                if !rest_is_zero {
                    return Err(Error::Fusion(format!(
                        "slot {slot} decrypted beyond the product of the radices"
                    )));
                }
            }
            for (&(s, b), d) in group.members.iter().zip(digits) {
                counts[s][b] = d;
            }
        }
        Ok(fused
            .streams
            .iter()
            .zip(counts)
            .map(|(shape, blocks)| {
                let mut lanes = vec![BitStream::default(); shape.lanes];
                for (seg, values) in shape.segments.iter().zip(&blocks) {
                    layout::append_parities(&mut lanes, values, *seg);
                }
                lanes
                    .into_iter()
                    .map(|bits| StochasticNumber::from_bits(bits, shape.encoding))
                    .collect()
            })
            .collect())
    }
}

/// μ = (((c_1·W_2 + c_2)·W_3 + c_3) …) by Horner's rule.
fn fuse_group(members: &[((usize, usize), &Block)]) -> Result<FusedCiphertext> {
    let (&(first_id, first), rest) = members
        .split_first()
        .ok_or_else(|| Error::InvalidArgument("empty fusion group".into()))?;
    let mut ct = first.ct.try_clone()?;
    let mut radices = vec![first.max_count + 1];
    let mut ids = vec![first_id];
    for &(id, block) in rest {
        let w = block.max_count + 1;
        ct.mul_scalar_assign(&BigUint::from(w))?;
        ct.add_assign(&block.ct)?;
        radices.push(w);
        ids.push(id);
    }
    Ok(FusedCiphertext {
        ct,
        radices,
        members: ids,
    })
}

/// `limbs /= d` in place (little-endian u64 limbs); returns the remainder.
fn divrem_small(limbs: &mut [u64], d: u64) -> u64 {
    let mut rem: u128 = 0;
    for limb in limbs.iter_mut().rev() {
        let cur = (rem << 64) | u128::from(*limb);
        *limb = (cur / u128::from(d)) as u64;
        rem = cur % u128::from(d);
    }
    rem as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_matches_the_paper_and_bn254() {
        // t = 12289, W = 6: 6^5 = 7776 ≤ 12289 < 6^6.
        let paper = FusionCapacity::new(&BigUint::from(12289u32), 6, 1000.0).unwrap();
        assert_eq!(paper.by_plaintext, 5);
        assert_eq!(paper.max(), 5);
        let t65537 = FusionCapacity::new(&BigUint::from(65537u32), 6, 1000.0).unwrap();
        assert_eq!(t65537.by_plaintext, 6);
        let r: BigUint = <ark_bn254::Fr as PrimeField>::MODULUS.into();
        let bn = FusionCapacity::new(&r, 6, 1000.0).unwrap();
        assert_eq!(bn.by_plaintext, 98); // 6^98 ≈ 2^253.3 < r < 6^99
                                         // A budget of 30 bits allows 1 + floor(27 / log2 6) = 11.
        let noisy = FusionCapacity::new(&r, 6, 30.0).unwrap();
        assert_eq!(noisy.by_noise, 11);
        assert_eq!(noisy.max(), 11);
        assert_eq!(FusionCapacity::new(&r, 6, 0.5).unwrap().max(), 1);
        assert!(FusionCapacity::new(&r, 1, 10.0).is_err());
    }

    #[test]
    fn division_with_remainder_on_limbs() {
        let value = (BigUint::from(1u32) << 200u32) + 12345u32;
        let mut limbs = value.to_u64_digits();
        limbs.resize(4, 0);
        let r = divrem_small(&mut limbs, 7);
        assert_eq!(BigUint::from(r), &value % 7u32);
        let mut q = BigUint::default();
        for (i, &l) in limbs.iter().enumerate() {
            q += BigUint::from(l) << (64 * i);
        }
        assert_eq!(q, value / 7u32);
    }
}
