//! The public description of what is proved: the proving key, the
//! constraint matrices, the sizes and the reduction. Every role holds the
//! same [`Circuit`]; its digest binds every message to it.

use std::marker::PhantomData;

use ark_ec::pairing::Pairing;
use ark_ff::{AdditiveGroup, Field, PrimeField};
use ark_groth16::{ProvingKey, VerifyingKey};
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain};
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, OptimizationGoal, SynthesisMode,
};
use ark_serialize::CanonicalSerialize;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::matrices::R1csMatrices;
use crate::reduction::Reduction;

/// A circuit's Groth16 key and matrices, checked against each other.
pub struct Circuit<E: Pairing, R: Reduction> {
    key: CircuitKey<E>,
    query_lengths: QueryLengths,
    matrices: R1csMatrices<E::ScalarField>,
    domain: GeneralEvaluationDomain<E::ScalarField>,
    digest: [u8; 32],
    reduction: PhantomData<R>,
}

/// What a circuit holds of its Groth16 key: the whole proving key (what a
/// party's multi-scalar multiplications need), or only what a server uses.
enum CircuitKey<E: Pairing> {
    Proving(ProvingKey<E>),
    WithoutQueries {
        verifying_key: VerifyingKey<E>,
        delta_g1: E::G1Affine,
    },
}

/// The number of points in each query of a proving key: what a circuit's
/// digest covers of them, and what a key read without them must have had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryLengths {
    /// `a_query`.
    pub a: usize,
    /// `b_g1_query`.
    pub b_g1: usize,
    /// `b_g2_query`.
    pub b_g2: usize,
    /// `h_query`.
    pub h: usize,
    /// `l_query`.
    pub l: usize,
}

impl QueryLengths {
    /// The lengths of `pk`'s queries.
    pub fn of<E: Pairing>(pk: &ProvingKey<E>) -> Self {
        Self {
            a: pk.a_query.len(),
            b_g1: pk.b_g1_query.len(),
            b_g2: pk.b_g2_query.len(),
            h: pk.h_query.len(),
            l: pk.l_query.len(),
        }
    }
}

impl<E: Pairing, R: Reduction> Circuit<E, R> {
    /// The circuit of `matrices` with its proving key.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the key's queries do not match the
    /// matrices' variables or domain, or no FFT domain holds the constraints.
    pub fn new(proving_key: ProvingKey<E>, matrices: R1csMatrices<E::ScalarField>) -> Result<Self> {
        let lengths = QueryLengths::of(&proving_key);
        Self::with_key(CircuitKey::Proving(proving_key), lengths, matrices)
    }

