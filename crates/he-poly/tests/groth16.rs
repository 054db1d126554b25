//! A real Groth16 proof with the quotient h computed under encryption: the
//! encrypted reduction against ark-groth16's `LibsnarkReduction`, proofs
//! checked by the standard verifier, and bad input.

use std::sync::{Arc, OnceLock};

use ark_bn254::{Bn254, Fr};
use ark_ff::fields::{Fp64, MontBackend, MontConfig};
use ark_ff::{FftField, PrimeField, Zero};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::Groth16;
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain, Radix2EvaluationDomain};
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, ConstraintSystemRef, Matrix, OptimizationGoal,
    SynthesisError, Variable, R1CS_PREDICATE_LABEL,
};
use ark_relations::lc;
use ark_snark::SNARK;
use he_poly::groth16::{witness_evaluations, EncryptedReduction, ProvidedQuotient, QuotientKeys};
use he_poly::Error;
use rand::{rngs::StdRng, SeedableRng};

/// The 64-bit Goldilocks field (2-adicity 32): a field that is not the keys'.
#[derive(MontConfig)]
#[modulus = "18446744069414584321"]
#[generator = "7"]
struct GoldilocksConfig;
type Goldilocks = Fp64<MontBackend<GoldilocksConfig, 1>>;

/// A MiMC-like permutation with exponent 3 and a public key k:
/// x ← (x + k + c_i)³ for `rounds` rounds, 2 constraints each, the last
/// output being the public input y. Public inputs: k, y; witness: the
/// preimage and the intermediate values.
#[derive(Clone)]
struct Mimc<F: PrimeField> {
    rounds: usize,
    key: F,
    /// The preimage; `None` at setup.
    preimage: Option<F>,
    /// The public output to claim; `None` claims the true one.
    claimed: Option<F>,
}

impl<F: PrimeField> Mimc<F> {
    fn constant(i: usize) -> F {
        F::from(i as u64 + 1).pow([5]) + F::from(0x5eed_u64)
    }

    fn evaluate(&self, preimage: F) -> F {
        (0..self.rounds).fold(preimage, |x, i| (x + self.key + Self::constant(i)).pow([3]))
    }

    fn proving(rounds: usize, key: u64, preimage: u64) -> Self {
        Self {
            rounds,
            key: F::from(key),
            preimage: Some(F::from(preimage)),
            claimed: None,
        }
    }

    fn image(&self) -> F {
        self.evaluate(self.preimage.expect("a proving instance"))
    }
}

impl<F: PrimeField> ConstraintSynthesizer<F> for Mimc<F> {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let missing = SynthesisError::AssignmentMissing;
        let key = cs.new_input_variable(|| Ok(self.key))?;
        let image = self
            .preimage
            .map(|p| self.claimed.unwrap_or_else(|| self.evaluate(p)));
        let y = cs.new_input_variable(|| image.ok_or(missing))?;
        let mut x_value = self.preimage;
        let mut x = cs.new_witness_variable(|| x_value.ok_or(missing))?;
        for i in 0..self.rounds {
            let c = Self::constant(i);
            let s_value = x_value.map(|v| v + self.key + c);
            let square_value = s_value.map(|s| s * s);
            let square = cs.new_witness_variable(|| square_value.ok_or(missing))?;
            let s = lc!() + x + key + (c, Variable::one());
            cs.enforce_r1cs_constraint(|| s.clone(), || s.clone(), || lc!() + square)?;
            x_value = square_value.zip(s_value).map(|(q, s)| q * s);
            let next = if i + 1 == self.rounds {
                y
            } else {
                cs.new_witness_variable(|| x_value.ok_or(missing))?
            };
            cs.enforce_r1cs_constraint(|| lc!() + square, || s, || lc!() + next)?;
            x = next;
        }
        Ok(())
    }
}

