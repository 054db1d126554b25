//! The QAP reduction snarkjs's Groth16 keys are made for, as an
//! ark-groth16 [`R1CSToQAP`] ([`CircomReduction`]), and its linear pieces
//! as functions that parties holding additive shares can apply locally.
//!
//! # The maths
//! Let `m` be the constraints, `ℓ = nPublic + 1` the instance wires (the
//! constant one first) and `n` the domain: the smallest power of two with
//! `n ≥ m + ℓ` (at least 2; [`domain_size`]). `ω` generates the `n`-th
//! roots of unity and `g` the `2n`-th, so `g² = ω` and `gⁿ = −1`.
//!
//! 1. **Rows.** For an assignment `z`, `a_i = (A·z)_i` and
//!    `b_i = (B·z)_i` for `i < m`. snarkjs appends one row per instance
//!    wire: row `m + s` has `A = 1·w_s` and `B = 0` for `s < ℓ` (seen in
//!    every zkey's section 4, and the same as ark-groth16's
//!    `LibsnarkReduction`), so `a_{m+s} = z_s`; every other row is zero.
//!    These rows make the public wires' QAP polynomials independent.
//!    ([`constraint_evaluations`], linear in `z`.)
//! 2. **Interpolants.** `A(X)`, `B(X)` of degree `< n` with `A(ωⁱ) = a_i`,
//!    `B(ωⁱ) = b_i`, and `C(X)` with `C(ωⁱ) = a_i·b_i` (which is `(C·z)_i`
//!    exactly when `z` satisfies the constraints: snarkjs never reads C).
//! 3. **Quotient.** `P = A·B − C` has degree `≤ 2n − 2` and vanishes on
//!    the `n`-th roots, so `P = h·Z` with `Z = Xⁿ − 1`. Instead of h's
//!    coefficients (libsnark's H query holds `τⁱ·Z(τ)/δ`), snarkjs's H
//!    points are `Hᵢ = L_{2i+1}(τ)/δ · G` for `i < n`, with `L_k` the
//!    Lagrange polynomials of the `2n`-th roots: since `P` has degree
//!    `< 2n` and is zero on the even powers `g^{2i} = ωⁱ`,
//!    `P(τ) = Σᵢ P(g·ωⁱ)·L_{2i+1}(τ)`. The prover's scalars for the H
//!    points are therefore `pᵢ = P(g·ωⁱ) = A(g·ωⁱ)·B(g·ωⁱ) − C(g·ωⁱ)`:
//!    evaluations on the odd coset `g·⟨ω⟩` ([`h_evaluations`]).
//!
//! # Pieces for additive shares
//! Steps 1 and 2 and the move to the coset are linear: a party holding a
//! share of `z` gets shares of `a`, `b` ([`constraint_evaluations`]) and of
//! `A(g·ωⁱ)`, `B(g·ωⁱ)` ([`odd_coset_evaluations`]). The product is not.
//! A party that holds a share of the coefficients of the quotient
//! `h = ⌊A·B / Xⁿ⌋` (as a collaborative prover computes it for libsnark
//! keys) gets its share of `pᵢ` by [`quotient_scalars`]: `Z(g·ωⁱ) =
//! gⁿ − 1 = −2`, so `pᵢ = −2·h(g·ωⁱ)`. This holds for every `z`, satisfying
//! or not: writing `A·B = h·Xⁿ + R` with `deg R < n`, the polynomial
//! `A·B − h·Z = R + h` has degree `< n` and equals `a_i·b_i` on the
//! `n`-th roots, so it is `C`.
//!
//! ```
//! use ark_bn254::Fr;
//! use he_circom::reduction::{constraint_evaluations, h_evaluations};
//!
//! // One constraint w1 · w1 = w2 with w1 public: two instance rows follow.
//! let one = Fr::from(1u64);
//! let a = vec![vec![(one, 1)]];
//! let b = vec![vec![(one, 1)]];
//! let z = [one, Fr::from(3u64), Fr::from(9u64)];
//! let [ea, eb] = constraint_evaluations(&a, &b, 2, &z)?;
//! assert_eq!(ea, vec![Fr::from(3u64), one, Fr::from(3u64), Fr::from(0u64)]);
//! assert_eq!(eb[0], Fr::from(3u64));
//! let p = h_evaluations(&ea, &eb)?; // the scalars for the zkey's 4 H points
//! assert_eq!(p.len(), 4);
//! # Ok::<(), he_circom::Error>(())
//! ```

