//! Circom circuits with snarkjs keys (he-circom's fixtures, made by
//! circom2 and snarkjs): the collaborative proof verifies with the zkey's
//! verifying key, for several circuits and party counts, and a zkey for
//! another circuit is refused.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use ark_groth16::Groth16;
use ark_snark::SNARK;
use he_circom::{R1cs, Witness, Zkey, ZkeyWithoutQueries};
use he_cosnark::{share_witness, Circom, Circuit, Error, InProcessProver};
use rand::rngs::OsRng;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../he-circom/tests/fixtures")
        .join(name)
}

/// The circuit, its public inputs and its witness from the fixtures `name`.
fn load(name: &str) -> (Arc<Circuit<Bn254, Circom>>, Vec<Fr>, Vec<Fr>) {
    let r1cs = R1cs::read(fixture(&format!("{name}.r1cs"))).unwrap();
    let zkey = Zkey::read(fixture(&format!("{name}.zkey"))).unwrap();
    let values = Witness::read(fixture(&format!("{name}.wtns")))
        .unwrap()
        .into_values();
    r1cs.check_witness(&values).unwrap();
    let instance = r1cs.matrices().num_instance_variables();
    let circuit = Circuit::from_circom(&r1cs, zkey).unwrap();
    (
        Arc::new(circuit),
        values[1..instance].to_vec(),
        values[instance..].to_vec(),
    )
}

#[test]
fn circom_circuits_prove_collaboratively_and_verify_with_the_zkey() {
    for (name, parties) in [("multiplier", 2), ("poseidon2", 3), ("chain", 3)] {
        let (circuit, public, witness) = load(name);
        let vk = circuit.verifying_key().clone();
        let context = common::context(parties);
        let mut prover =
            InProcessProver::new(&context, [5; 32], parties, parties, circuit).unwrap();
        let shares = share_witness(&witness, parties, &mut OsRng).unwrap();
        let (proof, _) = prover.prove(0, &public, &shares, &mut OsRng).unwrap();
        assert!(
            Groth16::<Bn254>::verify(&vk, &public, &proof).unwrap(),
            "{name}"
        );
        let mut wrong = public.clone();
        wrong[0] += Fr::from(1u64);
        assert!(
            !Groth16::<Bn254>::verify(&vk, &wrong, &proof).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn a_zkey_for_another_circuit_is_refused() {
    let r1cs = R1cs::read(fixture("poseidon2.r1cs")).unwrap();
    let zkey = Zkey::read(fixture("multiplier.zkey")).unwrap();
    assert!(matches!(
        Circuit::from_circom(&r1cs, zkey),
        Err(Error::Circom(_))
    ));
}

/// A circuit read without the zkey's query points (as the server reads it)
/// has the full circuit's digest, so the server's messages bind to the same
/// circuit, and no computing party can be made of it.
#[test]
fn a_circuit_without_query_points_serves_but_cannot_prove() {
    let (circuit, _, _) = load("poseidon2");
    let r1cs = R1cs::read(fixture("poseidon2.r1cs")).unwrap();
    let light = ZkeyWithoutQueries::read(fixture("poseidon2.zkey")).unwrap();
    let read = Circuit::from_circom_without_queries(&r1cs, &light).unwrap();
    let stripped = circuit.without_query_points();
    for light in [&read, &stripped] {
        assert_eq!(light.digest(), circuit.digest());
        assert_eq!(light.verifying_key(), circuit.verifying_key());
        assert_eq!(light.delta_g1(), circuit.delta_g1());
        assert_eq!(light.query_lengths(), circuit.query_lengths());
        assert!(matches!(
            light.proving_key(),
            Err(Error::InvalidArgument(_))
        ));
    }
    let context = common::context(2);
    let refused = InProcessProver::new(&context, [6; 32], 2, 2, Arc::new(read));
    match refused {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("query points"), "{m}"),
        Err(other) => panic!("expected InvalidArgument, got {other}"),
        Ok(_) => panic!("a party was made of a circuit without query points"),
    }
    // A zkey without queries for another circuit is refused too.
    let other = R1cs::read(fixture("multiplier.r1cs")).unwrap();
    assert!(Circuit::from_circom_without_queries(&other, &light).is_err());
}
