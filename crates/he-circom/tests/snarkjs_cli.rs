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

use std::path::PathBuf;
use std::process::Command;

use ark_bn254::{Bn254, Fr};
use ark_ff::UniformRand;
use ark_groth16::Groth16;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use common::{fixture, scratch, CIRCUITS};
use he_circom::{snarkjs_json, CircomReduction, R1cs, Witness, Zkey};

fn snarkjs() -> PathBuf {
    std::env::var_os("SNARKJS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/circom-tools/node_modules/.bin/snarkjs")
        })
}

/// Runs `snarkjs groth16 verify` and returns (success, output).
fn verify(dir: &std::path::Path) -> (bool, String) {
    let out = Command::new(snarkjs())
        .args(["groth16", "verify"])
        .arg(dir.join("verification_key.json"))
        .arg(dir.join("public.json"))
        .arg(dir.join("proof.json"))
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): run scripts/test-circom-snarkjs.sh",
                snarkjs().display()
            )
        });
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
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
        let m = zkey.matrices();
        let proof = Groth16::<Bn254, CircomReduction>::create_proof_with_reduction_and_matrices(
            zkey.proving_key(),
            Fr::rand(&mut rng),
            Fr::rand(&mut rng),
            m.as_slice(),
            m.num_instance_variables(),
            m.num_constraints(),
            witness.values(),
        )
        .unwrap();
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