use ark_ff::{batch_inversion, PrimeField};
use ark_groth16::r1cs_to_qap::R1CSToQAP;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_relations::gr1cs::{ConstraintSystemRef, Matrix, SynthesisError, R1CS_PREDICATE_LABEL};

use crate::error::{Error, Result};
use crate::matrices::evaluate_rows;

/// The domain size snarkjs uses for `num_constraints` constraints and
/// `num_inputs` instance wires (the constant one included): the smallest
/// power of two `≥ num_constraints + num_inputs`, and at least 2. `None`
/// on overflow.
pub fn domain_size(num_constraints: usize, num_inputs: usize) -> Option<usize> {
    num_constraints
        .checked_add(num_inputs)?
        .max(2)
        .checked_next_power_of_two()
}

/// The domain of `n` (a power of two) and the generator `g` of the `2n`-th
/// roots of unity.
fn domains<F: PrimeField>(n: usize) -> Result<(Radix2EvaluationDomain<F>, F)> {
    let bad = || Error::InvalidArgument(format!("no radix-2 domain of size {n} and {}", 2 * n));
    if !n.is_power_of_two() {
        return Err(bad());
    }
    let domain = Radix2EvaluationDomain::<F>::new(n).ok_or_else(bad)?;
    let double =
        Radix2EvaluationDomain::<F>::new(n.checked_mul(2).ok_or_else(bad)?).ok_or_else(bad)?;
    Ok((domain, double.group_gen()))
}

/// The evaluations of `A·z` and `B·z` on the domain, snarkjs's
/// public-input rows included (step 1 of the [module docs](self)): for
/// `m = a.len()` constraints and `num_inputs` instance wires, entry `m + s`
/// of the first is `z[s]`, and both are zero-padded to
/// [`domain_size`]`(m, num_inputs)`. Linear in `z`.
///
/// # Errors
/// [`Error::InvalidArgument`] if `a` and `b` differ in length, an entry
/// names a wire past `z`, or `z` has fewer than `num_inputs` values.
pub fn constraint_evaluations<F: PrimeField>(
    a: &[Vec<(F, usize)>],
    b: &[Vec<(F, usize)>],
    num_inputs: usize,
    z: &[F],
) -> Result<[Vec<F>; 2]> {
    if a.len() != b.len() || z.len() < num_inputs {
        return Err(Error::InvalidArgument(format!(
            "A has {} rows, B {}; {num_inputs} instance wires, {} values",
            a.len(),
            b.len(),
            z.len()
        )));
    }
    let m = a.len();
    let n = domain_size(m, num_inputs)
        .ok_or_else(|| Error::InvalidArgument("the domain size overflows".into()))?;
    let mut ea = evaluate_rows(a, z)?;
    let mut eb = evaluate_rows(b, z)?;
    ea.extend_from_slice(&z[..num_inputs]);
    ea.resize(n, F::ZERO);
    eb.resize(n, F::ZERO);
    Ok([ea, eb])
}

/// From the evaluations `f(ωⁱ)` of a polynomial of degree `< n` on the
/// `n`-th roots (`n` a power of two) to its evaluations `f(g·ωⁱ)` on the
/// odd coset of the `2n`-th roots. Linear.
///
/// # Errors
/// [`Error::InvalidArgument`] if the length is not a power of two with a
/// `2n`-th root of unity in `F`.
pub fn odd_coset_evaluations<F: PrimeField>(evaluations: &[F]) -> Result<Vec<F>> {
    let (domain, g) = domains::<F>(evaluations.len())?;
    let mut values = domain.ifft(evaluations);
    shift_to_odd_coset(&domain, g, &mut values);
    Ok(values)
}

