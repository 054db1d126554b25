//! Probable primes: trial division by small primes, then Miller–Rabin with random bases.

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};
use rand::RngCore;

use crate::error::{Error, Result};

/// Odd primes below 2048, used to sieve candidates before Miller–Rabin.
fn small_primes() -> Vec<u32> {
    (3u32..2048)
        .step_by(2)
        .filter(|&n| {
            (3..)
                .step_by(2)
                .take_while(|d| d * d <= n)
                .all(|d| n % d != 0)
        })
        .collect()
}

/// A uniformly random integer in [0, bound) (bound > 0), by rejection.
pub(crate) fn random_below(bound: &BigUint, rng: &mut (impl RngCore + ?Sized)) -> BigUint {
    let bits = bound.bits();
    let bytes = bits.div_ceil(8) as usize;
    let excess = (bytes as u64) * 8 - bits;
    let mut buf = vec![0u8; bytes];
    loop {
        rng.fill_bytes(&mut buf);
        if let Some(top) = buf.last_mut() {
            *top &= 0xffu8 >> excess;
        }
        let candidate = BigUint::from_bytes_le(&buf);
        if &candidate < bound {
            return candidate;
        }
    }
}

/// Miller–Rabin with `rounds` random bases (plus trial division): a composite
/// passes with probability at most 4^−rounds.
pub fn is_probable_prime(n: &BigUint, rounds: usize, rng: &mut (impl RngCore + ?Sized)) -> bool {
    let two = BigUint::from(2u32);
    if n < &two {
        return false;
    }
    for p in std::iter::once(2u32).chain(small_primes()) {
        if n == &BigUint::from(p) {
            return true;
        }
        if (n % p).is_zero() {
            return false;
        }
    }
    let n_minus_1 = n - 1u32;
    let s = n_minus_1.trailing_zeros().unwrap_or(0);
    let d = &n_minus_1 >> s;
    let range = n - 3u32; // bases in [2, n − 2]
    'witness: for _ in 0..rounds {
        let a = random_below(&range, rng) + 2u32;
        let mut x = a.modpow(&d, n);
        if x.is_one() || x == n_minus_1 {
            continue;
        }
        for _ in 1..s {
            x = (&x * &x) % n;
            if x == n_minus_1 {
                continue 'witness;
            }
            if x.is_one() {
                return false;
            }
        }
        return false;
    }
    true
}

/// A random probable prime of exactly `bits` bits with its two top bits set
/// (so a product of two has exactly 2·`bits` bits) and p ≡ 3 (mod 4).
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than 16 bits.
pub fn random_prime(
    bits: u64,
    rounds: usize,
    rng: &mut (impl RngCore + ?Sized),
) -> Result<BigUint> {
    if bits < 16 {
        return Err(Error::InvalidArgument(format!(
            "{bits}-bit primes are too small"
        )));
    }
    let sieve = small_primes();
    let top = (BigUint::one() << (bits - 1)) | (BigUint::one() << (bits - 2));
    loop {
        let mut candidate = random_below(&(BigUint::one() << (bits - 2)), rng) | &top;
        // Make it ≡ 3 (mod 4).
        candidate |= BigUint::from(3u32);
        // Walk candidate, candidate + 4, … keeping residues mod the small primes.
        let mut residues: Vec<u32> = sieve
            .iter()
            .map(|&p| (&candidate % p).iter_u32_digits().next().unwrap_or(0))
            .collect();
        for _ in 0..(20 * bits) {
            if candidate.bits() != bits {
                break;
            }
            let sieved = residues.iter().all(|&r| r != 0);
            if sieved && is_probable_prime(&candidate, rounds, rng) {
                return Ok(candidate);
            }
            candidate += 4u32;
            for (r, &p) in residues.iter_mut().zip(&sieve) {
                *r = (*r + 4) % p;
            }
        }
    }
}

/// The Jacobi symbol (a / n) for odd n > 0, as −1, 0 or 1.
pub(crate) fn jacobi(a: &BigUint, n: &BigUint) -> i8 {
    let mut a = a % n;
    let mut n = n.clone();
    let mut sign = 1i8;
    while !a.is_zero() {
        let twos = a.trailing_zeros().unwrap_or(0);
        a >>= twos;
        let n_mod_8 = n.iter_u32_digits().next().unwrap_or(0) & 7;
        if twos % 2 == 1 && (n_mod_8 == 3 || n_mod_8 == 5) {
            sign = -sign;
        }
        let a_mod_4 = a.iter_u32_digits().next().unwrap_or(0) & 3;
        if a_mod_4 == 3 && n_mod_8 & 3 == 3 {
            sign = -sign;
        }
        std::mem::swap(&mut a, &mut n);
        a = a.mod_floor(&n);
    }
    if n.is_one() {
        sign
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn miller_rabin_agrees_with_trial_division() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let is_prime = |n: u64| n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0);
        for n in (0u64..5000).chain(1_000_000..1_002_000) {
            assert_eq!(
                is_probable_prime(&BigUint::from(n), 8, &mut rng),
                is_prime(n),
                "{n}"
            );
        }
        // Carmichael numbers and a strong pseudoprime to base 2.
        for n in [561u64, 1105, 1729, 2465, 2821, 6601, 8911, 2047, 3215031751] {
            assert!(!is_probable_prime(&BigUint::from(n), 16, &mut rng), "{n}");
        }
        // 2^127 − 1 is prime, 2^128 + 1 is not.
        let m127 = (BigUint::one() << 127u32) - 1u32;
        assert!(is_probable_prime(&m127, 16, &mut rng));
        assert!(!is_probable_prime(
            &((BigUint::one() << 128u32) + 1u32),
            16,
            &mut rng
        ));
    }

    #[test]
    fn random_primes_have_the_asked_shape() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for bits in [16u64, 64, 128] {
            let p = random_prime(bits, 16, &mut rng).unwrap();
            assert_eq!(p.bits(), bits);
            assert_eq!(&p % 4u32, BigUint::from(3u32));
            assert!(p.bit(bits - 2));
            assert!(is_probable_prime(&p, 16, &mut rng));
        }
        assert!(random_prime(8, 4, &mut rng).is_err());
    }

    #[test]
    fn jacobi_matches_euler_for_primes() {
        for p in [3u64, 7, 11, 19, 23, 10007] {
            let pb = BigUint::from(p);
            for a in 0..200u64 {
                let euler = BigUint::from(a).modpow(&BigUint::from((p - 1) / 2), &pb);
                let want = if euler.is_zero() {
                    0
                } else if euler.is_one() {
                    1
                } else {
                    -1
                };
                assert_eq!(jacobi(&BigUint::from(a), &pb), want, "({a}/{p})");
            }
        }
        // Composite modulus: (2/15) = (2/3)(2/5) = (−1)(−1) = 1.
        assert_eq!(jacobi(&BigUint::from(2u32), &BigUint::from(15u32)), 1);
        assert_eq!(jacobi(&BigUint::from(5u32), &BigUint::from(15u32)), 0);
    }
}
