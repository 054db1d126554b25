//! The attacks: what the public key and ciphertexts alone reveal about cached encryptions.

use crate::linalg::{rank, rational_reconstruction, solve_in_span};
use crate::model::{ToyCiphertext, ToyPublicKey};
use crate::ring::{mul_mod, pow_mod, Poly, ToyRing};

/// The mask-killing projection P(c0, c1) = c0·a − c1·b for the public key (b, a).
///
/// P(b·ξ, a·ξ) = 0 for every ξ, so P is blind to Smuche's mask, and it is
/// R_q-linear: P(Σ k_i c_i) = Σ k_i P(c_i). For a fresh encryption,
/// P = a·(t·e0 + m) − t·e1·b carries the fresh errors e0, e1.
pub fn projection(ring: &ToyRing, pk: &ToyPublicKey, ct: &ToyCiphertext) -> Poly {
    ring.sub(&ring.mul(&ct.c0, &pk.a), &ring.mul(&ct.c1, &pk.b))
}

/// One-ciphertext distinguisher: does `ct` look like a Smuche encryption of
/// zero (z = 0 leaves only the mask, so P(ct) = 0)? Never true of a fresh
/// encryption, whose P carries the fresh errors.
pub fn is_masked_zero(ring: &ToyRing, pk: &ToyPublicKey, ct: &ToyCiphertext) -> bool {
    projection(ring, pk, ct).iter().all(|&x| x == 0)
}

/// What the ratio attack found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    /// z1 / z2 mod q, exactly.
    pub modular: u64,
    /// The same ratio as a reduced fraction (numerator, denominator > 0),
    /// when both scalars are below √(q/2) in absolute value.
    pub fraction: Option<(i64, i64)>,
}

/// The Smuche distinguisher: from the public key and two ciphertexts,
/// recover z1 / z2 when they were built from the same cached ciphertext c.
///
/// c_j = z_j·c + (b·ξ_j, a·ξ_j) gives P(c_j) = z_j · P(c), so the two
/// projections are proportional and any coefficient gives the ratio; the
/// attack checks that *every* coefficient agrees and returns `None`
/// otherwise — which is what happens for fresh (and pool) encryptions, whose
/// projections carry independent errors.
pub fn smuche_ratio(
    ring: &ToyRing,
    pk: &ToyPublicKey,
    first: &ToyCiphertext,
    second: &ToyCiphertext,
) -> Option<Ratio> {
    ratio_of_projections(
        &projection(ring, pk, first),
        &projection(ring, pk, second),
        ring.modulus(),
    )
}

/// The core of [`smuche_ratio`] on projections mod the prime q, in any
/// representation where the ring acts coordinate-wise on them (coefficients
/// for scalars, or the engine's evaluation form).
pub fn ratio_of_projections(p1: &[u64], p2: &[u64], q: u64) -> Option<Ratio> {
    if q < 2 || p1.len() != p2.len() {
        return None;
    }
    let j = p2.iter().position(|&x| x % q != 0)?;
    let ratio = mul_mod(p1[j], pow_mod(p2[j], q - 2, q), q);
    if p1
        .iter()
        .zip(p2)
        .any(|(&x, &y)| x % q != mul_mod(y, ratio, q))
    {
        return None;
    }
    let fraction = rational_reconstruction(ratio, q).map(|(a, b)| {
        let g = gcd(a.unsigned_abs(), b.unsigned_abs()).max(1) as i64;
        (a / g, b / g)
    });
    Some(Ratio {
        modular: ratio,
        fraction,
    })
}

/// The dimension over Z_q of the span of the ciphertexts' projections.
///
/// Rache outputs are combinations of k + 1 cached ciphertexts, so any number
/// of them spans at most k + 1 dimensions; fresh encryptions span as many as
/// there are of them (up to N).
pub fn projection_rank(ring: &ToyRing, pk: &ToyPublicKey, cts: &[ToyCiphertext]) -> usize {
    let projections: Vec<Poly> = cts.iter().map(|c| projection(ring, pk, c)).collect();
    rank(&projections, ring.modulus())
}

/// Known-plaintext decryption for linear caches: if the target's projection
/// is Σ λ_j P(known_j), then (the caches' ciphertexts being combinations of
/// the same pivots with plaintexts that add up exactly) its plaintext is
/// Σ λ_j m_j mod q. Returns `None` when the target is outside the span —
/// always the case for fresh encryptions.
///
/// Against Rache with k pivots, k + 1 known pairs (spanning the cache)
/// decrypt every further output; against Smuche one pair per pivot does.
pub fn span_decrypt(
    ring: &ToyRing,
    pk: &ToyPublicKey,
    known: &[(u64, ToyCiphertext)],
    target: &ToyCiphertext,
) -> Option<u64> {
    let known: Vec<(u64, Poly)> = known
        .iter()
        .map(|(m, c)| (*m, projection(ring, pk, c)))
        .collect();
    span_decrypt_projections(&known, &projection(ring, pk, target), ring.modulus())
}

/// The core of [`span_decrypt`] on projections mod the prime q.
pub fn span_decrypt_projections(known: &[(u64, Poly)], target: &[u64], q: u64) -> Option<u64> {
    let basis: Vec<Poly> = known.iter().map(|(_, p)| p.clone()).collect();
    let lambda = solve_in_span(&basis, target, q)?;
    Some(
        known
            .iter()
            .zip(&lambda)
            .fold(0u64, |acc, ((m, _), &l)| (acc + mul_mod(*m % q, l, q)) % q),
    )
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
