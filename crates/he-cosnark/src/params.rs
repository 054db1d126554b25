//! Ring parameters for collaborative proofs over a domain of n points.

use ark_ff::PrimeField;
use he_poly::PolyParameters;
use helib_rs::advice::{Circuit, Demand, KeySwitching};
use helib_rs::{Advisor, Parameters, Workload};
use num_bigint::BigUint;

use crate::error::{Error, Result};

/// The smallest ≥128-bit parameters for one product of two polynomials of
/// `domain_size` coefficients with plaintext modulus F's modulus, with
/// special primes for the collective relinearization key (two
/// key-switching digits) and room for the smudging of `parties` parties at
/// he-threshold's λ, one engine thread: the [`Advisor`]'s pick for
/// [`proof_workload`]. Returns them with half the ring
/// degree (the block stride of `he-poly`'s block products, whose noise the
/// chain is sized for: at least that of the
/// [`ProofPlan`](crate::ProofPlan)'s component products).
///
/// # Errors
/// As for [`proof_workload`]; [`Error::InvalidArgument`] when no ring up
/// to the engine's largest holds the product (each ring's reason is listed).
pub fn parameters_for<F: PrimeField>(
    domain_size: usize,
    parties: u32,
) -> Result<(Parameters, usize)> {
    let advice = Advisor::new(proof_workload::<F>(domain_size, parties)?)
        .advise()
        .map_err(|e| {
            Error::InvalidArgument(format!(
                "no ring holds a product over {domain_size} points: {e}"
            ))
        })?;
    let stride = advice.ring_degree() / 2;
    Ok((advice.into_parameters(), stride))
}

/// What a collaborative proof over `domain_size` points with `parties`
/// parties asks of each ring: he-poly's one product of two polynomials of
/// `domain_size` coefficients ([`PolyParameters::workload`], its blocks and
/// operations), with twice an upload's growth on top (both operands are
/// the server's sums of the parties' shares-to-encryption uploads, the
/// noise the [`ProofPlan`](crate::ProofPlan) expects; [`proof_chain_bits`]),
/// two key-switching digits for the collective relinearization key, the
/// smudging room of `parties` parties at
/// [`he_threshold::DEFAULT_SECURITY_BITS`], one engine thread, and no ring
/// below the one the product alone needs ([`PolyParameters::for_field`]).
///
/// # Errors
/// he-poly's errors for the product alone (a domain of 0 points, or one no
/// ring holds).
pub fn proof_workload<F: PrimeField>(domain_size: usize, parties: u32) -> Result<Workload> {
    let floor = PolyParameters::for_field::<F>(domain_size, 1)?;
    let t: BigUint = F::MODULUS.into();
    let product = PolyParameters::workload(&t, domain_size, 1)?;
    let uploads = 2.0 * crate::plan::upload_growth_bits(parties);
    Ok(Workload::per_ring(t, |ring| {
        let demand = product.demand_at(ring)?;
        Ok(Demand::new(demand.circuit())
            .extra_bits(uploads)
            .operations(demand.counted()))
    })
    .key_switching(&[KeySwitching::Digits(2)])
    .smudging(parties, he_threshold::DEFAULT_SECURITY_BITS)
    .min_ring_degree(floor.parameters().ring_degree())
    .threads(1))
}

/// The chain (prime sizes, q_0 first, before the smudging room) for one
/// product of two polynomials of `blocks` blocks each in a ring of degree
/// `ring_degree`, when both operands are the server's sums of `parties`
/// parties' shares-to-encryption uploads: a product of fresh ciphertexts
/// ([`helib_rs::noise::product_chain_total_bits`]) plus twice what an
/// upload adds over a fresh encryption (the noise the
/// [`ProofPlan`](crate::ProofPlan) expects): the chain [`proof_workload`]
/// asks for.
pub fn proof_chain_bits(
    ring_degree: usize,
    t: &num_bigint::BigUint,
    parties: u32,
    blocks: usize,
) -> Vec<u32> {
    let log_t = helib_rs::noise::log2(t);
    let product = Circuit::CiphertextProducts {
        products: 1,
        terms: blocks,
    };
    let total = Demand::new(product)
        .extra_bits(2.0 * crate::plan::upload_growth_bits(parties))
        .total_bits(ring_degree, log_t);
    helib_rs::noise::split_bits(total.ceil() as u32)
}
