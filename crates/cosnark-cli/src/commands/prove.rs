//! `cosnark prove`: a whole collaborative proof on this machine, every role
//! its own process on 127.0.0.1 over mutually authenticated TLS. It makes a
//! fresh session (certificates included), splits the witness, runs the key
//! session (a process per role), then the proof (a process per role), and
//! writes the snarkjs `proof.json` and `public.json` only when the proof
//! verifies against the zkey's verifying key.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use he_net::PeerId;
use serde::Serialize;

use super::split_witness::{self, share_path, SplitWitnessArgs};
use super::{setup, verify, CircuitArgs};
use crate::children;
use crate::error::{CliError, CliResult};
use crate::files;
use crate::report::ProcessReport;

/// Arguments of `cosnark prove`.
#[derive(Args, Debug)]
pub struct ProveArgs {
    #[command(flatten)]
    pub circuit: CircuitArgs,
    /// The full witness (snarkjs `.wtns`).
    #[arg(long)]
    pub witness: PathBuf,
    /// Computing parties.
    #[arg(long)]
    pub parties: u32,
    /// Parties that prove (t-out-of-N; default: all).
    #[arg(long)]
    pub threshold: Option<u32>,
    /// Where to write the proof (snarkjs `proof.json`).
    #[arg(long)]
    pub proof: PathBuf,
    /// Where to write the public inputs (snarkjs `public.json`).
    #[arg(long)]
    pub public: PathBuf,
    /// Proofs in a row with one key session and long-lived role processes.
    #[arg(long, default_value_t = 1)]
    pub proofs: u64,
    /// The session directory (default: a fresh one under the temporary
    /// directory, removed afterwards).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Write every role's report and the totals as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Seconds every stage (key session, proofs) may take.
    #[arg(long, default_value_t = 3600)]
    pub timeout: u64,
}

/// What `--json` writes.
#[derive(Debug, Serialize)]
pub struct ProveReport {
    /// The proof verified (always true when written).
    pub verified: bool,
    /// Computing parties.
    pub parties: u32,
    /// Parties that proved.
    pub threshold: u32,
    /// The key session, per role process.
    pub key_session: Vec<ProcessReport>,
    /// The proofs, per role process.
    pub proving: Vec<ProcessReport>,
}

/// Runs `cosnark prove`.
///
/// # Errors
/// Bad files or arguments (before anything starts); the first role
/// process that fails; [`CliError::NotVerified`].
pub fn run(args: &ProveArgs) -> CliResult<ProveReport> {
    let (work, temporary) = match &args.work_dir {
        Some(dir) => (dir.clone(), false),
        None => (fresh_temp_dir()?, true),
    };
    let outcome = prove_in(args, &work);
    if temporary {
        let _ = std::fs::remove_dir_all(&work);
    }
    outcome
}

fn prove_in(args: &ProveArgs, work: &Path) -> CliResult<ProveReport> {
    let threshold = args.threshold.unwrap_or(args.parties);
    if args.proofs == 0 {
        return Err(CliError::Usage("--proofs must be at least 1".into()));
    }
    let session = setup::run(&setup::SetupArgs {
        zkey: args.circuit.zkey.clone(),
        parties: args.parties,
        threshold: Some(threshold),
        dir: work.to_owned(),
        host: "127.0.0.1".into(),
        no_certs: false,
    })?;
    // The proving parties (the first `threshold`) share the witness.
    let members: Vec<u32> = (0..threshold).collect();
    split_witness::run(&SplitWitnessArgs {
        circuit: args.circuit.clone(),
        witness: args.witness.clone(),
        parties: None,
        members: members.clone(),
        out: work.to_owned(),
    })?;
    let limit = Duration::from_secs(args.timeout);
    let roles: Vec<PeerId> = he_net::certs::session_roles(session.parties).collect();
    let role_flags = |role: PeerId, stage: &str| -> Vec<String> {
        let certs = work.join("certs");
        let slug = role.slug();
        vec![
            "--dir".into(),
            path(work),
            "--cert".into(),
            path(&certs.join(format!("{slug}.pem"))),
            "--key".into(),
            path(&certs.join(format!("{slug}-key.pem"))),
            "--ca".into(),
            path(&certs.join("ca.pem")),
            "--json".into(),
            path(&work.join(format!("{slug}-{stage}.json"))),
        ]
    };

    let keygen = roles
        .iter()
        .map(|&role| {
            let mut flags = vec!["keygen".into(), "--role".into(), role.slug()];
            flags.extend(role_flags(role, "keys"));
            (role.slug(), flags)
        })
        .collect();
    children::run_all(keygen, limit)?;

    let proof_out = work.join("proof.json");
    let circuit_flags = [
        "--r1cs".to_owned(),
        path(&args.circuit.r1cs),
        "--zkey".into(),
        path(&args.circuit.zkey),
        "--public".into(),
        path(&work.join("public.json")),
        "--proofs".into(),
        args.proofs.to_string(),
    ];
    let proving: Vec<(String, Vec<String>)> = roles
        .iter()
        .filter(|role| match role {
            PeerId::Party(i) => members.contains(i),
            PeerId::Server => true,
        })
        .map(|&role| {
            let mut flags = match role {
                PeerId::Server => vec!["server".into(), "--proof".into(), path(&proof_out)],
                PeerId::Party(i) => vec![
                    "party".into(),
                    "--index".into(),
                    i.to_string(),
                    "--share".into(),
                    path(&share_path(work, i)),
                ],
            };
            flags.extend(circuit_flags.iter().cloned());
            flags.extend(role_flags(role, "proofs"));
            (role.slug(), flags)
        })
        .collect();
    let proving_roles: Vec<String> = proving.iter().map(|(role, _)| role.clone()).collect();
    children::run_all(proving, limit)?;

    // Check the server's proof before handing it out.
    let zkey = files::read_zkey_without_queries(&args.circuit.zkey)?;
    let public = files::read_public_json(&work.join("public.json"))?;
    let proof = files::read_proof_json(&proof_out)?;
    verify::check(zkey.verifying_key(), &public, &proof)?;
    files::write_public_json(&args.public, &public)?;
    files::write_proof_json(&args.proof, &proof)?;

    let read_reports = |names: Vec<String>| -> CliResult<Vec<ProcessReport>> {
        names
            .into_iter()
            .map(|file| {
                let p = work.join(file);
                let text = std::fs::read_to_string(&p).map_err(|e| CliError::file(&p, e))?;
                serde_json::from_str(&text).map_err(|e| CliError::malformed(&p, e.to_string()))
            })
            .collect()
    };
    let report = ProveReport {
        verified: true,
        parties: args.parties,
        threshold,
        key_session: read_reports(
            roles
                .iter()
                .map(|r| format!("{}-keys.json", r.slug()))
                .collect(),
        )?,
        proving: read_reports(
            proving_roles
                .iter()
                .map(|r| format!("{r}-proofs.json"))
                .collect(),
        )?,
    };
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::malformed(path, e.to_string()))?;
        files::write_public(path, text.as_bytes())?;
    }
    Ok(report)
}

/// A path as an argument.
fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// A new private directory under the temporary directory.
fn fresh_temp_dir() -> CliResult<PathBuf> {
    let mut suffix = [0u8; 8];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut suffix);
    let dir = std::env::temp_dir().join(format!(
        "cosnark-{}-{}",
        std::process::id(),
        crate::session_file::hex(&suffix)
    ));
    std::fs::create_dir(&dir).map_err(|e| CliError::file(&dir, e))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| CliError::file(&dir, e))?;
    Ok(dir)
}
