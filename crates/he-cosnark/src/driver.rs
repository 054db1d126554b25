//! Every role in one process: the key session once, then proofs, each
//! role's steps measured and every message moved (and counted) by an
//! [`InProcess`] transport.

use std::collections::BTreeMap;
use std::sync::Arc;

use ark_ec::pairing::Pairing;
use ark_groth16::Proof;
use he_threshold::Session;
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
    parties: Vec<ComputingParty<E, R>>,
    server: Server<E, R>,
    transport: InProcess,
    key_session: BTreeMap<Role, Usage>,
}

impl<E: Pairing, R: Reduction> InProcessProver<E, R> {
    /// Makes the session's keys (`parties` parties, session id `id`) and
    /// the roles for proofs of `circuit`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the context's ring cannot hold the
    /// circuit's product; the key session's errors.
    pub fn new(
        context: &Context,
        id: [u8; 32],
        parties: u32,
        circuit: Arc<Circuit<E, R>>,
    ) -> Result<Self> {
        let session = Session::new(context, id, parties)?;
        let plan = Arc::new(ProofPlan::new(&session, circuit.domain_size())?);
        let mut transport = InProcess::new();
        let keys = KeySession::run(&session, &mut transport)?;
        let parties = keys
            .parties
            .into_iter()
            .map(|p| ComputingParty::new(p, circuit.clone(), plan.clone()))
            .collect::<Result<Vec<_>>>()?;
        let server = Server::new(session, keys.relin_key, circuit, plan)?;
        Ok(Self {
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

    /// Proof `proof` of the statement `public_inputs` from the parties'
    /// witness shares (`shares[i]` is party i's), with what every role
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
        if shares.len() != self.parties.len() {
            return Err(Error::WrongLength {
                what: "list of witness shares",
                expected: self.parties.len(),
                got: shares.len(),
            });
        }
        let mut report = ProofReport::default();
        let before: Vec<(Role, Round, Traffic)> = self.traffic_snapshot();
        let net = &mut self.transport;

        let mut states = Vec::with_capacity(self.parties.len());
        for (party, share) in self.parties.iter().zip(shares) {
            let (out, usage) = Usage::measure(|| party.upload(proof, public_inputs, share, rng));
            report.charge(party.role(), Round::Upload, usage);
            let (state, bytes) = out?;
            net.send(party.role(), Role::Server, Round::Upload, bytes)?;
            states.push(state);
        }

        let uploads = receive_all(net, &self.parties, Round::Upload)?;
        let (out, usage) = Usage::measure(|| self.server.compute(proof, public_inputs, &uploads));
        report.charge(Role::Server, Round::Upload, usage);
        let (server_state, broadcast) = out?;
        for party in &self.parties {
            net.send(Role::Server, party.role(), Round::Upload, broadcast.clone())?;
        }

        for (party, state) in self.parties.iter().zip(states.iter_mut()) {
            let bytes = net.receive(party.role(), Role::Server, Round::Upload)?;
            let (out, usage) = Usage::measure(|| party.convert(state, &bytes));
            report.charge(party.role(), Round::Convert, usage);
            net.send(party.role(), Role::Server, Round::Convert, out?)?;
        }

        let converts = receive_all(net, &self.parties, Round::Convert)?;
        let (out, usage) = Usage::measure(|| self.server.open(&server_state, &converts));
        report.charge(Role::Server, Round::Open, usage);
        net.send(Role::Server, Role::Party(0), Round::Open, out?)?;

        for (party, state) in self.parties.iter().zip(states) {
            let openings = match party.role() {
                Role::Party(0) => Some(net.receive(party.role(), Role::Server, Round::Open)?),
                _ => None,
            };
            let (out, usage) = Usage::measure(|| party.combine(state, openings.as_deref()));
            report.charge(party.role(), Round::Combine, usage);
            net.send(party.role(), Role::Server, Round::Combine, out?)?;
        }

        let c_shares = receive_all(net, &self.parties, Round::Combine)?;
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
    parties: &[ComputingParty<E, R>],
    round: Round,
) -> Result<Vec<Vec<u8>>> {
    parties
        .iter()
        .map(|p| net.receive(Role::Server, p.role(), round))
        .collect()
}
