//! Multi-scalar multiplication with batched affine additions, for the
//! parties' MSMs, whose scalars are shares of the witness: uniformly
//! random and full-size.
//!
//! Pippenger's bucket method with signed window digits, as ark-ec's, but
//! the points go into their buckets in affine coordinates, a batch of
//! additions at a time with one field inversion per batch (Montgomery's
//! trick): an affine addition then costs about 6 field multiplications,
//! against 11 for the mixed Jacobian addition. A bucket already being added
//! to in the current batch defers the point to the next pass; when a pass
//! settles less than half of what it was given (a few buckets take most
//! points: the top window, or small scalars), the rest is added in Jacobian
//! coordinates.
//!
//! Like ark-ec's, it is variable-time: the buckets a scalar's digits pick,
//! hence the memory touched and the additions deferred, depend on the
//! scalar (see SECURITY.md on side channels).

use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::{AdditiveGroup, AffineRepr, CurveGroup};
use ark_ff::{batch_inversion, BigInteger, Field, PrimeField, Zero};

/// Additions gathered before their denominators are inverted at once.
const BATCH: usize = 512;

/// The groups [`msm`] serves: arkworks' short Weierstrass curves in
/// Jacobian coordinates, as every pairing-friendly curve's G1 and G2 are.
pub trait BatchedMsm: CurveGroup {
    /// [`msm`] in this group.
    fn batched_msm(bases: &[Self::Affine], scalars: &[Self::ScalarField]) -> Self;
}

impl<P: SWCurveConfig> BatchedMsm for Projective<P> {
    fn batched_msm(bases: &[Affine<P>], scalars: &[P::ScalarField]) -> Self {
        msm(bases, scalars)
    }
}

/// `Σ scalars[i]·bases[i]` over the pairs both slices have.
///
/// ```
/// use ark_bn254::{Fr, G1Affine, G1Projective};
/// use ark_ec::{AffineRepr, CurveGroup};
///
/// let g = G1Affine::generator();
/// let bases = [g, (g * Fr::from(2u64)).into_affine()];
/// let sum = he_cosnark::msm::msm(&bases, &[Fr::from(3u64), Fr::from(5u64)]);
/// assert_eq!(sum, g * Fr::from(13u64));
/// ```
pub fn msm<P: SWCurveConfig>(bases: &[Affine<P>], scalars: &[P::ScalarField]) -> Projective<P> {
    // Reserved whole: growing it would copy it into fresh pages.
    let mut terms = Vec::with_capacity(bases.len().min(scalars.len()));
    terms.extend(
        bases
            .iter()
            .zip(scalars)
            .filter(|(base, scalar)| !base.is_zero() && !scalar.is_zero())
            .map(|(base, scalar)| (*base, scalar.into_bigint())),
    );
    if terms.is_empty() {
        return Projective::zero();
    }
    // One bit more than the modulus, so that the last carry is zero.
    let bits = P::ScalarField::MODULUS_BIT_SIZE as usize + 1;
    let window = window_bits(terms.len(), bits);
    let windows = bits.div_ceil(window);
    let digits = signed_digits(&terms, window, windows);
    let mut total = Projective::<P>::zero();
    for w in (0..windows).rev() {
        for _ in 0..window {
            total.double_in_place();
        }
        let column = &digits[w * terms.len()..(w + 1) * terms.len()];
        total += window_sum(&terms, column, window);
    }
    total
}

/// The window width that minimizes the work for `n` terms of `bits`-bit
/// scalars: per window, n affine additions (about 6 multiplications) and,
/// per bucket, two Jacobian additions of the running sums (about 27).
fn window_bits(n: usize, bits: usize) -> usize {
    let cost = |c: usize| bits.div_ceil(c) * (6 * n + 27 * (1 << (c - 1)));
    (2..=20).min_by_key(|&c| cost(c)).unwrap_or(8)
}

/// Every term's scalar as `windows` digits in (−2^(c−1), 2^(c−1)], c =
/// `window`, window-major: digit w of term i at `w·n + i`. The windows
/// must cover one bit more than the scalars, so that the last carry is
/// zero.
fn signed_digits<B: BigInteger, A>(terms: &[(A, B)], window: usize, windows: usize) -> Vec<i32> {
    let radix = 1i64 << window;
    let half = radix / 2;
    // Filled by pushing, window after window: a zeroed allocation
    // (`vec![0; len]`) of a freed block makes jemalloc (the `cosnark`
    // binary's) hand back fresh pages, each faulted in again.
    let mut digits = Vec::with_capacity(windows * terms.len());
    let mut carries = vec![0u8; terms.len()];
    for w in 0..windows {
        for ((_, scalar), carry) in terms.iter().zip(&mut carries) {
            let raw = bits_at(scalar.as_ref(), w * window, window) as i64 + i64::from(*carry);
            let (digit, next) = if raw > half {
                (raw - radix, 1)
            } else {
                (raw, 0)
            };
            digits.push(digit as i32);
            *carry = next;
        }
    }
    debug_assert!(carries.iter().all(|&carry| carry == 0));
    digits
}

