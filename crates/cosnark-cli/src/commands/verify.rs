//! `cosnark verify`: checks a snarkjs `proof.json` for `public.json`
//! against the verifying key of a `.zkey` or a `verification_key.json`.

use std::path::PathBuf;

use ark_bn254::Bn254;
use ark_groth16::{Groth16, VerifyingKey};
use clap::Args;

use crate::error::{CliError, CliResult};
use crate::files;

/// Arguments of `cosnark verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The proving key whose verifying key to use (snarkjs `.zkey`).
    #[arg(long, conflicts_with = "vk", required_unless_present = "vk")]
    pub zkey: Option<PathBuf>,
    /// The verifying key (snarkjs `verification_key.json`).
    #[arg(long)]
    pub vk: Option<PathBuf>,
    /// The public inputs (snarkjs `public.json`).
    #[arg(long)]
    pub public: PathBuf,
    /// The proof (snarkjs `proof.json`).
    #[arg(long)]
    pub proof: PathBuf,
}

/// The verifying key named by `--zkey` or `--vk`.
///
/// # Errors
/// The readers' errors naming the file.
pub fn verifying_key(
    zkey: Option<&PathBuf>,
    vk: Option<&PathBuf>,
) -> CliResult<VerifyingKey<Bn254>> {
    match (zkey, vk) {
        (Some(path), _) => Ok(files::read_zkey_without_queries(path)?
            .verifying_key()
            .clone()),
        (None, Some(path)) => files::read_vk_json(path),
        (None, None) => Err(CliError::Usage("give --zkey or --vk".into())),
    }
}

/// Runs `cosnark verify`.
///
/// # Errors
/// The readers' errors; [`CliError::NotVerified`].
pub fn run(args: &VerifyArgs) -> CliResult<()> {
    let vk = verifying_key(args.zkey.as_ref(), args.vk.as_ref())?;
    let public = files::read_public_json(&args.public)?;
    let proof = files::read_proof_json(&args.proof)?;
    check(&vk, &public, &proof)
}

/// Whether `proof` verifies for `public` under `vk`.
///
/// # Errors
/// [`CliError::NotVerified`], also for a wrong number of public inputs.
pub fn check(
    vk: &VerifyingKey<Bn254>,
    public: &[ark_bn254::Fr],
    proof: &ark_groth16::Proof<Bn254>,
) -> CliResult<()> {
    if public.len() + 1 != vk.gamma_abc_g1.len() {
        return Err(CliError::Usage(format!(
            "{} public inputs, the verifying key has {}",
            public.len(),
            vk.gamma_abc_g1.len().saturating_sub(1)
        )));
    }
    let pvk = ark_groth16::prepare_verifying_key(vk);
    match Groth16::<Bn254>::verify_proof(&pvk, proof, public) {
        Ok(true) => Ok(()),
        _ => Err(CliError::NotVerified),
    }
}
