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
use he_circom::{R1cs, Witness, Zkey};
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
        let vk = circuit.proving_key().vk.clone();
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
