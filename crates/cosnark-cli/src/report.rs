//! What a role process reports: per step (the key session, each proof) its
//! wall time, the CPU time of the whole process (its network threads
//! included), and per round the CPU and wall time of its computations and
//! the bytes it sent and received.

use std::time::{Duration, Instant};

use he_cosnark::{RoleReport, Round, Traffic};
use serde::{Deserialize, Serialize};

/// One round of a step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundCost {
    /// The round's name.
    pub round: String,
    /// CPU time of the role's computations in the round.
    pub cpu_s: f64,
    /// Wall time of those computations.
    pub wall_s: f64,
    /// Message bytes sent (framing included).
    pub bytes_sent: u64,
    /// Message bytes received (framing included).
    pub bytes_received: u64,
}

/// One step of a role process: the key session, or one proof.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepCost {
    /// `keys` or `proof <k>`.
    pub step: String,
    /// Wall time from the step's start to its end (waiting included).
    pub wall_s: f64,
    /// CPU time of the whole process during the step.
    pub cpu_s: f64,
    /// Message bytes sent in the step.
    pub bytes_sent: u64,
    /// Message bytes received in the step.
    pub bytes_received: u64,
    /// Per round.
    pub rounds: Vec<RoundCost>,
}

/// What a role process reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcessReport {
    /// `server` or `party-<i>`.
    pub role: String,
    /// The steps, in order.
    pub steps: Vec<StepCost>,
    /// Socket bytes sent (TLS records included), whole process.
    pub wire_bytes_sent: u64,
    /// Socket bytes received, whole process.
    pub wire_bytes_received: u64,
}

impl ProcessReport {
    /// The report of role `role` (`server` or `party-<i>`): its `steps` and
    /// the process's socket bytes `wire`.
    pub fn new(role: String, steps: Vec<StepCost>, wire: Traffic) -> Self {
        Self {
            role,
            steps,
            wire_bytes_sent: wire.sent,
            wire_bytes_received: wire.received,
        }
    }
}

/// Measures a step: wall time and the process's CPU time from `start` to
/// [`finish`](Self::finish).
pub struct StepClock {
    wall: Instant,
    cpu: Duration,
}

impl StepClock {
    /// Starts measuring.
    pub fn start() -> Self {
        Self {
            wall: Instant::now(),
            cpu: process_cpu_time(),
        }
    }

    /// The step's cost, with the role's per-round report.
    pub fn finish(self, step: String, report: &RoleReport) -> StepCost {
        let rounds: Vec<RoundCost> = Round::ALL
            .into_iter()
            .filter_map(|round| {
                report.rounds.get(&round).map(|cost| RoundCost {
                    round: round.name().to_owned(),
                    cpu_s: cost.usage.cpu.as_secs_f64(),
                    wall_s: cost.usage.wall.as_secs_f64(),
                    bytes_sent: cost.traffic.sent,
                    bytes_received: cost.traffic.received,
                })
            })
            .collect();
        StepCost {
            step,
            wall_s: self.wall.elapsed().as_secs_f64(),
            cpu_s: process_cpu_time().saturating_sub(self.cpu).as_secs_f64(),
            bytes_sent: rounds.iter().map(|r| r.bytes_sent).sum(),
            bytes_received: rounds.iter().map(|r| r.bytes_received).sum(),
            rounds,
        }
    }
}

/// CPU time (user and system) of this process so far, every thread.
pub fn process_cpu_time() -> Duration {
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid out-pointer for the duration of the call.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let time = |t: libc::timeval| {
        Duration::new(t.tv_sec.max(0) as u64, 0) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

impl StepCost {
    /// One line per round for a terminal.
    pub fn print(&self, role: &str) {
        eprintln!(
            "[{role}] {}: wall {:.3} s, process CPU {:.3} s, sent {} B, received {} B",
            self.step, self.wall_s, self.cpu_s, self.bytes_sent, self.bytes_received
        );
        for r in &self.rounds {
            eprintln!(
                "[{role}]   {:<8} CPU {:.3} s  wall {:.3} s  sent {} B  received {} B",
                r.round, r.cpu_s, r.wall_s, r.bytes_sent, r.bytes_received
            );
        }
    }
}
