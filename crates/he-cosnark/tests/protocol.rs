//! Whole collaborative proofs against ark-groth16's verifier.

mod common;

use ark_bn254::{Bn254, Fr};
use ark_ff::Field;
use ark_groth16::Groth16;
use he_cosnark::{share_witness, Error, InProcessProver, Role, Round};
use rand::rngs::OsRng;

#[test]
fn three_parties_prove_and_the_verifier_accepts() {
    let chain = common::chain(20);
    let context = common::context(3);
    let mut prover = InProcessProver::new(&context, [7; 32], 3, 3, chain.circuit.clone()).unwrap();
    let vk = &chain.proving_key.vk;
    let mut proofs = Vec::new();
    for index in 0..2 {
        let shares = share_witness(&chain.witness, 3, &mut OsRng).unwrap();
        let (proof, report) = prover
            .prove(index, &chain.public_inputs, &shares, &mut OsRng)
            .unwrap();
        assert!(Groth16::<Bn254>::verify_proof(
            &ark_groth16::prepare_verifying_key(vk),
            &proof,
            &chain.public_inputs
        )
        .unwrap());
        let wrong = [chain.public_inputs[0] + Fr::ONE];
        assert!(!Groth16::<Bn254>::verify_proof(
            &ark_groth16::prepare_verifying_key(vk),
            &proof,
            &wrong
        )
        .unwrap());
        for role in [Role::Party(0), Role::Party(1), Role::Party(2), Role::Server] {
            let cost = report.role(role);
            assert!(cost.traffic.sent > 0 && cost.traffic.received > 0, "{role}");
        }
        assert!(report
            .rounds
            .contains_key(&(Role::Party(0), Round::Combine)));
        proofs.push(proof);
    }
    // Fresh randomness per proof.
    assert_ne!(proofs[0], proofs[1]);
}

/// Domains of N points and more: the product wraps around X^n + 1 and is
/// split into n/N components (1, 2 and 4 here, on a ring of N = 1024).
#[test]
fn domains_of_the_ring_degree_and_beyond_prove() {
    let context = common::context_of_degree(1024, 2);
    for (steps, components) in [(1000, 1), (2000, 2), (4000, 4)] {
        let chain = common::chain(steps);
        let n = chain.circuit.domain_size();
        assert_eq!(n, 1024 * components);
        let mut prover =
            InProcessProver::new(&context, [6; 32], 2, 2, chain.circuit.clone()).unwrap();
        let shares = share_witness(&chain.witness, 2, &mut OsRng).unwrap();
        let (proof, _) = prover
            .prove(0, &chain.public_inputs, &shares, &mut OsRng)
            .unwrap();
        let pvk = ark_groth16::prepare_verifying_key(&chain.proving_key.vk);
        assert!(
            Groth16::<Bn254>::verify_proof(&pvk, &proof, &chain.public_inputs).unwrap(),
            "n = {n}"
        );
        let wrong = [chain.public_inputs[0] + Fr::ONE];
        assert!(!Groth16::<Bn254>::verify_proof(&pvk, &proof, &wrong).unwrap());

        let mut witness = chain.witness.clone();
        witness[steps / 2] += Fr::ONE;
        let shares = share_witness(&witness, 2, &mut OsRng).unwrap();
        assert!(matches!(
            prover.prove(1, &chain.public_inputs, &shares, &mut OsRng),
            Err(Error::ProofRejected)
        ));
    }
}

#[test]
fn a_witness_that_does_not_satisfy_the_circuit_is_refused() {
    let chain = common::chain(20);
    let context = common::context(2);
    let mut prover = InProcessProver::new(&context, [8; 32], 2, 2, chain.circuit.clone()).unwrap();
    let mut witness = chain.witness.clone();
    witness[3] += Fr::ONE;
    let shares = share_witness(&witness, 2, &mut OsRng).unwrap();
    assert!(matches!(
        prover.prove(0, &chain.public_inputs, &shares, &mut OsRng),
        Err(Error::ProofRejected)
    ));
}

/// Every subset of `0..parties` with `size` members, in increasing order.
fn subsets(parties: u32, size: u32) -> Vec<Vec<u32>> {
    (0u32..1 << parties)
        .filter(|mask| mask.count_ones() == size)
        .map(|mask| (0..parties).filter(|i| mask >> i & 1 == 1).collect())
        .collect()
}

/// t-out-of-N: every active set of exactly t parties proves, and so do all
/// N parties; fewer than t are refused before anything is sent.
fn threshold_proofs(parties: u32, threshold: u32) {
    let chain = common::chain(12);
    let context = common::context(parties);
    let mut prover =
        InProcessProver::new(&context, [9; 32], parties, threshold, chain.circuit.clone()).unwrap();
    let pvk = ark_groth16::prepare_verifying_key(&chain.proving_key.vk);
    let mut index = 0;
    for members in subsets(parties, threshold) {
        let shares = share_witness(&chain.witness, threshold, &mut OsRng).unwrap();
        let (proof, report) = prover
            .prove_with(index, &members, &chain.public_inputs, &shares, &mut OsRng)
            .unwrap();
        index += 1;
        assert!(
            Groth16::<Bn254>::verify_proof(&pvk, &proof, &chain.public_inputs).unwrap(),
            "active set {members:?}"
        );
        // Only the members took part.
        for i in 0..parties {
            let took_part = report.role(Role::Party(i)).traffic.sent > 0;
            assert_eq!(took_part, members.contains(&i), "party {i} of {members:?}");
        }
    }
    let shares = share_witness(&chain.witness, parties, &mut OsRng).unwrap();
    let (proof, _) = prover
        .prove(index, &chain.public_inputs, &shares, &mut OsRng)
        .unwrap();
    assert!(Groth16::<Bn254>::verify_proof(&pvk, &proof, &chain.public_inputs).unwrap());
    let too_few: Vec<u32> = (0..threshold - 1).collect();
    let shares = share_witness(&chain.witness, threshold - 1, &mut OsRng).unwrap();
    assert!(matches!(
        prover.prove_with(
            index + 1,
            &too_few,
            &chain.public_inputs,
            &shares,
            &mut OsRng
        ),
        Err(Error::Threshold(_))
    ));
}

#[test]
fn any_two_of_three_parties_prove() {
    threshold_proofs(3, 2);
}

#[test]
fn any_three_of_five_parties_prove() {
    threshold_proofs(5, 3);
}
