//! What the MPI examples share: the job's start and end, rank 0's
//! parameters and bytes shared with every rank, each rank's figures for the
//! distributed step, and rank 0's report of them.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use example_support::cli::ResourceUse;
use he_mpi::mpi::topology::{Communicator, SimpleCommunicator};
use he_mpi::Cluster;
use helib_rs::{Context, Parameters};
use serde_json::json;

mod memory_limit;

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The flags every MPI example takes.
#[derive(Debug, clap::Args)]
pub struct JobArgs {
    /// Seed of the random input.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Engine threads per rank.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
    /// Also run the one-process computation on rank 0 and compare.
    #[arg(long)]
    pub compare: bool,
    /// Small insecure parameters (see the example's docs), for quick checks only.
    #[arg(long)]
    pub test_parameters: bool,
    /// Seconds any one collective may take before the job ends.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
    /// Print one JSON object (rank 0) instead of the report.
    #[arg(long)]
    pub json: bool,
    /// The most memory each rank may allocate, in MiB: its heap and private
    /// writable mappings (RLIMIT_DATA), enforced by the kernel from the
    /// job's start. An allocation beyond it fails and ends the job with an
    /// error naming the rank: the engine's is refused cleanly, any other
    /// aborts the rank after that line.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1 << 40))]
    pub memory_limit_mib: Option<u64>,
    /// Runs the distributed step, and with `--compare` each one-process
    /// configuration, this many times, each run's output dropped before the
    /// next: the figures are the last run's, with the first run's processor
    /// time beside them. A first run maps fresh pages, which on a VM whose
    /// host backs memory lazily can cost as much as the computation; later
    /// runs reuse the engine's recycled buffers, as a long-lived process does.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// How payloads move between ranks: `shared` (ranks on one node read
    /// each other's from MPI shared memory, others get messages) or
    /// `messages` (every payload in an MPI message).
    #[arg(long, default_value = "shared", value_parser = ["shared", "messages"])]
    pub transport: String,
}

impl JobArgs {
    /// The cluster of `world`'s ranks for this job's options.
    pub fn cluster(
        &self,
        world: he_mpi::mpi::topology::SimpleCommunicator,
        context: &helib_rs::Context,
    ) -> he_mpi::Result<he_mpi::Cluster> {
        let transport = if self.transport == "messages" {
            he_mpi::Transport::Messages
        } else {
            he_mpi::Transport::SharedMemoryOnNode
        };
        let timeout = std::time::Duration::from_secs(self.timeout);
        he_mpi::Cluster::with_transport(world, context, timeout, transport)
    }
}

/// BN254's radix-2 domain of size `n`.
pub fn bn254_domain(n: usize) -> Result<Radix2EvaluationDomain<Fr>> {
    Ok(Radix2EvaluationDomain::<Fr>::new(n)
        .filter(|d| d.size() == n && n >= 2)
        .ok_or_else(|| format!("--n {n} is not a power of two that BN254 Fr supports"))?)
}