/// The circuit synthesized as ark-groth16's prover does it.
fn synthesize<F: PrimeField>(circuit: Mimc<F>) -> ConstraintSystemRef<F> {
    let cs = ConstraintSystem::new_ref();
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    circuit.generate_constraints(cs.clone()).unwrap();
    cs.finalize();
    cs
}

/// The R1CS matrices (A, B, C) of a finalized constraint system and its
/// full assignment (instance, then witness).
fn matrices_and_assignment<F: PrimeField>(cs: &ConstraintSystemRef<F>) -> (Vec<Matrix<F>>, Vec<F>) {
    let matrices = cs
        .to_matrices()
        .unwrap()
        .remove(R1CS_PREDICATE_LABEL)
        .unwrap();
    let assignment = [
        cs.instance_assignment().unwrap(),
        cs.witness_assignment().unwrap(),
    ]
    .concat();
    (matrices, assignment)
}

/// 150 rounds: 300 constraints and 3 instance variables, a domain of 512.
const ROUNDS: usize = 150;
const DOMAIN: usize = 512;

/// One set of keys for the whole run (N = 2^15, 128-bit).
fn keys() -> &'static Arc<QuotientKeys<Fr>> {
    static KEYS: OnceLock<Arc<QuotientKeys<Fr>>> = OnceLock::new();
    KEYS.get_or_init(|| Arc::new(QuotientKeys::generate(DOMAIN).unwrap()))
}

type Domain = GeneralEvaluationDomain<Fr>;

#[test]
fn encrypted_quotient_equals_libsnark_reduction() {
    let cs = synthesize(Mimc::<Fr>::proving(ROUNDS, 17, 42));
    assert!(cs.is_satisfied().unwrap());
    assert_eq!(cs.num_constraints(), 2 * ROUNDS);
    assert_eq!(cs.num_instance_variables(), 3);

    let expected = LibsnarkReduction::witness_map::<Fr, Domain>(cs.clone()).unwrap();
    assert_eq!(expected.len(), DOMAIN);
    assert!(expected[..DOMAIN - 1].iter().any(|c| !c.is_zero()));

    let h = EncryptedReduction::with_keys(keys(), || {
        EncryptedReduction::witness_map::<Fr, Domain>(cs.clone())
    })
    .unwrap();
    assert_eq!(h, expected);
    assert_eq!(
        EncryptedReduction::take_last_error().map(|e| e.to_string()),
        None
    );

    // The same through the keys' own method, with a radix-2 domain type.
    let (matrices, assignment) = matrices_and_assignment(&cs);
    // a: the constraint rows, then the public inputs (1, k, y); b: the rows.
    let [a, b] = witness_evaluations(&matrices, 3, 2 * ROUNDS, &assignment).unwrap();
    assert_eq!(a.len(), 2 * ROUNDS + 3);
    assert_eq!(a[2 * ROUNDS..], assignment[..3]);
    assert_eq!(b.len(), 2 * ROUNDS);
    let h = keys()
        .witness_map_from_matrices::<Radix2EvaluationDomain<Fr>>(
            &matrices,
            3,
            2 * ROUNDS,
            &assignment,
        )
        .unwrap();
    assert_eq!(h, expected);
}

#[test]
fn proof_with_encrypted_quotient_passes_the_standard_verifier() {
    let mut rng = StdRng::seed_from_u64(11);
    let circuit = Mimc::<Fr>::proving(ROUNDS, 5, 1234);
    let (key, image) = (circuit.key, circuit.image());
    let setup = Mimc {
        preimage: None,
        ..circuit.clone()
    };
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(setup, &mut rng).unwrap();

    let proof = EncryptedReduction::with_keys(keys(), || {
        Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit, &mut rng)
    })
    .unwrap();

    assert!(Groth16::<Bn254>::verify(&vk, &[key, image], &proof).unwrap());
    assert!(!Groth16::<Bn254>::verify(&vk, &[key, image + Fr::from(1u64)], &proof).unwrap());
    assert!(!Groth16::<Bn254>::verify(&vk, &[key + Fr::from(1u64), image], &proof).unwrap());
    assert!(!Groth16::<Bn254>::verify(&vk, &[image, key], &proof).unwrap());
}

