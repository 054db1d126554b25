//! The Groth16 quotient h = ⌊A·B / X^n⌋ of an encrypted witness, spread over
//! the ranks of an MPI job, checked against the one-process result.
//!
//! Rank 0 chooses the parameters (he-poly's smallest 128-bit ring for one
//! product of length n) and the keys, and broadcasts the parameters and the
//! public key once. Every rank derives the same random valid witness from
//! `--seed`, interpolates A and B and encrypts only its own blocks. The
//! quotient then runs across the ranks (he-mpi: two all-to-all exchanges of
//! residues per operand and prime, the convolution of each rank's slot
//! columns in between). Rank 0 decrypts h one block at a time and checks it
//! against ark-poly's quotient in the clear, which the one-process encrypted
//! quotient equals exactly (he-poly's tests); with `--compare` rank 0 also
//! runs the one-process encrypted quotient and checks that both decrypt to
//! the same coefficients. It runs it twice: with as many engine threads as
//! the job's ranks have together, so that it uses the same cores (on one
//! machine, ranks running at once share its caches and memory bandwidth,
//! and so do these threads), and with one thread, alone on the machine.
//!
//! Each rank reports the processor time of the quotient (user + system,
//! exchanges included), the bytes it sent and received (headers and
//! payloads, and what he-mpi's cost model predicts) and its peak memory
//! (VmHWM after its runs, read before any `--compare` work). Rank 0 prints every rank's
//! line, the totals and `verified: true`.
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
//! mpirun -np 2 target/release/examples/mpi_quotient --n 1048576 --compare --repeat 3
//! mpirun -np 4 target/release/examples/mpi_quotient --n 8192 --test-parameters --json
//! mpirun -np 2 target/release/examples/mpi_quotient --n 8388608 --memory-limit-mib 8192
//! ```
//! (As root, Open MPI needs `--allow-run-as-root`.) A failure on any rank
//! ends the job (MPI_Abort) with a message naming the rank, and status 1.

mod common;

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use clap::Parser;
use common::{single_process, RankFigures, Report, Result, Start};
use he_mpi::cost::{rank_cost, ProductShape};
use he_mpi::{Cluster, DistributedPolynomial};
use he_poly::{EncryptedPolynomial, PolyParameters};
use helib_rs::{Parameters, PublicKey, SecretKey};
use rand::SeedableRng;

/// Computes the Groth16 quotient of an encrypted witness over MPI ranks and verifies it.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Domain size n (a power of two; every rank needs at least one block of the interpolants).
    #[arg(long, default_value_t = 1 << 16)]
    n: usize,
    #[command(flatten)]
    job: common::JobArgs,
}

fn main() {
    common::run_job("mpi_quotient", run)
}

