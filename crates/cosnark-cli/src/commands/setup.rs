//! `cosnark setup`: a new session directory for a circuit — the public
//! `session.json` (fresh id, parties, threshold, domain, every role's
//! address) and, for a run on one machine, a CA with a certificate and key
//! per role under `certs/`.

use std::path::PathBuf;

use super::SESSION_FILE;
use crate::error::{CliError, CliResult};
use crate::files;
use crate::session_file::SessionFile;
use clap::Args;

/// Arguments of `cosnark setup`.
#[derive(Args, Debug)]
pub struct SetupArgs {
    /// The circuit's proving key (snarkjs `.zkey`): fixes the domain.
    #[arg(long)]
    pub zkey: PathBuf,
    /// Computing parties.
    #[arg(long)]
    pub parties: u32,
    /// Parties needed for a proof (default: all).
    #[arg(long)]
    pub threshold: Option<u32>,
    /// The session directory to create.
    #[arg(long)]
    pub dir: PathBuf,
    /// The host every role listens on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Do not make certificates (each role brings its own).
    #[arg(long)]
    pub no_certs: bool,
}

/// Runs `cosnark setup`.
///
/// # Errors
/// A zkey that does not read, a directory that exists and is not empty,
/// arguments out of range, file errors.
pub fn run(args: &SetupArgs) -> CliResult<SessionFile> {
    let zkey = files::read_zkey(&args.zkey)?;
    let session = SessionFile::new(
        args.parties,
        args.threshold.unwrap_or(args.parties),
        zkey.domain_size(),
        &args.host,
    )?;
    create_empty_dir(&args.dir)?;
    session.write(&args.dir.join(SESSION_FILE))?;
    if !args.no_certs {
        he_net::certs::generate(
            &args.dir.join("certs"),
            he_net::certs::session_roles(session.parties),
        )?;
    }
    Ok(session)
}

/// Creates `dir`, which must not exist or be empty.
fn create_empty_dir(dir: &std::path::Path) -> CliResult<()> {
    if let Ok(mut entries) = std::fs::read_dir(dir) {
        if entries.next().is_some() {
            return Err(CliError::malformed(
                dir,
                "the session directory exists and is not empty",
            ));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| CliError::file(dir, e))
}