/// Coefficients (in place) to evaluations on `g·⟨ω⟩`.
fn shift_to_odd_coset<F: PrimeField>(
    domain: &Radix2EvaluationDomain<F>,
    g: F,
    coefficients: &mut Vec<F>,
) {
    let mut power = F::ONE;
    for c in coefficients.iter_mut() {
        *c *= power;
        power *= g;
    }
    domain.fft_in_place(coefficients);
}

/// The scalars for the zkey's H points from the evaluations of `A·z` and
/// `B·z` on the domain (as [`constraint_evaluations`] gives them):
/// `pᵢ = A(g·ωⁱ)·B(g·ωⁱ) − C(g·ωⁱ)` with `C` interpolating `a ∘ b`.
///
/// # Errors
/// [`Error::InvalidArgument`] if the lengths differ or are not a power of
/// two with a `2n`-th root of unity in `F`.
pub fn h_evaluations<F: PrimeField>(a: &[F], b: &[F]) -> Result<Vec<F>> {
    if a.len() != b.len() {
        return Err(Error::InvalidArgument(format!(
            "{} evaluations of A, {} of B",
            a.len(),
            b.len()
        )));
    }
    let c: Vec<F> = a.iter().zip(b).map(|(x, y)| *x * y).collect();
    let a = odd_coset_evaluations(a)?;
    let b = odd_coset_evaluations(b)?;
    let c = odd_coset_evaluations(&c)?;
    Ok(a.iter()
        .zip(&b)
        .zip(&c)
        .map(|((a, b), c)| *a * b - c)
        .collect())
}

/// The scalars for the zkey's `n` H points from the coefficients of the
/// quotient `h = ⌊A·B / Xⁿ⌋ = (A·B − C)/Z` (at most `n` of them; `n − 1`
/// in general): `pᵢ = −2·h(g·ωⁱ)`. Linear, so a party applies it to its
/// share of h's coefficients.
///
/// # Errors
/// [`Error::InvalidArgument`] if `domain_size` is not a power of two with
/// a `2n`-th root of unity in `F`, or there are more than `domain_size`
/// coefficients.
pub fn quotient_scalars<F: PrimeField>(h_coefficients: &[F], domain_size: usize) -> Result<Vec<F>> {
    let (domain, g) = domains::<F>(domain_size)?;
    if h_coefficients.len() > domain_size {
        return Err(Error::InvalidArgument(format!(
            "{} coefficients of h for a domain of {domain_size}",
            h_coefficients.len()
        )));
    }
    let mut values = h_coefficients.to_vec();
    values.resize(domain_size, F::ZERO);
    shift_to_odd_coset(&domain, g, &mut values);
    let minus_two = -F::from(2u64);
    values.iter_mut().for_each(|v| *v *= minus_two);
    Ok(values)
}

/// The `n` scalars of snarkjs's H points for a toxic point `t`:
/// `L_{2i+1}(t)·δ⁻¹`, with `L_k` the Lagrange polynomials of the `2n`-th
/// roots `y_k = g^k`: `L_k(t) = y_k·(t^{2n} − 1) / (2n·(t − y_k))`, and
/// `L_k(t) = [t = y_k]` when `t` is a root itself.
pub fn h_query_scalars<F: PrimeField>(n: usize, t: F, delta_inverse: F) -> Result<Vec<F>> {
    let (domain, g) = domains::<F>(n)?;
    let omega = domain.group_gen();
    // y_{2i+1} = g·ωⁱ.
    let mut points = Vec::with_capacity(n);
    let mut y = g;
    for _ in 0..n {
        points.push(y);
        y *= omega;
    }
    if let Some(i) = points.iter().position(|y| *y == t) {
        let mut out = vec![F::ZERO; n];
        out[i] = delta_inverse;
        return Ok(out);
    }
    let two_n = F::from(2 * n as u64);
    let common =
        (t.pow([2 * n as u64]) - F::ONE) * two_n.inverse().unwrap_or(F::ZERO) * delta_inverse;
    let mut denominators: Vec<F> = points.iter().map(|y| t - y).collect();
    batch_inversion(&mut denominators);
    Ok(points
        .iter()
        .zip(&denominators)
        .map(|(y, d)| common * y * d)
        .collect())
}

