//! `cosnark`: collaborative Groth16 proofs of circom circuits with
//! threshold BGV. Every role is its own process: N computing parties, who
//! hold only additive shares of the witness, and an untrusted server, which
//! holds only ciphertexts; they talk over mutually authenticated TLS.
//!
//! ```text
//! cosnark prove --r1cs C.r1cs --zkey C.zkey --witness C.wtns --parties 3 \
//!     --proof proof.json --public public.json
//! snarkjs groth16 verify verification_key.json public.json proof.json
//! ```
//!
//! `prove` runs everything on this machine; the other subcommands are the
//! steps, for roles on several machines: `setup` (a session directory),
//! `split-witness` (an input owner's shares), `keygen` (one role of the key
//! session), `party` and `server` (one role of the proofs), `verify`, and
//! `plain` (the plain prover, for comparison). `ptau` writes a prepared
//! powers-of-tau file for `snarkjs groth16 setup` from one local secret,
//! for tests and measurements (not a ceremony).

mod allocator;
mod children;
mod commands;
mod error;
mod files;
mod net;
mod outcome;
mod report;
mod session_file;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use commands::{keygen, party, plain, prove, ptau, server, setup, split_witness, verify};
use error::CliResult;

/// Collaborative Groth16 proofs of circom circuits, every role its own process.
#[derive(Parser, Debug)]
#[command(name = "cosnark", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Prove on this machine: every role a child process on 127.0.0.1.
    Prove(prove::ProveArgs),
    /// Make a session directory (session.json, certificates).
    Setup(setup::SetupArgs),
    /// Split a witness into one share file per party, and write public.json.
    SplitWitness(split_witness::SplitWitnessArgs),
    /// Run one role of the key session.
    Keygen(keygen::KeygenArgs),
    /// Run one computing party of the proofs.
    Party(party::PartyArgs),
    /// Run the server of the proofs.
    Server(server::ServerArgs),
    /// Verify a snarkjs proof.json.
    Verify(verify::VerifyArgs),
    /// Prove with the plain (single-machine) prover, timed.
    Plain(plain::PlainArgs),
    /// Write a prepared powers-of-tau file from one local secret: a
    /// single-contributor setup for tests and measurements, not a ceremony.
    Ptau(ptau::PtauArgs),
}

fn run(cli: Cli) -> CliResult<()> {
    match cli.command {
        Command::Prove(args) => {
            let report = prove::run(&args)?;
            eprintln!(
                "verified: true ({} of {} parties); proof in {}, public inputs in {}",
                report.threshold,
                report.parties,
                args.proof.display(),
                args.public.display()
            );
        }
        Command::Setup(args) => {
            let session = setup::run(&args)?;
            eprintln!(
                "session {} in {}: {} parties, threshold {}, domain {}",
                session.id,
                args.dir.display(),
                session.parties,
                session.threshold,
                session.domain_size
            );
        }
        Command::SplitWitness(args) => split_witness::run(&args)?,
        Command::Keygen(args) => {
            keygen::run(&args)?;
        }
        Command::Party(args) => {
            party::run(&args)?;
        }
        Command::Server(args) => {
            server::run(&args)?;
        }
        Command::Verify(args) => {
            verify::run(&args)?;
            println!("OK");
        }
        Command::Plain(args) => {
            plain::run(&args)?;
        }
        Command::Ptau(args) => {
            let report = ptau::run(&args)?;
            eprintln!(
                "powers of tau 2^{} prepared for phase 2 in {}: {} bytes, {:.1} s \
                 (a single-contributor setup for tests and measurements, not a ceremony)",
                args.power,
                args.out.display(),
                report.bytes,
                report.wall_s
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    // Every command runs on the same allocator, which keeps the pages it is
    // given (see `allocator`): the long-lived roles' later proofs reuse the
    // first proof's pages, and `plain`, which they are measured against,
    // runs under the same policy.
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cosnark: error: {error}");
            ExitCode::FAILURE
        }
    }
}
