//! `cosnark server`: the untrusted server. It loads the relinearization
//! key, connects to every party, and for each proof sums the uploads,
//! computes the quotient and r·s under encryption, aggregates, combines and
//! verifies; it writes each verified proof in snarkjs's format.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use he_cosnark::{ProofPlan, Server};
use he_net::PeerId;
use he_threshold::ActiveSet;
use helib_rs::RelinKey;

use super::{server_relin_path, CircuitArgs, ProofArgs, RoleArgs};
use crate::error::{CliError, CliResult};
use crate::files;
use crate::net::NetTransport;
use crate::outcome;
use crate::report::{ProcessReport, StepClock};

/// Arguments of `cosnark server`.
#[derive(Args, Debug)]
pub struct ServerArgs {
    #[command(flatten)]
    pub role_args: RoleArgs,
    #[command(flatten)]
    pub circuit: CircuitArgs,
    #[command(flatten)]
    pub proofs: ProofArgs,
    /// The public inputs (snarkjs `public.json`).
    #[arg(long)]
    pub public: PathBuf,
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
    let dir = &args.role_args.dir;
    let file = args.role_args.session_file()?;
    let members = args.proofs.members(&file)?;
    let session = file.session()?;
    let (_, circuit) = args.circuit.load()?;
    let public = files::read_public_json(&args.public)?;
    let relin_path = server_relin_path(dir);
    let relin_key = RelinKey::from_bytes(session.context(), &files::read(&relin_path)?)
        .map_err(|e| CliError::malformed(&relin_path, e.to_string()))?;
    let plan = Arc::new(ProofPlan::new(&session, circuit.domain_size())?);
    let active = members
        .as_ref()
        .map(|m| ActiveSet::new(&session, file.threshold, m))
        .transpose()?;
    let server = Server::new(session, relin_key, circuit, plan)?;
    let me = PeerId::Server;
    let config = args.role_args.net_config(&file, me, members.as_deref())?;
    let mut net = NetTransport::connect(config)?;
    eprintln!("[{}] connected", me.slug());
    let parties: Vec<u32> = members.unwrap_or_else(|| (0..file.parties).collect());
    let mut steps = Vec::new();
    for proof in args.proofs.indices() {
        let clock = StepClock::start();
        let (groth16, report) = match server.prove(&mut net, proof, active.as_ref(), &public) {
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
        let step = clock.finish(format!("proof {proof}"), &report);
        step.print(&me.slug());
        steps.push(step);
    }
    let wire = net.wire_traffic();
    net.close()?;
    let report = ProcessReport {
        role: me.slug(),
        steps,
        wire_bytes_sent: wire.sent,
        wire_bytes_received: wire.received,
    };
    args.role_args.write_report(&report)?;
    Ok(report)
}
