//! `cosnark ptau`: a prepared powers-of-tau file for `snarkjs groth16
//! setup`, made on this machine from one fresh secret — a single-contributor
//! setup for tests and measurements, not a ceremony (see
//! [`he_circom::ptau`]).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use he_circom::ptau::{self, MAX_POWER, MIN_POWER};

use crate::error::{CliError, CliResult};

/// Arguments of `cosnark ptau`.
#[derive(Args, Debug)]
pub struct PtauArgs {
    /// log2 of the largest domain the file serves (circuits of up to
    /// 2^power − 1 constraints and public inputs together), from 1 to 27.
    #[arg(long, value_parser = clap::value_parser!(u32).range(MIN_POWER as i64..=MAX_POWER as i64))]
    pub power: u32,
    /// The file to write (snarkjs `.ptau`, prepared for phase 2); replaced
    /// only once the new one is complete.
    #[arg(long)]
    pub out: PathBuf,
}

/// What `cosnark ptau` wrote.
#[derive(Debug)]
pub struct PtauReport {
    /// Bytes written.
    pub bytes: u64,
    /// Wall time in seconds.
    pub wall_s: f64,
}

/// Runs `cosnark ptau`.
///
/// # Errors
/// A power out of range ([`CliError::Usage`]); a file error naming the
/// path; a failed random generator.
pub fn run(args: &PtauArgs) -> CliResult<PtauReport> {
    let start = Instant::now();
    let bytes = ptau::write_prepared(&args.out, args.power).map_err(|e| match e {
        he_circom::Error::InvalidArgument(reason) => CliError::Usage(reason),
        e => CliError::circom(&args.out, e),
    })?;
    Ok(PtauReport {
        bytes,
        wall_s: start.elapsed().as_secs_f64(),
    })
}
