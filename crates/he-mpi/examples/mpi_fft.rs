//! The encrypted FFT over several ciphertexts (n = C·N) spread over the
//! ranks of an MPI job, checked against ark-poly and, with `--compare`, the
//! one-process plan.
//!
//! Rank 0 chooses the parameters (he-fft's smallest 128-bit ring for the
//! plan, `suggest_plan_parameters`, which puts n over several ciphertexts
//! when it exceeds the ring's slots) and the keys, and broadcasts the
//! parameters, the public key and the Galois keys once. Every rank builds
//! the plan's shared levels and the own levels of its groups only
//! (`DistributedFft::build_plan`), derives the same random vector from
//! `--seed` and encrypts only its own ciphertexts. The transform then runs across the ranks
//! (he-mpi's `DistributedFft`: each rank's groups locally, the sums across
//! ciphertexts as one checked reduce-scatter of residues per chain prime).
//! Rank 0 gathers the outputs, decrypts them and checks them against
//! ark-poly's FFT in the clear; with `--compare` it also runs the
//! one-process plan on the same inputs and checks that both decrypt alike.
//!
//! Each rank reports the processor time of the transform (user + system,
//! exchanges included), the bytes it sent and received (headers and
//! payloads, and what he-mpi's cost model predicts) and its peak memory
//! (VmHWM after its runs, plan and keys included, read before any
//! `--compare` work).
//! Rank 0 prints every rank's line, the totals and `verified: true`.
//!
//! `--json` prints (rank 0) one object: `verified`, `ranks`, `n`,
//! `ring_degree`, `runs`, `peak_memory_bytes` (the largest rank's), `cpu_s`
//! (the sum over ranks, last run) and `first_cpu_s` (the same of the first
//! run), `wall_s` (the slowest rank), `bytes_exchanged` (the sum of bytes
//! sent), `model_bytes_exchanged`, with `--compare` `single_process_cpu_s`,
//! `single_process_first_cpu_s` and `single_process_threads` (the
//! one-process computation with as many engine threads as the job's ranks
//! have, on the same cores) and `single_process_one_thread_cpu_s`,
//! `memory_limit_bytes` (with `--memory-limit-mib`, each rank's cap on what
//! it allocates) and `per_rank` (each rank's `cpu_s`, `first_cpu_s`,
//! `wall_s`, `bytes_sent`, `bytes_received`, `model_bytes_sent`,
//! `peak_memory_bytes`). `--repeat K` runs each measured computation K times
//! and reports the last run beside the first: a first run's fresh pages can
//! cost this VM as much as the computation.
//!
//! ```text
//! mpirun -np 2 target/release/examples/mpi_fft --n 131072 --compare
//! mpirun -np 4 target/release/examples/mpi_fft --n 8192 --test-parameters --inverse --json
//! ```
//! (As root, Open MPI needs `--allow-run-as-root`.) A failure on any rank
//! ends the job (MPI_Abort) with a message naming the rank, and status 1.

mod common;

use ark_bn254::Fr;
use ark_poly::EvaluationDomain;
use ark_std::UniformRand;
use clap::Parser;
use common::{single_process, RankFigures, Report, Result, Start};
use he_fft::{suggest_plan_parameters, FftPlan, PlanOptions, Strategy};
use he_mpi::cost::fft_exchange;
use he_mpi::DistributedFft;
use helib_rs::{GaloisKeys, Parameters, PublicKey, SecretKey};
use rand::SeedableRng;

/// Runs the encrypted FFT over MPI ranks and verifies it.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Transform size n (a power of two, larger than the ring's slots, over
    /// at least as many ciphertexts as ranks).
    #[arg(long, default_value_t = 1 << 17)]
    n: usize,
    /// The inverse transform instead of the forward one.
    #[arg(long)]
    inverse: bool,
    #[command(flatten)]
    job: common::JobArgs,
}

fn main() {
    common::run_job("mpi_fft", run)
}

