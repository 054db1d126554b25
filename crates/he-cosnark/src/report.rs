//! What each role spent: time per round (from [`Usage`]) and bytes per
//! round (from its [`Transport`]), and how the errors of roles running
//! side by side are reduced to the one that caused them.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::transport::{Role, Round, Traffic, Transport};
use crate::usage::Usage;

/// What one role spent in one round (or a whole proof).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoleCost {
    /// Time, summed over the role's steps.
    pub usage: Usage,
    /// Bytes sent and received.
    pub traffic: Traffic,
}

impl RoleCost {
    /// The sum of two costs.
    pub fn plus(&self, other: RoleCost) -> RoleCost {
        RoleCost {
            usage: self.usage.plus(other.usage),
            traffic: self.traffic.plus(other.traffic),
        }
    }
}

/// What one role spent per round of a key session or a proof. The bytes are
/// those its transport counted while the report was open.
#[derive(Clone, Debug, Default)]
pub struct RoleReport {
    /// Per round.
    pub rounds: BTreeMap<Round, RoleCost>,
    opened_at: BTreeMap<Round, Traffic>,
}

impl RoleReport {
    /// A report starting from `transport`'s counts now.
    pub fn new<T: Transport + ?Sized>(transport: &T) -> Self {
        Self {
            rounds: BTreeMap::new(),
            opened_at: Round::ALL
                .into_iter()
                .map(|round| (round, transport.traffic(round)))
                .collect(),
        }
    }

    /// Adds `usage` to `round`.
    pub fn charge(&mut self, round: Round, usage: Usage) {
        let entry = self.rounds.entry(round).or_default();
        entry.usage = entry.usage.plus(usage);
    }

    /// Takes the bytes `transport` counted since the report was opened.
    pub fn finish<T: Transport + ?Sized>(&mut self, transport: &T) {
        for round in Round::ALL {
            let earlier = self.opened_at.get(&round).copied().unwrap_or_default();
            let traffic = transport.traffic(round).since(earlier);
            if traffic != Traffic::default() {
                self.rounds.entry(round).or_default().traffic = traffic;
            }
        }
    }

    /// The total over every round.
    pub fn total(&self) -> RoleCost {
        self.rounds
            .values()
            .fold(RoleCost::default(), |sum, cost| sum.plus(*cost))
    }
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
        self.rounds
            .iter()
            .filter(|((r, _), _)| *r == role)
            .fold(RoleCost::default(), |sum, (_, cost)| sum.plus(*cost))
    }

    /// Adds one role's report.
    pub fn insert(&mut self, role: Role, report: &RoleReport) {
        for (round, cost) in &report.rounds {
            self.rounds.insert((role, *round), *cost);
        }
    }
}

/// The outcome of a role's thread; a panic in it continues here.
pub(crate) fn join<T>(handle: std::thread::ScopedJoinHandle<'_, Result<T>>) -> Result<T> {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Of the errors of roles that ran side by side, the one that caused the
/// others: a role that stops makes its peers' receives fail with
/// [`Error::Missing`], so any other error comes first.
pub(crate) fn root_cause(errors: Vec<Error>) -> Error {
    let mut missing = None;
    for error in errors {
        match error {
            Error::Missing { .. } => {
                missing.get_or_insert(error);
            }
            other => return other,
        }
    }
    missing.unwrap_or_else(|| Error::InvalidArgument("no role reported an error".into()))
}
