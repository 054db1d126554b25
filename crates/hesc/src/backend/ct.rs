//! Secret scalars on BN254 G1 with scalar-independent control flow and memory access.
//!
//! Two pieces serve the EC-ElGamal backend: a masked scan that reads every
//! entry of a table row and keeps the one at a secret index (used by the
//! fixed-base tables), and a Montgomery ladder for a secret scalar times a
//! variable point (used by decryption). Both take the same branches and touch
//! the same memory whatever the scalar; selections and swaps go through
//! `subtle`'s masks, which hide the choice bits from the optimizer.
//!
//! What is not covered here is arkworks itself: its field arithmetic (e.g. the
//! final conditional subtraction of a Montgomery product) and its group law
//! (the branches on the identity and on equal inputs) are not written to be
//! constant time. The crate docs list these exceptions.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::AffineRepr;
use ark_ff::{AdditiveGroup, BigInt, PrimeField};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

/// The limbs of a BN254 base field element.
const FQ_LIMBS: usize = 4;

/// A finite affine point as the Montgomery-form limbs of x then y: the plain
/// words a masked selection works on.
///
/// arkworks keeps a field element's Montgomery limbs in the public (if
/// undocumented) tuple field `Fp.0` and rebuilds an element from them with the
/// documented `Fp::new_unchecked`; both are used here so that a selected point
/// costs no field arithmetic. The tests check every result against arkworks'
/// own scalar multiplication, so a layout change would not go unnoticed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AffineLimbs([u64; 2 * FQ_LIMBS]);

impl AffineLimbs {
    /// The limbs of `point`, or `None` for the point at infinity (which has
    /// no coordinates).
    pub(crate) fn of(point: &G1Affine) -> Option<Self> {
        let (x, y) = point.xy()?;
        let mut limbs = [0u64; 2 * FQ_LIMBS];
        limbs[..FQ_LIMBS].copy_from_slice(&x.0 .0);
        limbs[FQ_LIMBS..].copy_from_slice(&y.0 .0);
        Some(Self(limbs))
    }

    /// The point these limbs describe.
    pub(crate) fn point(&self) -> G1Affine {
        let mut x = [0u64; FQ_LIMBS];
        let mut y = [0u64; FQ_LIMBS];
        x.copy_from_slice(&self.0[..FQ_LIMBS]);
        y.copy_from_slice(&self.0[FQ_LIMBS..]);
        G1Affine::new_unchecked(
            ark_bn254::Fq::new_unchecked(BigInt(x)),
            ark_bn254::Fq::new_unchecked(BigInt(y)),
        )
    }
}

/// `entries[index]`, found by reading every entry and keeping the matching
/// one under a mask: neither a branch nor an address depends on `index`.
/// An `index` past the end gives all-zero limbs (callers never pass one).
pub(crate) fn select(entries: &[AffineLimbs], index: u64) -> AffineLimbs {
    let mut out = AffineLimbs::default();
    for (position, entry) in (0u64..).zip(entries) {
        let hit = position.ct_eq(&index);
        for (o, e) in out.0.iter_mut().zip(entry.0.iter()) {
            o.conditional_assign(e, hit);
        }
        trace::record(trace::Op::EntryRead);
    }
    out
}

/// Bit `i` of `k` as a [`Choice`].
pub(crate) fn bit(k: &BigInt<4>, i: u32) -> Choice {
    Choice::from(((k.0[(i / 64) as usize] >> (i % 64)) & 1) as u8)
}

/// Swaps `a` and `b` when `swap` is set, limb by limb under a mask.
fn conditional_swap(a: &mut G1Projective, b: &mut G1Projective, swap: Choice) {
    for (fa, fb) in [
        (&mut a.x, &mut b.x),
        (&mut a.y, &mut b.y),
        (&mut a.z, &mut b.z),
    ] {
        for (la, lb) in fa.0 .0.iter_mut().zip(fb.0 .0.iter_mut()) {
            u64::conditional_swap(la, lb, swap);
        }
    }
}

/// a + b on 256-bit integers, modulo 2^256 (callers keep sums below it).
fn add_limbs(a: &BigInt<4>, b: &BigInt<4>) -> BigInt<4> {
    let mut out = [0u64; 4];
    let mut carry = 0u128;
    for (o, (&x, &y)) in out.iter_mut().zip(a.0.iter().zip(b.0.iter())) {
        let sum = u128::from(x) + u128::from(y) + carry;
        *o = sum as u64;
        carry = sum >> 64;
    }
    BigInt(out)
}

