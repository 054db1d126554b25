//! What the two proving roles, `cosnark party` and `cosnark server`, share:
//! their common arguments and the files both load before they connect.

use std::path::PathBuf;
use std::sync::Arc;

use ark_bn254::{Bn254, Fr};
use clap::Args;
use he_cosnark::{Circom, Circuit, ProofPlan, RoleReport};
use he_net::PeerId;
use he_threshold::Session;

use super::{CircuitArgs, CircuitRead, ProofArgs, RoleArgs};
use crate::error::CliResult;
use crate::files;
use crate::net::NetTransport;
use crate::report::{ProcessReport, StepClock};
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
    /// The plan of the circuit's proofs in the session.
    pub plan: Arc<ProofPlan>,
}

impl ProvingArgs {
    /// Reads the session, the members, the circuit (as much of its zkey as
    /// `read` asks for) and the public inputs, and plans the circuit's
    /// proofs.
    ///
    /// # Errors
    /// The readers' errors, each naming its file; members that the session
    /// does not allow (as [`ProofArgs::members`]).
    pub fn load(&self, read: CircuitRead) -> CliResult<ProvingInputs> {
        let file = self.role_args.session_file()?;
        let members = self.proofs.members(&file)?;
        let session = file.session()?;
        let (_, circuit) = self.circuit.load(read)?;
        let public = files::read_public_json(&self.public)?;
        let plan = Arc::new(ProofPlan::new(&session, circuit.domain_size())?);
        Ok(ProvingInputs {
            file,
            members,
            session,
            circuit,
            public,
            plan,
        })
    }

    /// Runs `prove` for each proof index in turn, each timed as a step of
    /// role `me`, then closes `net` and writes the role's report (also to
    /// the `--json` file, if one was given).
    ///
    /// # Errors
    /// The first error of `prove`; the network's error closing; a file
    /// error writing the report.
    pub fn run_proofs(
        &self,
        me: PeerId,
        mut net: NetTransport,
        mut prove: impl FnMut(&mut NetTransport, u64) -> CliResult<RoleReport>,
    ) -> CliResult<ProcessReport> {
        let mut steps = Vec::new();
        for proof in self.proofs.indices() {
            let clock = StepClock::start();
            let report = prove(&mut net, proof)?;
            let step = clock.finish(format!("proof {proof}"), &report);
            step.print(&me.slug());
            steps.push(step);
        }
        let report = ProcessReport::new(me.slug(), steps, net.close_counted()?);
        self.role_args.write_report(&report)?;
        Ok(report)
    }
}
