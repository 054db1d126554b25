//! snarkjs itself verifies the proofs made here: for each fixture circuit
//! a proof from the zkey's proving key (ark-groth16 with the circom
//! reduction), written with this crate's proof.json / public.json /
//! verification_key.json writers, must make `snarkjs groth16 verify` print
//! OK, and a changed public value must make it fail.
//!
//! Needs node and snarkjs: ignored by default; `scripts/test-circom-snarkjs.sh`
//! installs the pinned snarkjs and runs it (`SNARKJS` names the binary,
//! by default `target/circom-tools/node_modules/.bin/snarkjs`).

mod common;

use std::path::Path;

use ark_bn254::Fr;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use common::{fixture, prove, scratch, snarkjs, CIRCUITS};
use he_circom::{snarkjs_json, R1cs, Witness, Zkey};

/// Runs `snarkjs groth16 verify` on the files in `dir` and returns
/// (success, output).
fn verify(dir: &Path) -> (bool, String) {
    snarkjs(&[
        &"groth16",
        &"verify",
        &dir.join("verification_key.json"),
        &dir.join("public.json"),
        &dir.join("proof.json"),
    ])
}

#[test]
#[ignore = "needs node and snarkjs: scripts/test-circom-snarkjs.sh"]
fn snarkjs_verifies_our_proofs() {
    let mut rng = StdRng::seed_from_u64(1);
    for c in CIRCUITS {
        let r1cs = R1cs::read(fixture(&format!("{c}.r1cs"))).unwrap();
        let witness = Witness::read(fixture(&format!("{c}.wtns"))).unwrap();
        let zkey = Zkey::read(fixture(&format!("{c}.zkey"))).unwrap();
        zkey.check_matches(&r1cs).unwrap();
        let proof = prove(&zkey, &witness, &mut rng, c);
        let public = r1cs.public_inputs(witness.values()).unwrap();
        let dir = scratch(&format!("snarkjs-{c}"));
        snarkjs_json::write_verifying_key(dir.join("verification_key.json"), zkey.verifying_key())
            .unwrap();
        snarkjs_json::write_public(dir.join("public.json"), public).unwrap();
        snarkjs_json::write_proof(dir.join("proof.json"), &proof).unwrap();
        let (ok, text) = verify(&dir);
        assert!(ok && text.contains("OK!"), "{c}: snarkjs says\n{text}");
        println!("{c}: snarkjs groth16 verify: OK");

        let mut wrong = public.to_vec();
        wrong[0] += Fr::from(1u64);
        snarkjs_json::write_public(dir.join("public.json"), &wrong).unwrap();
        let (ok, text) = verify(&dir);
        assert!(
            !ok && !text.contains("OK!"),
            "{c}: a wrong public value passed\n{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
