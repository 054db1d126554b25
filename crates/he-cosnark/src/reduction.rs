//! How a proving key's quotient is defined: which evaluations the constraint
//! rows give and which scalars the proving key's `h_query` expects. Both maps
//! are linear in the assignment, so every party applies them to its own
//! share.

use ark_ff::PrimeField;
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain};

use crate::error::{Error, Result};
use crate::matrices::R1csMatrices;
use he_circom::matrices::evaluate_rows;

/// A reduction from R1CS to the QAP a Groth16 proving key was made for.
pub trait Reduction: Send + Sync + 'static {
    /// The name in reports.
    const NAME: &'static str;

    /// The coefficients of the interpolants A and B (degree below the
    /// domain's size, n each) for a share `z` of the full assignment (the
    /// constant one, the public inputs, the witness).
    ///
    /// The evaluations libsnark and snarkjs both use, unless a reduction
    /// says otherwise: the constraint rows followed by the public inputs in
    /// A (with zeros in B and C, which makes the instance part of the QAP
    /// independent).
    ///
    /// # Errors
    /// [`Error::Circom`] when a row names a wire past `z`.
    fn interpolant_shares<F: PrimeField>(
        matrices: &R1csMatrices<F>,
        num_instance: usize,
        domain: &GeneralEvaluationDomain<F>,
        z: &[F],
    ) -> Result<[Vec<F>; 2]> {
        let mut a = evaluate_rows(&matrices.a, z)?;
        a.extend_from_slice(&z[..num_instance]);
        Ok([
            domain.ifft(&a),
            domain.ifft(&evaluate_rows(&matrices.b, z)?),
        ])
    }

    /// The coefficients of the interpolant C of the third matrix's rows for
    /// the share `z` (zero on the public-input rows): for a valid witness
    /// A·B − C vanishes on the domain. Only a product that wraps around
    /// the ring needs it (see [`ProofPlan`](crate::ProofPlan)).
    ///
    /// # Errors
    /// As for [`interpolant_shares`](Self::interpolant_shares).
    fn c_interpolant_share<F: PrimeField>(
        matrices: &R1csMatrices<F>,
        domain: &GeneralEvaluationDomain<F>,
        z: &[F],
    ) -> Result<Vec<F>> {
        Ok(domain.ifft(&evaluate_rows(&matrices.c, z)?))
    }

    /// The number of points of the proving key's `h_query` on a domain of
    /// `domain_size` points.
    fn h_query_len(domain_size: usize) -> usize;

    /// The scalars the proving key's `h_query` is multiplied with, from a
    /// share of the coefficients of h = (A·B − C)/(X^n − 1) (`n − 1` of
    /// them).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for more coefficients than the domain
    /// has points, or a domain the reduction cannot use.
    fn quotient_scalars<F: PrimeField>(
        domain: &GeneralEvaluationDomain<F>,
        h_coefficients: Vec<F>,
    ) -> Result<Vec<F>>;
}

/// ark-groth16's `LibsnarkReduction`: the evaluations are the default ones
/// of [`Reduction::interpolant_shares`], and `h_query` takes h's
/// coefficients.
#[derive(Clone, Copy, Debug, Default)]
pub struct Libsnark;

impl Reduction for Libsnark {
    const NAME: &'static str = "libsnark";

    fn h_query_len(domain_size: usize) -> usize {
        domain_size - 1
    }

    fn quotient_scalars<F: PrimeField>(
        _domain: &GeneralEvaluationDomain<F>,
        h_coefficients: Vec<F>,
    ) -> Result<Vec<F>> {
        Ok(h_coefficients)
    }
}

/// The reduction of circom and snarkjs keys (`.zkey`): the same evaluations
/// as [`Libsnark`] (snarkjs appends the same public-input rows to A), and
/// `h_query` takes h·Z on the odd coset of the 2n-th roots of unity,
/// `−2·h(g·ω^i)` for `i < n` ([`he_circom::reduction::quotient_scalars`]):
/// linear in h, so each party applies it to its share.
#[derive(Clone, Copy, Debug, Default)]
pub struct Circom;

impl Reduction for Circom {
    const NAME: &'static str = "circom";

    fn h_query_len(domain_size: usize) -> usize {
        domain_size
    }

    fn quotient_scalars<F: PrimeField>(
        domain: &GeneralEvaluationDomain<F>,
        h_coefficients: Vec<F>,
    ) -> Result<Vec<F>> {
        he_circom::reduction::quotient_scalars(&h_coefficients, domain.size())
            .map_err(|e| Error::InvalidArgument(format!("circom reduction: {e}")))
    }
}
