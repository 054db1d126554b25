//! What the two proving roles, `cosnark party` and `cosnark server`, share:
//! their common arguments and the files both load before they connect.

use std::path::PathBuf;
use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use clap::Args;
use he_cosnark::{Circom, Circuit};
use he_threshold::Session;

use super::{CircuitArgs, ProofArgs, RoleArgs};
use crate::error::CliResult;
use crate::files;
use crate::session_file::SessionFile;

/// The arguments of every proving role.
#[derive(Args, Clone, Debug)]
pub struct ProvingArgs {
    #[command(flatten)]
    pub role_args: RoleArgs,
    #[command(flatten)]
    pub circuit: CircuitArgs,
    #[command(flatten)]
    pub proofs: ProofArgs,
    /// The public inputs (snarkjs `public.json`).
    #[arg(long)]
    pub public: PathBuf,
}

/// What a proving role has read before it loads its own keys.
pub struct ProvingInputs {
    /// The session description.
    pub file: SessionFile,
    /// The members of the proofs (`None`: all parties, N-out-of-N).
    pub members: Option<Vec<u32>>,
    /// The session the description stands for.
    pub session: Session,
    /// The circuit, its r1cs and proving key checked against each other.
    pub circuit: Arc<Circuit<Bn254, Circom>>,
    /// The public inputs.
    pub public: Vec<Fr>,
}

impl ProvingArgs {
    /// Reads the session, the members, the circuit and the public inputs.
    ///
    /// # Errors
    /// The readers' errors, each naming its file; members that the session
    /// does not allow (as [`ProofArgs::members`]).
    pub fn load(&self) -> CliResult<ProvingInputs> {
        let file = self.role_args.session_file()?;
        let members = self.proofs.members(&file)?;
        let session = file.session()?;
        let (_, circuit) = self.circuit.load()?;
        let public = files::read_public_json(&self.public)?;
        Ok(ProvingInputs {
            file,
            members,
            session,
            circuit,
            public,
        })
    }
}
