//! The attacker's view of engine ciphertexts: their residues.
//!
//! Ciphertexts travel as bytes (`Ciphertext::to_bytes`), which carry every
//! residue of every polynomial in the engine's evaluation (NTT) form. The
//! attack reads them through the engine's own decoder and the documented
//! accessor [`Ciphertext::residues`], never through the byte layout. Ring
//! products are coordinate-wise in that form, so the projection of
//! [`projection`](crate::projection) is computed prime by prime without any
//! transform.
//!
//! The public key's `a` is stored as a seed, so instead of re-deriving it
//! the attacker uses a *mask* (b·ξ, a·ξ) as a stand-in for (b, a): anyone
//! holding the public key makes one with public operations ([`public_mask`]),
//! and projecting against it multiplies every projection by the same
//! invertible ξ — which leaves ratios, ranks and spans unchanged.

use he_cache::{Error, Result};
use helib_rs::{Ciphertext, Context, Plaintext, PublicKey};

use crate::ring::{add_mod, mul_mod};

/// An engine ciphertext as an attacker sees it: residues per polynomial and prime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireCiphertext {
    level: usize,
    /// `parts[k][i][j]`: polynomial k, chain prime i, evaluation point j.
    parts: Vec<Vec<Vec<u64>>>,
}

impl WireCiphertext {
    /// Reads the residues of every polynomial of `ciphertext` at every prime
    /// of its level ([`Ciphertext::residues`]).
    ///
    /// # Errors
    /// Engine failures.
    pub fn of(ciphertext: &Ciphertext) -> Result<Self> {
        let parts = (0..ciphertext.size())
            .map(|part| {
                (0..=ciphertext.level())
                    .map(|prime| ciphertext.residues(part, prime))
                    .collect::<helib_rs::Result<Vec<_>>>()
            })
            .collect::<helib_rs::Result<Vec<_>>>()?;
        Ok(Self {
            level: ciphertext.level(),
            parts,
        })
    }

    /// Reads a serialized ciphertext of `context`, as it travels: decoded by
    /// the engine (`Ciphertext::from_bytes`, which checks the format, the
    /// shape and the checksum), then read as by [`of`](Self::of).
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not a ciphertext of this context.
    pub fn parse(context: &Context, bytes: &[u8]) -> Result<Self> {
        let ciphertext = Ciphertext::from_bytes(context, bytes).map_err(|error| match error {
            helib_rs::Error::Malformed(why) => Error::Malformed(why),
            other => Error::Engine(other),
        })?;
        Self::of(&ciphertext)
    }

    /// The level l (residues exist for primes 0..=l).
    pub fn level(&self) -> usize {
        self.level
    }

    /// The residues of polynomial `part` modulo chain prime `prime`.
    pub fn residues(&self, part: usize, prime: usize) -> Option<&[u64]> {
        self.parts.get(part)?.get(prime).map(Vec::as_slice)
    }
}

/// A mask (b·ξ, a·ξ) of `pk`, made with public operations only: mask an
/// encryption of zero and subtract the original.
///
/// # Errors
/// Engine failures.
pub fn public_mask(pk: &PublicKey) -> Result<WireCiphertext> {
    let zero = pk.encrypt(&Plaintext::zero(pk.context()))?;
    let mut masked = zero.try_clone()?;
    pk.add_mask_insecure(&mut masked)?;
    WireCiphertext::of(&masked.sub(&zero)?)
}

/// The projection c0·M1 − c1·M0 of `ct` against the mask `mask`, modulo
/// chain prime `prime` of `context`, coordinate-wise in evaluation form
/// (ξ times [`projection`](crate::projection)). `None` if either lacks that
/// prime or `ct` has more than two polynomials.
pub fn wire_projection(
    context: &Context,
    mask: &WireCiphertext,
    ct: &WireCiphertext,
    prime: usize,
) -> Option<Vec<u64>> {
    let q = *context.chain_primes().get(prime)?;
    if ct.parts.len() != 2 {
        return None;
    }
    let (c0, c1) = (ct.residues(0, prime)?, ct.residues(1, prime)?);
    let (m0, m1) = (mask.residues(0, prime)?, mask.residues(1, prime)?);
    Some(
        (0..c0.len())
            .map(|j| add_mod(mul_mod(c0[j], m1[j], q), q - mul_mod(c1[j], m0[j], q), q))
            .collect(),
    )
}
