//! Ring parameters for collaborative proofs over a domain of n points.

use ark_ff::PrimeField;
use he_poly::PolyParameters;
use helib_rs::Parameters;

use crate::error::{Error, Result};

/// The smallest ≥128-bit parameters for one product of two polynomials of
/// `domain_size` coefficients with plaintext modulus F's modulus, with
/// special primes for the collective relinearization key (two
/// key-switching digits) and room for the smudging of `parties` parties at
/// he-threshold's λ, one engine thread. Returns them with half the ring
/// degree (the block stride of `he-poly`'s block products, whose noise the
/// chain is sized for: at least that of the
/// [`ProofPlan`](crate::ProofPlan)'s component products).
///
/// # Errors
/// [`Error::InvalidArgument`] when no ring up to the engine's largest holds
/// the product (each ring's reason is listed).
pub fn parameters_for<F: PrimeField>(
    domain_size: usize,
    parties: u32,
) -> Result<(Parameters, usize)> {
    let poly = PolyParameters::for_field::<F>(domain_size, 1)?;
    let t: num_bigint::BigUint = F::MODULUS.into();
    let mut ring = poly.parameters().ring_degree();
    let mut reasons = Vec::new();
    while ring <= helib_rs::MAX_RING_DEGREE {
        let stride = ring / 2;
        let blocks = domain_size.div_ceil(stride);
        let chain = proof_chain_bits(ring, &t, parties, blocks);
        let builder = Parameters::builder()
            .ring_degree(ring)
            .plaintext_modulus(t.clone())
            .chain_bits(&chain)
            .key_switching_digits(2)
            .threads(1);
        match he_threshold::with_smudging_room(
            builder,
            parties,
            he_threshold::DEFAULT_SECURITY_BITS,
        ) {
            Ok(p) => return Ok((p, stride)),
            Err(e) => reasons.push(format!("N = {ring}: {e}")),
        }
        ring *= 2;
    }
    Err(Error::InvalidArgument(format!(
        "no ring holds a product over {domain_size} points: {}",
        reasons.join("; ")
    )))
}

/// The chain (prime sizes, q_0 first, before the smudging room) for one
/// product of two polynomials of `blocks` blocks each in a ring of degree
/// `ring_degree`, when both operands are the server's sums of `parties`
/// parties' shares-to-encryption uploads: a product of fresh ciphertexts
/// ([`helib_rs::noise::product_chain_total_bits`]) plus twice what an
/// upload adds over a fresh encryption (the noise the
/// [`ProofPlan`](crate::ProofPlan) expects).
pub fn proof_chain_bits(
    ring_degree: usize,
    t: &num_bigint::BigUint,
    parties: u32,
    blocks: usize,
) -> Vec<u32> {
    let log_t = helib_rs::noise::log2(t);
    let total = helib_rs::noise::product_chain_total_bits(ring_degree, log_t, 1, blocks)
        + 2.0 * crate::plan::upload_growth_bits(parties);
    helib_rs::noise::split_bits(total.ceil() as u32)
}
