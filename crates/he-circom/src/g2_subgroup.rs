//! Membership in BN254's prime-order G2 subgroup at half the cost of the
//! usual test, for a zkey's tens of thousands of G2 points.
//!
//! BN254's twist E'(Fp2) has r·h points, where h = 10069 · 5864401 ·
//! 1875725156269 · h₄ (h₄ a 178-bit prime) is squarefree and prime to r:
//! the group is the direct sum of cyclic parts of prime order. ψ, the
//! untwist-Frobenius-twist endomorphism, acts on G2 as multiplication by
//! p ≡ 6x² (mod r), x the curve's seed. The homomorphism
//!
//! ```text
//! φ(Q) = [x+1]Q + ψ([x]Q) + ψ²([x]Q) − ψ³([2x]Q)
//! ```
//!
//! (Dai, Lin, Zhao and Zhou, "Fast subgroup membership testings for G1, G2
//! and GT on pairing-friendly curves", ePrint 2022/348) therefore vanishes
//! on G2, and its kernel is G2 exactly when it vanishes on no point of the
//! other prime orders: the tests below check one point of each of the four.
//! It costs one scalar multiplication by the 63-bit x, where the test
//! ψ(Q) = [6x²]Q (ark-bn254's) multiplies by a 127-bit scalar.

use std::sync::LazyLock;

use ark_bn254::{Fq, Fq2, G2Affine, G2Projective};
use ark_ec::AffineRepr;
use ark_ff::{AdditiveGroup, Field, PrimeField};
use num_bigint::BigUint;

/// BN254's seed x: p = 36x⁴ + 36x³ + 24x² + 6x + 1 and
/// r = 36x⁴ + 36x³ + 18x² + 6x + 1.
const SEED: u64 = 4_965_661_367_192_848_881;

/// ψ's coefficients ξ^((p−1)/3) and ξ^((p−1)/2), where ξ = 9 + u is the
/// non-residue of the twist.
static PSI_COEFFICIENTS: LazyLock<(Fq2, Fq2)> = LazyLock::new(|| {
    let xi = Fq2::new(Fq::from(9u64), Fq::ONE);
    let p_minus_one = BigUint::from(Fq::MODULUS) - 1u32;
    let power = |exponent: BigUint| xi.pow(exponent.to_u64_digits());
    (power(&p_minus_one / 3u32), power(p_minus_one / 2u32))
});

/// ψ(x, y) = (x̄·ξ^((p−1)/3), ȳ·ξ^((p−1)/2)), the bar being Fq2's
/// conjugation (the p-power Frobenius), on Jacobian coordinates: it maps
/// (X : Y : Z) to (X̄·c₀ : Ȳ·c₁ : Z̄).
fn psi(q: &G2Projective) -> G2Projective {
    let (cx, cy) = *PSI_COEFFICIENTS;
    let conjugate = |mut a: Fq2| {
        a.frobenius_map_in_place(1);
        a
    };
    let mut image = *q;
    image.x = conjugate(q.x) * cx;
    image.y = conjugate(q.y) * cy;
    image.z = conjugate(q.z);
    image
}

