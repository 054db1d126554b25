//! `cosnark server`: the untrusted server. It holds no key: it connects to
//! every party, and for each proof sums the uploads, computes the quotient
//! and r·s under encryption, aggregates, combines and verifies; it writes
//! each verified proof in snarkjs's format.

use std::path::PathBuf;

use clap::Args;
use he_cosnark::Server;
use he_net::PeerId;
use he_threshold::ActiveSet;

use super::proving::ProvingArgs;
use super::CircuitRead;
use crate::error::CliResult;
use crate::files;
use crate::outcome;
use crate::report::ProcessReport;

/// Arguments of `cosnark server`.
#[derive(Args, Debug)]
pub struct ServerArgs {
    #[command(flatten)]
    pub proving: ProvingArgs,
    /// Where to write each verified proof (snarkjs `proof.json`; replaced
    /// atomically).
    #[arg(long)]
    pub proof: PathBuf,
}

/// Runs the server's side of every proof.
///
/// # Errors
/// The files', network's and prover's errors; a proof that does not
/// verify ([`he_cosnark::Error::ProofRejected`]).
pub fn run(args: &ServerArgs) -> CliResult<ProcessReport> {
    let role_args = &args.proving.role_args;
    let inputs = args.proving.load(CircuitRead::WithoutQueries)?;
    let (file, members) = (&inputs.file, &inputs.members);
    let active = members
        .as_ref()
        .map(|m| ActiveSet::new(&inputs.session, file.threshold, m))
        .transpose()?;
    let server = Server::new(inputs.session, inputs.circuit, inputs.plan)?;
    let me = PeerId::Server;
    let net = role_args.connect(file, me, members.as_deref())?;
    let parties: Vec<u32> = members
        .clone()
        .unwrap_or_else(|| (0..file.parties).collect());
    args.proving.run_proofs(me, net, |net, proof| {
        let (groth16, report) = match server.prove(net, proof, active.as_ref(), &inputs.public) {
            Ok(made) => made,
            Err(error) => {
                // Every party learns why (best effort: some may be gone);
                // the messages leave when the network closes on return.
                let failure = outcome::encode_failure(proof, &error.to_string());
                for &party in &parties {
                    let _ = net.send_outcome(party, failure.clone());
                }
                return Err(error.into());
            }
        };
        files::write_proof_json(&args.proof, &groth16)?;
        let made = outcome::encode_proof(proof, &groth16);
        for &party in &parties {
            net.send_outcome(party, made.clone())?;
        }
        Ok(report)
    })
}