/// Set once stdout is a closed pipe: the report stops, the job ends normally.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// One line of the report; a closed pipe silences the rest (status 0: a
/// rank may not leave the job early).
pub fn say(line: std::fmt::Arguments<'_>) {
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

/// Parses the example's options, runs `job` on them and MPI's world, and
/// ends the process: status 0 when it verified, 1 when the check failed
/// (the same on every rank); an error on any rank ends every rank
/// (MPI_Abort) with a message naming it.
pub fn run_job<O: clap::Parser>(
    name: &str,
    job: impl FnOnce(&O, SimpleCommunicator) -> Result<bool>,
) -> ! {
    let options = O::parse();
    let Some(universe) = he_mpi::mpi::initialize() else {
        eprintln!("error: MPI was initialized already");
        std::process::exit(1);
    };
    let world = universe.world();
    let rank = world.rank();
    match job(&options, world) {
        Ok(true) => {
            drop(universe);
            std::process::exit(0);
        }
        Ok(false) => {
            drop(universe);
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("{name}: rank {rank}: error: {e}");
            // Ends every rank: none waits for this one.
            universe.world().abort(1)
        }
    }
}

/// What every rank starts a job from.
pub struct Start {
    /// This process's rank.
    pub rank: usize,
    /// BN254's radix-2 domain of size `n`.
    pub domain: Radix2EvaluationDomain<Fr>,
    /// The context of the parameters rank 0 chose.
    pub context: Context,
    /// The number rank 0 chose with them.
    pub number: u64,
}

/// The start of a job of size `n`: the rank, BN254's domain of size `n`,
/// and the parameters and one number that `choose` (run on rank 0 only)
/// picks, broadcast once to every rank. The other ranks accept insecure
/// parameters only with `--test-parameters`.
pub fn start(
    world: &SimpleCommunicator,
    n: usize,
    job: &JobArgs,
    choose: impl FnOnce() -> Result<(Parameters, u64)>,
) -> Result<Start> {
    let rank = world.rank() as usize;
    if let Some(mib) = job.memory_limit_mib {
        memory_limit::limit_memory(rank, mib)?;
    }
    let domain = bn254_domain(n)?;
    let chosen = if rank == 0 { Some(choose()?) } else { None };
    let context = share_parameters(world, chosen.as_ref().map(|(p, _)| p), job.test_parameters)?;
    let number = share_u64(world, chosen.map(|(_, number)| number))?;
    Ok(Start {
        rank,
        domain,
        context,
        number,
    })
}

/// Rank 0's `value` (ignored elsewhere) on every rank.
fn share_u64(world: &SimpleCommunicator, value: Option<u64>) -> Result<u64> {
    let bytes = value.unwrap_or(0).to_le_bytes().to_vec();
    let bytes = Cluster::broadcast_over(world, 0, bytes)?;
    Ok(u64::from_le_bytes(bytes.as_slice().try_into()?))
}

/// The context of the parameters rank 0 chose (`chosen`, ignored
/// elsewhere), broadcast to every rank; the others accept insecure ones
/// only with `allow_insecure` (consent is never read from the bytes).
fn share_parameters(
    world: &SimpleCommunicator,
    chosen: Option<&Parameters>,
    allow_insecure: bool,
) -> Result<Context> {
    let bytes = chosen
        .map(Parameters::to_bytes)
        .transpose()?
        .unwrap_or_default();
    let bytes = Cluster::broadcast_over(world, 0, bytes)?;
    let params = match chosen {
        Some(params) => params.clone(),
        None if allow_insecure => Parameters::from_bytes_allow_insecure(&bytes)?,
        None => Parameters::from_bytes(&bytes)?,
    };
    Ok(Context::new(&params)?)
}

/// What one rank spent on the distributed step (its last run, see
/// [`JobArgs::repeat`]).
#[derive(Debug, Clone, Copy)]
pub struct RankFigures {
    pub cpu_s: f64,
    /// Processor time of the first run.
    pub first_cpu_s: f64,
    pub wall_s: f64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// VmHWM after the runs, before any comparison.
    pub peak_memory_bytes: u64,
}

impl RankFigures {
    /// Runs `step` `repeat` times (see [`JobArgs::repeat`]) and measures
    /// it: processor time (user + system, exchanges included) of the first
    /// and the last run, the last run's wall time and bytes, and the peak
    /// memory over the runs (read before any comparison). The last run's
    /// output.
    pub fn measure<T>(
        cluster: &Cluster,
        repeat: u32,
        mut step: impl FnMut() -> Result<T>,
    ) -> Result<(T, Self)> {
        let timed = || {
            let traffic = cluster.traffic();
            let clock = Instant::now();
            let out = step()?;
            let after = cluster.traffic();
            let bytes = (
                after.bytes_sent - traffic.bytes_sent,
                after.bytes_received - traffic.bytes_received,
            );
            Ok((out, clock.elapsed().as_secs_f64(), bytes))
        };
        let ((out, wall_s, bytes), first_cpu_s, cpu_s) = repeated(repeat, timed)?;
        Ok((
            out,
            Self {
                cpu_s,
                first_cpu_s,
                wall_s,
                bytes_sent: bytes.0,
                bytes_received: bytes.1,
                peak_memory_bytes: example_support::peak_memory_bytes().unwrap_or(0),
            },
        ))
    }

    /// Every rank's figures, rank by rank (on every rank).
    pub fn gather(&self, cluster: &Cluster) -> Result<Vec<Self>> {
        let words = cluster.all_gather(&[
            self.cpu_s.to_bits(),
            self.first_cpu_s.to_bits(),
            self.wall_s.to_bits(),
            self.bytes_sent,
            self.bytes_received,
            self.peak_memory_bytes,
        ])?;
        Ok(words
            .chunks_exact(6)
            .map(|w| Self {
                cpu_s: f64::from_bits(w[0]),
                first_cpu_s: f64::from_bits(w[1]),
                wall_s: f64::from_bits(w[2]),
                bytes_sent: w[3],
                bytes_received: w[4],
                peak_memory_bytes: w[5],
            })
            .collect())
    }
}

/// Rank 0's report of a distributed step.
pub struct Report<'a> {
    /// What ran, for the text report ("quotient", "FFT").
    pub step: &'a str,
    pub n: usize,
    pub ring_degree: usize,
    /// Every rank's figures, and the bytes each sends by the cost model.
    pub figures: &'a [RankFigures],
    pub model_bytes_sent: &'a [u64],
    pub verified: bool,
    /// The one-process computation's CPU times, when it ran.
    pub single_process: Option<SingleProcess>,
    /// The job's flags (`--json`, `--memory-limit-mib`).
    pub job: &'a JobArgs,
}

