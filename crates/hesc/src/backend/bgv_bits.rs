//! BGV in bit mode: one bit per ciphertext, in the constant coefficient, with a small t.

use helib_rs::{Ciphertext, Context, Parameters, Plaintext, PublicKey, SecretKey};
use num_bigint::BigUint;
use rand::{CryptoRng, RngCore};

use super::AdditiveHe;
use crate::error::{Error, Result};

/// BGV used one bit per ciphertext: with t = 2 addition is XOR natively;
/// with a larger t the constant coefficient counts the ones (up to t − 1).
///
/// Encryption randomness is drawn by the engine from the OS CSPRNG (the
/// `rng` argument of [`AdditiveHe::encrypt`] is not used).
#[derive(Debug, Clone)]
pub struct BgvBits {
    context: Context,
}

impl BgvBits {
    /// t = 2, N = 2^11, a single 53-bit chain prime and no special prime:
    /// log2(Q·P) = 53, the 128-bit bound for N = 2^11.
    ///
    /// # Errors
    /// Engine errors from building the context.
    pub fn secure() -> Result<Self> {
        let params = Parameters::builder()
            .ring_degree(1 << 11)
            .plaintext_modulus(BigUint::from(2u32))
            .chain_bits(&[53])
            .special_bits(&[])
            .build()?;
        Self::new(&params)
    }

    /// BGV bit mode over any parameters (check their security yourself).
    ///
    /// # Errors
    /// Engine errors from building the context.
    pub fn new(params: &Parameters) -> Result<Self> {
        Ok(Self {
            context: Context::new(params)?,
        })
    }

    /// The engine context.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The count in the constant coefficient of a decryption.
    ///
    /// # Errors
    /// [`Error::Bgv`] on engine failures (e.g. an exhausted noise budget).
    pub fn decrypt_count(&self, sk: &SecretKey, c: &Ciphertext) -> Result<u64> {
        let plain = sk.decrypt(c)?;
        let value = plain.coefficient(0).unwrap_or_default();
        u64::try_from(&value).map_err(|_| Error::PlaintextOverflow { bound: u64::MAX })
    }
}

impl AdditiveHe for BgvBits {
    type PublicKey = PublicKey;
    type SecretKey = SecretKey;
    type Ciphertext = Ciphertext;

    fn name(&self) -> String {
        let params = self.context.parameters();
        format!(
            "BGV bit mode (t = {}, N = 2^{}, log2 QP = {}, {})",
            params.plaintext_modulus(),
            params.ring_degree().trailing_zeros(),
            params.log_qp_bound(),
            params.security_level()
        )
    }

    fn generate_keys(&self) -> Result<(PublicKey, SecretKey)> {
        let sk = SecretKey::generate(&self.context)?;
        Ok((sk.public_key()?, sk))
    }

    fn encrypt<R: RngCore + CryptoRng>(
        &self,
        pk: &PublicKey,
        bit: bool,
        _rng: &mut R,
    ) -> Result<Ciphertext> {
        let plain = Plaintext::from_u64s(&self.context, &[u64::from(bit)])?;
        Ok(pk.encrypt(&plain)?)
    }

    fn add(&self, _pk: &PublicKey, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        Ok(a.add(b)?)
    }

    fn decrypt_parity(&self, sk: &SecretKey, c: &Ciphertext) -> Result<bool> {
        Ok(self.decrypt_count(sk, c)? % 2 == 1)
    }

    fn max_additions(&self) -> u64 {
        let t = self.context.plaintext_modulus();
        if *t == BigUint::from(2u32) {
            u64::MAX
        } else {
            u64::try_from(t - 1u32).unwrap_or(u64::MAX)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn secure_bit_mode_xors() {
        let scheme = BgvBits::secure().unwrap();
        assert!(scheme.context().parameters().security_level().bits() >= 128);
        let (pk, sk) = scheme.generate_keys().unwrap();
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(15);
        let bits = [true, false, true, true, true];
        let mut acc = scheme.encrypt(&pk, bits[0], &mut rng).unwrap();
        for &b in &bits[1..] {
            acc = scheme
                .add(&pk, &acc, &scheme.encrypt(&pk, b, &mut rng).unwrap())
                .unwrap();
        }
        assert!(!scheme.decrypt_parity(&sk, &acc).unwrap()); // four ones
        assert_eq!(scheme.max_additions(), u64::MAX);
    }
}
