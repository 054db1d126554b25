//! `cosnark plain`: the plain prover everyone is compared with —
//! ark-groth16's prover with the circom reduction, on one thread, from the
//! same `.zkey` and `.wtns` — with its CPU and wall time.

use std::path::PathBuf;

use ark_bn254::{Bn254, Fr};
use ark_ff::UniformRand;
use ark_groth16::Groth16;
use clap::Args;
use he_circom::CircomReduction;
use he_cosnark::Usage;
use serde::Serialize;

use super::verify;
use crate::error::CliResult;
use crate::files;

/// Arguments of `cosnark plain`.
#[derive(Args, Debug)]
pub struct PlainArgs {
    /// The proving key (snarkjs `.zkey`).
    #[arg(long)]
    pub zkey: PathBuf,
    /// The full witness (snarkjs `.wtns`).
    #[arg(long)]
    pub witness: PathBuf,
    /// Where to write the proof (snarkjs `proof.json`).
    #[arg(long)]
    pub proof: Option<PathBuf>,
    /// Proofs to time in a row.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
}

/// What one plain proof took.
#[derive(Debug, Serialize)]
pub struct PlainTiming {
    /// CPU time of the proving thread.
    pub cpu_s: f64,
    /// Wall time.
    pub wall_s: f64,
}

/// Runs `cosnark plain`: proves (timing the prover alone, not the file
/// reading), verifies, and prints one JSON line per proof.
///
/// # Errors
/// The readers' errors; a witness that the zkey's circuit does not accept.
pub fn run(args: &PlainArgs) -> CliResult<Vec<PlainTiming>> {
    let zkey = files::read_zkey(&args.zkey)?;
    let witness = files::read_witness(&args.witness)?;
    let m = zkey.matrices();
    let public = &witness.values()[1..m.num_instance_variables()];
    let mut rng = rand::rngs::OsRng;
    let mut timings = Vec::new();
    for _ in 0..args.repeat {
        let (r, s) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
        let (proof, usage) = Usage::measure(|| {
            Groth16::<Bn254, CircomReduction>::create_proof_with_reduction_and_matrices(
                zkey.proving_key(),
                r,
                s,
                m.as_slice(),
                m.num_instance_variables(),
                m.num_constraints(),
                witness.values(),
            )
        });
        let proof = proof.map_err(he_cosnark::Error::from)?;
        verify::check(zkey.verifying_key(), public, &proof)?;
        if let Some(path) = &args.proof {
            files::write_proof_json(path, &proof)?;
        }
        let timing = PlainTiming {
            cpu_s: usage.cpu.as_secs_f64(),
            wall_s: usage.wall.as_secs_f64(),
        };
        println!("{}", serde_json::to_string(&timing).unwrap_or_default());
        timings.push(timing);
    }
    Ok(timings)
}