/// Runs the job; `Ok(false)` when the check failed (the same on every rank).
fn run(o: &Options, world: he_mpi::mpi::topology::SimpleCommunicator) -> Result<bool> {
    let n = o.n;
    // Parameters and keys: made on rank 0, broadcast once.
    let Start {
        rank,
        domain,
        context,
        number: stride,
    } = common::start(&world, n, &o.job, || {
        if o.job.test_parameters {
            return Ok((test_parameters()?, 2048));
        }
        let p = PolyParameters::for_field::<Fr>(n, 1)?;
        Ok((p.parameters().clone(), p.stride() as u64))
    })?;
    let stride = stride as usize;
    let sk = (rank == 0)
        .then(|| SecretKey::generate(&context))
        .transpose()?;
    context.set_threads(o.job.threads)?;
    let pk_bytes = match &sk {
        Some(sk) => sk.public_key()?.to_bytes()?,
        None => Vec::new(),
    };
    let pk = PublicKey::from_bytes(&context, &Cluster::broadcast_over(&world, 0, pk_bytes)?)?;
    let cluster = o.job.cluster(world, &context)?;

    // Every rank derives the witness, encrypts its blocks and lets the
    // plaintexts go, so that its peak memory is the quotient's; rank 0
    // derives them again for the checks.
    let (ea, eb) = {
        let w = witness(&domain, o.job.seed);
        (
            DistributedPolynomial::encrypt(&cluster, &pk, &w.ia, stride)?,
            DistributedPolynomial::encrypt(&cluster, &pk, &w.ib, stride)?,
        )
    };
    cluster.barrier()?;

    let (h, figures) = RankFigures::measure(&cluster, o.job.repeat, || {
        Ok(DistributedPolynomial::groth16_quotient(
            &ea, &eb, n, &cluster,
        )?)
    })?;
    let evaluations = sk.as_ref().map(|_| witness(&domain, o.job.seed));
    // The one-process quotient on rank 0, in the state the ranks' ran in:
    // their operands and result still held, so that its first run gets no
    // pages theirs freed (the engine recycles freed buffers, and fresh
    // pages can cost this VM as much as the quotient).
    let single_process = match &evaluations {
        Some(w) if o.job.compare => {
            let wa = EncryptedPolynomial::encrypt(&pk, &w.ia, stride)?;
            let wb = EncryptedPolynomial::encrypt(&pk, &w.ib, stride)?;
            let cores = o.job.threads * cluster.size() as u32;
            Some(single_process(
                &context,
                cores,
                o.job.threads,
                o.job.repeat,
                || Ok(EncryptedPolynomial::groth16_quotient(&wa, &wb, n)?),
            )?)
        }
        _ => None,
    };
    drop((ea, eb));
    let primes = h
        .local_blocks()
        .first()
        .map_or(0, |block| block.level() + 1);
    let shape = ProductShape::groth16_quotient(context.ring_degree(), primes, n, stride)?;
    let figures = figures.gather(&cluster)?;

    let values = h.decrypt_at_root(0, sk.as_ref(), &cluster)?;
    let mut verified = true;
    if let (Some(values), Some(sk), Some(w)) = (&values, &sk, &evaluations) {
        let c: Vec<Fr> = w.a.iter().zip(&w.b).map(|(x, y)| *x * y).collect();
        let plain = example_support::plain_groth16_quotient(&domain, &w.a, &w.b, &c);
        verified =
            plain.len() == n && values[..] == plain[..n - 1] && plain[n - 1] == Fr::from(0u64);
        if let Some((one, _)) = &single_process {
            verified &= one.decrypt(sk)? == *values;
        }
    }
    let verdict = cluster.all_gather(&[u64::from(verified)])?;
    let verified = verdict[0] == 1;

    if rank == 0 {
        let model: Vec<u64> = (0..cluster.size())
            .map(|r| rank_cost(&shape, &cluster.partition(), r).bytes_sent)
            .collect();
        Report {
            step: "quotient",
            n,
            ring_degree: shape.ring_degree,
            figures: &figures,
            model_bytes_sent: &model,
            verified,
            single_process: single_process.as_ref().map(|(_, figures)| *figures),
            job: &o.job,
        }
        .print();
    }
    Ok(verified)
}

/// The same valid witness on every rank, from a seed: the evaluations a, b
/// (random; c = a ∘ b) and their interpolants.
struct Witness {
    a: Vec<Fr>,
    b: Vec<Fr>,
    ia: Vec<Fr>,
    ib: Vec<Fr>,
}

fn witness(domain: &Radix2EvaluationDomain<Fr>, seed: u64) -> Witness {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let n = domain.size();
    let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let (ia, ib) = (domain.ifft(&a), domain.ifft(&b));
    Witness { a, b, ia, ib }
}

/// N = 4096, t = BN254, a chain for one product (insecure: quick checks only).
fn test_parameters() -> Result<Parameters> {
    let t: num_bigint::BigUint = <Fr as ark_ff::PrimeField>::MODULUS.into();
    let chain = helib_rs::noise::product_chain_bits(4096, &t, 1, 64);
    Ok(Parameters::builder()
        .ring_degree(4096)
        .plaintext_modulus(t)
        .chain_bits(&chain)
        .special_bits(&[])
        .allow_insecure()
        .build()?)
}
