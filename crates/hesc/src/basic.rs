//! Basic HESC (paper §3.1): every bit of a stochastic number encrypted separately with an additive scheme.
//!
//! * encryption (Algorithm 1): B2S, then one encryption per bit;
//! * decryption (Algorithm 2): one decryption per block, then S2B;
//! * stochastic addition (Algorithm 3): block i of the sum is block i of the
//!   input chosen by the selection stream — a copy, no cryptographic work;
//! * stochastic multiplication (Algorithm 4): block-wise homomorphic
//!   addition; for the inverted bipolar encoding the parity of the sum is
//!   the XOR of the bits. (Unipolar multiplication is AND, which an additive
//!   scheme cannot evaluate: it is refused.)
//! * concatenated addition (§3.2.2) works here too: the block lists are joined.

use rand::{CryptoRng, RngCore};

use crate::backend::AdditiveHe;
use crate::bits::BitStream;
use crate::error::{Error, Result};
use crate::number::{Encoding, StochasticNumber};
use crate::selection::Selection;

/// The basic HESC over an additive scheme `S`.
///
/// ```
/// use hesc::backend::{AdditiveHe, GoldwasserMicali};
/// use hesc::{model, B2s, BasicHesc, Encoding, StochasticNumber};
/// use rand::SeedableRng;
///
/// let hesc = BasicHesc::new(GoldwasserMicali::insecure_with_modulus_bits(128)?);
/// let (pk, sk) = hesc.scheme().generate_keys()?;
/// let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
/// let ibp = Encoding::InvertedBipolar;
/// let x = StochasticNumber::encode(0.5, 32, ibp, B2s::ExactWeight, &mut rng)?;
/// let y = StochasticNumber::encode(-0.25, 32, ibp, B2s::ExactWeight, &mut rng)?;
/// let product = hesc.multiply(&pk, &hesc.encrypt(&pk, &x, &mut rng)?, &hesc.encrypt(&pk, &y, &mut rng)?)?;
/// assert_eq!(hesc.decrypt(&sk, &product)?, model::multiply(&x, &y)?);
/// # Ok::<(), hesc::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BasicHesc<S> {
    scheme: S,
}

/// A basic-HESC ciphertext: one ciphertext block per bit.
#[derive(Debug, Clone)]
pub struct EncryptedStream<C> {
    blocks: Vec<C>,
    encoding: Encoding,
    /// Upper bound on the plaintext of every block (the number of bits summed into it).
    terms: u64,
}

impl<C> EncryptedStream<C> {
    /// The ciphertext blocks, one per bit.
    pub fn blocks(&self) -> &[C] {
        &self.blocks
    }

    /// The stream length L.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Whether there is no block.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The stochastic encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The most fresh bits summed into one block.
    pub fn terms(&self) -> u64 {
        self.terms
    }
}

impl<S: AdditiveHe> BasicHesc<S> {
    /// The basic HESC over `scheme`.
    pub fn new(scheme: S) -> Self {
        Self { scheme }
    }

    /// The underlying scheme.
    pub fn scheme(&self) -> &S {
        &self.scheme
    }

    /// Algorithm 1: encrypts every bit of `x` (B2S already done).
    ///
    /// # Errors
    /// Backend errors.
    pub fn encrypt<R: RngCore + CryptoRng>(
        &self,
        pk: &S::PublicKey,
        x: &StochasticNumber,
        rng: &mut R,
    ) -> Result<EncryptedStream<S::Ciphertext>> {
        let blocks = x
            .bits()
            .iter()
            .map(|bit| self.scheme.encrypt(pk, bit, rng))
            .collect::<Result<Vec<_>>>()?;
        Ok(EncryptedStream {
            blocks,
            encoding: x.encoding(),
            terms: 1,
        })
    }

    /// Algorithm 2: decrypts every block (parity) into a stochastic number.
    ///
    /// # Errors
    /// Backend errors, e.g. [`Error::PlaintextOverflow`].
    pub fn decrypt(
        &self,
        sk: &S::SecretKey,
        c: &EncryptedStream<S::Ciphertext>,
    ) -> Result<StochasticNumber> {
        let mut bits = BitStream::zeros(c.len());
        for (i, block) in c.blocks.iter().enumerate() {
            bits.set(i, self.scheme.decrypt_parity(sk, block)?);
        }
        Ok(StochasticNumber::from_bits(bits, c.encoding))
    }

