//! `cosnark split-witness`: an input owner splits a `.wtns` into one
//! additive share per party (secret files, each bound to the circuit and
//! its party) and writes the public inputs in snarkjs's `public.json`.

use std::path::PathBuf;

use clap::Args;
use he_cosnark::share_witness;
use zeroize::Zeroize;

use super::{CircuitArgs, CircuitRead};
use crate::error::{CliError, CliResult};
use crate::files;

/// Arguments of `cosnark split-witness`.
#[derive(Args, Debug)]
pub struct SplitWitnessArgs {
    #[command(flatten)]
    pub circuit: CircuitArgs,
    /// The full witness (snarkjs `.wtns`).
    #[arg(long)]
    pub witness: PathBuf,
    /// Computing parties: shares for parties `0..parties`.
    #[arg(long, required_unless_present = "members")]
    pub parties: Option<u32>,
    /// Instead, shares for exactly these parties (the members that will
    /// prove, in a t-out-of-N session), comma-separated.
    #[arg(long, value_delimiter = ',', conflicts_with = "parties")]
    pub members: Vec<u32>,
    /// The directory for `share-<i>.bin` and `public.json` (created).
    #[arg(long)]
    pub out: PathBuf,
}

/// The share file of party `party` in `dir`.
pub fn share_path(dir: &std::path::Path, party: u32) -> PathBuf {
    dir.join(format!("share-{party}.bin"))
}

/// Runs `cosnark split-witness`: checks that the witness satisfies the
/// circuit (the input owner can; no party can), then writes the shares and
/// `public.json`.
///
/// # Errors
/// The readers' errors; a witness that does not satisfy the circuit; file
/// errors (also for share files that exist already).
pub fn run(args: &SplitWitnessArgs) -> CliResult<()> {
    let (r1cs, circuit) = args.circuit.load(CircuitRead::WithoutQueries)?;
    let mut values = files::read_witness(&args.witness)?.into_values();
    let outcome = (|| -> CliResult<()> {
        r1cs.check_witness(&values).map_err(|e| {
            CliError::malformed(
                &args.witness,
                format!("not a witness of {}: {e}", args.circuit.r1cs.display()),
            )
        })?;
        let instance = r1cs.matrices().num_instance_variables();
        std::fs::create_dir_all(&args.out).map_err(|e| CliError::file(&args.out, e))?;
        let members: Vec<u32> = match args.parties {
            Some(parties) => (0..parties).collect(),
            None => args.members.clone(),
        };
        let count =
            u32::try_from(members.len()).map_err(|_| CliError::Usage("too many parties".into()))?;
        let shares = share_witness(&values[instance..], count, &mut rand::rngs::OsRng)?;
        for (&party, share) in members.iter().zip(&shares) {
            let bytes = share.to_bytes(circuit.digest(), party);
            files::write_secret(&share_path(&args.out, party), &bytes)?;
        }
        files::write_public_json(&args.out.join("public.json"), &values[1..instance])?;
        Ok(())
    })();
    values.iter_mut().for_each(Zeroize::zeroize);
    outcome
}
