//! The key session, once per session: every computing party makes its
//! secret share, and the parties and the server make the collective
//! relinearization key (round 1 commit-then-open, round 2), which every
//! party assembles from the server's sums of both rounds (each
//! relinearizes the products it converts; the server keeps no key); for
//! t-out-of-N, the parties then re-share their secret shares with Shamir's
//! scheme (each dealing goes to its recipient only).
//!
//! Each role runs its side over its own [`Transport`]:
//! [`party_key_session`] and [`server_key_session`] (one process per role,
//! or threads); [`KeySession::run`] runs all of them on threads of this
//! process.

use std::collections::BTreeMap;

use he_threshold::{
    Aggregate, Commitment, Commitments, DealingMessage, Opening, Party, Session, ShamirShare,
    ShareMessage, Step,
};
use helib_rs::zeroize::Zeroizing;
use helib_rs::RelinKey;

use crate::error::{Error, Result};
use crate::report::RoleReport;
use crate::transport::{InProcess, Role, Round, Transport};
use crate::usage::Usage;

/// The run of the relinearization key's rounds (proof runs start above 2^23).
const RELIN_RUN: u64 = 1;
/// The run of the Shamir re-sharing.
const RESHARE_RUN: u64 = 2;

/// What a party takes from the key session besides its secret share.
pub struct PartyKeys {
    /// The collective relinearization key, which it assembled from the
    /// sums of both rounds.
    pub relin_key: RelinKey,
    /// Its re-shared key for t-out-of-N (None for N-out-of-N).
    pub reshared: Option<ShamirShare>,
}

/// The parties of a session and their keys, with what each role spent
/// making them (every role in this process).
pub struct KeySession {
    /// The parties, in index order.
    pub parties: Vec<Party>,
    /// What each party took from the session, in index order.
    pub party_keys: Vec<PartyKeys>,
    /// What each role spent and sent.
    pub reports: BTreeMap<Role, RoleReport>,
}

impl KeySession {
    /// Runs the key session of `session` with every role on its own thread
    /// of this process, and the Shamir re-sharing for `threshold` when it is
    /// below the number of parties.
    ///
    /// # Errors
    /// The first role's error, naming the party at fault (a role that only
    /// saw another one stop reports [`Error::Missing`], which comes last).
    pub fn run(session: &Session, threshold: u32) -> Result<Self> {
        let mut ends = InProcess::group(session.parties());
        let mut server_end = ends.remove(0);
        let (server, parties) = std::thread::scope(|scope| {
            let handles: Vec<_> = ends
                .into_iter()
                .enumerate()
                .map(|(i, mut end)| {
                    scope.spawn(move || -> Result<_> {
                        let (party, u) = Usage::measure(|| Party::new(session, i as u32));
                        let mut party = party?;
                        let (keys, mut report) =
                            party_key_session(&mut party, threshold, &mut end)?;
                        report.charge(Round::Keys, u);
                        Ok((party, keys, report))
                    })
                })
                .collect();
            let server = server_key_session(session, threshold, &mut server_end);
            drop(server_end);
            let parties: Vec<_> = handles.into_iter().map(crate::report::join).collect();
            (server, parties)
        });
        let mut reports = BTreeMap::new();
        let mut outcomes = Vec::with_capacity(parties.len());
        let mut errors = Vec::new();
        for party in parties {
            match party {
                Ok((party, keys, report)) => {
                    reports.insert(Role::Party(party.index()), report);
                    outcomes.push((party, keys));
                }
                Err(error) => errors.push(error),
            }
        }
        let server_report = match server {
            Ok(report) => report,
            Err(error) => {
                errors.push(error);
                return Err(crate::report::root_cause(errors));
            }
        };
        if !errors.is_empty() {
            return Err(crate::report::root_cause(errors));
        }
        reports.insert(Role::Server, server_report);
        let (parties, party_keys) = outcomes.into_iter().unzip();
        Ok(Self {
            parties,
            party_keys,
            reports,
        })
    }
}

/// A party's side of the key session over `transport`: round 1 (commit,
/// then open once every commitment is in), round 2, the collective
/// relinearization key from both rounds' sums, and for `threshold` below the
/// number of parties the Shamir re-sharing. Returns the party's keys and
/// what it spent.
///
/// # Errors
/// [`Error::Malformed`] naming the sender of a message that does not
/// decode or belongs to another session; the threshold protocol's errors.
pub fn party_key_session<T: Transport + ?Sized>(
    party: &mut Party,
    threshold: u32,
    transport: &mut T,
) -> Result<(PartyKeys, RoleReport)> {
    let mut report = RoleReport::new(&*transport);
    let session = party.session().clone();
    let from_server = |e: he_threshold::Error| Error::Malformed {
        from: Role::Server,
        reason: e.to_string(),
    };

    let (commitment, u) =
        Usage::measure(|| party.relin_key_commit(RELIN_RUN).map(|c| c.to_bytes()));
    report.charge(Round::Keys, u);
    transport.send(Role::Server, Round::Keys, commitment?)?;

    let bytes = transport.receive(Role::Server, Round::Keys)?;
    let (opening, u) = Usage::measure(|| -> Result<Vec<u8>> {
        let commitments = Commitments::from_bytes(&session, &bytes).map_err(from_server)?;
        Ok(party.relin_key_open(&commitments)?.to_bytes())
    });
    report.charge(Round::Keys, u);
    transport.send(Role::Server, Round::Keys, opening?)?;

    let bytes = transport.receive(Role::Server, Round::Keys)?;
    let (round1_and_share, u) = Usage::measure(|| -> Result<_> {
        let round1 = Aggregate::from_bytes(&session, &bytes).map_err(from_server)?;
        let share = party.relin_key_round2(&round1)?.to_bytes();
        Ok((round1, share))
    });
    report.charge(Round::Keys, u);
    let (round1, share) = round1_and_share?;
    transport.send(Role::Server, Round::Keys, share)?;

    // Every party assembles the key from the server's sum of round 2.
    let bytes = transport.receive(Role::Server, Round::Keys)?;
    let (relin_key, u) = Usage::measure(|| -> Result<_> {
        let round2 = Aggregate::from_bytes(&session, &bytes).map_err(from_server)?;
        Ok(session.relin_key(&round1, &round2)?)
    });
    report.charge(Round::Keys, u);
    let relin_key = relin_key?;

    let reshared = if threshold < session.parties() {
        Some(reshare(party, threshold, transport, &mut report)?)
    } else {
        None
    };
    report.finish(&*transport);
    Ok((
        PartyKeys {
            relin_key,
            reshared,
        },
        report,
    ))
}

