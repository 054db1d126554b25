//! A rank-1 constraint system as the prover needs it: the matrices A, B
//! and C and the variable counts, from an arkworks constraint system or from
//! any other source (a circom `.r1cs` file).

use ark_ff::Field;
use ark_relations::gr1cs::{ConstraintSystemRef, Matrix, R1CS_PREDICATE_LABEL};

use crate::error::{Error, Result};

/// The matrices A, B and C of an R1CS, one row per constraint, each row a
/// list of (coefficient, variable) pairs. Variables are numbered instance
/// first (the constant one at 0, then the public inputs), then witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct R1csMatrices<F> {
    /// Instance variables, the constant one included.
    pub num_instance_variables: usize,
    /// Witness variables.
    pub num_witness_variables: usize,
    /// A, one row per constraint.
    pub a: Matrix<F>,
    /// B, one row per constraint.
    pub b: Matrix<F>,
    /// C, one row per constraint.
    pub c: Matrix<F>,
}

impl<F: Field> R1csMatrices<F> {
    /// The R1CS matrices of a finalized arkworks constraint system.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the system has no R1CS matrices (it
    /// was made without them, or uses only other predicates).
    pub fn from_constraint_system(cs: &ConstraintSystemRef<F>) -> Result<Self> {
        let no_matrices =
            || Error::InvalidArgument("the constraint system produced no R1CS matrices".into());
        let mut matrices = cs
            .to_matrices()?
            .remove(R1CS_PREDICATE_LABEL)
            .ok_or_else(no_matrices)?;
        if matrices.len() != 3 {
            return Err(no_matrices());
        }
        let c = matrices.pop().ok_or_else(no_matrices)?;
        let b = matrices.pop().ok_or_else(no_matrices)?;
        let a = matrices.pop().ok_or_else(no_matrices)?;
        Ok(Self {
            num_instance_variables: cs.num_instance_variables(),
            num_witness_variables: cs.num_witness_variables(),
            a,
            b,
            c,
        })
    }

    /// Constraints (rows of A).
    pub fn num_constraints(&self) -> usize {
        self.a.len()
    }

    /// All variables, instance and witness.
    pub fn num_variables(&self) -> usize {
        self.num_instance_variables + self.num_witness_variables
    }

    /// Checks that A, B and C have the same number of rows, that every entry
    /// names an existing variable and that the constant one exists.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first inconsistency.
    pub fn check(&self) -> Result<()> {
        if self.num_instance_variables == 0 {
            return Err(Error::InvalidArgument(
                "an R1CS has at least one instance variable, the constant one".into(),
            ));
        }
        let rows = self.num_constraints();
        if self.b.len() != rows || self.c.len() != rows {
            return Err(Error::InvalidArgument(format!(
                "the matrices have {rows}, {} and {} rows; they must agree",
                self.b.len(),
                self.c.len()
            )));
        }
        let variables = self
            .num_instance_variables
            .checked_add(self.num_witness_variables)
            .ok_or_else(|| Error::InvalidArgument("too many variables".into()))?;
        for (name, matrix) in [("A", &self.a), ("B", &self.b), ("C", &self.c)] {
            for (row, entries) in matrix.iter().enumerate() {
                if let Some((_, variable)) = entries.iter().find(|(_, v)| *v >= variables) {
                    return Err(Error::InvalidArgument(format!(
                        "row {row} of {name} names variable {variable}, there are {variables}"
                    )));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use ark_bn254::Fr;

    use super::*;

    fn two_by_one() -> R1csMatrices<Fr> {
        let one = Fr::from(1u64);
        R1csMatrices {
            num_instance_variables: 2,
            num_witness_variables: 1,
            a: vec![vec![(one, 2)]],
            b: vec![vec![(one, 2)]],
            c: vec![vec![(one, 1)]],
        }
    }

    #[test]
    fn a_consistent_system_passes_and_each_inconsistency_is_named() {
        let good = two_by_one();
        assert!(good.check().is_ok());
        assert_eq!((good.num_constraints(), good.num_variables()), (1, 3));

        let mut bad = two_by_one();
        bad.c.push(Vec::new());
        assert!(bad.check().unwrap_err().to_string().contains("rows"));

        let mut bad = two_by_one();
        bad.b[0][0].1 = 3;
        let message = bad.check().unwrap_err().to_string();
        assert!(message.contains("row 0 of B names variable 3"), "{message}");

        let mut bad = two_by_one();
        bad.num_instance_variables = 0;
        assert!(bad.check().is_err());
    }
}
