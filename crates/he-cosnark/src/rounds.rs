//! A whole proof from one role's side, over its own [`Transport`]: the
//! order of the rounds, written once for every deployment (roles on
//! threads of one process, or each its own process).
//!
//! | round | party | server |
//! |---|---|---|
//! | upload | sends its upload; receives the broadcast | receives every upload; computes; broadcasts |
//! | convert | relinearizes the products; sends its encryption-to-shares shares | receives them all |
//! | open | the designated party receives the sums of the shares and opens them | sums the shares; sends the sums |
//! | combine | sends its share of C | receives them all; combines and verifies |

use ark_ec::pairing::Pairing;
use ark_groth16::Proof;
use he_threshold::ActiveSet;
use rand::{CryptoRng, RngCore};

use crate::error::Result;
use crate::msm::BatchedMsm;
use crate::party::ComputingParty;
use crate::reduction::Reduction;
use crate::report::RoleReport;
use crate::server::Server;
use crate::shares::WitnessShare;
use crate::transport::{Role, Round, Transport};
use crate::usage::Usage;

impl<E: Pairing, R: Reduction> ComputingParty<E, R>
where
    E::G1: BatchedMsm,
    E::G2: BatchedMsm,
{
    /// This party's side of proof `proof` of `public_inputs` among all
    /// parties (`active` = None) or the members of `active`, over
    /// `transport`, with its share `witness`. Returns what it spent.
    ///
    /// # Errors
    /// As [`upload`](Self::upload), [`convert`](Self::convert) and
    /// [`combine`](Self::combine); the transport's errors (a server that
    /// stopped: [`Error::Missing`](crate::Error::Missing)).
    pub fn prove<T: Transport + ?Sized, G: RngCore + CryptoRng>(
        &self,
        transport: &mut T,
        proof: u64,
        active: Option<&ActiveSet>,
        public_inputs: &[E::ScalarField],
        witness: &WitnessShare<E::ScalarField>,
        rng: &mut G,
    ) -> Result<RoleReport> {
        let mut report = RoleReport::new(&*transport);
        let (out, u) = Usage::measure(|| self.upload(proof, active, public_inputs, witness, rng));
        report.charge(Round::Upload, u);
        let (mut state, upload) = out?;
        transport.send(Role::Server, Round::Upload, upload)?;

        let broadcast = transport.receive(Role::Server, Round::Upload)?;
        let (out, u) = Usage::measure(|| self.convert(&mut state, &broadcast));
        report.charge(Round::Convert, u);
        transport.send(Role::Server, Round::Convert, out?)?;

        let aggregates = if self.is_designated(active) {
            Some(transport.receive(Role::Server, Round::Open)?)
        } else {
            None
        };
        let (out, u) = Usage::measure(|| self.combine(state, aggregates.as_deref()));
        report.charge(Round::Combine, u);
        transport.send(Role::Server, Round::Combine, out?)?;
        report.finish(&*transport);
        Ok(report)
    }
}

impl<E: Pairing, R: Reduction> Server<E, R> {
    /// The server's side of proof `proof` of `public_inputs` among all
    /// parties (`active` = None) or the members of `active`, over
    /// `transport`. Returns the proof, verified, and what the server spent.
    ///
    /// # Errors
    /// As [`compute`](Self::compute), [`open`](Self::open) and
    /// [`finish`](Self::finish); the transport's errors (a party that
    /// stopped: [`Error::Missing`](crate::Error::Missing) naming it).
    pub fn prove<T: Transport + ?Sized>(
        &self,
        transport: &mut T,
        proof: u64,
        active: Option<&ActiveSet>,
        public_inputs: &[E::ScalarField],
    ) -> Result<(Proof<E>, RoleReport)> {
        let mut report = RoleReport::new(&*transport);
        let members = self.members(active);
        let uploads = from_each(transport, &members, Round::Upload)?;
        let (out, u) = Usage::measure(|| self.compute(proof, active, public_inputs, &uploads));
        report.charge(Round::Upload, u);
        drop(uploads);
        let (state, broadcast) = out?;
        let parties: Vec<Role> = members.iter().map(|&i| Role::Party(i)).collect();
        transport.send_to_each(&parties, Round::Upload, broadcast)?;

        let converts = from_each(transport, &members, Round::Convert)?;
        let (out, u) = Usage::measure(|| self.open(&state, &converts));
        report.charge(Round::Open, u);
        drop(converts);
        let aggregates = out?;
        if let Some(&designated) = members.first() {
            transport.send(Role::Party(designated), Round::Open, aggregates)?;
        }

        let c_shares = from_each(transport, &members, Round::Combine)?;
        let (out, u) = Usage::measure(|| self.finish(state, &c_shares));
        report.charge(Round::Combine, u);
        report.finish(&*transport);
        Ok((out?, report))
    }
}

/// The next message of each of `members` in `round`, in their order.
fn from_each<T: Transport + ?Sized>(
    transport: &mut T,
    members: &[u32],
    round: Round,
) -> Result<Vec<Vec<u8>>> {
    members
        .iter()
        .map(|&i| transport.receive(Role::Party(i), round))
        .collect()
}
