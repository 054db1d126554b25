//! The subcommands, one module each, and the arguments they share.

pub mod keygen;
pub mod party;
pub mod plain;
pub mod prove;
pub mod proving;
pub mod ptau;
pub mod server;
pub mod setup;
pub mod split_witness;
pub mod verify;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ark_bn254::Bn254;
use clap::Args;
use he_circom::R1cs;
use he_cosnark::{Circom, Circuit};
use he_net::{Credentials, PeerId};

use crate::error::{CliError, CliResult};
use crate::files;
use crate::net::NetTransport;
use crate::report::ProcessReport;
use crate::session_file::SessionFile;

/// Where a role process finds its session and its TLS credentials.
#[derive(Args, Clone, Debug)]
pub struct RoleArgs {
    /// The session directory (`session.json` and the key files).
    #[arg(long)]
    pub dir: PathBuf,
    /// This role's certificate chain (PEM).
    #[arg(long)]
    pub cert: PathBuf,
    /// This role's private key (PEM).
    #[arg(long)]
    pub key: PathBuf,
    /// The CA certificate every peer's certificate must lead to (PEM).
    #[arg(long)]
    pub ca: PathBuf,
    /// Also write this process's report as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Seconds to wait for every other role to connect (they may start in
    /// any order).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub connect_timeout: u64,
    /// Seconds to wait for any one message of a peer. A peer that
    /// disconnects or sends garbage ends the wait at once; this bounds a
    /// peer that stays connected and silent.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..))]
    pub receive_timeout: u64,
}

impl RoleArgs {
    /// The TLS credentials.
    pub fn credentials(&self) -> Credentials {
        Credentials {
            cert_chain: self.cert.clone(),
            private_key: self.key.clone(),
            ca: self.ca.clone(),
        }
    }

    /// The session description.
    ///
    /// # Errors
    /// As [`SessionFile::read`].
    pub fn session_file(&self) -> CliResult<SessionFile> {
        SessionFile::read(&self.dir.join(SESSION_FILE))
    }

    /// Connects role `me` to the mesh of the server and `parties` (all when
    /// `None`) of the session `file`, with these credentials and timeouts,
    /// and says so on stderr.
    ///
    /// # Errors
    /// As [`SessionFile::net_config`] and [`NetTransport::connect`].
    pub fn connect(
        &self,
        file: &SessionFile,
        me: PeerId,
        parties: Option<&[u32]>,
    ) -> CliResult<NetTransport> {
        let mut config = file.net_config(me, self.credentials(), parties)?;
        config.connect_timeout = Duration::from_secs(self.connect_timeout);
        config.receive_timeout = Duration::from_secs(self.receive_timeout);
        let net = NetTransport::connect(config)?;
        eprintln!("[{}] connected", me.slug());
        Ok(net)
    }

    /// Writes `report` to the `--json` file, if one was given.
    ///
    /// # Errors
    /// A file error.
    pub fn write_report(&self, report: &ProcessReport) -> CliResult<()> {
        if let Some(path) = &self.json {
            let text = serde_json::to_string_pretty(report)
                .map_err(|e| CliError::malformed(path, e.to_string()))?;
            crate::files::write_public(path, text.as_bytes())?;
        }
        Ok(())
    }
}

/// The circuit files every proving role reads.
#[derive(Args, Clone, Debug)]
pub struct CircuitArgs {
    /// The circuit (circom `.r1cs`).
    #[arg(long)]
    pub r1cs: PathBuf,
    /// Its Groth16 proving key (snarkjs `.zkey`).
    #[arg(long)]
    pub zkey: PathBuf,
}

/// How much of the zkey a role reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CircuitRead {
    /// The whole proving key: a party's multi-scalar multiplications need
    /// its query points.
    Whole,
    /// Without the query points (see [`he_circom::ZkeyWithoutQueries`]):
    /// the server and the witness splitter need only the verifying key,
    /// δ in G1 and the circuit's digest, and skip most of the load.
    WithoutQueries,
}

impl CircuitArgs {
    /// The r1cs and the circuit of r1cs and zkey, checked against each
    /// other, with as much of the zkey as `read` asks for.
    ///
    /// # Errors
    /// The readers' errors naming the file; a zkey for another circuit
    /// (naming both files).
    pub fn load(&self, read: CircuitRead) -> CliResult<(R1cs, Arc<Circuit<Bn254, Circom>>)> {
        let r1cs = files::read_r1cs(&self.r1cs)?;
        // The circuit's constructors check the zkey against the r1cs; their
        // only circom error is that mismatch, named here with both files.
        let mismatch = |e: he_cosnark::Error| match e {
            he_cosnark::Error::Circom(e) => CliError::malformed(
                &self.zkey,
                format!("not a proving key of {}: {e}", self.r1cs.display()),
            ),
            other => other.into(),
        };
        let circuit = match read {
            CircuitRead::Whole => {
                Circuit::from_circom(&r1cs, files::read_zkey(&self.zkey)?).map_err(mismatch)?
            }
            CircuitRead::WithoutQueries => {
                let zkey = files::read_zkey_without_queries(&self.zkey)?;
                Circuit::from_circom_without_queries(&r1cs, &zkey).map_err(mismatch)?
            }
        };
        Ok((r1cs, Arc::new(circuit)))
    }
}

/// Which parties make the proofs, and their numbers.
#[derive(Args, Clone, Debug)]
pub struct ProofArgs {
    /// Proofs to make in a row (one long-lived process per role).
    #[arg(long, default_value_t = 1)]
    pub proofs: u64,
    /// The index of the first proof (every proof of a session needs its own).
    #[arg(long, default_value_t = 0)]
    pub first_proof: u64,
    /// The parties that prove, comma-separated (default: all for
    /// N-out-of-N, the first `threshold` otherwise).
    #[arg(long, value_delimiter = ',')]
    pub members: Vec<u32>,
}

impl ProofArgs {
    /// The members of the proofs for `session`: `None` for all parties of
    /// an N-out-of-N session.
    ///
    /// # Errors
    /// [`CliError::Usage`] for members in an N-out-of-N session that are
    /// not all parties.
    pub fn members(&self, session: &SessionFile) -> CliResult<Option<Vec<u32>>> {
        let all: Vec<u32> = (0..session.parties).collect();
        if session.threshold == session.parties {
            if !self.members.is_empty() && self.members != all {
                return Err(CliError::Usage(
                    "an N-out-of-N session proves with all its parties".into(),
                ));
            }
            return Ok(None);
        }
        Ok(Some(if self.members.is_empty() {
            (0..session.threshold).collect()
        } else {
            self.members.clone()
        }))
    }

    /// The proof indices.
    pub fn indices(&self) -> std::ops::Range<u64> {
        self.first_proof..self.first_proof.saturating_add(self.proofs)
    }
}

/// The session description's file name in a session directory.
pub const SESSION_FILE: &str = "session.json";

/// A party's key file in the session directory.
pub fn party_key_path(dir: &Path, party: u32) -> PathBuf {
    dir.join(format!("party-{party}.key"))
}

/// A party's re-shared key file (t-out-of-N sessions).
pub fn party_reshared_path(dir: &Path, party: u32) -> PathBuf {
    dir.join(format!("party-{party}.reshared"))
}

/// A party's copy of the relinearization key (it relinearizes the
/// products it converts).
pub fn party_relin_path(dir: &Path, party: u32) -> PathBuf {
    dir.join(format!("party-{party}.relin"))
}