/// `width` (< 64) bits of `limbs` from bit `start` (zeros past the end).
fn bits_at(limbs: &[u64], start: usize, width: usize) -> u64 {
    let (limb, shift) = (start / 64, start % 64);
    let Some(&low) = limbs.get(limb) else {
        return 0;
    };
    let mut bits = low >> shift;
    if shift + width > 64 {
        if let Some(&high) = limbs.get(limb + 1) {
            bits |= high << (64 - shift);
        }
    }
    bits & ((1u64 << width) - 1)
}

/// Σ digit_i·base_i for one window: each base into bucket |digit| (negated
/// for a negative digit), then Σ k·bucket_k by running sums.
fn window_sum<P: SWCurveConfig, B>(
    terms: &[(Affine<P>, B)],
    digits: &[i32],
    window: usize,
) -> Projective<P> {
    let mut buckets = Buckets::new(1 << (window - 1));
    let items = terms
        .iter()
        .zip(digits)
        .filter(|(_, &d)| d != 0)
        .map(|((base, _), &d)| {
            let bucket = d.unsigned_abs() as usize - 1;
            (bucket, if d < 0 { -*base } else { *base })
        });
    buckets.add_all(items);
    let mut running = Projective::<P>::zero();
    let mut sum = Projective::<P>::zero();
    for (bucket, rest) in buckets.points.iter().zip(&buckets.rest).rev() {
        running += bucket;
        running += rest;
        sum += running;
    }
    sum
}

/// Buckets that points are added to in batches of affine additions.
struct Buckets<P: SWCurveConfig> {
    points: Vec<Affine<P>>,
    /// What was added in Jacobian coordinates: each bucket holds
    /// `points[k] + rest[k]`.
    rest: Vec<Projective<P>>,
    /// Whether the bucket has an addition in the current batch.
    busy: Vec<bool>,
    /// The batch: bucket and point to add to it.
    batch: Vec<(usize, Affine<P>)>,
    /// The batch's denominators x₂ − x₁, inverted in place.
    inverses: Vec<P::BaseField>,
}

impl<P: SWCurveConfig> Buckets<P> {
    fn new(count: usize) -> Self {
        Self {
            points: vec![Affine::zero(); count],
            rest: vec![Projective::zero(); count],
            busy: vec![false; count],
            batch: Vec::with_capacity(BATCH),
            inverses: Vec::with_capacity(BATCH),
        }
    }

    /// Adds every `(bucket, point)`; points for a bucket already in the
    /// batch wait for the next pass, as long as passes settle at least half
    /// of what they are given.
    fn add_all(&mut self, items: impl Iterator<Item = (usize, Affine<P>)>) {
        let mut deferred = Vec::new();
        for (bucket, point) in items {
            self.add(bucket, point, &mut deferred);
        }
        self.flush();
        while !deferred.is_empty() {
            let given = deferred.len();
            for (bucket, point) in std::mem::take(&mut deferred) {
                self.add(bucket, point, &mut deferred);
            }
            self.flush();
            if 2 * deferred.len() > given {
                break;
            }
        }
        for (bucket, point) in deferred {
            self.rest[bucket] += point;
        }
    }

    fn add(&mut self, bucket: usize, point: Affine<P>, deferred: &mut Vec<(usize, Affine<P>)>) {
        if self.busy[bucket] {
            deferred.push((bucket, point));
            return;
        }
        let current = self.points[bucket];
        if current.is_zero() {
            self.points[bucket] = point;
        } else if current.x == point.x {
            // The same point (double it) or its negation (the sum is zero):
            // rare enough to leave the batch for.
            self.points[bucket] = if current.y == point.y {
                current.into_group().double().into_affine()
            } else {
                Affine::zero()
            };
        } else {
            self.busy[bucket] = true;
            self.batch.push((bucket, point));
            self.inverses.push(point.x - current.x);
            if self.batch.len() == BATCH {
                self.flush();
            }
        }
    }