    /// The circuit of `matrices` for a role that makes no multi-scalar
    /// multiplication (a server): its verifying key, δ in G1 and the
    /// lengths its proving key's queries have, without their points. It has
    /// the same [`digest`](Self::digest) as the circuit with the whole
    /// key, but no [`proving_key`](Self::proving_key), so no party can be
    /// made of it.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn without_queries(
        verifying_key: VerifyingKey<E>,
        delta_g1: E::G1Affine,
        query_lengths: QueryLengths,
        matrices: R1csMatrices<E::ScalarField>,
    ) -> Result<Self> {
        let key = CircuitKey::WithoutQueries {
            verifying_key,
            delta_g1,
        };
        Self::with_key(key, query_lengths, matrices)
    }

    /// This circuit as a server holds it, [`without_queries`](Self::without_queries):
    /// the same digest, verifying key, δ in G1 and matrices, no query points.
    pub fn without_query_points(&self) -> Self {
        Self {
            key: CircuitKey::WithoutQueries {
                verifying_key: self.verifying_key().clone(),
                delta_g1: self.delta_g1(),
            },
            query_lengths: self.query_lengths,
            matrices: self.matrices.clone(),
            domain: self.domain,
            digest: self.digest,
            reduction: PhantomData,
        }
    }

    fn with_key(
        key: CircuitKey<E>,
        lengths: QueryLengths,
        matrices: R1csMatrices<E::ScalarField>,
    ) -> Result<Self> {
        matrices.check()?;
        let variables = matrices.num_variables();
        let rows = matrices.num_constraints() + matrices.num_instance_variables;
        let domain = GeneralEvaluationDomain::new(rows).ok_or_else(|| {
            Error::InvalidArgument(format!("no FFT domain holds {rows} evaluations"))
        })?;
        let invalid = |what: &str, expected: usize, got: usize| {
            Err(Error::InvalidArgument(format!(
                "the proving key's {what} has {got} elements, the matrices need {expected}"
            )))
        };
        if lengths.a != variables {
            return invalid("a_query", variables, lengths.a);
        }
        if lengths.b_g1 != variables || lengths.b_g2 != variables {
            return invalid("b_query", variables, lengths.b_g2);
        }
        if lengths.l != matrices.num_witness_variables {
            return invalid("l_query", matrices.num_witness_variables, lengths.l);
        }
        if lengths.h != R::h_query_len(domain.size()) {
            return invalid("h_query", R::h_query_len(domain.size()), lengths.h);
        }
        let verifying_key = match &key {
            CircuitKey::Proving(pk) => &pk.vk,
            CircuitKey::WithoutQueries { verifying_key, .. } => verifying_key,
        };
        if verifying_key.gamma_abc_g1.len() != matrices.num_instance_variables {
            return invalid(
                "gamma_abc_g1",
                matrices.num_instance_variables,
                verifying_key.gamma_abc_g1.len(),
            );
        }
        let digest = digest::<E>(verifying_key, &lengths, &matrices, R::NAME);
        Ok(Self {
            key,
            query_lengths: lengths,
            matrices,
            domain,
            digest,
            reduction: PhantomData,
        })
    }

    /// The circuit `synthesizer` defines (synthesized without a witness),
    /// with its proving key.
    ///
    /// # Errors
    /// Synthesis errors; as [`new`](Self::new).
    pub fn from_synthesizer<C: ConstraintSynthesizer<E::ScalarField>>(
        synthesizer: C,
        proving_key: ProvingKey<E>,
    ) -> Result<Self> {
        let cs = ConstraintSystem::new_ref();
        cs.set_optimization_goal(OptimizationGoal::Constraints);
        cs.set_mode(SynthesisMode::Setup);
        synthesizer.generate_constraints(cs.clone())?;
        cs.finalize();
        Self::new(proving_key, R1csMatrices::from_constraint_system(&cs)?)
    }

    /// The proving key.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a circuit made
    /// [`without_queries`](Self::without_queries).
    pub fn proving_key(&self) -> Result<&ProvingKey<E>> {
        match &self.key {
            CircuitKey::Proving(pk) => Ok(pk),
            CircuitKey::WithoutQueries { .. } => Err(Error::InvalidArgument(
                "the circuit was read without its proving key's query points (as a server \
                 reads it); a party's multi-scalar multiplications need the whole key"
                    .into(),
            )),
        }
    }
    /// The verifying key.
    pub fn verifying_key(&self) -> &VerifyingKey<E> {
        match &self.key {
            CircuitKey::Proving(pk) => &pk.vk,
            CircuitKey::WithoutQueries { verifying_key, .. } => verifying_key,
        }
    }
    /// δ in G1 (the proving key's `delta_g1`).
    pub fn delta_g1(&self) -> E::G1Affine {
        match &self.key {
            CircuitKey::Proving(pk) => pk.delta_g1,
            CircuitKey::WithoutQueries { delta_g1, .. } => *delta_g1,
        }
    }
    /// The lengths of the proving key's queries.
    pub fn query_lengths(&self) -> &QueryLengths {
        &self.query_lengths
    }
    /// The constraint matrices.
    pub fn matrices(&self) -> &R1csMatrices<E::ScalarField> {
        &self.matrices
    }
    /// The evaluation domain (size n).
    pub fn domain(&self) -> &GeneralEvaluationDomain<E::ScalarField> {
        &self.domain
    }
    /// The domain's size n.
    pub fn domain_size(&self) -> usize {
        self.domain.size()
    }
    /// R1CS constraints.
    pub fn num_constraints(&self) -> usize {
        self.matrices.num_constraints()
    }
    /// Public inputs (the instance variables without the constant one).
    pub fn num_public_inputs(&self) -> usize {
        self.matrices.num_instance_variables - 1
    }
    /// Witness variables.
    pub fn num_witness(&self) -> usize {
        self.matrices.num_witness_variables
    }
    /// SHA-256 over the verifying key, the query lengths, the matrices and
    /// the reduction: what every message is bound to.
    pub fn digest(&self) -> &[u8; 32] {
        &self.digest
    }

    /// Checks that `public_inputs` has the circuit's number of values.
    pub(crate) fn check_public_inputs(&self, public_inputs: &[E::ScalarField]) -> Result<()> {
        if public_inputs.len() != self.num_public_inputs() {
            return Err(Error::WrongLength {
                what: "list of public inputs",
                expected: self.num_public_inputs(),
                got: public_inputs.len(),
            });
        }
        Ok(())
    }

    /// A party's share of the full assignment: the constant one and the
    /// public inputs for the designated party (zeros for the others), then
    /// its witness share.
    pub(crate) fn assignment_share(
        &self,
        designated: bool,
        public_inputs: &[E::ScalarField],
        witness: &[E::ScalarField],
    ) -> Result<Vec<E::ScalarField>> {
        self.check_public_inputs(public_inputs)?;
        if witness.len() != self.num_witness() {
            return Err(Error::WrongLength {
                what: "witness share",
                expected: self.num_witness(),
                got: witness.len(),
            });
        }
        let mut z = Vec::with_capacity(self.matrices.num_instance_variables + witness.len());
        if designated {
            z.push(E::ScalarField::ONE);
            z.extend_from_slice(public_inputs);
        } else {
            z.resize(self.matrices.num_instance_variables, E::ScalarField::ZERO);
        }
        z.extend_from_slice(witness);
        Ok(z)
    }

    /// The coefficients of A and B for a share of the assignment.
    pub(crate) fn interpolant_shares(
        &self,
        z: &[E::ScalarField],
    ) -> Result<[Vec<E::ScalarField>; 2]> {
        R::interpolant_shares(
            &self.matrices,
            self.matrices.num_instance_variables,
            &self.domain,
            z,
        )
    }

    /// The coefficients of C for a share of the assignment.
    pub(crate) fn c_interpolant_share(&self, z: &[E::ScalarField]) -> Result<Vec<E::ScalarField>> {
        R::c_interpolant_share(&self.matrices, &self.domain, z)
    }
}

fn digest<E: Pairing>(
    vk: &VerifyingKey<E>,
    lengths: &QueryLengths,
    matrices: &R1csMatrices<E::ScalarField>,
    reduction: &str,
) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(b"he-cosnark circuit v1");
    hash.update(reduction.as_bytes());
    let mut encoded = Vec::new();
    // Serializing into a Vec cannot fail.
    let _ = vk.serialize_compressed(&mut encoded);
    hash.update(&encoded);
    for size in [
        lengths.a,
        lengths.h,
        lengths.l,
        matrices.num_constraints(),
        matrices.num_instance_variables,
        matrices.num_witness_variables,
    ] {
        hash.update((size as u64).to_le_bytes());
    }
    for matrix in [&matrices.a, &matrices.b, &matrices.c] {
        for row in matrix {
            hash.update((row.len() as u64).to_le_bytes());
            for (coefficient, variable) in row {
                hash.update((*variable as u64).to_le_bytes());
                for limb in coefficient.into_bigint().as_ref() {
                    hash.update(limb.to_le_bytes());
                }
            }
        }
    }
    hash.finalize().into()
}
