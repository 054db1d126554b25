//! The key session, once per session: every computing party makes its
//! secret share, and the parties and the server make the collective
//! relinearization key (round 1 commit-then-open, round 2), which the
//! server keeps; for t-out-of-N, the parties then re-share their secret
//! shares with Shamir's scheme (each dealing goes to its recipient only).
//! Share messages, commitments, openings and dealings travel as bytes
//! through the transport; the commitment set and the round-1 aggregate the
//! server hands back are counted by their content (they move as values).

use std::collections::BTreeMap;

use he_threshold::{
    Commitment, DealingMessage, Opening, Party, Session, ShamirShare, ShareMessage, Step,
};
use helib_rs::RelinKey;

use crate::error::Result;
use crate::transport::{InProcess, Role, Round, Transport};
use crate::usage::Usage;

/// The run of the relinearization key's rounds (proof runs start above 2^23).
const RELIN_RUN: u64 = 1;
/// The run of the Shamir re-sharing.
const RESHARE_RUN: u64 = 2;

/// The parties and the collective relinearization key of a session, with
/// what each role spent making them.
pub struct KeySession {
    /// The parties, in index order.
    pub parties: Vec<Party>,
    /// The collective relinearization key.
    pub relin_key: RelinKey,
    /// Each party's re-shared key for t-out-of-N (empty for N-out-of-N).
    pub reshared: Vec<ShamirShare>,
    /// Time per role.
    pub usage: BTreeMap<Role, Usage>,
}

impl KeySession {
    /// Runs the key session of `session` over `transport`, and the Shamir
    /// re-sharing for `threshold` when it is below the number of parties.
    ///
    /// # Errors
    /// The threshold protocol's errors, naming the party at fault.
    pub fn run(session: &Session, threshold: u32, transport: &mut InProcess) -> Result<Self> {
        let mut usage: BTreeMap<Role, Usage> = BTreeMap::new();
        let mut charge = |role: Role, u: Usage| {
            let entry = usage.entry(role).or_default();
            *entry = entry.plus(u);
        };
        let n = session.parties();
        let mut parties = Vec::with_capacity(n as usize);
        for i in 0..n {
            let (party, u) = Usage::measure(|| Party::new(session, i));
            charge(Role::Party(i), u);
            let mut party = party?;
            let (commitment, u) = Usage::measure(|| party.relin_key_commit(RELIN_RUN));
            charge(Role::Party(i), u);
            transport.send(
                Role::Party(i),
                Role::Server,
                Round::Keys,
                commitment?.to_bytes(),
            )?;
            parties.push(party);
        }

        let (commitments, u) = Usage::measure(|| -> Result<_> {
            let mut collector = session.relin_commitments(RELIN_RUN);
            from_each_party(transport, n, |bytes| {
                Ok(collector.add(&Commitment::from_bytes(bytes)?)?)
            })?;
            Ok(collector.finish()?)
        });
        charge(Role::Server, u);
        let commitments = commitments?;
        for (i, party) in parties.iter_mut().enumerate() {
            let to = Role::Party(i as u32);
            transport.record(Role::Server, to, Round::Keys, 32 * n as usize + 72);
            let (opening, u) = Usage::measure(|| party.relin_key_open(&commitments));
            charge(to, u);
            transport.send(to, Role::Server, Round::Keys, opening?.to_bytes())?;
        }

        let (round1, u) = Usage::measure(|| -> Result<_> {
            let mut aggregator = session.relin_round1_aggregator(&commitments)?;
            from_each_party(transport, n, |bytes| {
                Ok(aggregator.add_opening(&Opening::from_bytes(bytes)?)?)
            })?;
            Ok(aggregator.finish()?)
        });
        charge(Role::Server, u);
        let round1 = round1?;
        for (i, party) in parties.iter_mut().enumerate() {
            let to = Role::Party(i as u32);
            transport.record(Role::Server, to, Round::Keys, round1.size_bytes());
            let (share, u) = Usage::measure(|| party.relin_key_round2(&round1));
            charge(to, u);
            transport.send(to, Role::Server, Round::Keys, share?.to_bytes())?;
        }

        let (relin_key, u) = Usage::measure(|| -> Result<_> {
            let mut aggregator = session.key_aggregator(RELIN_RUN, Step::RelinRound2)?;
            from_each_party(transport, n, |bytes| {
                Ok(aggregator.add(&ShareMessage::from_bytes(bytes)?)?)
            })?;
            Ok(session.relin_key(&round1, &aggregator.finish()?)?)
        });
        charge(Role::Server, u);
        let relin_key = relin_key?;
        let reshared = if threshold < n {
            reshare(&parties, threshold, transport, &mut charge)?
        } else {
            Vec::new()
        };
        Ok(Self {
            parties,
            relin_key,
            reshared,
            usage,
        })
    }
}

/// The server takes the next key-session message of each of the `n`
/// parties, in index order.
fn from_each_party(
    transport: &mut InProcess,
    n: u32,
    mut take: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    for i in 0..n {
        take(&transport.receive(Role::Server, Role::Party(i), Round::Keys)?)?;
    }
    Ok(())
}

/// Every party deals its secret share to every party (privately), and sums
/// the dealings it received into its re-shared key.
fn reshare(
    parties: &[Party],
    threshold: u32,
    transport: &mut InProcess,
    charge: &mut impl FnMut(Role, Usage),
) -> Result<Vec<ShamirShare>> {
    for party in parties {
        let from = Role::Party(party.index());
        let (dealings, u) = Usage::measure(|| party.shamir_dealings(RESHARE_RUN, threshold));
        charge(from, u);
        for dealing in dealings? {
            let to = Role::Party(dealing.to);
            transport.send(from, to, Round::Keys, dealing.to_bytes().to_vec())?;
        }
    }
    parties
        .iter()
        .map(|party| {
            let me = Role::Party(party.index());
            let (share, u) = Usage::measure(|| -> Result<ShamirShare> {
                let mut dealings = Vec::with_capacity(parties.len());
                for dealer in parties {
                    let bytes = transport.receive(me, Role::Party(dealer.index()), Round::Keys)?;
                    dealings.push(DealingMessage::from_bytes(&bytes)?);
                }
                Ok(party.reshare(RESHARE_RUN, threshold, &dealings)?)
            });
            charge(me, u);
            share
        })
        .collect()
}