impl Report<'_> {
    /// Prints every rank's line, the totals and the verdict, or one JSON
    /// object (see each example's docs).
    pub fn print(&self) {
        let mb = |bytes: u64| bytes as f64 / 1e6;
        let mib = |bytes: u64| bytes as f64 / (1u64 << 20) as f64;
        let mut per_rank = Vec::new();
        for (r, (f, &model)) in self.figures.iter().zip(self.model_bytes_sent).enumerate() {
            per_rank.push(json!({
                "rank": r, "cpu_s": f.cpu_s, "first_cpu_s": f.first_cpu_s, "wall_s": f.wall_s,
                "bytes_sent": f.bytes_sent,
                "bytes_received": f.bytes_received, "model_bytes_sent": model,
                "peak_memory_bytes": f.peak_memory_bytes,
            }));
            if !self.job.json {
                say(format_args!(
                    "rank {r}: {} {:.2} s CPU ({:.2} s wall), sent {:.1} MB (model {:.1} MB), \
                     received {:.1} MB, peak memory {:.1} MiB",
                    self.step,
                    f.cpu_s,
                    f.wall_s,
                    mb(f.bytes_sent),
                    mb(model),
                    mb(f.bytes_received),
                    mib(f.peak_memory_bytes)
                ));
            }
        }
        let cpu_sum: f64 = self.figures.iter().map(|f| f.cpu_s).sum();
        let first_sum: f64 = self.figures.iter().map(|f| f.first_cpu_s).sum();
        let repeat = self.job.repeat;
        let wall_max = self.figures.iter().map(|f| f.wall_s).fold(0.0, f64::max);
        let sent_sum: u64 = self.figures.iter().map(|f| f.bytes_sent).sum();
        let model_sum: u64 = self.model_bytes_sent.iter().sum();
        let peak_max = self
            .figures
            .iter()
            .map(|f| f.peak_memory_bytes)
            .max()
            .unwrap_or(0);
        let ranks = self.figures.len();
        let limit_bytes = self.job.memory_limit_mib.map(|mib| mib << 20);
        if self.job.json {
            let mut value = json!({
                "verified": self.verified, "ranks": ranks, "n": self.n,
                "ring_degree": self.ring_degree, "peak_memory_bytes": peak_max, "cpu_s": cpu_sum,
                "first_cpu_s": first_sum, "runs": repeat, "wall_s": wall_max, "bytes_exchanged": sent_sum,
                "model_bytes_exchanged": model_sum, "transport": self.job.transport,
                "per_rank": per_rank,
            });
            if let Some(single) = self.single_process {
                value["single_process_cpu_s"] = json!(single.cpu_s);
                value["single_process_first_cpu_s"] = json!(single.first_cpu_s);
                value["single_process_threads"] = json!(single.threads);
                value["single_process_one_thread_cpu_s"] = json!(single.one_thread_cpu_s);
            }
            if let Some(limit) = limit_bytes {
                value["memory_limit_bytes"] = json!(limit);
            }
            say(format_args!("{value}"));
            return;
        }
        say(format_args!(
            "total over {ranks} ranks: {cpu_sum:.2} s CPU, {:.1} MB exchanged (model {:.1} MB, transport: {}), \
             largest peak {:.1} MiB",
            mb(sent_sum),
            mb(model_sum),
            self.job.transport,
            mib(peak_max)
        ));
        if repeat > 1 {
            say(format_args!(
                "figures of the last of {repeat} runs; the first run took {first_sum:.2} s CPU over the ranks"
            ));
        }
        if let Some(limit) = limit_bytes {
            say(format_args!(
                "memory limit per rank: {:.1} MiB (RLIMIT_DATA, enforced by the kernel); the largest peak is {:.0}% of it",
                mib(limit),
                100.0 * peak_max as f64 / limit as f64
            ));
        }
        if let Some(single) = self.single_process {
            let ratio = |cpu: f64| cpu_sum / cpu.max(1e-9);
            say(format_args!(
                "one process on the job's cores ({} engine threads): {:.2} s CPU ({:.2}x; first run {:.2} s); \
                 with one thread: {:.2} s CPU ({:.2}x)",
                single.threads,
                single.cpu_s,
                ratio(single.cpu_s),
                single.first_cpu_s,
                single.one_thread_cpu_s,
                ratio(single.one_thread_cpu_s)
            ));
        }
        say(format_args!("verified: {}", self.verified));
    }
}

