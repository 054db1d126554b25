//! Goldwasser–Micali encryption: bits as quadratic (non-)residues modulo a Blum integer.
//!
//! n = p·q with p ≡ q ≡ 3 (mod 4), so y = n − 1 ≡ −1 is a non-residue modulo
//! both primes with Jacobi symbol +1. Enc(b) = y^b·r² mod n; the product of
//! ciphertexts encrypts the XOR of the bits; a ciphertext decrypts to 0 iff
//! it is a square modulo p (Legendre symbol (c/p) = 1).
//!
//! A 3072-bit modulus gives 128-bit security (factoring, as for RSA-3072).
//!
//! **Side channels.** The arithmetic is num-bigint's, which is not constant
//! time: key generation and decryption (a Jacobi symbol modulo p) take time
//! that depends on the secret factors. Both factors are wiped once key
//! generation is done with them, the secret key wipes its copy of p on drop,
//! and the values derived from p while decrypting are wiped too;
//! num-bigint's internal temporaries are not (it has no zeroization).

use std::fmt;

use num_bigint::BigUint;
use rand::rngs::OsRng;
use rand::{CryptoRng, RngCore};
use zeroize::Zeroizing;

use super::primes::{jacobi, random_below, random_prime, SecretUint};
use super::AdditiveHe;
use crate::error::{Error, Result};

/// Miller–Rabin rounds for key generation: a composite survives with
/// probability at most 4^−40.
const MR_ROUNDS: usize = 40;
/// The modulus size for 128-bit security.
pub const SECURE_MODULUS_BITS: u64 = 3072;

/// The Goldwasser–Micali scheme with a modulus of a given size.
#[derive(Debug, Clone)]
pub struct GoldwasserMicali {
    modulus_bits: u64,
}

/// A GM public key: the Blum integer n (the non-residue is n − 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmPublicKey {
    n: BigUint,
}

/// A GM secret key: the factor p of n, whose limbs are wiped on drop (see the
/// module docs for what else is wiped).
pub struct GmSecretKey {
    p: Zeroizing<Vec<u32>>,
    n: BigUint,
}

/// A GM ciphertext: a residue modulo n.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GmCiphertext(BigUint);

impl GoldwasserMicali {
    /// The scheme with a 3072-bit modulus (128-bit security).
    pub fn new() -> Self {
        Self {
            modulus_bits: SECURE_MODULUS_BITS,
        }
    }

    /// The scheme with a modulus of `modulus_bits` bits, **insecure below
    /// 3072 bits**: for fast tests only.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an odd size or fewer than 64 bits.
    pub fn insecure_with_modulus_bits(modulus_bits: u64) -> Result<Self> {
        if modulus_bits < 64 || modulus_bits % 2 == 1 {
            return Err(Error::InvalidArgument(format!(
                "a GM modulus of {modulus_bits} bits (need an even size ≥ 64)"
            )));
        }
        Ok(Self { modulus_bits })
    }

    /// The modulus size in bits.
    pub fn modulus_bits(&self) -> u64 {
        self.modulus_bits
    }

    /// Generates keys with randomness from `rng` (for reproducible tests; use
    /// [`AdditiveHe::generate_keys`] for the OS CSPRNG).
    ///
    /// # Errors
    /// Never in practice (prime generation always succeeds eventually).
    pub fn generate_keys_with<R: RngCore + CryptoRng>(
        &self,
        rng: &mut R,
    ) -> Result<(GmPublicKey, GmSecretKey)> {
        let half = self.modulus_bits / 2;
        // Both factors are wiped when they go out of scope, on every path.
        let p = SecretUint(random_prime(half, MR_ROUNDS, rng)?);
        let mut q = SecretUint(random_prime(half, MR_ROUNDS, rng)?);
        while *q == *p {
            q = SecretUint(random_prime(half, MR_ROUNDS, rng)?);
        }
        let n = &*p * &*q;
        let sk = GmSecretKey {
            p: Zeroizing::new(p.to_u32_digits()),
            n: n.clone(),
        };
        Ok((GmPublicKey { n }, sk))
    }
}

impl Default for GoldwasserMicali {
    fn default() -> Self {
        Self::new()
    }
}

