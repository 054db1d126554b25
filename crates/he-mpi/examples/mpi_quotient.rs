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
//! the same coefficients.
//!
//! Each rank reports the processor time of the quotient (user + system,
//! exchanges included), the bytes it sent and received (headers and
//! payloads, and what he-mpi's cost model predicts) and its peak memory
//! (VmHWM, read before any `--compare` work). Rank 0 prints every rank's
//! line, the totals and `verified: true`.
//!
//! `--json` prints (rank 0) one object: `verified`, `ranks`, `n`,
//! `ring_degree`, `peak_memory_bytes` (the largest rank's), `cpu_s` (the sum
//! over ranks), `wall_s` (the slowest rank), `bytes_exchanged` (the sum of
//! bytes sent), `model_bytes_exchanged`, `single_process_cpu_s` (with
//! `--compare`) and `per_rank` (each rank's `cpu_s`, `wall_s`,
//! `bytes_sent`, `bytes_received`, `model_bytes_sent`, `peak_memory_bytes`).
//!
//! ```text
//! mpirun -np 2 target/release/examples/mpi_quotient --n 1048576 --compare
//! mpirun -np 4 target/release/examples/mpi_quotient --n 8192 --test-parameters --json
//! ```
//! (As root, Open MPI needs `--allow-run-as-root`.) A failure on any rank
//! ends the job (MPI_Abort) with a message naming the rank, and status 1.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use clap::Parser;
use example_support::cli::ResourceUse;
use he_mpi::cost::{rank_cost, ProductShape};
use he_mpi::mpi::topology::Communicator;
use he_mpi::{Cluster, DistributedPolynomial};
use he_poly::{EncryptedPolynomial, PolyParameters};
use helib_rs::{Context, Parameters, PublicKey, SecretKey};
use rand::SeedableRng;
use serde_json::json;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Computes the Groth16 quotient of an encrypted witness over MPI ranks and verifies it.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Domain size n (a power of two; every rank needs at least one block of the interpolants).
    #[arg(long, default_value_t = 1 << 16)]
    n: usize,
    /// Seed of the random witness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Engine threads per rank.
    #[arg(long, default_value_t = 1)]
    threads: u32,
    /// Also run the one-process encrypted quotient on rank 0 and compare.
    #[arg(long)]
    compare: bool,
    /// Insecure N = 4096 parameters (blocks of 2048) for quick checks only.
    #[arg(long)]
    test_parameters: bool,
    /// Seconds any one collective may take before the job ends.
    #[arg(long, default_value_t = 300)]
    timeout: u64,
    /// Print one JSON object (rank 0) instead of the report.
    #[arg(long)]
    json: bool,
}