#[test]
fn unsatisfied_witness_is_refused_before_any_encryption() {
    // A false claim: the last round's output is not the claimed y.
    let circuit = Mimc {
        claimed: Some(Fr::from(99u64)),
        ..Mimc::<Fr>::proving(ROUNDS, 17, 42)
    };
    let cs = synthesize(circuit);
    assert!(!cs.is_satisfied().unwrap());
    // No keys set: the witness is checked before keys would be generated.
    let outcome = EncryptedReduction::witness_map::<Fr, Domain>(cs);
    assert_eq!(outcome, Err(SynthesisError::Unsatisfiable));
    assert!(matches!(
        EncryptedReduction::take_last_error(),
        Some(Error::Unsatisfied { constraint }) if constraint == 2 * ROUNDS - 1
    ));
    assert!(EncryptedReduction::take_last_error().is_none());
}

#[test]
fn keys_for_a_smaller_domain_are_refused() {
    // 600 constraints: a domain of 1024 against keys for 512.
    let cs = synthesize(Mimc::<Fr>::proving(300, 3, 4));
    let outcome =
        EncryptedReduction::with_keys(keys(), || EncryptedReduction::witness_map::<Fr, Domain>(cs));
    assert_eq!(outcome, Err(SynthesisError::PolynomialDegreeTooLarge));
    assert!(matches!(
        EncryptedReduction::take_last_error(),
        Some(Error::TooLong {
            len: 1024,
            max: DOMAIN
        })
    ));
}

#[test]
fn keys_for_another_field_are_refused() {
    // A circuit over another field, with keys for BN254's scalar field.
    let cs = synthesize(Mimc::<Goldilocks>::proving(4, 3, 4));
    let outcome = EncryptedReduction::with_keys(keys(), || {
        EncryptedReduction::witness_map::<Goldilocks, GeneralEvaluationDomain<Goldilocks>>(cs)
    });
    assert_eq!(outcome, Err(SynthesisError::AssignmentMissing));
    assert!(matches!(
        EncryptedReduction::take_last_error(),
        Some(Error::FieldMismatch)
    ));
}

#[test]
fn with_keys_restores_the_previous_keys() {
    let cs = synthesize(Mimc::<Goldilocks>::proving(4, 3, 4));
    let run = || {
        EncryptedReduction::witness_map::<Goldilocks, GeneralEvaluationDomain<Goldilocks>>(
            cs.clone(),
        )
    };
    let inner = Arc::new(QuotientKeys::<Goldilocks>::generate(16).unwrap());
    // Inner keys for Goldilocks shadow the outer ones for Fr, and go away with the closure.
    let (inside, after) = EncryptedReduction::with_keys(keys(), || {
        (EncryptedReduction::with_keys(&inner, run), run())
    });
    let expected = LibsnarkReduction::witness_map::<Goldilocks, GeneralEvaluationDomain<Goldilocks>>(
        cs.clone(),
    );
    assert_eq!(inside, expected);
    assert_eq!(after, Err(SynthesisError::AssignmentMissing));
    // Nothing set any more: fresh keys for the domain, the same h.
    assert_eq!(run(), expected);
}

