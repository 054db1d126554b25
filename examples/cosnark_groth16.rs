//! A whole collaborative Groth16 proof: `--parties` computing parties hold
//! additive shares of the witness, an untrusted server holds only
//! ciphertexts under their collective key, and the proof they make together
//! verifies with ark-groth16's verifier. Nobody ever holds the witness or h.
//!
//! The circuit is the square chain z_{i+1} = z_i² + c_i of `--constraints`
//! steps (the last z public). The key session runs once; then `--proofs`
//! proofs, each printed per role and round: wall time, CPU time (one engine
//! thread per role), bytes sent and received. In the same process, 1 thread:
//! ark-groth16's plain prover on the same circuit and witness (its witness
//! map included) — the reference every ratio is against. The process keeps
//! the memory it frees for reuse ([`he_cosnark::retain_freed_memory`]), for
//! the plain prover as for the roles. The exit status is
//! 0 only when every combined proof verifies and fails for a wrong public
//! input (`verified: true`).
//!
//! ```text
//! cargo run --release --example cosnark_groth16
//! cargo run --release --example cosnark_groth16 -- --constraints 61050 --parties 3 --proofs 2
//! cargo run --release --example cosnark_groth16 -- --constraints 4000 --json
//! ```
//!
//! With `--threshold t`, the parties re-share their keys in the key session
//! and each proof is made by t of them (proof k by parties k, k + 1, … mod N).
//!
//! `--json` prints one object: `verified`, `constraints`, `domain`,
//! `ring_degree`, `parties_count`, `threshold`, `plain_prove_s`,
//! `plain_quotient_s` (ark-groth16's witness map alone, the part of the
//! plain prover the server's work replaces), `key_session_s` (the
//! busiest party's CPU time), `single_party_keys_s` (one party's secret and
//! relinearization key, the latter serialized for the server),
//! `constraint_vector_bytes` (2·n·32, a party's share of a and b),
//! `parties` and `server` (mean per proof:
//! `cpu_s`, `wall_s`, `bytes_sent`, `bytes_received`; zeros for a party that
//! took part in no proof), and `proofs` (the same per proof, with every round).

use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

use ark_bn254::{Bn254, Fr};
use ark_ff::{Field, UniformRand};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::Groth16;
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain};
use ark_snark::SNARK;
use example_support::circuits::{ProverView, SquareChain};
use example_support::cli::CommonArgs;
use example_support::outln;
use he_cosnark::{
    parameters_for, share_witness, Circuit, InProcessProver, Libsnark, ProofReport, Role, RoleCost,
    Round, Usage,
};
use helib_rs::{Context, RelinKey, SecretKey};
use rand::rngs::{OsRng, StdRng};
use rand::SeedableRng;
use serde::Serialize;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// A collaborative Groth16 proof on threshold BGV, measured against the plain prover.
#[derive(Debug, clap::Parser)]
#[command(version)]
struct Options {
    /// R1CS constraints (steps of the chain)
    #[arg(long, default_value_t = 1000, value_parser = example_support::cli::positive)]
    constraints: usize,
    /// Computing parties (key holders)
    #[arg(long, default_value_t = 3, value_parser = parties)]
    parties: u32,
    /// Any this many parties prove (t-out-of-N by Shamir re-sharing); the
    /// default is all of them
    #[arg(long)]
    threshold: Option<u32>,
    /// Proofs made with one key session
    #[arg(long, default_value_t = 1, value_parser = example_support::cli::positive)]
    proofs: usize,
    #[command(flatten)]
    common: CommonArgs,
}

fn parties(text: &str) -> std::result::Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if (1..=he_threshold::MAX_PARTIES).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is not a number of parties in 1..={}",
            he_threshold::MAX_PARTIES
        )),
    }
}

/// One role's cost in the JSON report.
#[derive(Serialize, Clone, Copy, Default)]
struct Cost {
    cpu_s: f64,
    wall_s: f64,
    bytes_sent: u64,
    bytes_received: u64,
}

impl From<RoleCost> for Cost {
    fn from(c: RoleCost) -> Self {
        Cost {
            cpu_s: c.usage.cpu.as_secs_f64(),
            wall_s: c.usage.wall.as_secs_f64(),
            bytes_sent: c.traffic.sent,
            bytes_received: c.traffic.received,
        }
    }
}

#[derive(Serialize)]
struct RoundCost {
    role: String,
    round: &'static str,
    #[serde(flatten)]
    cost: Cost,
}

#[derive(Serialize)]
struct ProofJson {
    index: usize,
    verified: bool,
    parties: Vec<Cost>,
    server: Cost,
    rounds: Vec<RoundCost>,
}

#[derive(Serialize)]
struct Report {
    verified: bool,
    constraints: usize,
    domain: usize,
    ring_degree: usize,
    parties_count: u32,
    threshold: u32,
    plain_prove_s: f64,
    plain_quotient_s: f64,
    key_session_s: f64,
    single_party_keys_s: f64,
    constraint_vector_bytes: u64,
    parties: Vec<Cost>,
    server: Cost,
    proofs: Vec<ProofJson>,
}