/// The one-process computation's CPU time (`--compare`, on rank 0), of
/// the last of its runs (see [`JobArgs::repeat`]).
#[derive(Debug, Clone, Copy)]
pub struct SingleProcess {
    /// Engine threads of the main run: the job's ranks times each rank's
    /// threads, so that it runs on as many cores as the ranks did. Ranks
    /// that run at once on one machine share its caches and memory
    /// bandwidth, and so do these threads; a one-thread run has them alone.
    pub threads: u32,
    /// CPU seconds of the run with `threads` engine threads.
    pub cpu_s: f64,
    /// CPU seconds of the first run with `threads` engine threads.
    pub first_cpu_s: f64,
    /// CPU seconds of the same computation with one engine thread.
    pub one_thread_cpu_s: f64,
}

/// Runs the one-process `step` on this rank `repeat` times with `threads`
/// engine threads, then (when `threads` > 1) `repeat` times with one, and
/// leaves the context at `restore` threads: the last output with `threads`
/// and the CPU times. Each run's output is dropped before the next run of
/// its configuration, and the last one with `threads` stays alive while the
/// one-thread runs allocate, so each configuration recycles only its own
/// pages.
pub fn single_process<T>(
    context: &Context,
    threads: u32,
    restore: u32,
    repeat: u32,
    mut step: impl FnMut() -> Result<T>,
) -> Result<(T, SingleProcess)> {
    // mpirun binds each rank to one core; the engine threads this run
    // starts get every core, as the ranks had together (the other ranks
    // sleep meanwhile), and the one-thread run is bound again.
    let unbound = (threads > 1).then(Unbound::new).flatten();
    context.set_threads(threads)?;
    let (out, first_cpu_s, cpu_s) = repeated(repeat, &mut step)?;
    drop(unbound);
    let one_thread_cpu_s = if threads > 1 {
        context.set_threads(1)?;
        repeated(repeat, &mut step)?.2
    } else {
        cpu_s
    };
    context.set_threads(restore)?;
    let figures = SingleProcess {
        threads,
        cpu_s,
        first_cpu_s,
        one_thread_cpu_s,
    };
    Ok((out, figures))
}

/// This thread let run on every online core (threads it starts inherit
/// that) until dropped, when its own mask comes back.
struct Unbound {
    bound: libc::cpu_set_t,
}

impl Unbound {
    /// `None` where the masks cannot be read or set (the run stays bound).
    fn new() -> Option<Self> {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: cpu_set_t is plain data, all-zero is an empty set; the
        // calls read and write one set of `size` bytes for this thread (0).
        unsafe {
            let mut bound: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut bound) != 0 {
                return None;
            }
            let mut every: libc::cpu_set_t = std::mem::zeroed();
            let online = libc::sysconf(libc::_SC_NPROCESSORS_ONLN).max(1) as usize;
            for cpu in 0..online.min(libc::CPU_SETSIZE as usize) {
                libc::CPU_SET(cpu, &mut every);
            }
            (libc::sched_setaffinity(0, size, &every) == 0).then_some(Self { bound })
        }
    }
}

impl Drop for Unbound {
    fn drop(&mut self) {
        // SAFETY: as in `new`, with the mask read there.
        unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.bound) };
    }
}

/// Runs `step` `repeat` times (at least once), dropping each output before
/// the next run: the last output, the first run's CPU seconds and the last's.
fn repeated<T>(repeat: u32, mut step: impl FnMut() -> Result<T>) -> Result<(T, f64, f64)> {
    let (mut out, first) = cpu_seconds(&mut step)?;
    let mut last = first;
    for _ in 1..repeat {
        drop(out);
        (out, last) = cpu_seconds(&mut step)?;
    }
    Ok((out, first, last))
}

/// CPU seconds (user + system) `step` takes in this process.
pub fn cpu_seconds<T>(step: impl FnOnce() -> Result<T>) -> Result<(T, f64)> {
    let start = ResourceUse::now();
    let out = step()?;
    let cpu = ResourceUse::now().zip(start).map_or(0.0, |(end, start)| {
        let used = end.since(start);
        used.user_s + used.system_s
    });
    Ok((out, cpu))
}