#[test]
fn malformed_matrices_and_arguments_are_errors() {
    let cs = synthesize(Mimc::<Fr>::proving(4, 3, 4));
    let (matrices, assignment) = matrices_and_assignment(&cs);
    let k = keys();
    let invalid = |r: he_poly::Result<Vec<Fr>>| matches!(r, Err(Error::InvalidArgument(_)));

    // Two matrices instead of three.
    assert!(invalid(k.witness_map_from_matrices::<Domain>(
        &matrices[..2],
        3,
        8,
        &assignment
    )));
    // Fewer constraints than matrix rows, an assignment too short, more inputs than values.
    assert!(invalid(k.witness_map_from_matrices::<Domain>(
        &matrices,
        3,
        7,
        &assignment
    )));
    assert!(invalid(k.witness_map_from_matrices::<Domain>(
        &matrices,
        3,
        8,
        &assignment[..5]
    )));
    assert!(invalid(k.witness_map_from_matrices::<Domain>(
        &matrices,
        99,
        8,
        &assignment[..5]
    )));
    // Through the trait: the same error, kept.
    let outcome = EncryptedReduction::witness_map_from_matrices::<Fr, Domain>(
        &matrices,
        3,
        8,
        &assignment[..5],
    );
    assert_eq!(outcome, Err(SynthesisError::AssignmentMissing));
    assert!(matches!(
        EncryptedReduction::take_last_error(),
        Some(Error::InvalidArgument(_))
    ));

    // A proper coset, and more evaluations than points.
    let domain = Radix2EvaluationDomain::<Fr>::new(16).unwrap();
    let coset = domain.get_coset(Fr::GENERATOR).unwrap();
    let values = vec![Fr::from(1u64); 16];
    assert!(matches!(
        k.encrypt_interpolants(&coset, &values, &values),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        k.encrypt_interpolants(&domain, &[values.clone(), values.clone()].concat(), &values),
        Err(Error::InvalidArgument(_))
    ));

    // A quotient as long as the domain is no Groth16 quotient.
    let [a, b] = k.encrypt_interpolants(&domain, &values, &values).unwrap();
    let product = a.mul(&b).unwrap();
    assert!(matches!(
        k.decrypt_quotient(&product, 16),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn a_provided_quotient_proves_when_it_is_the_true_one() {
    let mut rng = StdRng::seed_from_u64(12);
    let circuit = Mimc::<Fr>::proving(ROUNDS, 6, 4321);
    let (key, image) = (circuit.key, circuit.image());
    let setup = Mimc {
        preimage: None,
        ..circuit.clone()
    };
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(setup, &mut rng).unwrap();
    let h = LibsnarkReduction::witness_map::<Fr, Domain>(synthesize(circuit.clone())).unwrap();

    let proof = ProvidedQuotient::with_quotient(h.clone(), || {
        Groth16::<Bn254, ProvidedQuotient>::prove(&pk, circuit.clone(), &mut rng)
    })
    .unwrap();
    assert!(Groth16::<Bn254>::verify(&vk, &[key, image], &proof).unwrap());

    // Another h of the right length: a proof that does not verify.
    let mut wrong = h.clone();
    wrong[0] += Fr::from(1u64);
    let proof = ProvidedQuotient::with_quotient(wrong, || {
        Groth16::<Bn254, ProvidedQuotient>::prove(&pk, circuit.clone(), &mut rng)
    })
    .unwrap();
    assert!(!Groth16::<Bn254>::verify(&vk, &[key, image], &proof).unwrap());

    // No h, an h of another field, or of the wrong length: errors.
    let cs = || synthesize(circuit.clone());
    assert_eq!(
        ProvidedQuotient::witness_map::<Fr, Domain>(cs()),
        Err(SynthesisError::AssignmentMissing)
    );
    let other_field = vec![Goldilocks::from(1u64); h.len()];
    assert_eq!(
        ProvidedQuotient::with_quotient(other_field, || {
            ProvidedQuotient::witness_map::<Fr, Domain>(cs())
        }),
        Err(SynthesisError::AssignmentMissing)
    );
    assert_eq!(
        ProvidedQuotient::with_quotient(h[1..].to_vec(), || {
            ProvidedQuotient::witness_map::<Fr, Domain>(cs())
        }),
        Err(SynthesisError::PolynomialDegreeTooLarge)
    );
    // The quotient is gone once the closure returns.
    ProvidedQuotient::with_quotient(h, || ());
    assert_eq!(
        ProvidedQuotient::witness_map::<Fr, Domain>(cs()),
        Err(SynthesisError::AssignmentMissing)
    );
}