/// Runs the job; `Ok(false)` when the check failed (the same on every rank).
fn run(o: &Options, world: he_mpi::mpi::topology::SimpleCommunicator) -> Result<bool> {
    let n = o.n;
    // Parameters and the plan's level count: chosen on rank 0, broadcast once.
    let Start {
        rank,
        domain,
        context,
        number: levels,
    } = common::start(&world, n, &o.job, || {
        if o.job.test_parameters {
            return Ok((test_parameters()?, 2));
        }
        let options = PlanOptions {
            strategy: Strategy::Factored { levels: None },
            ..PlanOptions::default()
        };
        let suggested = suggest_plan_parameters::<Fr>(n, options, o.job.threads)?;
        let Strategy::Factored {
            levels: Some(levels),
        } = suggested.strategy
        else {
            return Err("the suggested plan is not factored".into());
        };
        Ok((suggested.parameters, levels as u64))
    })?;
    context.set_threads(o.job.threads)?;
    let levels = levels as usize;
    let builder = || {
        let builder = FftPlan::<Fr>::builder(&context, n).strategy(Strategy::Factored {
            levels: Some(levels),
        });
        if o.inverse {
            builder.inverse()
        } else {
            builder
        }
    };
    let cluster = o.job.cluster(world, &context)?;
    // Each rank builds the shared levels and its own groups' levels only.
    let plan = DistributedFft::build_plan(builder(), &cluster)?;

    // Keys: made on rank 0; the public and Galois keys broadcast once.
    let sk = (rank == 0)
        .then(|| SecretKey::generate(&context))
        .transpose()?;
    let (pk_bytes, keys_bytes) = match &sk {
        Some(sk) => (
            sk.public_key()?.to_bytes()?,
            plan.generate_galois_keys(sk)?.to_bytes()?,
        ),
        None => (Vec::new(), Vec::new()),
    };
    let pk = PublicKey::from_bytes(&context, &cluster.broadcast(0, pk_bytes)?)?;
    let keys = GaloisKeys::from_bytes(&context, &cluster.broadcast(0, keys_bytes)?)?;
    let fft = DistributedFft::new(&plan, &cluster)?;

    // The same vector on every rank; each encrypts its own ciphertexts.
    let mut rng = rand::rngs::StdRng::seed_from_u64(o.job.seed);
    let values: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let inputs = plan.encrypt_ciphertexts(&pk, &values, fft.local_range())?;
    cluster.barrier()?;

    let (outputs, figures) = RankFigures::measure(&cluster, o.job.repeat, || {
        Ok(fft.execute(&cluster, &inputs, &keys)?)
    })?;
    let figures = figures.gather(&cluster)?;
    let parts = plan.four_step().ok_or("the plan runs on one ciphertext")?;
    let model: Vec<u64> = (0..cluster.size())
        .map(|r| {
            fft_exchange(
                context.ring_degree(),
                parts.across_level() + 1,
                parts.ciphertexts(),
                &cluster.partition(),
                r,
            )
            .bytes_sent
        })
        .collect();

    // Rank 0 needs every input for the one-process run.
    let all_inputs = if o.job.compare {
        fft.gather(0, &cluster, &inputs)?
    } else {
        None
    };
    let gathered = fft.gather(0, &cluster, &outputs)?;
    let mut verified = true;
    let mut single_process_figures = None;
    if let (Some(outputs), Some(sk)) = (&gathered, &sk) {
        let decrypted = plan.decrypt(sk, outputs)?;
        let expected = if o.inverse {
            domain.ifft(&values)
        } else {
            domain.fft(&values)
        };
        verified = decrypted == expected;
        if let Some(all_inputs) = &all_inputs {
            // The one-process run needs every group's level: the whole plan,
            // built after the ranks' figures were taken.
            let whole = builder().build()?;
            let cores = o.job.threads * cluster.size() as u32;
            let (one, figures) =
                single_process(&context, cores, o.job.threads, o.job.repeat, || {
                    Ok(whole.execute(all_inputs, &keys)?)
                })?;
            single_process_figures = Some(figures);
            verified &= plan.decrypt(sk, &one)? == decrypted;
        }
    }
    let verdict = cluster.all_gather(&[u64::from(verified)])?;
    let verified = verdict[0] == 1;

    if rank == 0 {
        Report {
            step: if o.inverse { "inverse FFT" } else { "FFT" },
            n,
            ring_degree: context.ring_degree(),
            figures: &figures,
            model_bytes_sent: &model,
            verified,
            single_process: single_process_figures,
            job: &o.job,
        }
        .print();
    }
    Ok(verified)
}

/// N = 2048, t = BN254, 19 primes of 60 bits (insecure: quick checks only).
fn test_parameters() -> Result<Parameters> {
    Ok(Parameters::builder()
        .ring_degree(2048)
        .plaintext_modulus_from_field::<Fr>()
        .chain_bits(&[60; 19])
        .allow_insecure()
        .build()?)
}