    /// Algorithm 4: stochastic multiplication (inverted bipolar only) by
    /// block-wise homomorphic addition.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for unipolar streams; [`Error::EncodingMismatch`],
    /// [`Error::LengthMismatch`]; [`Error::PlaintextOverflow`] when the sum
    /// would exceed what the backend can decrypt.
    pub fn multiply(
        &self,
        pk: &S::PublicKey,
        a: &EncryptedStream<S::Ciphertext>,
        b: &EncryptedStream<S::Ciphertext>,
    ) -> Result<EncryptedStream<S::Ciphertext>> {
        if a.encoding != b.encoding {
            return Err(Error::EncodingMismatch);
        }
        if a.encoding == Encoding::Unipolar {
            return Err(Error::Unsupported(
                "unipolar multiplication is AND, which an additive scheme cannot evaluate".into(),
            ));
        }
        if a.len() != b.len() {
            return Err(Error::LengthMismatch {
                left: a.len(),
                right: b.len(),
            });
        }
        let terms = a.terms.saturating_add(b.terms);
        if terms > self.scheme.max_additions() {
            return Err(Error::PlaintextOverflow {
                bound: self.scheme.max_additions(),
            });
        }
        let blocks = a
            .blocks
            .iter()
            .zip(&b.blocks)
            .map(|(x, y)| self.scheme.add(pk, x, y))
            .collect::<Result<Vec<_>>>()?;
        Ok(EncryptedStream {
            blocks,
            encoding: a.encoding,
            terms,
        })
    }

    /// Algorithm 3 generalized to n inputs: block i is a copy of block i of
    /// `terms[selection.choice(i)]`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the number of terms is not the
    /// selection's arity; [`Error::LengthMismatch`]; [`Error::EncodingMismatch`].
    pub fn mux_add(
        &self,
        terms: &[&EncryptedStream<S::Ciphertext>],
        selection: &Selection,
    ) -> Result<EncryptedStream<S::Ciphertext>> {
        let encoding = common_encoding(terms)?;
        if terms.len() != selection.arity() {
            return Err(Error::InvalidArgument(format!(
                "{} terms for a {}-input multiplexer",
                terms.len(),
                selection.arity()
            )));
        }
        if let Some(t) = terms.iter().find(|t| t.len() != selection.len()) {
            return Err(Error::LengthMismatch {
                left: selection.len(),
                right: t.len(),
            });
        }
        let blocks = (0..selection.len())
            .map(|i| {
                let k = selection.choice(i).unwrap_or(0);
                terms[k].blocks[i].clone()
            })
            .collect();
        let max_terms = terms.iter().map(|t| t.terms).max().unwrap_or(1);
        Ok(EncryptedStream {
            blocks,
            encoding,
            terms: max_terms,
        })
    }

    /// Algorithm 3: A = S·A¹ + S̄·A².
    ///
    /// # Errors
    /// As for [`mux_add`](Self::mux_add).
    pub fn scaled_add(
        &self,
        a: &EncryptedStream<S::Ciphertext>,
        b: &EncryptedStream<S::Ciphertext>,
        s: &BitStream,
    ) -> Result<EncryptedStream<S::Ciphertext>> {
        self.mux_add(&[a, b], &Selection::from_stream(s))
    }

    /// Concatenated addition: the block lists joined in order.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no term; [`Error::EncodingMismatch`].
    pub fn concat_add(
        &self,
        terms: &[&EncryptedStream<S::Ciphertext>],
    ) -> Result<EncryptedStream<S::Ciphertext>> {
        let encoding = common_encoding(terms)?;
        let blocks = terms
            .iter()
            .flat_map(|t| t.blocks.iter().cloned())
            .collect();
        let max_terms = terms.iter().map(|t| t.terms).max().unwrap_or(1);
        Ok(EncryptedStream {
            blocks,
            encoding,
            terms: max_terms,
        })
    }
}

fn common_encoding<C>(terms: &[&EncryptedStream<C>]) -> Result<Encoding> {
    let first = terms
        .first()
        .ok_or_else(|| Error::InvalidArgument("no operand".into()))?
        .encoding;
    if terms.iter().any(|t| t.encoding != first) {
        return Err(Error::EncodingMismatch);
    }
    Ok(first)
}