/// The party deals its secret share to every other party (privately), and
/// sums the dealings it received into its re-shared key.
fn reshare<T: Transport + ?Sized>(
    party: &Party,
    threshold: u32,
    transport: &mut T,
    report: &mut RoleReport,
) -> Result<ShamirShare> {
    let me = party.index();
    let (dealings, u) = Usage::measure(|| -> Result<_> {
        let mut own = None;
        let mut outgoing = Vec::new();
        for dealing in party.shamir_dealings(RESHARE_RUN, threshold)? {
            if dealing.to == me {
                own = Some(dealing);
            } else {
                outgoing.push((Role::Party(dealing.to), dealing.to_bytes()));
            }
        }
        Ok((own, outgoing))
    });
    report.charge(Round::Keys, u);
    let (own, outgoing) = dealings?;
    for (to, bytes) in outgoing {
        transport.send_secret(to, Round::Keys, bytes)?;
    }
    let mut received = Vec::with_capacity(party.session().parties() as usize);
    received.extend(own);
    for dealer in (0..party.session().parties()).filter(|&d| d != me) {
        let from = Role::Party(dealer);
        let bytes = Zeroizing::new(transport.receive(from, Round::Keys)?);
        let (dealing, u) = Usage::measure(|| DealingMessage::from_bytes(&bytes));
        report.charge(Round::Keys, u);
        received.push(dealing.map_err(|e| Error::Malformed {
            from,
            reason: e.to_string(),
        })?);
    }
    let (share, u) = Usage::measure(|| party.reshare(RESHARE_RUN, threshold, &received));
    report.charge(Round::Keys, u);
    Ok(share?)
}

/// The server's side of the key session over `transport`: it collects the
/// commitments and broadcasts the set, checks the openings against it and
/// broadcasts the round-1 aggregate, and sums round 2 for every party to
/// assemble the collective relinearization key from. The re-sharing does
/// not pass through the server.
///
/// # Errors
/// [`Error::Malformed`] naming a party whose message does not decode; the
/// threshold protocol's errors (a wrong opening, share or binding names its
/// party); [`Error::Missing`] for a party that stopped.
pub fn server_key_session<T: Transport + ?Sized>(
    session: &Session,
    threshold: u32,
    transport: &mut T,
) -> Result<RoleReport> {
    let mut report = RoleReport::new(&*transport);
    if !(1..=session.parties()).contains(&threshold) {
        return Err(Error::InvalidArgument(format!(
            "the threshold must be in 1..={}, got {threshold}",
            session.parties()
        )));
    }
    let mut collector = session.relin_commitments(RELIN_RUN);
    from_each_party(session, transport, &mut report, |bytes| {
        Ok(collector.add(&Commitment::from_bytes(bytes)?)?)
    })?;
    let (commitments, u) = Usage::measure(|| collector.finish().map(|c| (c.to_bytes(), c)));
    report.charge(Round::Keys, u);
    let (commitment_bytes, commitments) = commitments?;
    to_each_party(session, transport, commitment_bytes)?;

    let mut aggregator = session.relin_round1_aggregator(&commitments)?;
    from_each_party(session, transport, &mut report, |bytes| {
        Ok(aggregator.add_opening(&Opening::from_bytes(bytes)?)?)
    })?;
    let (round1, u) = Usage::measure(|| aggregator.finish().map(|r| r.to_bytes()));
    report.charge(Round::Keys, u);
    to_each_party(session, transport, round1?)?;

    let mut aggregator = session.key_aggregator(RELIN_RUN, Step::RelinRound2)?;
    from_each_party(session, transport, &mut report, |bytes| {
        Ok(aggregator.add(&ShareMessage::from_bytes(bytes)?)?)
    })?;
    let (round2, u) = Usage::measure(|| aggregator.finish().map(|r| r.to_bytes()));
    report.charge(Round::Keys, u);
    to_each_party(session, transport, round2?)?;
    report.finish(&*transport);
    Ok(report)
}

/// The server takes the next key-session message of each party, in index
/// order, and hands it to `take` (whose time is charged to the server).
fn from_each_party<T: Transport + ?Sized>(
    session: &Session,
    transport: &mut T,
    report: &mut RoleReport,
    mut take: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    for i in 0..session.parties() {
        let bytes = transport.receive(Role::Party(i), Round::Keys)?;
        let (outcome, u) = Usage::measure(|| take(&bytes));
        report.charge(Round::Keys, u);
        outcome?;
    }
    Ok(())
}

/// The server sends `bytes` to every party.
fn to_each_party<T: Transport + ?Sized>(
    session: &Session,
    transport: &mut T,
    bytes: Vec<u8>,
) -> Result<()> {
    let parties: Vec<Role> = (0..session.parties()).map(Role::Party).collect();
    transport.send_to_each(&parties, Round::Keys, bytes)
}