/// Bits of the scalar field's modulus r (254 for BN254).
pub(crate) const SCALAR_BITS: u32 = Fr::MODULUS_BIT_SIZE;

/// k + r or k + 2r, whichever lies in [2^SCALAR_BITS, 2^(SCALAR_BITS+1)):
/// the same multiple of any point of order r as k, with its top bit always at
/// the same place, so a ladder over it runs a fixed number of steps and never
/// starts from the identity. (For k < r: k + r < 2r < 2^(SCALAR_BITS+1), and
/// if k + r is below 2^SCALAR_BITS then k + 2r ≥ 2r > 2^SCALAR_BITS.)
fn fixed_length(k: &BigInt<4>) -> Zeroizing<BigInt<4>> {
    let once = Zeroizing::new(add_limbs(k, &Fr::MODULUS));
    let twice = Zeroizing::new(add_limbs(&once, &Fr::MODULUS));
    let once_is_long = bit(&once, SCALAR_BITS);
    let mut out = Zeroizing::new(BigInt([0u64; 4]));
    for (o, (&a, &b)) in out.0.iter_mut().zip(twice.0.iter().zip(once.0.iter())) {
        *o = u64::conditional_select(&a, &b, once_is_long);
    }
    out
}

/// k·P for a secret k, by a Montgomery ladder over the bits of k + r (or
/// k + 2r): SCALAR_BITS steps of one addition, one doubling and two masked
/// swaps each, whatever k is.
///
/// The ladder keeps R0 = a·P and R1 = (a + 1)·P for a prefix a of the
/// lengthened scalar k'. Every prefix but the last two is in [1, 2^253), so
/// a, a + 1 and 2a + 1 are nonzero mod r and arkworks' group law meets no
/// exceptional case (an identity input, or R0 = ±R1); the last two prefixes
/// reach one only for k ∈ {0, 1, −2, −1} (k' ∈ [2r − 2, 2r + 1]), and any k
/// does for P the identity. arkworks computes those correctly, just not in
/// constant time; the tests check this list.
pub(crate) fn ladder_mul(point: &G1Projective, k: &Fr) -> G1Projective {
    let canonical = Zeroizing::new(k.into_bigint());
    let long = fixed_length(&canonical);
    let mut r0 = *point;
    let mut r1 = point.double();
    for i in (0..SCALAR_BITS).rev() {
        let b = bit(&long, i);
        conditional_swap(&mut r0, &mut r1, b);
        trace::check_addition(&r1, &r0);
        r1 += &r0;
        r0.double_in_place();
        conditional_swap(&mut r0, &mut r1, b);
        trace::record(trace::Op::LadderStep);
    }
    r0
}

/// Counts of the operations above, for tests that check they do not depend
/// on the scalar; compiled to nothing outside tests.
pub(crate) mod trace {
    /// An operation worth counting.
    #[cfg_attr(not(test), allow(dead_code))]
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Op {
        /// One table entry read by a masked scan.
        EntryRead,
        /// One point addition of a fixed-base multiplication.
        TableAddition,
        /// One step (addition, doubling, two swaps) of the ladder.
        LadderStep,
        /// An addition whose inputs take an exceptional branch of arkworks'
        /// group law (an input is the identity, or they are equal or opposite).
        Exceptional,
    }

    #[cfg(test)]
    thread_local! {
        static COUNTS: std::cell::Cell<[usize; 4]> = const { std::cell::Cell::new([0; 4]) };
    }

    /// Counts an [`Op::Exceptional`] when `a + b` is an exceptional case of
    /// the group law (in tests; the check itself is not constant time).
    #[inline(always)]
    pub(crate) fn check_addition(a: &super::G1Projective, b: &super::G1Projective) {
        #[cfg(test)]
        {
            use ark_ff::Zero;
            if a.is_zero() || b.is_zero() || a == b || *a == -*b {
                record(Op::Exceptional);
            }
        }
        #[cfg(not(test))]
        let _ = (a, b);
    }