impl GmPublicKey {
    /// The modulus n.
    pub fn modulus(&self) -> &BigUint {
        &self.n
    }
}

impl AdditiveHe for GoldwasserMicali {
    type PublicKey = GmPublicKey;
    type SecretKey = GmSecretKey;
    type Ciphertext = GmCiphertext;

    fn name(&self) -> String {
        format!("Goldwasser-Micali ({}-bit n)", self.modulus_bits)
    }

    fn generate_keys(&self) -> Result<(GmPublicKey, GmSecretKey)> {
        self.generate_keys_with(&mut OsRng)
    }

    fn encrypt<R: RngCore + CryptoRng>(
        &self,
        pk: &GmPublicKey,
        bit: bool,
        rng: &mut R,
    ) -> Result<GmCiphertext> {
        let n = &pk.n;
        // r uniform in [1, n); the chance of gcd(r, n) > 1 is negligible.
        let r = random_below(&(n - 1u32), rng) + 1u32;
        let square = (&r * &r) % n;
        Ok(GmCiphertext(if bit { n - square } else { square }))
    }

    fn add(&self, pk: &GmPublicKey, a: &GmCiphertext, b: &GmCiphertext) -> Result<GmCiphertext> {
        if a.0 >= pk.n || b.0 >= pk.n {
            return Err(Error::KeyMismatch);
        }
        Ok(GmCiphertext((&a.0 * &b.0) % &pk.n))
    }

    fn decrypt_parity(&self, sk: &GmSecretKey, c: &GmCiphertext) -> Result<bool> {
        if c.0 >= sk.n {
            return Err(Error::KeyMismatch);
        }
        let p = SecretUint(BigUint::from_slice(&sk.p));
        Ok(jacobi(&c.0, &p) != 1)
    }

    fn max_additions(&self) -> u64 {
        u64::MAX
    }
}

impl fmt::Debug for GmSecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GmSecretKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn xor_by_multiplication() {
        let scheme = GoldwasserMicali::insecure_with_modulus_bits(256).unwrap();
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(13);
        let (pk, sk) = scheme.generate_keys_with(&mut rng).unwrap();
        assert_eq!(pk.modulus().bits(), 256);
        for a in [false, true] {
            for b in [false, true] {
                let ca = scheme.encrypt(&pk, a, &mut rng).unwrap();
                let cb = scheme.encrypt(&pk, b, &mut rng).unwrap();
                assert_eq!(scheme.decrypt_parity(&sk, &ca).unwrap(), a);
                let sum = scheme.add(&pk, &ca, &cb).unwrap();
                assert_eq!(scheme.decrypt_parity(&sk, &sum).unwrap(), a ^ b);
            }
        }
        assert!(GoldwasserMicali::insecure_with_modulus_bits(63).is_err());
        assert!(GoldwasserMicali::insecure_with_modulus_bits(100).is_ok());
        assert!(GoldwasserMicali::insecure_with_modulus_bits(101).is_err());
        assert_eq!(GoldwasserMicali::new().modulus_bits(), 3072);
    }

    /// Full-size keys take seconds in release and much longer in debug:
    /// `cargo test --release -p hesc -- --ignored`.
    #[test]
    #[ignore]
    fn secure_keys_have_a_3072_bit_modulus() {
        let scheme = GoldwasserMicali::new();
        let (pk, sk) = scheme.generate_keys().unwrap();
        assert_eq!(pk.modulus().bits(), 3072);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(16);
        let c = scheme.encrypt(&pk, true, &mut rng).unwrap();
        assert!(scheme.decrypt_parity(&sk, &c).unwrap());
    }

    #[test]
    fn foreign_ciphertexts_are_rejected() {
        let scheme = GoldwasserMicali::insecure_with_modulus_bits(128).unwrap();
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(14);
        let (pk, sk) = scheme.generate_keys_with(&mut rng).unwrap();
        let too_big = GmCiphertext(pk.modulus() + 5u32);
        assert!(matches!(
            scheme.decrypt_parity(&sk, &too_big),
            Err(Error::KeyMismatch)
        ));
        let c = scheme.encrypt(&pk, true, &mut rng).unwrap();
        assert!(matches!(
            scheme.add(&pk, &c, &too_big),
            Err(Error::KeyMismatch)
        ));
    }
}