/// The circom/snarkjs reduction for ark-groth16's provers and generator:
/// the same public-input rows as `LibsnarkReduction`, and H as in the
/// [module docs](self). ark-groth16's `D` type parameter is ignored: the
/// domains are radix-2 (as for BN254).
///
/// ```
/// use ark_bn254::Bn254;
/// use ark_groth16::Groth16;
/// use he_circom::CircomReduction;
/// // Groth16::<Bn254, CircomReduction>::create_proof_with_reduction_and_matrices(…)
/// type Prover = Groth16<Bn254, CircomReduction>;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct CircomReduction;

fn synthesis(_: Error) -> SynthesisError {
    SynthesisError::AssignmentMissing
}

impl R1CSToQAP for CircomReduction {
    #[allow(clippy::type_complexity)]
    fn instance_map_with_evaluation<F: PrimeField, D: EvaluationDomain<F>>(
        cs: ConstraintSystemRef<F>,
        t: &F,
    ) -> Result<(Vec<F>, Vec<F>, Vec<F>, F, usize, usize), SynthesisError> {
        let all = cs.to_matrices()?;
        let abc = all
            .get(R1CS_PREDICATE_LABEL)
            .ok_or(SynthesisError::PredicateNotFound)?;
        let [a_rows, b_rows, c_rows] = abc.as_slice() else {
            return Err(SynthesisError::ArityMismatch);
        };
        let num_inputs = cs.num_instance_variables();
        let m = cs.num_constraints();
        let n = domain_size(m, num_inputs).ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        let domain =
            Radix2EvaluationDomain::<F>::new(n).ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        let lagrange = domain.evaluate_all_lagrange_coefficients(*t);
        let variables = num_inputs + cs.num_witness_variables();
        let mut a = vec![F::ZERO; variables];
        let mut b = vec![F::ZERO; variables];
        let mut c = vec![F::ZERO; variables];
        // The public-input rows.
        a[..num_inputs].copy_from_slice(&lagrange[m..m + num_inputs]);
        for (rows, out) in [(a_rows, &mut a), (b_rows, &mut b), (c_rows, &mut c)] {
            for (row, l) in rows.iter().zip(&lagrange) {
                for (coefficient, wire) in row {
                    *out.get_mut(*wire)
                        .ok_or(SynthesisError::AssignmentMissing)? += *l * coefficient;
                }
            }
        }
        let zt = domain.evaluate_vanishing_polynomial(*t);
        Ok((a, b, c, zt, variables - 1, n))
    }

    fn witness_map_from_matrices<F: PrimeField, D: EvaluationDomain<F>>(
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Vec<F>, SynthesisError> {
        let [a, b, ..] = matrices else {
            return Err(SynthesisError::ArityMismatch);
        };
        if a.len() < num_constraints || b.len() < num_constraints {
            return Err(SynthesisError::ArityMismatch);
        }
        let [ea, eb] = constraint_evaluations(
            &a[..num_constraints],
            &b[..num_constraints],
            num_inputs,
            full_assignment,
        )
        .map_err(synthesis)?;
        h_evaluations(&ea, &eb).map_err(|_| SynthesisError::PolynomialDegreeTooLarge)
    }

    fn h_query_scalars<F: PrimeField, D: EvaluationDomain<F>>(
        max_power: usize,
        t: F,
        _zt: F,
        delta_inverse: F,
    ) -> Result<Vec<F>, SynthesisError> {
        // ark-groth16's generator passes the domain size minus one.
        h_query_scalars(max_power + 1, t, delta_inverse)
            .map_err(|_| SynthesisError::PolynomialDegreeTooLarge)
    }
}
