//! Test circuits the Groth16 examples prove.

use ark_bn254::Fr;
use ark_ff::Field;
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain};
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, ConstraintSystemRef, Matrix, OptimizationGoal,
    SynthesisError, Variable, R1CS_PREDICATE_LABEL,
};
use ark_relations::lc;

/// z_{i+1} = z_i² + c_i for `steps` steps (c_i = i² + 3), one R1CS constraint
/// per step; z_steps is the single public input.
#[derive(Debug, Clone)]
pub struct SquareChain {
    /// Steps (constraints) of the chain.
    pub steps: usize,
    /// z₀; `None` at setup, when no witness is assigned.
    pub start: Option<Fr>,
}

impl SquareChain {
    /// The constant added at step `i`.
    pub fn constant(i: usize) -> Fr {
        Fr::from(i as u64).square() + Fr::from(3u64)
    }

    /// The public output z_steps of the chain started at `start`.
    pub fn end(&self, start: Fr) -> Fr {
        (0..self.steps).fold(start, |z, i| z.square() + Self::constant(i))
    }

    /// The finalized constraint system as ark-groth16's prover builds it
    /// (optimized for constraints), with the witness assigned.
    pub fn prover_constraint_system(&self) -> Result<ConstraintSystemRef<Fr>, SynthesisError> {
        let cs = ConstraintSystem::new_ref();
        cs.set_optimization_goal(OptimizationGoal::Constraints);
        self.clone().generate_constraints(cs.clone())?;
        cs.finalize();
        Ok(cs)
    }
}

/// What ark-groth16's witness map reads off a finalized, assigned constraint
/// system: its sizes, the evaluation domain, the matrices and the full
/// assignment (instance, then witness).
#[derive(Debug, Clone)]
pub struct ProverView {
    /// R1CS constraints.
    pub num_constraints: usize,
    /// Instance variables, the constant one included.
    pub num_inputs: usize,
    /// The smallest domain holding the constraints and the inputs.
    pub domain: GeneralEvaluationDomain<Fr>,
    /// The A, B and C matrices, in that order.
    pub matrices: Vec<Matrix<Fr>>,
    /// Instance assignment followed by witness assignment.
    pub assignment: Vec<Fr>,
}

impl ProverView {
    /// The view of `circuit` with its witness assigned.
    ///
    /// # Errors
    /// A synthesis error, or a message when the circuit is too large for an
    /// FFT domain of the BN254 scalar field.
    pub fn of(circuit: &SquareChain) -> Result<Self, Box<dyn std::error::Error>> {
        let cs = circuit.prover_constraint_system()?;
        let (num_constraints, num_inputs) = (cs.num_constraints(), cs.num_instance_variables());
        let domain = GeneralEvaluationDomain::new(num_constraints + num_inputs)
            .ok_or("no evaluation domain that large")?;
        let matrices = cs
            .to_matrices()?
            .remove(R1CS_PREDICATE_LABEL)
            .ok_or("the constraint system has no R1CS matrices")?;
        let assignment = [cs.instance_assignment()?, cs.witness_assignment()?].concat();
        Ok(Self {
            num_constraints,
            num_inputs,
            domain,
            matrices,
            assignment,
        })
    }
}

impl ConstraintSynthesizer<Fr> for SquareChain {
    fn generate_constraints(self, cs: ConstraintSystemRef<Fr>) -> Result<(), SynthesisError> {
        let missing = SynthesisError::AssignmentMissing;
        let y_value = self.start.map(|s| self.end(s));
        let y = cs.new_input_variable(|| y_value.ok_or(missing))?;
        let mut z_value = self.start;
        let mut z = cs.new_witness_variable(|| z_value.ok_or(missing))?;
        for i in 0..self.steps {
            let c = Self::constant(i);
            z_value = z_value.map(|v| v.square() + c);
            let next = if i + 1 == self.steps {
                y
            } else {
                cs.new_witness_variable(|| z_value.ok_or(missing))?
            };
            // z·z = z_next − c
            cs.enforce_r1cs_constraint(
                || lc!() + z,
                || lc!() + z,
                || lc!() + next + (-c, Variable::one()),
            )?;
            z = next;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_is_satisfied_by_its_own_witness_only() {
        let chain = SquareChain {
            steps: 20,
            start: Some(Fr::from(7u64)),
        };
        let cs = ConstraintSystem::<Fr>::new_ref();
        chain.clone().generate_constraints(cs.clone()).unwrap();
        assert_eq!(cs.num_constraints(), 20);
        assert_eq!(cs.num_instance_variables(), 2); // the constant one and z_steps
        assert!(cs.is_satisfied().unwrap());

        // The matrices hold for the assignment, and fail for a public output
        // that is not the chain's end.
        let view = ProverView::of(&chain).unwrap();
        let violated = |z: &[Fr]| {
            let row = |m: &Matrix<Fr>, i: usize| m[i].iter().map(|(c, v)| *c * z[*v]).sum::<Fr>();
            let [a, b, c] = [&view.matrices[0], &view.matrices[1], &view.matrices[2]];
            (0..view.num_constraints).find(|&i| row(a, i) * row(b, i) != row(c, i))
        };
        assert_eq!(violated(&view.assignment), None);
        let mut wrong = view.assignment.clone();
        wrong[1] += Fr::from(1u64);
        assert_eq!(violated(&wrong), Some(19));
    }
}
