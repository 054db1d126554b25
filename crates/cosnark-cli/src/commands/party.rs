//! `cosnark party`: one computing party. It loads its keys and its witness
//! share, connects to the server and the other parties, and runs its side
//! of each proof; it never holds more than its own shares.

use std::path::PathBuf;

use ark_bn254::{Bn254, Fr};
use ark_groth16::VerifyingKey;
use clap::Args;
use he_cosnark::{ComputingParty, WitnessShare};
use he_net::PeerId;
use he_threshold::{ActiveSet, Party, ShamirShare};
use helib_rs::RelinKey;

use super::proving::ProvingArgs;
use super::{party_key_path, party_relin_path, party_reshared_path, verify, CircuitRead};
use crate::error::{CliError, CliResult};
use crate::files;
use crate::net::NetTransport;
use crate::outcome::{self, Outcome};
use crate::report::ProcessReport;

/// Arguments of `cosnark party`.
#[derive(Args, Debug)]
pub struct PartyArgs {
    #[command(flatten)]
    pub proving: ProvingArgs,
    /// This party's index.
    #[arg(long)]
    pub index: u32,
    /// This party's witness share (from `cosnark split-witness`).
    #[arg(long)]
    pub share: PathBuf,
}

/// Runs the party's side of every proof.
///
/// # Errors
/// The files', network's and prover's errors, each naming its file or
/// role.
pub fn run(args: &PartyArgs) -> CliResult<ProcessReport> {
    let role_args = &args.proving.role_args;
    let dir = &role_args.dir;
    let inputs = args.proving.load(CircuitRead::Whole)?;
    let (file, session, public) = (&inputs.file, &inputs.session, &inputs.public);
    let circuit = inputs.circuit;
    let share_bytes = files::read_secret(&args.share)?;
    let share = WitnessShare::<Fr>::from_bytes(&share_bytes, circuit.digest(), args.index)
        .map_err(|e| CliError::malformed(&args.share, e.to_string()))?;
    let key_path = party_key_path(dir, args.index);
    let party = Party::import_secret(session, &files::read_secret(&key_path)?)
        .map_err(|e| CliError::malformed(&key_path, e.to_string()))?;
    let relin_path = party_relin_path(dir, args.index);
    let relin_key = RelinKey::from_bytes(session.context(), &files::read(&relin_path)?)
        .map_err(|e| CliError::malformed(&relin_path, e.to_string()))?;
    let vk = circuit.verifying_key().clone();
    let mut party = ComputingParty::new(party, relin_key, circuit, inputs.plan)?;
    let active = match &inputs.members {
        Some(members) => {
            let path = party_reshared_path(dir, args.index);
            let reshared = ShamirShare::import_secret(session, &files::read_secret(&path)?)
                .map_err(|e| CliError::malformed(&path, e.to_string()))?;
            party = party.with_reshared(reshared);
            Some(ActiveSet::new(session, file.threshold, members)?)
        }
        None => None,
    };
    let me = PeerId::Party(args.index);
    let net = role_args.connect(file, me, inputs.members.as_deref())?;
    let mut rng = rand::rngs::OsRng;
    args.proving.run_proofs(me, net, |net, proof| {
        let report = party
            .prove(net, proof, active.as_ref(), public, &share, &mut rng)
            .map_err(|error| server_said(net, proof, error))?;
        // Ends well only with the proof, verified here too.
        check_outcome(&net.receive_outcome()?, proof, &vk, public)?;
        Ok(report)
    })
}

/// The error of a failed proof `proof`: the server's reason when it sent
/// one before it went (naming the party at fault, when the server knows
/// it), otherwise `error`.
fn server_said(net: &NetTransport, proof: u64, error: he_cosnark::Error) -> CliError {
    match net.pending_outcome().map(|bytes| outcome::decode(&bytes)) {
        Some(Ok(Outcome::Failed { index, reason })) if index == proof => CliError::NoProof {
            index,
            reason: format!("{reason} (here: {error})"),
        },
        _ => error.into(),
    }
}

/// Checks the server's outcome message of proof `proof`: a proof that
/// verifies for `public` under `vk`.
///
/// # Errors
/// [`CliError::NoProof`]: the server reports a failure, sent the outcome
/// of another proof, a malformed message, or a proof that does not verify.
fn check_outcome(
    bytes: &[u8],
    proof: u64,
    vk: &VerifyingKey<Bn254>,
    public: &[Fr],
) -> CliResult<()> {
    let no_proof = |reason: String| CliError::NoProof {
        index: proof,
        reason,
    };
    let outcome = outcome::decode(bytes)
        .map_err(|r| no_proof(format!("its outcome message is malformed: {r}")))?;
    match outcome {
        Outcome::Proof { index, .. } | Outcome::Failed { index, .. } if index != proof => Err(
            no_proof(format!("it sent the outcome of proof {index} instead")),
        ),
        Outcome::Failed { reason, .. } => Err(no_proof(reason)),
        Outcome::Proof { proof: made, .. } => verify::check(vk, public, &made)
            .map_err(|_| no_proof("the proof it sent does not verify".into())),
    }
}
