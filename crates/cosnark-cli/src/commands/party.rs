//! `cosnark party`: one computing party. It loads its keys and its witness
//! share, connects to the server and the other parties, and runs its side
//! of each proof; it never holds more than its own shares.

use std::path::PathBuf;
use std::sync::Arc;

use ark_bn254::Fr;
use clap::Args;
use he_cosnark::{ComputingParty, ProofPlan, WitnessShare};
use he_net::PeerId;
use he_threshold::{ActiveSet, Party, ShamirShare};

use super::{party_key_path, party_reshared_path, CircuitArgs, ProofArgs, RoleArgs};
use crate::error::{CliError, CliResult};
use crate::files;
use crate::net::NetTransport;
use crate::report::{ProcessReport, StepClock};

/// Arguments of `cosnark party`.
#[derive(Args, Debug)]
pub struct PartyArgs {
    #[command(flatten)]
    pub role_args: RoleArgs,
    #[command(flatten)]
    pub circuit: CircuitArgs,
    #[command(flatten)]
    pub proofs: ProofArgs,
    /// This party's index.
    #[arg(long)]
    pub index: u32,
    /// This party's witness share (from `cosnark split-witness`).
    #[arg(long)]
    pub share: PathBuf,
    /// The public inputs (snarkjs `public.json`).
    #[arg(long)]
    pub public: PathBuf,
}

/// Runs the party's side of every proof.
///
/// # Errors
/// The files', network's and prover's errors, each naming its file or
/// role.
pub fn run(args: &PartyArgs) -> CliResult<ProcessReport> {
    let dir = &args.role_args.dir;
    let file = args.role_args.session_file()?;
    let members = args.proofs.members(&file)?;
    let session = file.session()?;
    let (_, circuit) = args.circuit.load()?;
    let public = files::read_public_json(&args.public)?;
    let share_bytes = files::read_secret(&args.share)?;
    let share = WitnessShare::<Fr>::from_bytes(&share_bytes, circuit.digest(), args.index)
        .map_err(|e| CliError::malformed(&args.share, e.to_string()))?;
    let key_path = party_key_path(dir, args.index);
    let party = Party::import_secret(&session, &files::read_secret(&key_path)?)
        .map_err(|e| CliError::malformed(&key_path, e.to_string()))?;
    let plan = Arc::new(ProofPlan::new(&session, circuit.domain_size())?);
    let mut party = ComputingParty::new(party, circuit, plan)?;
    let active = match &members {
        Some(members) => {
            let path = party_reshared_path(dir, args.index);
            let reshared = ShamirShare::import_secret(&session, &files::read_secret(&path)?)
                .map_err(|e| CliError::malformed(&path, e.to_string()))?;
            party = party.with_reshared(reshared);
            Some(ActiveSet::new(&session, file.threshold, members)?)
        }
        None => None,
    };
    let me = PeerId::Party(args.index);
    let config = args.role_args.net_config(&file, me, members.as_deref())?;
    let mut net = NetTransport::connect(config)?;
    eprintln!("[{}] connected", me.slug());
    let mut steps = Vec::new();
    let mut rng = rand::rngs::OsRng;
    for proof in args.proofs.indices() {
        let clock = StepClock::start();
        let report = party.prove(&mut net, proof, active.as_ref(), &public, &share, &mut rng)?;
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
