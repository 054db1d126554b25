//! Every role in one process: the key session once, then proofs, each
//! role's steps measured and every message moved (and counted) by an
//! [`InProcess`] transport.

use std::collections::BTreeMap;
use std::sync::Arc;

use ark_ec::pairing::Pairing;
use ark_groth16::Proof;
use he_threshold::{ActiveSet, Session};
use helib_rs::Context;
use rand::{CryptoRng, RngCore};

use crate::circuit::Circuit;
use crate::error::{Error, Result};
use crate::keys::KeySession;
use crate::party::ComputingParty;
use crate::plan::ProofPlan;
use crate::reduction::Reduction;
use crate::server::Server;
use crate::shares::WitnessShare;
use crate::transport::{InProcess, Role, Round, Traffic, Transport};
use crate::usage::Usage;

/// What one role spent on one proof.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoleCost {
    /// Time, summed over the role's steps.
    pub usage: Usage,
    /// Bytes sent and received.
    pub traffic: Traffic,
}

/// What every role spent on one proof, per round too.
#[derive(Clone, Debug, Default)]
pub struct ProofReport {
    /// Per role and round.
    pub rounds: BTreeMap<(Role, Round), RoleCost>,
}

impl ProofReport {
    /// A role's total over the proof's rounds.
    pub fn role(&self, role: Role) -> RoleCost {
        let mut total = RoleCost::default();
        for ((r, _), cost) in &self.rounds {
            if *r == role {
                total.usage = total.usage.plus(cost.usage);
                total.traffic.sent += cost.traffic.sent;
                total.traffic.received += cost.traffic.received;
            }
        }
        total
    }

    fn charge(&mut self, role: Role, round: Round, usage: Usage) {
        let entry = self.rounds.entry((role, round)).or_default();
        entry.usage = entry.usage.plus(usage);
    }
}

/// A collaborative prover with every role in this process.
pub struct InProcessProver<E: Pairing, R: Reduction> {
    session: Session,
    threshold: u32,
    parties: Vec<ComputingParty<E, R>>,
    server: Server<E, R>,
    transport: InProcess,
    key_session: BTreeMap<Role, Usage>,
}

impl<E: Pairing, R: Reduction> InProcessProver<E, R> {
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
        let mut transport = InProcess::new();
        let keys = KeySession::run(&session, threshold, &mut transport)?;
        let mut reshared = keys.reshared.into_iter();
        let parties = keys
            .parties
            .into_iter()
            .map(|p| {
                let party = ComputingParty::new(p, circuit.clone(), plan.clone())?;
                Ok(match reshared.next() {
                    Some(share) => party.with_reshared(share),
                    None => party,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let server = Server::new(session.clone(), keys.relin_key, circuit, plan)?;
        Ok(Self {
            session,
            threshold,
            parties,
            server,
            transport,
            key_session: keys.usage,
        })
    }

    /// What each role spent in the key session.
    pub fn key_session_usage(&self) -> &BTreeMap<Role, Usage> {
        &self.key_session
    }

    /// The bytes each role sent and received in the key session.
    pub fn key_session_traffic(&self, role: Role) -> Traffic {
        self.transport.traffic(role, Round::Keys)
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
        let mut report = ProofReport::default();
        let before: Vec<(Role, Round, Traffic)> = self.traffic_snapshot();
        let net = &mut self.transport;
        let parties: Vec<&ComputingParty<E, R>> =
            members.iter().map(|&i| &self.parties[i as usize]).collect();

        let mut states = Vec::with_capacity(parties.len());
        for (party, share) in parties.iter().zip(shares) {
            let (out, usage) =
                Usage::measure(|| party.upload(proof, active, public_inputs, share, rng));
            report.charge(party.role(), Round::Upload, usage);
            let (state, bytes) = out?;
            net.send(party.role(), Role::Server, Round::Upload, bytes)?;
            states.push(state);
        }

        let uploads = receive_all(net, &parties, Round::Upload)?;
        let (out, usage) =
            Usage::measure(|| self.server.compute(proof, active, public_inputs, &uploads));
        report.charge(Role::Server, Round::Upload, usage);
        let (server_state, broadcast) = out?;
        for party in &parties {
            net.send(Role::Server, party.role(), Round::Upload, broadcast.clone())?;
        }

        for (party, state) in parties.iter().zip(states.iter_mut()) {
            let bytes = net.receive(party.role(), Role::Server, Round::Upload)?;
            let (out, usage) = Usage::measure(|| party.convert(state, &bytes));
            report.charge(party.role(), Round::Convert, usage);
            net.send(party.role(), Role::Server, Round::Convert, out?)?;
        }

        let converts = receive_all(net, &parties, Round::Convert)?;
        let (out, usage) = Usage::measure(|| self.server.open(&server_state, &converts));
        report.charge(Role::Server, Round::Open, usage);
        let designated = Role::Party(members[0]);
        net.send(Role::Server, designated, Round::Open, out?)?;

        for (party, state) in parties.iter().zip(states) {
            let openings = if party.role() == designated {
                Some(net.receive(party.role(), Role::Server, Round::Open)?)
            } else {
                None
            };
            let (out, usage) = Usage::measure(|| party.combine(state, openings.as_deref()));
            report.charge(party.role(), Round::Combine, usage);
            net.send(party.role(), Role::Server, Round::Combine, out?)?;
        }

        let c_shares = receive_all(net, &parties, Round::Combine)?;
        let (out, usage) = Usage::measure(|| self.server.finish(server_state, &c_shares));
        report.charge(Role::Server, Round::Combine, usage);
        let proof = out?;

        for (role, round, traffic) in self.traffic_snapshot() {
            let earlier = before
                .iter()
                .find(|(r, n, _)| (*r, *n) == (role, round))
                .map(|(_, _, t)| *t)
                .unwrap_or_default();
            let entry = report.rounds.entry((role, round)).or_default();
            entry.traffic.sent = traffic.sent - earlier.sent;
            entry.traffic.received = traffic.received - earlier.received;
        }
        Ok((proof, report))
    }

    fn traffic_snapshot(&self) -> Vec<(Role, Round, Traffic)> {
        let roles = self
            .parties
            .iter()
            .map(ComputingParty::role)
            .chain([Role::Server]);
        roles
            .flat_map(|role| {
                [Round::Upload, Round::Convert, Round::Open, Round::Combine]
                    .map(|round| (role, round, self.transport.traffic(role, round)))
            })
            .collect()
    }
}

/// Every party's message to the server in `round`, in party order.
fn receive_all<E: Pairing, R: Reduction>(
    net: &mut InProcess,
    parties: &[&ComputingParty<E, R>],
    round: Round,
) -> Result<Vec<Vec<u8>>> {
    parties
        .iter()
        .map(|p| net.receive(Role::Server, p.role(), round))
        .collect()
}