/// Set once stdout is a closed pipe: the report stops, the job ends normally.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// One line of the report; a closed pipe silences the rest (status 0).
fn say(line: std::fmt::Arguments<'_>) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if out
        .write_fmt(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .is_err()
    {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

fn main() {
    let options = Options::parse();
    let Some(universe) = he_mpi::mpi::initialize() else {
        eprintln!("error: MPI was initialized already");
        std::process::exit(1);
    };
    let world = universe.world();
    let rank = world.rank();
    match run(&options, world) {
        Ok(true) => {}
        Ok(false) => {
            drop(universe);
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("mpi_quotient: rank {rank}: error: {e}");
            // Ends every rank: none waits for this one.
            universe.world().abort(1);
        }
    }
}

/// Runs the job; `Ok(false)` when the check failed (the same on every rank).
fn run(o: &Options, world: he_mpi::mpi::topology::SimpleCommunicator) -> Result<bool> {
    let rank = world.rank() as usize;
    let n = o.n;
    let domain = Radix2EvaluationDomain::<Fr>::new(n)
        .filter(|d| d.size() == n && n >= 2)
        .ok_or_else(|| format!("--n {n} is not a power of two that BN254 Fr supports"))?;
    // Parameters and keys: made on rank 0, broadcast once.
    let (params, stride, sk) = if rank == 0 {
        let (params, stride) = if o.test_parameters {
            (test_parameters()?, 2048)
        } else {
            let p = PolyParameters::for_field::<Fr>(n, 1)?;
            (p.parameters().clone(), p.stride())
        };
        let context = Context::new(&params)?;
        let sk = SecretKey::generate(&context)?;
        (params, stride, Some((context, sk)))
    } else {
        (Parameters::for_tests(), 0, None)
    };
    let params_bytes = Cluster::broadcast_over(&world, 0, params.to_bytes()?)?;
    let stride_bytes = Cluster::broadcast_over(&world, 0, (stride as u64).to_le_bytes().to_vec())?;
    let stride = u64::from_le_bytes(stride_bytes.as_slice().try_into()?) as usize;
    let (context, sk) = match sk {
        Some((context, sk)) => (context, Some(sk)),
        None => {
            let params = if o.test_parameters {
                Parameters::from_bytes_allow_insecure(&params_bytes)?
            } else {
                Parameters::from_bytes(&params_bytes)?
            };
            (Context::new(&params)?, None)
        }
    };
    context.set_threads(o.threads)?;
    let pk_bytes = match &sk {
        Some(sk) => sk.public_key()?.to_bytes()?,
        None => Vec::new(),
    };
    let pk = PublicKey::from_bytes(&context, &Cluster::broadcast_over(&world, 0, pk_bytes)?)?;
    let cluster = Cluster::with_timeout(world, &context, Duration::from_secs(o.timeout))?;

    // The same valid witness on every rank: a, b random, c = a ∘ b.
    let mut rng = rand::rngs::StdRng::seed_from_u64(o.seed);
    let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let (ia, ib) = (domain.ifft(&a), domain.ifft(&b));
    let ea = DistributedPolynomial::encrypt(&cluster, &pk, &ia, stride)?;
    let eb = DistributedPolynomial::encrypt(&cluster, &pk, &ib, stride)?;
    cluster.barrier()?;

    let (start, clock) = (ResourceUse::now(), Instant::now());
    let h = DistributedPolynomial::groth16_quotient(&ea, &eb, n, &cluster)?;
    let wall = clock.elapsed().as_secs_f64();
    let used = ResourceUse::now()
        .zip(start)
        .map(|(end, start)| end.since(start));
    let cpu = used.map_or(0.0, |u| u.user_s + u.system_s);
    let traffic = cluster.traffic();
    let peak = example_support::peak_memory_bytes().unwrap_or(0);
    drop((ea, eb));

    let primes = h
        .local_blocks()
        .first()
        .map_or(0, |block| block.level() + 1);
    let shape = ProductShape::groth16_quotient(context.ring_degree(), primes, n, stride)?;
    let stats = cluster.all_gather(&[
        cpu.to_bits(),
        wall.to_bits(),
        traffic.bytes_sent,
        traffic.bytes_received,
        peak,
    ])?;

    let values = h.decrypt_at_root(0, sk.as_ref(), &cluster)?;
    let mut verified = true;
    let mut single_process_cpu = None;
    if let (Some(values), Some(sk)) = (&values, &sk) {
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
        let plain = example_support::plain_groth16_quotient(&domain, &a, &b, &c);
        verified =
            plain.len() == n && values[..] == plain[..n - 1] && plain[n - 1] == Fr::from(0u64);
        if o.compare {
            let wa = EncryptedPolynomial::encrypt(&pk, &ia, stride)?;
            let wb = EncryptedPolynomial::encrypt(&pk, &ib, stride)?;
            let start = ResourceUse::now();
            let one = EncryptedPolynomial::groth16_quotient(&wa, &wb, n)?;
            let used = ResourceUse::now()
                .zip(start)
                .map(|(end, start)| end.since(start));
            single_process_cpu = Some(used.map_or(0.0, |u| u.user_s + u.system_s));
            verified &= one.decrypt(sk)? == *values;
        }
    }
    let verdict = cluster.all_gather(&[u64::from(verified)])?;
    let verified = verdict[0] == 1;

    if rank == 0 {
        report(o, &cluster, &shape, &stats, verified, single_process_cpu);
    }
    Ok(verified)
}

/// Rank 0's report of every rank's figures.
fn report(
    o: &Options,
    cluster: &Cluster,
    shape: &ProductShape,
    stats: &[u64],
    verified: bool,
    single_process_cpu: Option<f64>,
) {
    let ranks = cluster.size();
    let mut per_rank = Vec::new();
    let (mut cpu_sum, mut wall_max, mut sent_sum, mut model_sum, mut peak_max) =
        (0.0, 0.0f64, 0, 0, 0);
    for (r, s) in stats.chunks_exact(5).enumerate() {
        let (cpu, wall) = (f64::from_bits(s[0]), f64::from_bits(s[1]));
        let model = rank_cost(shape, &cluster.partition(), r);
        cpu_sum += cpu;
        wall_max = wall_max.max(wall);
        sent_sum += s[2];
        model_sum += model.bytes_sent;
        peak_max = peak_max.max(s[4]);
        per_rank.push(json!({
            "rank": r, "cpu_s": cpu, "wall_s": wall, "bytes_sent": s[2], "bytes_received": s[3],
            "model_bytes_sent": model.bytes_sent, "peak_memory_bytes": s[4],
        }));
        if !o.json {
            say(format_args!(
                "rank {r}: quotient {cpu:.2} s CPU ({wall:.2} s wall), sent {:.1} MB (model {:.1} MB), \
                 received {:.1} MB, peak memory {:.1} MiB",
                s[2] as f64 / 1e6,
                model.bytes_sent as f64 / 1e6,
                s[3] as f64 / 1e6,
                s[4] as f64 / (1u64 << 20) as f64
            ));
        }
    }
    if o.json {
        let mut value = json!({
            "verified": verified, "ranks": ranks, "n": o.n, "ring_degree": shape.ring_degree,
            "peak_memory_bytes": peak_max, "cpu_s": cpu_sum, "wall_s": wall_max,
            "bytes_exchanged": sent_sum, "model_bytes_exchanged": model_sum, "per_rank": per_rank,
        });
        if let Some(single) = single_process_cpu {
            value["single_process_cpu_s"] = json!(single);
        }
        say(format_args!("{value}"));
        return;
    }
    say(format_args!(
        "total over {ranks} ranks: {cpu_sum:.2} s CPU, {:.1} MB exchanged (model {:.1} MB), largest peak {:.1} MiB",
        sent_sum as f64 / 1e6,
        model_sum as f64 / 1e6,
        peak_max as f64 / (1u64 << 20) as f64
    ));
    if let Some(single) = single_process_cpu {
        say(format_args!(
            "one process: {single:.2} s CPU ({:.2}x)",
            cpu_sum / single.max(1e-9)
        ));
    }
    say(format_args!("verified: {verified}"));
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
