//! Checked readers for circom and snarkjs artifacts over BN254, the circom
//! QAP reduction, and snarkjs-format output.
//!
//! - [`R1cs`]: circom's `.r1cs` (header, A/B/C, wire-to-label map);
//! - [`Witness`]: snarkjs's `.wtns`;
//! - [`Zkey`]: snarkjs's Groth16 `.zkey`, as an ark-groth16 0.6
//!   [`ProvingKey`](ark_groth16::ProvingKey) with the A and B matrices,
//!   and [`Zkey::check_matches`] against an r1cs; [`ZkeyWithoutQueries`]
//!   reads the same file without its query points (verifying key, δ in G1,
//!   matrices), for a role that makes no multi-scalar multiplication, at a
//!   hundredth of the load;
//! - [`CircomReduction`]: the reduction snarkjs keys are made for, for
//!   ark-groth16's provers, with its linear pieces in [`reduction`];
//! - [`snarkjs_json`]: `proof.json`, `public.json`,
//!   `verification_key.json`, written atomically and read back with checks.
//! - [`ptau`]: snarkjs powers-of-tau files, prepared for phase 2, written
//!   from one fresh local secret for tests and measurements (not a
//!   ceremony), and read back with checks.
//!
//! Every reader takes the whole file as bytes and turns every malformed
//! input into an [`Error`] naming the file kind, the section and the field;
//! no count read from a file is trusted for an allocation before the bytes
//! it implies are known to be there. The readers are fuzzed (`fuzz/`).
//!
//! ```no_run
//! use ark_bn254::{Bn254, Fr};
//! use ark_ff::UniformRand;
//! use ark_groth16::Groth16;
//! use he_circom::{snarkjs_json, CircomReduction, R1cs, Witness, Zkey};
//!
//! let r1cs = R1cs::read("circuit.r1cs")?;
//! let zkey = Zkey::read("circuit_final.zkey")?;
//! zkey.check_matches(&r1cs)?;
//! let witness = Witness::read("witness.wtns")?;
//! r1cs.check_witness(witness.values())?;
//!
//! let mut rng = ark_std::test_rng(); // a CSPRNG in real use
//! let m = zkey.matrices();
//! let proof = Groth16::<Bn254, CircomReduction>::create_proof_with_reduction_and_matrices(
//!     zkey.proving_key(),
//!     Fr::rand(&mut rng),
//!     Fr::rand(&mut rng),
//!     m.as_slice(),
//!     m.num_instance_variables(),
//!     m.num_constraints(),
//!     witness.values(),
//! ).expect("the witness fits the key");
//! snarkjs_json::write_proof("proof.json", &proof)?;
//! snarkjs_json::write_public("public.json", r1cs.public_inputs(witness.values())?)?;
//! # Ok::<(), he_circom::Error>(())
//! ```
#![forbid(unsafe_code)]

pub mod atomic_file;
pub mod binfile;
mod error;
pub mod field;
mod g2_subgroup;
mod json_points;
pub mod matrices;
pub mod ptau;
pub mod r1cs;
pub mod reduction;
pub mod snarkjs_json;
pub mod wtns;
pub mod zkey;

use std::path::Path;

pub use error::{Error, FileKind, Location, Result};
pub use json_points::{g1_to_strings, g2_to_strings, to_decimal};
pub use matrices::{AbMatrices, CircuitMatrices, ConstraintMatrices};
pub use r1cs::{R1cs, R1csHeader};
pub use reduction::CircomReduction;
pub use wtns::Witness;
pub use zkey::{check_matches, Zkey, ZkeyHeader, ZkeyWithoutQueries};

/// Reads a whole file (its real length bounds every later allocation).
pub(crate) fn read_file(kind: FileKind, path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| Error::Io {
        kind,
        path: path.display().to_string(),
        source,
    })
}

/// The crate README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