    /// Completes the batch's additions: λ = (y₂ − y₁)/(x₂ − x₁),
    /// x₃ = λ² − x₁ − x₂, y₃ = λ(x₁ − x₃) − y₁.
    fn flush(&mut self) {
        batch_inversion(&mut self.inverses);
        for (&(bucket, point), inverse) in self.batch.iter().zip(&self.inverses) {
            let current = self.points[bucket];
            let lambda = (point.y - current.y) * inverse;
            let x = lambda.square() - current.x - point.x;
            let y = lambda * (current.x - x) - current.y;
            self.points[bucket] = Affine::new_unchecked(x, y);
            self.busy[bucket] = false;
        }
        self.batch.clear();
        self.inverses.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::{Fr, G1Affine, G1Projective, G2Affine, G2Projective};
    use ark_ec::{PrimeGroup, VariableBaseMSM};
    use ark_ff::UniformRand;
    use ark_std::rand::{rngs::StdRng, Rng, SeedableRng};
    use proptest::prelude::*;

    /// `n` random bases (some zero, some repeated or negated, so that the
    /// doubling and cancelling paths run) and scalars (some zero, one or
    /// small).
    fn terms<G: CurveGroup>(n: usize, seed: u64) -> (Vec<G::Affine>, Vec<G::ScalarField>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut bases: Vec<G::Affine> = (0..n).map(|_| G::rand(&mut rng).into_affine()).collect();
        for i in 0..n {
            match rng.gen_range(0..8) {
                0 => bases[i] = G::Affine::zero(),
                1 if i > 0 => bases[i] = bases[rng.gen_range(0..i)],
                2 if i > 0 => bases[i] = -bases[rng.gen_range(0..i)],
                _ => {}
            }
        }
        let scalars = (0..n)
            .map(|_| match rng.gen_range(0..6) {
                0 => G::ScalarField::ZERO,
                1 => G::ScalarField::ONE,
                2 => -G::ScalarField::ONE,
                3 => G::ScalarField::from(rng.gen::<u16>()),
                _ => G::ScalarField::rand(&mut rng),
            })
            .collect();
        (bases, scalars)
    }

    #[test]
    fn sums_like_ark_on_g1_and_g2_at_sizes_that_use_several_batches() {
        for (n, seed) in [(3000, 1), (5000, 2)] {
            let (bases, scalars) = terms::<G1Projective>(n, seed);
            assert_eq!(
                msm(&bases, &scalars),
                G1Projective::msm_unchecked(&bases, &scalars)
            );
            let (bases, scalars) = terms::<G2Projective>(n / 4, seed);
            assert_eq!(
                msm(&bases, &scalars),
                G2Projective::msm_unchecked(&bases, &scalars)
            );
        }
    }

    #[test]
    fn one_bucket_hit_many_times_and_the_extreme_scalars() {
        // Every scalar alike: one bucket per window takes every point, the
        // rest deferred pass after pass.
        let (bases, _) = terms::<G1Projective>(700, 3);
        for scalar in [
            Fr::ONE,
            -Fr::ONE,
            Fr::from(2u64).pow([253]),
            -Fr::from(7u64),
        ] {
            let scalars = vec![scalar; bases.len()];
            assert_eq!(
                msm(&bases, &scalars),
                G1Projective::msm_unchecked(&bases, &scalars)
            );
        }
        // A point and its negation cancel; the same point twice doubles.
        let g = G1Affine::generator();
        assert_eq!(msm(&[g, -g], &[Fr::ONE, Fr::ONE]), G1Projective::zero());
        assert_eq!(
            msm(&[g, g], &[Fr::ONE, Fr::ONE]),
            G1Projective::generator().double()
        );
        assert_eq!(msm::<ark_bn254::g2::Config>(&[], &[]), G2Projective::zero());
        assert_eq!(msm(&[G2Affine::zero()], &[Fr::ONE]), G2Projective::zero());
    }

    proptest! {
        #[test]
        fn sums_like_ark(n in 0usize..200, seed in any::<u64>(), extra in 0usize..3) {
            let (bases, mut scalars) = terms::<G1Projective>(n, seed);
            // Unequal lengths: only the pairs both have count.
            scalars.extend((0..extra).map(|_| Fr::ONE));
            let pairs = bases.len().min(scalars.len());
            let expected = G1Projective::msm_unchecked(&bases[..pairs], &scalars[..pairs]);
            prop_assert_eq!(msm(&bases, &scalars), expected);
        }

        #[test]
        fn digits_recompose_the_scalar(seed in any::<u64>(), window in 2usize..20) {
            let scalar = Fr::rand(&mut StdRng::seed_from_u64(seed)).into_bigint();
            let windows = (Fr::MODULUS_BIT_SIZE as usize + 1).div_ceil(window);
            let digits = signed_digits(&[((), scalar)], window, windows);
            let half = 1i32 << (window - 1);
            prop_assert!(digits.iter().all(|&d| -half < d && d <= half));
            let recomposed = digits.iter().rev().fold(Fr::ZERO, |acc, &d| {
                acc * Fr::from(1u64 << window) + Fr::from(i64::from(d))
            });
            prop_assert_eq!(recomposed.into_bigint(), scalar);
        }
    }
}
