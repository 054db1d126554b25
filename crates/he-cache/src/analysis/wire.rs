//! The attacker's view of engine ciphertexts: their serialized bytes.
//!
//! Ciphertexts travel as bytes (`Ciphertext::to_bytes`, format in
//! `helib-sys/cpp/SERIALIZATION.md`), which carry every residue of every
//! polynomial in the engine's evaluation (NTT) form. Ring products are
//! coordinate-wise there, so the projection of [`projection`](super::projection)
//! is computed prime by prime without any transform.
//!
//! The public key's `a` is stored as a seed, so instead of re-deriving it
//! the attacker uses a *mask* (b·ξ, a·ξ) as a stand-in for (b, a): anyone
//! holding the public key makes one with public operations ([`public_mask`]),
//! and projecting against it multiplies every projection by the same
//! invertible ξ — which leaves ratios, ranks and spans unchanged.

use helib_rs::{Ciphertext, Context, Plaintext, PublicKey};

use super::ring::{add_mod, mul_mod};
use crate::error::{Error, Result};

/// Frame header bytes before the payload.
const HEADER: usize = 48;
/// Trailing checksum bytes.
const CHECKSUM: usize = 32;
/// The frame's magic bytes, "HBGV".
const MAGIC: [u8; 4] = *b"HBGV";
/// The format version this reader knows, little endian.
const VERSION: [u8; 2] = [1, 0];
/// The ciphertext kind in the frame.
const KIND_CIPHERTEXT: u8 = 5;

/// An engine ciphertext read from its bytes: residues per polynomial and prime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireCiphertext {
    level: usize,
    /// `parts[k][i][j]`: polynomial k, chain prime i, evaluation point j.
    parts: Vec<Vec<Vec<u64>>>,
}

impl WireCiphertext {
    /// Serializes `ciphertext` and reads it back as an attacker would.
    ///
    /// # Errors
    /// Engine failures while serializing; [`Error::Malformed`] as for [`parse`](Self::parse).
    pub fn of(ciphertext: &Ciphertext) -> Result<Self> {
        Self::parse(ciphertext.context(), &ciphertext.to_bytes()?)
    }

    /// Reads a serialized ciphertext of `context` (the checksum is not checked).
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not a ciphertext of this
    /// context's shape, or its second polynomial is stored as a seed (only
    /// fresh secret-key encryptions are).
    pub fn parse(context: &Context, bytes: &[u8]) -> Result<Self> {
        let malformed = |why: &str| Error::Malformed(why.to_string());
        if bytes.len() < HEADER + CHECKSUM + 6
            || bytes[..4] != MAGIC
            || bytes[4..6] != VERSION
            || bytes[6] != KIND_CIPHERTEXT
        {
            return Err(malformed("not a version-1 serialized ciphertext"));
        }
        let payload = &bytes[HEADER..bytes.len() - CHECKSUM];
        let level = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]) as usize;
        let (count, flags) = (usize::from(payload[4]), payload[5]);
        if level > context.max_level() || !(2..=3).contains(&count) || flags != 0 {
            return Err(malformed("unexpected level, size or seeded c1"));
        }
        let factor_bytes = (context.plaintext_modulus().bits() as usize).div_ceil(8);
        let mut at = 6 + factor_bytes + 8;
        let primes = &context.chain_primes()[..=level];
        let n = context.ring_degree();
        let mut parts = Vec::with_capacity(count);
        for _ in 0..count {
            let mut poly = Vec::with_capacity(primes.len());
            for &q in primes {
                let width = u64::BITS - q.leading_zeros();
                let block = n * width as usize / 8;
                let data = payload
                    .get(at..at + block)
                    .ok_or_else(|| malformed("truncated polynomial"))?;
                poly.push(unpack(data, width, n));
                at += block;
            }
            parts.push(poly);
        }
        if at != payload.len() {
            return Err(malformed("unexpected trailing bytes"));
        }
        Ok(Self { level, parts })
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

/// `n` values of `width` bits, least significant bit first.
fn unpack(data: &[u8], width: u32, n: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(n);
    let (mut acc, mut bits) = (0u128, 0u32);
    let mut bytes = data.iter();
    while out.len() < n {
        while bits < width {
            acc |= u128::from(*bytes.next().unwrap_or(&0)) << bits;
            bits += 8;
        }
        out.push((acc & ((1u128 << width) - 1)) as u64);
        acc >>= width;
        bits -= width;
    }
    out
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
/// (ξ times [`projection`](super::projection)). `None` if either lacks that
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
