//! What the collaborative-prover tests share: a small (insecure) ring for
//! BN254, the square-chain circuit with its keys and witness.

#![allow(dead_code)]

use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use ark_ff::PrimeField;
use ark_groth16::{Groth16, ProvingKey};
use ark_snark::SNARK;
use example_support::circuits::{ProverView, SquareChain};
use he_cosnark::{Circuit, Libsnark};
use helib_rs::{Context, Parameters};
use rand::{rngs::StdRng, SeedableRng};

/// N = 4096 (far below 128-bit security for this modulus: tests only), a
/// chain for one product of single blocks, two key-switching digits and
/// room for the smudging of `parties` parties.
pub fn context(parties: u32) -> Context {
    context_of_degree(4096, parties)
}

/// As [`context`], with ring degree `ring`.
pub fn context_of_degree(ring: usize, parties: u32) -> Context {
    let t: num_bigint::BigUint = Fr::MODULUS.into();
    let chain = he_cosnark::proof_chain_bits(ring, &t, parties, 1);
    let builder = Parameters::builder()
        .ring_degree(ring)
        .plaintext_modulus(t)
        .chain_bits(&chain)
        .key_switching_digits(2)
        .threads(1)
        .allow_insecure();
    let params = he_threshold::with_smudging_room(builder, parties, 40).unwrap();
    Context::new(&params).unwrap()
}

/// A square chain of `steps` constraints: its circuit (with proving key),
/// its public input and its witness.
pub struct Chain {
    pub circuit: Arc<Circuit<Bn254, Libsnark>>,
    pub public_inputs: Vec<Fr>,
    pub witness: Vec<Fr>,
    pub proving_key: ProvingKey<Bn254>,
}

pub fn chain(steps: usize) -> Chain {
    let mut rng = StdRng::seed_from_u64(steps as u64);
    let setup = SquareChain { steps, start: None };
    let (proving_key, _) =
        Groth16::<Bn254>::circuit_specific_setup(setup.clone(), &mut rng).unwrap();
    let circuit = Circuit::from_synthesizer(setup, proving_key.clone()).unwrap();
    let view = ProverView::of(&SquareChain {
        steps,
        start: Some(Fr::from(7u64)),
    })
    .unwrap();
    Chain {
        circuit: Arc::new(circuit),
        public_inputs: view.assignment[1..view.num_inputs].to_vec(),
        witness: view.assignment[view.num_inputs..].to_vec(),
        proving_key,
    }
}

/// The roles of a session, made one by one (what `InProcessProver` does),
/// so that tests can hand each one any message.
pub struct Roles {
    pub parties: Vec<he_cosnark::ComputingParty<Bn254, Libsnark>>,
    pub server: he_cosnark::Server<Bn254, Libsnark>,
}

pub fn roles(
    context: &Context,
    id: [u8; 32],
    parties: u32,
    circuit: &Arc<Circuit<Bn254, Libsnark>>,
) -> Roles {
    let session = he_threshold::Session::new(context, id, parties).unwrap();
    let plan = Arc::new(he_cosnark::ProofPlan::new(&session, circuit.domain_size()).unwrap());
    let keys = he_cosnark::KeySession::run(&session, parties).unwrap();
    let parties = keys
        .parties
        .into_iter()
        .zip(keys.party_keys)
        .map(|(p, keys)| {
            he_cosnark::ComputingParty::new(p, keys.relin_key, circuit.clone(), plan.clone())
                .unwrap()
        })
        .collect();
    let server = he_cosnark::Server::new(session, circuit.clone(), plan).unwrap();
    Roles { parties, server }
}
