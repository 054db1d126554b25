//! Additively homomorphic encryption of single bits: the backends of the basic HESC.
//!
//! Each backend encrypts one bit per ciphertext and adds ciphertexts; the
//! decrypted sum's parity is the XOR of the bits, which is stochastic
//! multiplication in the inverted bipolar encoding.
//!
//! | backend | plaintext space | addition | 128-bit parameters |
//! |---|---|---|---|
//! | [`EcElGamal`] | Z_r, r = BN254 group order (254 bits) | point addition; decryption solves a small discrete log | BN254 G1 (about 100–110 bits because of the pairing; see its docs) |
//! | [`GoldwasserMicali`] | Z_2 | modular product (XOR natively) | 3072-bit modulus |
//! | [`BgvBits`] | Z_t (t = 2 by default) | BGV addition | N = 2^11, log2 Q = 53 |

mod bgv_bits;
mod ec_elgamal;
mod fixed_base;
mod gm;
mod primes;

pub use bgv_bits::BgvBits;
pub use ec_elgamal::{EcElGamal, EcElGamalCiphertext, EcElGamalPublicKey, EcElGamalSecretKey};
pub use gm::{GmCiphertext, GmPublicKey, GmSecretKey, GoldwasserMicali};
pub use primes::{is_probable_prime, random_prime};

use rand::{CryptoRng, RngCore};

use crate::error::Result;

/// An additively homomorphic public-key scheme, used one bit per ciphertext.
///
/// Keys come from the operating system's CSPRNG; encryption randomness from
/// the `rng` argument, which must be a cryptographically secure generator
/// (the bound asks for [`CryptoRng`]).
pub trait AdditiveHe {
    /// The public (encryption) key.
    type PublicKey;
    /// The secret (decryption) key.
    type SecretKey;
    /// A ciphertext of one plaintext element.
    type Ciphertext: Clone;

    /// A short name with the parameters, for tables.
    fn name(&self) -> String;

    /// Generates a key pair from the operating system's CSPRNG.
    ///
    /// # Errors
    /// [`Error::Randomness`](crate::Error::Randomness) when the OS source
    /// fails, or a backend error.
    fn generate_keys(&self) -> Result<(Self::PublicKey, Self::SecretKey)>;

    /// Encrypts one bit.
    ///
    /// # Errors
    /// Backend errors only (e.g. from the BGV engine).
    fn encrypt<R: RngCore + CryptoRng>(
        &self,
        pk: &Self::PublicKey,
        bit: bool,
        rng: &mut R,
    ) -> Result<Self::Ciphertext>;

    /// The homomorphic sum of the plaintexts of `a` and `b`.
    ///
    /// # Errors
    /// [`Error::KeyMismatch`](crate::Error::KeyMismatch) when the ciphertexts
    /// belong to other keys (where the backend can tell), or backend errors.
    fn add(
        &self,
        pk: &Self::PublicKey,
        a: &Self::Ciphertext,
        b: &Self::Ciphertext,
    ) -> Result<Self::Ciphertext>;

    /// The parity of the decrypted plaintext (the XOR of all bits added into
    /// `c`).
    ///
    /// # Errors
    /// [`Error::PlaintextOverflow`](crate::Error::PlaintextOverflow) when the
    /// plaintext is beyond what the backend can recover; backend errors.
    fn decrypt_parity(&self, sk: &Self::SecretKey, c: &Self::Ciphertext) -> Result<bool>;

    /// How many bits may be added into one ciphertext before its parity can
    /// no longer be recovered (`u64::MAX` for schemes over Z_2).
    fn max_additions(&self) -> u64;
}
