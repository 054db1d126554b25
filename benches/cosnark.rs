//! Criterion bench of one whole collaborative Groth16 proof (3 computing
//! parties and the server in this process, ≥128-bit parameters, one engine
//! thread per role, key session excluded) against ark-groth16's plain prover
//! on the same circuit and witness (1 thread, its witness map included).
//!
//! Before criterion runs, every size prints one line: the median of a few
//! runs of each side — the collaborative proof's wall time (every role in
//! turn), the slowest party's and the server's CPU time — and the ratios to
//! the plain prover.
//!
//! Environment: `COSNARK_BENCH_LOG_N`, domain sizes as log2 n (default
//! `10,14,16`; `18` and `20` also run, slowly).

use std::sync::Arc;
use std::time::Duration;

use ark_bn254::{Bn254, Fr};
use ark_ff::UniformRand;
use ark_groth16::r1cs_to_qap::LibsnarkReduction;
use ark_groth16::Groth16;
use ark_snark::SNARK;
use criterion::{BenchmarkId, Criterion, SamplingMode};
use example_support::circuits::{ProverView, SquareChain};
use he_cosnark::{parameters_for, share_witness, Circuit, InProcessProver, Libsnark, Role, Usage};
use rand::rngs::OsRng;

const PARTIES: u32 = 3;

struct Setup {
    view: ProverView,
    proving_key: ark_groth16::ProvingKey<Bn254>,
    prover: InProcessProver<Bn254, Libsnark>,
    next_proof: u64,
}

impl Setup {
    fn new(log_n: u32) -> Self {
        let steps = (1usize << log_n) - 2;
        let setup = SquareChain { steps, start: None };
        let view = ProverView::of(&SquareChain {
            steps,
            start: Some(Fr::from(7u64)),
        })
        .expect("witness");
        let (proving_key, _) =
            Groth16::<Bn254>::circuit_specific_setup(setup.clone(), &mut OsRng).expect("setup");
        let circuit = Arc::new(
            Circuit::<Bn254, Libsnark>::from_synthesizer(setup, proving_key.clone())
                .expect("circuit"),
        );
        let (params, _) = parameters_for::<Fr>(circuit.domain_size(), PARTIES).expect("ring");
        let context = helib_rs::Context::new(&params).expect("context");
        let prover = InProcessProver::new(&context, [log_n as u8; 32], PARTIES, PARTIES, circuit)
            .expect("key session");
        Setup {
            view,
            proving_key,
            prover,
            next_proof: 0,
        }
    }

    fn public_and_witness(&self) -> (&[Fr], &[Fr]) {
        self.view.assignment[1..].split_at(self.view.num_inputs - 1)
    }

    /// One collaborative proof: its wall time, the slowest party's CPU and
    /// the server's CPU.
    fn collaborative(&mut self) -> (Duration, Duration, Duration) {
        let (public, witness) = self.public_and_witness();
        let (public, witness) = (public.to_vec(), witness.to_vec());
        let shares = share_witness(&witness, PARTIES, &mut OsRng).expect("shares");
        let proof = self.next_proof;
        self.next_proof += 1;
        let (out, usage) =
            Usage::measure(|| self.prover.prove(proof, &public, &shares, &mut OsRng));
        let (_, report) = out.expect("collaborative proof");
        let party = (0..PARTIES)
            .map(|i| report.role(Role::Party(i)).usage.cpu)
            .max()
            .unwrap_or_default();
        (usage.wall, party, report.role(Role::Server).usage.cpu)
    }

    fn plain(&self) -> Duration {
        let (r, s) = (Fr::rand(&mut OsRng), Fr::rand(&mut OsRng));
        let (proof, usage) = Usage::measure(|| {
            Groth16::<Bn254, LibsnarkReduction>::create_proof_with_reduction_and_matrices(
                &self.proving_key,
                r,
                s,
                &self.view.matrices,
                self.view.num_inputs,
                self.view.num_constraints,
                &self.view.assignment,
            )
        });
        proof.expect("plain proof");
        usage.cpu
    }
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn sizes() -> Vec<u32> {
    let text = std::env::var("COSNARK_BENCH_LOG_N").unwrap_or_else(|_| "10,14,16".into());
    let sizes: Vec<u32> = text
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .filter(|s| (2..=22).contains(s))
        .collect();
    assert!(
        !sizes.is_empty(),
        "COSNARK_BENCH_LOG_N: no size in 2..=22 in {text:?}"
    );
    sizes
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    for log_n in sizes() {
        let mut setup = Setup::new(log_n);
        let runs = if log_n >= 18 { 1 } else { 3 };
        let collaborative: Vec<_> = (0..runs).map(|_| setup.collaborative()).collect();
        let plain = median((0..runs).map(|_| setup.plain()).collect());
        let wall = median(collaborative.iter().map(|c| c.0).collect());
        let party = median(collaborative.iter().map(|c| c.1).collect());
        let server = median(collaborative.iter().map(|c| c.2).collect());
        let ratio = |d: Duration| d.as_secs_f64() / plain.as_secs_f64();
        println!(
            "n = 2^{log_n}: plain prove {:.3} s CPU; collaborative proof {:.3} s wall ({:.2}x), \
             slowest party {:.3} s CPU ({:.2}x), server {:.3} s CPU ({:.2}x)",
            plain.as_secs_f64(),
            wall.as_secs_f64(),
            ratio(wall),
            party.as_secs_f64(),
            ratio(party),
            server.as_secs_f64(),
            ratio(server),
        );
        let mut group = criterion.benchmark_group("cosnark");
        group.sampling_mode(SamplingMode::Flat).sample_size(10);
        if log_n >= 16 {
            group.measurement_time(Duration::from_secs(60));
        }
        group.bench_function(BenchmarkId::new("collaborative", 1u64 << log_n), |b| {
            b.iter(|| setup.collaborative())
        });
        group.bench_function(BenchmarkId::new("plain", 1u64 << log_n), |b| {
            b.iter(|| setup.plain())
        });
        group.finish();
    }
    criterion.final_summary();
}