/// Whether `point`, a point of the twist curve, lies in the prime-order
/// subgroup G2 (a point off the curve gives a meaningless answer: check
/// that first).
pub(crate) fn contains(point: &G2Affine) -> bool {
    let x_q = point.mul_bigint([SEED]);
    let psi_x_q = psi(&x_q);
    let left = x_q + point + psi_x_q + psi(&psi_x_q);
    let right = psi(&psi(&psi(&x_q.double())));
    left == right
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ec::{CurveConfig, CurveGroup, PrimeGroup};
    use ark_ff::{UniformRand, Zero};
    use ark_std::rand::SeedableRng;
    use proptest::prelude::*;

    /// The cofactor h of G2 in E'(Fp2), from ark-bn254.
    fn cofactor() -> BigUint {
        let limbs: Vec<u32> = <ark_bn254::g2::Config as CurveConfig>::COFACTOR
            .iter()
            .flat_map(|&limb| [limb as u32, (limb >> 32) as u32])
            .collect();
        BigUint::from_slice(&limbs)
    }

    /// The prime factors of h.
    fn cofactor_primes() -> [BigUint; 4] {
        let h4 = "197620364512881247228717050342013327560683201906968909";
        [
            BigUint::from(10069u32),
            BigUint::from(5_864_401u32),
            BigUint::from(1_875_725_156_269u64),
            h4.parse().unwrap(),
        ]
    }

    /// Miller–Rabin with 32 fixed bases: an error below 2^-64.
    fn is_probable_prime(n: &BigUint) -> bool {
        let one = BigUint::from(1u32);
        let n_minus_one = n - &one;
        let twos = n_minus_one.trailing_zeros().unwrap();
        let odd = &n_minus_one >> twos;
        (2u32..).take(32).all(|base| {
            let base = BigUint::from(base) % n;
            if base <= one {
                return true;
            }
            let mut y = base.modpow(&odd, n);
            if y == one || y == n_minus_one {
                return true;
            }
            (1..twos).any(|_| {
                y = y.modpow(&BigUint::from(2u32), n);
                y == n_minus_one
            })
        })
    }

    /// A point of E'(Fp2) from an x of `seed`, in or outside G2.
    fn curve_point(seed: u64) -> G2Affine {
        let mut rng = ark_std::rand::rngs::StdRng::seed_from_u64(seed);
        loop {
            let x = Fq2::rand(&mut rng);
            if let Some(p) = G2Affine::get_point_from_x_unchecked(x, seed.is_multiple_of(2)) {
                return p;
            }
        }
    }

    #[test]
    fn the_cofactor_is_squarefree_and_prime_to_r() {
        let primes = cofactor_primes();
        assert_eq!(primes.iter().product::<BigUint>(), cofactor());
        let r = BigUint::from(Fr::MODULUS);
        for (i, prime) in primes.iter().enumerate() {
            assert!(is_probable_prime(prime), "{prime}");
            assert_ne!(prime, &r);
            assert!(primes[..i].iter().all(|earlier| earlier != prime));
        }
    }

    #[test]
    fn psi_is_multiplication_by_p_on_g2() {
        let g = G2Projective::generator();
        let p_mod_r = Fr::from(BigUint::from(Fq::MODULUS));
        assert_eq!(psi(&g), g * p_mod_r);
        let x = Fr::from(SEED);
        assert_eq!(p_mod_r, Fr::from(6u64) * x * x);
    }

    #[test]
    fn no_point_of_another_prime_order_passes() {
        let order = BigUint::from(Fr::MODULUS) * cofactor();
        for prime in cofactor_primes() {
            // A point of order `prime`: [#E'/prime]P for some point P.
            let torsion = (0..)
                .map(|seed| curve_point(seed).mul_bigint((&order / &prime).to_u64_digits()))
                .find(|t| !t.is_zero())
                .unwrap();
            assert!(torsion.mul_bigint(prime.to_u64_digits()).is_zero());
            let torsion = torsion.into_affine();
            assert!(torsion.is_on_curve());
            assert!(!contains(&torsion), "order {prime}");
            assert!(!torsion.is_in_correct_subgroup_assuming_on_curve());
            let shifted = (torsion + G2Affine::generator()).into_affine();
            assert!(!contains(&shifted), "order {prime}·r");
        }
    }

    #[test]
    fn the_identity_and_the_generator_pass() {
        assert!(contains(&G2Affine::zero()));
        assert!(contains(&G2Affine::generator()));
    }

    proptest! {
        #[test]
        fn agrees_with_the_slow_test(seed in any::<u64>(), scalar in any::<u64>()) {
            let point = curve_point(seed);
            prop_assert_eq!(contains(&point), point.is_in_correct_subgroup_assuming_on_curve());
            let cleared = point.clear_cofactor();
            prop_assert!(contains(&cleared));
            let multiple = (G2Affine::generator() * Fr::from(scalar)).into_affine();
            prop_assert!(contains(&multiple));
        }
    }
}
