//! Fixture access for the integration tests.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

use ark_bn254::{Bn254, Fr};
use ark_ff::UniformRand;
use ark_groth16::{Groth16, Proof};
use ark_std::rand::RngCore;
use he_circom::{CircomReduction, Witness, Zkey};

/// The circuits of `tests/fixtures` (see scripts/circom-fixtures.sh).
pub const CIRCUITS: [&str; 3] = ["multiplier", "poseidon2", "chain"];

/// The path of fixture `name`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The bytes of fixture `name`.
pub fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// The text of fixture `name`.
pub fn text(name: &str) -> String {
    String::from_utf8(bytes(name)).expect("UTF-8 fixture")
}

/// Each section of a container as (type, offset of the size field, offset
/// of the body, body length).
pub fn sections(bytes: &[u8]) -> Vec<(u32, usize, usize, usize)> {
    let count = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    let mut pos = 12;
    let mut out = Vec::new();
    for _ in 0..count {
        let t = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap());
        let size = u64::from_le_bytes(bytes[pos + 4..pos + 12].try_into().unwrap()) as usize;
        out.push((t, pos + 4, pos + 12, size));
        pos += 12 + size;
    }
    out
}

/// The offset of section `t`'s body.
pub fn body(bytes: &[u8], t: u32) -> usize {
    sections(bytes)
        .into_iter()
        .find(|s| s.0 == t)
        .unwrap_or_else(|| panic!("no section {t}"))
        .2
}

/// Overwrites a little-endian u32 at `at`.
pub fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Overwrites a little-endian u64 at `at`.
pub fn put_u64(bytes: &mut [u8], at: usize, v: u64) {
    bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("he-circom-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// A Groth16 proof of `witness` from `zkey`'s proving key and matrices
/// (ark-groth16 with the circom reduction), with fresh `r` and `s` from
/// `rng`.
///
/// # Panics
/// If the prover fails, naming `what`.
pub fn prove(zkey: &Zkey, witness: &Witness, rng: &mut impl RngCore, what: &str) -> Proof<Bn254> {
    let m = zkey.matrices();
    Groth16::<Bn254, CircomReduction>::create_proof_with_reduction_and_matrices(
        zkey.proving_key(),
        Fr::rand(rng),
        Fr::rand(rng),
        m.as_slice(),
        m.num_instance_variables(),
        m.num_constraints(),
        witness.values(),
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The snarkjs binary: `SNARKJS`, by default the one
/// scripts/test-circom-snarkjs.sh installs under `target/circom-tools`.
pub fn snarkjs_path() -> PathBuf {
    std::env::var_os("SNARKJS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/circom-tools/node_modules/.bin/snarkjs")
        })
}

/// Runs `snarkjs <args>` and returns (success, stdout and stderr).
///
/// # Panics
/// If snarkjs cannot be run, saying how to install it.
pub fn snarkjs(args: &[&dyn AsRef<OsStr>]) -> (bool, String) {
    let out = Command::new(snarkjs_path())
        .args(args.iter().map(|a| a.as_ref()))
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): node and snarkjs are needed; run scripts/test-circom-snarkjs.sh",
                snarkjs_path().display()
            )
        });
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}