fn main() {
    // As the `cosnark` processes do; the plain prover runs under it too.
    he_cosnark::retain_freed_memory();
    let options = <Options as clap::Parser>::parse();
    example_support::exit_with(run(&options));
}

fn run(options: &Options) -> Result<bool> {
    let json = options.common.json;
    let threshold = options.threshold.unwrap_or(options.parties);
    if !(1..=options.parties).contains(&threshold) {
        return Err(format!(
            "--threshold must be in 1..={} (the number of parties), got {threshold}",
            options.parties
        )
        .into());
    }
    let mut rng = StdRng::seed_from_u64(2026);
    let start = Fr::from(7u64);
    let setup = SquareChain {
        steps: options.constraints,
        start: None,
    };
    let witnessed = SquareChain {
        start: Some(start),
        ..setup.clone()
    };
    let view = ProverView::of(&witnessed)?;
    let n = view.domain.size();
    let (proving_key, verifying_key) =
        Groth16::<Bn254>::circuit_specific_setup(setup.clone(), &mut rng)?;
    let circuit = Arc::new(Circuit::<Bn254, Libsnark>::from_synthesizer(
        setup,
        proving_key.clone(),
    )?);
    let public_inputs = view.assignment[1..view.num_inputs].to_vec();
    let witness = view.assignment[view.num_inputs..].to_vec();

    // The plain prover, same circuit and witness, its witness map included.
    let (r, s) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
    let (plain, plain_usage) = Usage::measure(|| {
        Groth16::<Bn254, LibsnarkReduction>::create_proof_with_reduction_and_matrices(
            &proving_key,
            r,
            s,
            &view.matrices,
            view.num_inputs,
            view.num_constraints,
            &view.assignment,
        )
    });
    let plain_ok = Groth16::<Bn254>::verify(&verifying_key, &public_inputs, &plain?)?;
    // Its quotient alone (the witness map), what the server's work replaces.
    let (quotient, quotient_usage) = Usage::measure(|| {
        LibsnarkReduction::witness_map_from_matrices::<Fr, GeneralEvaluationDomain<Fr>>(
            &view.matrices,
            view.num_inputs,
            view.num_constraints,
            &view.assignment,
        )
    });
    quotient?;

    let (params, _) = parameters_for::<Fr>(n, options.parties)?;
    let context = Context::new(&params)?;
    let constraint_vector_bytes = 2 * n as u64 * 32;
    if !json {
        outln!(
            "circuit: {} constraints, domain n = {n}; plain prove (ark-groth16, 1 thread) {:.3} s CPU, its quotient alone {:.3} s, verifies: {plain_ok}",
            view.num_constraints,
            plain_usage.cpu.as_secs_f64(),
            quotient_usage.cpu.as_secs_f64()
        );
        outln!(
            "ring: N = {}, log2 Q = {}, {} bits of security; any {threshold} of {} parties prove",
            params.ring_degree(),
            params.chain_bits().iter().sum::<u32>(),
            params.security_level().bits(),
            options.parties
        );
    }

    // A single party's keys (secret and relinearization key, the latter
    // serialized for the server), the reference of the key session's cost:
    // the session's figure counts the messages each party serializes too.
    let (single, single_usage) = Usage::measure(|| -> Result<()> {
        let sk = SecretKey::generate(&context)?;
        RelinKey::generate(&sk)?.to_bytes()?;
        Ok(())
    });
    single?;

    let mut id = [0u8; 32];
    rand::RngCore::fill_bytes(&mut OsRng, &mut id);
    let mut prover = InProcessProver::new(&context, id, options.parties, threshold, circuit)?;
    let key_session_cpu = |role: Role| {
        prover
            .key_session()
            .get(&role)
            .map(|report| report.total().usage.cpu)
            .unwrap_or_default()
    };
    let key_session = (0..options.parties)
        .map(|i| key_session_cpu(Role::Party(i)))
        .max()
        .unwrap_or_default();
    if !json {
        outln!(
            "key session (once): busiest party {:.3} s CPU ({:.2}x a single party's secret and serialized relinearization key, {:.3} s), server {:.3} s; a party sends {} and receives {}",
            key_session.as_secs_f64(),
            key_session.as_secs_f64() / single_usage.cpu.as_secs_f64(),
            single_usage.cpu.as_secs_f64(),
            key_session_cpu(Role::Server).as_secs_f64(),
            mb(prover.key_session_traffic(Role::Party(0)).sent),
            mb(prover.key_session_traffic(Role::Party(0)).received)
        );
    }

    let plain_cpu = plain_usage.cpu.as_secs_f64();
    let plain_quotient_cpu = quotient_usage.cpu.as_secs_f64();
    let mut proofs = Vec::new();
    for index in 0..options.proofs {
        // With a threshold, proof k is made by the parties k, k + 1, …
        // (mod N), as many as the threshold.
        let mut members: Vec<u32> = (0..threshold)
            .map(|j| (index as u32 + j) % options.parties)
            .collect();
        members.sort_unstable();
        let shares = share_witness(&witness, threshold, &mut OsRng)?;
        let (proof, report) = if threshold == options.parties {
            prover.prove(index as u64, &public_inputs, &shares, &mut OsRng)?
        } else {
            prover.prove_with(index as u64, &members, &public_inputs, &shares, &mut OsRng)?
        };
        let accepted = Groth16::<Bn254>::verify(&verifying_key, &public_inputs, &proof)?;
        let wrong = [public_inputs[0] + Fr::ONE];
        let rejected = !Groth16::<Bn254>::verify(&verifying_key, &wrong, &proof)?;
        let verified = accepted && rejected;
        if !json {
            print_proof(
                index,
                &report,
                options.parties,
                plain_cpu,
                constraint_vector_bytes,
            );
            outln!(
                "  the server's CPU is {:.2}x the plain quotient's; wrong public input rejected: {rejected}; verified: {verified}",
                report.role(Role::Server).usage.cpu.as_secs_f64() / plain_quotient_cpu
            );
        }
        proofs.push(proof_json(index, verified, &report, options.parties));
    }

    let verified = plain_ok && proofs.iter().all(|p| p.verified);
    let mean = |pick: &dyn Fn(&ProofJson) -> Cost| mean_cost(proofs.iter().map(pick));
    let report = Report {
        verified,
        constraints: view.num_constraints,
        domain: n,
        ring_degree: params.ring_degree(),
        parties_count: options.parties,
        threshold,
        plain_prove_s: plain_cpu,
        plain_quotient_s: plain_quotient_cpu,
        key_session_s: key_session.as_secs_f64(),
        single_party_keys_s: single_usage.cpu.as_secs_f64(),
        constraint_vector_bytes,
        parties: (0..options.parties as usize)
            .map(|i| mean(&|p: &ProofJson| p.parties[i]))
            .collect(),
        server: mean(&|p: &ProofJson| p.server),
        proofs,
    };
    if json {
        example_support::cli::print_json(&report);
    } else {
        outln!("verified: {verified}");
    }
    Ok(verified)
}

