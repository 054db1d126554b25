//! Constraint matrices in arkworks' sparse row layout (`Matrix<F>`: per
//! constraint, the `(coefficient, wire)` pairs), as read from an `.r1cs`
//! (A, B and C) or a `.zkey` (A and B only).
//!
//! ark-relations 0.6 has no `ConstraintMatrices` struct any more (its
//! `to_matrices` gives a map from predicate labels to `Vec<Matrix<F>>`);
//! these types carry the counts with the matrices, and
//! [`as_slice`](CircuitMatrices::as_slice) gives what
//! `Groth16::create_proof_with_reduction_and_matrices` takes.

use ark_bn254::Fr;
use ark_ff::Field;
pub use ark_relations::gr1cs::Matrix;

use crate::error::{Error, Result};

/// Sparse matrices of one circuit with its wire counts, wires numbered as
/// circom does: the constant one, the public wires, then the private
/// wires. `N = 3` is an `.r1cs`'s A, B and C ([`ConstraintMatrices`]);
/// `N = 2` a `.zkey`'s A and B ([`AbMatrices`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CircuitMatrices<const N: usize> {
    pub(crate) num_instance_variables: usize,
    pub(crate) num_witness_variables: usize,
    pub(crate) matrices: [Matrix<Fr>; N],
}

/// A, B and C of an `.r1cs`; the public wires are `nPubOut` outputs, then
/// `nPubIn` inputs.
pub type ConstraintMatrices = CircuitMatrices<3>;

/// A and B of a `.zkey` without the public-input rows snarkjs adds (see
/// [`crate::reduction`]); the public wires are its `nPublic`.
pub type AbMatrices = CircuitMatrices<2>;

impl<const N: usize> CircuitMatrices<N> {
    /// The constant one and the public wires.
    pub fn num_instance_variables(&self) -> usize {
        self.num_instance_variables
    }

    /// The private wires.
    pub fn num_witness_variables(&self) -> usize {
        self.num_witness_variables
    }

    /// All wires.
    pub fn num_variables(&self) -> usize {
        self.num_instance_variables + self.num_witness_variables
    }

    /// The constraints of the circuit (rows of each matrix; a zkey's
    /// without snarkjs's public-input rows).
    pub fn num_constraints(&self) -> usize {
        self.matrices[0].len()
    }

    /// Matrix A.
    pub fn a(&self) -> &Matrix<Fr> {
        &self.matrices[0]
    }

    /// Matrix B.
    pub fn b(&self) -> &Matrix<Fr> {
        &self.matrices[1]
    }

    /// The matrices in order (`[A, B, C]` or `[A, B]`), as ark-groth16's
    /// provers take them (the circom reduction never needs C).
    pub fn as_slice(&self) -> &[Matrix<Fr>] {
        &self.matrices
    }

    /// The nonzero entries of each matrix.
    pub fn num_non_zero(&self) -> [usize; N] {
        self.matrices
            .each_ref()
            .map(|m| m.iter().map(Vec::len).sum::<usize>())
    }
}

impl ConstraintMatrices {
    /// Matrix C.
    pub fn c(&self) -> &Matrix<Fr> {
        &self.matrices[2]
    }

    /// Checks that the full assignment `z` (the one first) satisfies every
    /// constraint: `(A·z)·(B·z) = C·z`.
    ///
    /// # Errors
    /// [`Error::Unsatisfied`] naming the first failing constraint, or a
    /// wrong length or first value.
    pub fn check_assignment(&self, z: &[Fr]) -> Result<()> {
        if z.len() != self.num_variables() {
            return Err(Error::Unsatisfied {
                what: format!(
                    "the assignment has {} values, the r1cs has {} wires",
                    z.len(),
                    self.num_variables()
                ),
            });
        }
        if z.first() != Some(&Fr::ONE) {
            return Err(Error::Unsatisfied {
                what: "the assignment's first value (the constant wire) is not 1".into(),
            });
        }
        let [a, b, c] = self.matrices.each_ref().map(|m| evaluate_rows(m, z));
        let (a, b, c) = (a?, b?, c?);
        match (0..a.len()).find(|&i| a[i] * b[i] != c[i]) {
            Some(i) => Err(Error::Unsatisfied {
                what: format!("constraint {i} fails: (A·z)·(B·z) ≠ C·z"),
            }),
            None => Ok(()),
        }
    }
}

/// The rows of `matrix` applied to `z`: `(M·z)_i = Σ coefficient·z[wire]`.
///
/// # Errors
/// [`Error::InvalidArgument`] if an entry names a wire past `z`.
pub fn evaluate_rows<F: Field>(matrix: &[Vec<(F, usize)>], z: &[F]) -> Result<Vec<F>> {
    matrix
        .iter()
        .enumerate()
        .map(|(row, entries)| {
            entries
                .iter()
                .try_fold(F::ZERO, |sum, (coefficient, wire)| {
                    let value = z.get(*wire).ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "row {row} names wire {wire}, the assignment has {} values",
                            z.len()
                        ))
                    })?;
                    Ok(sum + *coefficient * value)
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::One;

    #[test]
    fn assignment_checks() {
        // w2 = w1 · w1 with w1 public.
        let one = Fr::one();
        let m = ConstraintMatrices {
            num_instance_variables: 2,
            num_witness_variables: 1,
            matrices: [
                vec![vec![(one, 1)]],
                vec![vec![(one, 1)]],
                vec![vec![(one, 2)]],
            ],
        };
        assert_eq!(m.num_non_zero(), [1, 1, 1]);
        let three = Fr::from(3u64);
        let nine = Fr::from(9u64);
        assert!(m.check_assignment(&[one, three, nine]).is_ok());
        assert!(m.check_assignment(&[one, three, three]).is_err());
        assert!(m.check_assignment(&[three, three, nine]).is_err());
        assert!(m.check_assignment(&[one, three]).is_err());
        assert!(evaluate_rows(m.c(), &[one, one]).is_err());
    }
}
