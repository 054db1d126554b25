//! Probable primes: trial division by small primes, then Miller–Rabin with random bases.

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};
use rand::RngCore;
use zeroize::Zeroizing;

use crate::error::{Error, Result};

/// Overwrites the limbs of `x` in place, leaving a non-secret value of the
/// same length (1 in its top limb, zeros below).
///
/// num-bigint has no zeroization. Assigning limbs of the same count reuses the
/// allocation, and a nonzero top limb keeps normalization from dropping (and
/// so reallocating) any of them; the final `black_box` keeps the compiler from
/// discarding the stores as dead. Capacity beyond the limbs in use, and
/// buffers num-bigint freed earlier, are out of reach: this is best effort.
pub(crate) fn wipe(x: &mut BigUint) {
    let len = x.iter_u32_digits().len();
    if len == 0 {
        return;
    }
    let mut filler = vec![0u32; len];
    filler[len - 1] = 1;
    x.assign_from_slice(&filler);
    std::hint::black_box(&*x);
}

/// A secret integer (a prime factor, a value derived from one) that is wiped
/// with [`wipe`] when dropped.
pub(crate) struct SecretUint(pub(crate) BigUint);

impl Drop for SecretUint {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

impl std::ops::Deref for SecretUint {
    type Target = BigUint;
    fn deref(&self) -> &BigUint {
        &self.0
    }
}

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
    let mut buf = Zeroizing::new(vec![0u8; bytes]);
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
/// passes with probability at most 4^−rounds. Values derived from `n` (n − 1,
/// its odd part, the powers) are wiped before returning, as `n` may be a
/// secret prime; num-bigint's own temporaries are not.
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
    let n_minus_1 = SecretUint(n - 1u32);
    let s = n_minus_1.trailing_zeros().unwrap_or(0);
    let d = SecretUint(&*n_minus_1 >> s);
    let range = SecretUint(n - 3u32); // bases in [2, n − 2]
    'witness: for _ in 0..rounds {
        let a = random_below(&range, rng) + 2u32;
        let mut x = SecretUint(a.modpow(&d, n));
        if x.is_one() || *x == *n_minus_1 {
            continue;
        }
        for _ in 1..s {
            x = SecretUint((&*x * &*x) % n);
            if *x == *n_minus_1 {
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

/// The Jacobi symbol (a / n) for odd n > 0, as −1, 0 or 1. Its working
/// values (remainders of a secret n) are wiped as they are replaced; the
/// number of steps depends on a and n.
pub(crate) fn jacobi(a: &BigUint, n: &BigUint) -> i8 {
    let mut a = SecretUint(a % n);
    let mut n = SecretUint(n.clone());
    let mut sign = 1i8;
    while !a.is_zero() {
        let twos = a.trailing_zeros().unwrap_or(0);
        a = SecretUint(&*a >> twos);
        let n_mod_8 = n.iter_u32_digits().next().unwrap_or(0) & 7;
        if twos % 2 == 1 && (n_mod_8 == 3 || n_mod_8 == 5) {
            sign = -sign;
        }
        let a_mod_4 = a.iter_u32_digits().next().unwrap_or(0) & 3;
        if a_mod_4 == 3 && n_mod_8 & 3 == 3 {
            sign = -sign;
        }
        std::mem::swap(&mut a, &mut n);
        a = SecretUint(a.mod_floor(&n));
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
        let is_prime = |n: u64| {
            n >= 2
                && (2..)
                    .take_while(|d| d * d <= n)
                    .all(|d| !n.is_multiple_of(d))
        };
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
    fn wiping_overwrites_every_limb_in_place() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        for bits in [1u64, 31, 32, 33, 64, 65, 255, 1536] {
            let mut x =
                random_below(&(BigUint::one() << bits), &mut rng) | (BigUint::one() << (bits - 1));
            let limbs = x.iter_u64_digits().len();
            wipe(&mut x);
            let after: Vec<u64> = x.iter_u64_digits().collect();
            assert_eq!(after.len(), limbs, "{bits} bits: the limb count is kept");
            assert!(after[..limbs - 1].iter().all(|&d| d == 0), "{bits} bits");
            assert_ne!(after[limbs - 1], 0);
        }
        let mut zero = BigUint::zero();
        wipe(&mut zero);
        assert!(zero.is_zero());
        // The guard wipes what it holds and is transparent until then.
        let guarded = SecretUint(BigUint::from(12345u32));
        assert_eq!(*guarded, BigUint::from(12345u32));
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