fn mb(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn print_proof(index: usize, report: &ProofReport, parties: u32, plain_cpu: f64, vectors: u64) {
    outln!("proof {index}:");
    outln!(
        "  {:<10} {:<8} {:>11} {:>11} {:>11} {:>11}",
        "role",
        "round",
        "wall",
        "CPU",
        "sent",
        "received"
    );
    // The parties that took part (all, or the proof's active set), and the server.
    let roles = (0..parties)
        .map(Role::Party)
        .filter(|role| report.role(*role).traffic.total() > 0)
        .chain([Role::Server]);
    for role in roles {
        for round in [Round::Upload, Round::Convert, Round::Open, Round::Combine] {
            if let Some(cost) = report.rounds.get(&(role, round)) {
                if cost.usage.wall.is_zero() && cost.traffic.total() == 0 {
                    continue;
                }
                outln!(
                    "  {:<10} {:<8} {:>11} {:>11} {:>11} {:>11}",
                    role.to_string(),
                    round.name(),
                    ms(cost.usage.wall),
                    ms(cost.usage.cpu),
                    mb(cost.traffic.sent),
                    mb(cost.traffic.received)
                );
            }
        }
        let total = report.role(role);
        outln!(
            "  {:<19} {:>11} {:>11} {:>11} {:>11}   CPU {:.2}x plain, bytes {:.1}x a party's a and b",
            format!("{role} total"),
            ms(total.usage.wall),
            ms(total.usage.cpu),
            mb(total.traffic.sent),
            mb(total.traffic.received),
            total.usage.cpu.as_secs_f64() / plain_cpu,
            total.traffic.total() as f64 / vectors as f64
        );
    }
}

fn proof_json(index: usize, verified: bool, report: &ProofReport, parties: u32) -> ProofJson {
    let rounds = report
        .rounds
        .iter()
        .map(|((role, round), cost)| RoundCost {
            role: role.to_string(),
            round: round.name(),
            cost: (*cost).into(),
        })
        .collect();
    ProofJson {
        index,
        verified,
        parties: (0..parties)
            .map(|i| report.role(Role::Party(i)).into())
            .collect(),
        server: report.role(Role::Server).into(),
        rounds,
    }
}

fn mean_cost(costs: impl Iterator<Item = Cost>) -> Cost {
    let all: Vec<Cost> = costs.collect();
    let k = all.len().max(1) as f64;
    let sum = all.iter().fold(Cost::default(), |a, c| Cost {
        cpu_s: a.cpu_s + c.cpu_s,
        wall_s: a.wall_s + c.wall_s,
        bytes_sent: a.bytes_sent + c.bytes_sent,
        bytes_received: a.bytes_received + c.bytes_received,
    });
    Cost {
        cpu_s: sum.cpu_s / k,
        wall_s: sum.wall_s / k,
        bytes_sent: (sum.bytes_sent as f64 / k) as u64,
        bytes_received: (sum.bytes_received as f64 / k) as u64,
    }
}