    /// Counts `op` (in tests).
    #[inline(always)]
    pub(crate) fn record(op: Op) {
        #[cfg(test)]
        COUNTS.with(|c| {
            let mut counts = c.get();
            counts[op as usize] += 1;
            c.set(counts);
        });
        #[cfg(not(test))]
        let _ = op;
    }

    /// The counts since the last call, as (entries read, table additions,
    /// ladder steps, exceptional additions).
    #[cfg(test)]
    pub(crate) fn take() -> [usize; 4] {
        COUNTS.with(|c| c.replace([0; 4]))
    }
}

/// The scalars every secret-scalar test runs: 0, 1, 2, −1 (= r − 1, the
/// largest), −2, powers of two, runs of 4-bit digits 15 below a digit 0 (at
/// the bottom and at the top of the scalar), and random ones.
#[cfg(test)]
pub(crate) fn test_scalars(random: usize, seed: u64) -> Vec<Fr> {
    use ark_ff::Field;
    use ark_std::UniformRand;
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut out = vec![
        Fr::from(0u64),
        Fr::from(1u64),
        Fr::from(2u64),
        -Fr::from(1u64),
        -Fr::from(2u64),
        Fr::from(2u64).pow([253u64]),
        Fr::from(15u64),
        Fr::from(16u64),
        Fr::from(255u64),
        Fr::from(256u64),
        Fr::from(u64::MAX),
        Fr::from(0xffffu64),
        Fr::from(15u64) * Fr::from(2u64).pow([248u64]),
        Fr::from(15u64) * Fr::from(2u64).pow([248u64]) + Fr::from(0xffffu64),
        Fr::from(2u64).pow([252u64]),
        Fr::from(3u64) * Fr::from(2u64).pow([252u64]),
    ];
    out.extend((0..random).map(|_| Fr::rand(&mut rng)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ec::PrimeGroup;
    use ark_ff::{UniformRand, Zero};
    use rand::SeedableRng;

    #[test]
    fn limbs_round_trip_and_selection_picks_the_indexed_entry() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20);
        let points: Vec<G1Affine> = (0..16).map(|_| G1Affine::rand(&mut rng)).collect();
        let limbs: Vec<AffineLimbs> = points.iter().map(|p| AffineLimbs::of(p).unwrap()).collect();
        assert!(AffineLimbs::of(&G1Affine::zero()).is_none());
        for (i, p) in points.iter().enumerate() {
            assert_eq!(limbs[i].point(), *p);
            trace::take();
            assert_eq!(select(&limbs, i as u64).point(), *p);
            assert_eq!(trace::take(), [16, 0, 0, 0], "every entry is read");
        }
        assert_eq!(select(&limbs, 16), AffineLimbs::default());
    }

    #[test]
    fn lengthened_scalars_keep_their_value_and_top_bit() {
        let r = Fr::MODULUS;
        for k in test_scalars(20, 21) {
            let canonical = k.into_bigint();
            let long = fixed_length(&canonical);
            assert_eq!(bit(&long, SCALAR_BITS).unwrap_u8(), 1, "{k}");
            assert_eq!(long.0[3] >> (SCALAR_BITS + 1 - 192), 0, "{k}");
            let is_once = *long == add_limbs(&canonical, &r);
            let is_twice = *long == add_limbs(&add_limbs(&canonical, &r), &r);
            assert!(is_once || is_twice, "{k}");
        }
    }

    #[test]
    fn ladder_matches_arkworks_with_a_fixed_step_count() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
        let bases = [
            G1Projective::generator(),
            G1Projective::rand(&mut rng),
            G1Projective::zero(),
        ];
        let special = [
            Fr::from(0u64),
            Fr::from(1u64),
            -Fr::from(2u64),
            -Fr::from(1u64),
        ];
        for base in bases {
            for k in test_scalars(8, 23) {
                trace::take();
                assert_eq!(ladder_mul(&base, &k), base * k, "{k}·{base}");
                let [reads, additions, steps, exceptional] = trace::take();
                assert_eq!(
                    [reads, additions, steps],
                    [0, 0, SCALAR_BITS as usize],
                    "the step count does not depend on {k}"
                );
                let expected = base.is_zero() || special.contains(&k);
                assert_eq!(exceptional > 0, expected, "exceptional additions for {k}");
            }
        }
    }
}
