//! `cosnark keygen`: one role of the key session, once per session. A
//! party makes its secret share, takes part in the collective
//! relinearization key and (t-out-of-N) the Shamir re-sharing, and keeps
//! its keys in secret files and its copy of the relinearization key in a
//! public one. The server keeps nothing.

use clap::Args;
use he_cosnark::{party_key_session, server_key_session, RoleReport, Round, Usage};
use he_net::PeerId;
use he_threshold::Party;
use helib_rs::ExportSecret;

use super::{party_key_path, party_relin_path, party_reshared_path, RoleArgs};
use crate::error::CliResult;
use crate::files;
use crate::report::{ProcessReport, StepClock};

/// Arguments of `cosnark keygen`.
#[derive(Args, Debug)]
pub struct KeygenArgs {
    #[command(flatten)]
    pub role_args: RoleArgs,
    /// This process's role: `server` or `party-<i>`.
    #[arg(long)]
    pub role: PeerId,
}

/// Runs one role of the key session and writes its keys.
///
/// # Errors
/// The session file's, network's and key session's errors; file errors
/// (also for key files that exist already: a session's keys are made once).
pub fn run(args: &KeygenArgs) -> CliResult<ProcessReport> {
    let dir = &args.role_args.dir;
    let file = args.role_args.session_file()?;
    let session = file.session()?;
    let clock = StepClock::start();
    let mut net = args.role_args.connect(&file, args.role, None)?;
    let report: RoleReport = match args.role {
        PeerId::Server => server_key_session(&session, file.threshold, &mut net)?,
        PeerId::Party(index) => {
            let (party, usage) = Usage::measure(|| Party::new(&session, index));
            let mut party = party?;
            let (keys, mut report) = party_key_session(&mut party, file.threshold, &mut net)?;
            report.charge(Round::Keys, usage);
            files::write_public(&party_relin_path(dir, index), &keys.relin_key.to_bytes()?)?;
            let consent = || ExportSecret::IUnderstandTheBytesAreTheKey;
            files::write_secret(
                &party_key_path(dir, index),
                &party.export_secret(consent())?,
            )?;
            if let Some(share) = keys.reshared {
                files::write_secret(
                    &party_reshared_path(dir, index),
                    &share.export_secret(consent())?,
                )?;
            }
            report
        }
    };
    // The step ends after the close: the key session is over only once
    // every message of this role has left.
    let wire = net.close_counted()?;
    let role = args.role.slug();
    let step = clock.finish("keys".into(), &report);
    step.print(&role);
    let report = ProcessReport::new(role, vec![step], wire);
    args.role_args.write_report(&report)?;
    Ok(report)
}
