//! Every role in one process, each on its own thread: the key session once,
//! then proofs, each role running its side ([`ComputingParty::prove`],
//! [`Server::prove`]) over its end of an [`InProcess`] group, which counts
//! its bytes.

use std::collections::BTreeMap;
use std::sync::Arc;

use ark_ec::pairing::Pairing;
use ark_groth16::Proof;
use he_threshold::{ActiveSet, Session};
use helib_rs::Context;
use rand::{CryptoRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::circuit::Circuit;
use crate::error::{Error, Result};
use crate::keys::KeySession;
use crate::msm::BatchedMsm;
use crate::party::ComputingParty;
use crate::plan::ProofPlan;
use crate::reduction::Reduction;
use crate::report::{self, ProofReport, RoleReport};
use crate::server::Server;
use crate::shares::WitnessShare;
use crate::transport::{InProcess, Role, Round, Traffic};

/// A collaborative prover with every role in this process.
pub struct InProcessProver<E: Pairing, R: Reduction> {
    session: Session,
    threshold: u32,
    parties: Vec<ComputingParty<E, R>>,
    server: Server<E, R>,
    key_session: BTreeMap<Role, RoleReport>,
}

impl<E: Pairing, R: Reduction> InProcessProver<E, R>
where
    E::G1: BatchedMsm,
    E::G2: BatchedMsm,
{
    /// Makes the session's keys (`parties` parties, session id `id`; with
    /// `threshold` below `parties`, the Shamir re-sharing too, so that any
    /// `threshold` of them can prove) and the roles for proofs of `circuit`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the context's ring cannot hold the
    /// circuit's product or `threshold` is not in `1..=parties`; the key
    /// session's errors.
    pub fn new(
        context: &Context,
        id: [u8; 32],
        parties: u32,
        threshold: u32,
        circuit: Arc<Circuit<E, R>>,
    ) -> Result<Self> {
        if !(1..=parties).contains(&threshold) {
            return Err(Error::InvalidArgument(format!(
                "the threshold must be in 1..={parties}, got {threshold}"
            )));
        }
        let session = Session::new(context, id, parties)?;
        let plan = Arc::new(ProofPlan::new(&session, circuit.domain_size())?);
        let keys = KeySession::run(&session, threshold)?;
        let parties = keys
            .parties
            .into_iter()
            .zip(keys.party_keys)
            .map(|(p, keys)| {
                let party = ComputingParty::new(p, keys.relin_key, circuit.clone(), plan.clone())?;
                Ok(match keys.reshared {
                    Some(share) => party.with_reshared(share),
                    None => party,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // The server holds the circuit as a server process reads it: no
        // query points (it makes no multi-scalar multiplication).
        let server_circuit = Arc::new(circuit.without_query_points());
        let server = Server::new(session.clone(), server_circuit, plan)?;
        Ok(Self {
            session,
            threshold,
            parties,
            server,
            key_session: keys.reports,
        })
    }

    /// What each role spent and sent in the key session.
    pub fn key_session(&self) -> &BTreeMap<Role, RoleReport> {
        &self.key_session
    }

    /// The bytes `role` sent and received in the key session.
    pub fn key_session_traffic(&self, role: Role) -> Traffic {
        self.key_session
            .get(&role)
            .and_then(|report| report.rounds.get(&Round::Keys))
            .map(|cost| cost.traffic)
            .unwrap_or_default()
    }

    /// Proof `proof` of the statement `public_inputs` by all parties from
    /// their witness shares (`shares[i]` is party i's), with what every role
    /// spent. Every proof of a session needs its own index.
    ///
    /// # Errors
    /// [`Error::WrongLength`] for another number of shares than parties;
    /// [`Error::ProofRejected`] when the shares do not sum to a witness of
    /// the statement; any role's error.
    pub fn prove<G: RngCore + CryptoRng>(
        &mut self,
        proof: u64,
        public_inputs: &[E::ScalarField],
        shares: &[WitnessShare<E::ScalarField>],
        rng: &mut G,
    ) -> Result<(Proof<E>, ProofReport)> {
        self.run_proof(proof, None, public_inputs, shares, rng)
    }

    /// As [`prove`](Self::prove), by the parties `members` only (at least
    /// the session's threshold of them; `shares[k]` is the share of the
    /// k-th member in increasing order).
    ///
    /// # Errors
    /// As [`prove`](Self::prove); [`Error::Threshold`] for members below the
    /// threshold, repeated or outside the session.
    pub fn prove_with<G: RngCore + CryptoRng>(
        &mut self,
        proof: u64,
        members: &[u32],
        public_inputs: &[E::ScalarField],
        shares: &[WitnessShare<E::ScalarField>],
        rng: &mut G,
    ) -> Result<(Proof<E>, ProofReport)> {
        let set = ActiveSet::new(&self.session, self.threshold, members)?;
        self.run_proof(proof, Some(set), public_inputs, shares, rng)
    }

    fn run_proof<G: RngCore + CryptoRng>(
        &mut self,
        proof: u64,
        active: Option<ActiveSet>,
        public_inputs: &[E::ScalarField],
        shares: &[WitnessShare<E::ScalarField>],
        rng: &mut G,
    ) -> Result<(Proof<E>, ProofReport)> {
        let members: Vec<u32> = match &active {
            Some(set) => set.members().to_vec(),
            None => (0..self.parties.len() as u32).collect(),
        };
        if shares.len() != members.len() {
            return Err(Error::WrongLength {
                what: "list of witness shares",
                expected: members.len(),
                got: shares.len(),
            });
        }
        let active = active.as_ref();
        let mut ends = InProcess::group_of(
            std::iter::once(Role::Server)
                .chain(members.iter().map(|&i| Role::Party(i)))
                .collect(),
        );
        let mut server_end = ends.remove(0);
        // Each party draws its randomness from its own generator, seeded
        // from the caller's.
        let rngs: Vec<ChaCha20Rng> = members
            .iter()
            .map(|_| ChaCha20Rng::from_rng(&mut *rng))
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::InvalidArgument(format!("the random generator failed: {e}")))?;
        let (server, parties) = std::thread::scope(|scope| {
            let handles: Vec<_> = members
                .iter()
                .zip(shares)
                .zip(ends.into_iter().zip(rngs))
                .map(|((&i, share), (mut end, mut rng))| {
                    let party = &self.parties[i as usize];
                    scope.spawn(move || {
                        party.prove(&mut end, proof, active, public_inputs, share, &mut rng)
                    })
                })
                .collect();
            let server = self
                .server
                .prove(&mut server_end, proof, active, public_inputs);
            drop(server_end);
            let parties: Vec<_> = handles.into_iter().map(report::join).collect();
            (server, parties)
        });
        let mut proof_report = ProofReport::default();
        let mut errors = Vec::new();
        for (&i, outcome) in members.iter().zip(parties) {
            match outcome {
                Ok(role_report) => proof_report.insert(Role::Party(i), &role_report),
                Err(error) => errors.push(error),
            }
        }
        let proof = match server {
            Ok((proof, role_report)) => {
                proof_report.insert(Role::Server, &role_report);
                proof
            }
            Err(error) => {
                errors.insert(0, error);
                return Err(report::root_cause(errors));
            }
        };
        if !errors.is_empty() {
            return Err(report::root_cause(errors));
        }
        Ok((proof, proof_report))
    }
}
