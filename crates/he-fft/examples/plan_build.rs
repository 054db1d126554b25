//! Times the build of a plan alone: no keys, no encryption. The parameters
//! are those `suggest_plan_parameters` gives for n (the ones
//! `encrypted_fft` uses), the plan is built `--repeat` times and each build
//! is timed; the plan is dropped before the next one.
//!
//! ```text
//! cargo run --release -p he-fft --example plan_build -- --n 32768 --threads 1
//! cargo run --release -p he-fft --example plan_build -- --n 32768 --threads 2 --repeat 3
//! ```
//!
//! With `--digest`, each plan is also written out (as `FftPlan::write_to`
//! saves it) into a 64-bit FNV-1a digest, printed: two builds that print the
//! same digest made the same plan, bit for bit (up to digest collisions).
//!
//! With `--load`, the last plan built is saved to a temporary file, tagged
//! with a fresh plan key, and loaded back `--repeat` times each way: with
//! the key (`FftPlanBuilder::load_with_key`: the header checked against the
//! spec, the GMAC tag computed as the file streams in, nothing recomputed),
//! and without (`FftPlanBuilder::load_from`: verified against the builder's
//! spec by recomputation); and, for the floor, the file is read into a
//! buffer. Each is timed and the best is printed against the best build
//! (the file is in the page cache after the save; the plans dropped before
//! each load leave their buffers in the engine's pool, as the builds do).
//!
//! Each build and load is given its wall-clock time and the processor
//! time (user + system) of the whole process, all threads; each load also
//! that of the calling thread. With `--threads 1` a build runs on one
//! thread of its own pool (so the process time is that thread's, nearly); a
//! load reads, checks and hashes on the calling thread, and when rayon's
//! global pool has a second thread the engine's buffers for the next
//! diagonals are allocated there meanwhile (in the process time, not the
//! calling thread's); a verification runs on the plan's pool. Each load is
//! compared with the best build three ways: wall-clock times, the calling
//! thread's processor time against the build's, and the process's against
//! the build's:
//!
//! ```text
//! cargo run --release -p he-fft --example plan_build -- --n 32768 --threads 1 --repeat 3 --load
//! ```

use ark_bn254::Fr;
use clap::Parser;
use example_support::cli::ResourceUse;
use example_support::outln;
use he_fft::{
    suggest_plan_parameters, FftPlan, FftPlanBuilder, PlanCheck, PlanKey, PlanOptions, Strategy,
};
use helib_rs::Context;
use std::io::Read;
use std::time::Instant;

fn main() {
    example_support::exit_with(run(&Options::parse()));
}

fn run(o: &Options) -> Result<bool, Box<dyn std::error::Error>> {
    let options = PlanOptions {
        strategy: Strategy::Factored { levels: None },
        coset: false,
        natural_output: false,
    };
    let suggested = suggest_plan_parameters::<Fr>(o.n, options, o.threads)?;
    let context = Context::new(&suggested.parameters)?;
    outln!(
        "n = {}, N = 2^{}, {} chain primes, threads {}",
        o.n,
        suggested.parameters.ring_degree().trailing_zeros(),
        suggested.parameters.chain_bits().len(),
        o.threads
    );
    let builder = FftPlan::<Fr>::builder(&context, o.n).strategy(suggested.strategy);
    let mut best = Times::worst();
    let mut last = None;
    for run in 0..o.repeat.max(1) {
        let (plan, times) = Times::of(|| builder.clone().build())?;
        best = best.min(times);
        outln!(
            "  build {}: {:.3} s (processor: {:.3} s) ({} diagonals)",
            run + 1,
            times.wall,
            times.process,
            plan.cost().multiplications
        );
        if o.digest {
            let mut digest = Digest(FNV_OFFSET);
            plan.write_to(&mut digest)?;
            outln!("  plan digest {:016x}", digest.0);
        }
        last = Some(plan);
    }
    outln!(
        "plan build: best {:.3} s (processor: {:.3} s)",
        best.wall,
        best.process
    );
    if let (true, Some(plan)) = (o.load, last) {
        time_loads(o, &builder, plan, best)?;
    }
    Ok(true)
}

/// Wall-clock time, the calling thread's processor time and the whole
/// process's (user + system, all threads), in seconds.
#[derive(Debug, Clone, Copy)]
struct Times {
    wall: f64,
    thread: f64,
    process: f64,
}

impl Times {
    /// Larger than any measurement (the start of a minimum).
    fn worst() -> Self {
        Times {
            wall: f64::INFINITY,
            thread: f64::INFINITY,
            process: f64::INFINITY,
        }
    }

    /// Runs `f` and measures it.
    fn of<T, E>(f: impl FnOnce() -> Result<T, E>) -> Result<(T, Times), E> {
        let (thread, process) = (thread_cpu_seconds(), ResourceUse::now());
        let start = Instant::now();
        let out = f()?;
        let wall = start.elapsed().as_secs_f64();
        let process = match (ResourceUse::now(), process) {
            (Some(now), Some(before)) => {
                let used = now.since(before);
                used.user_s + used.system_s
            }
            _ => f64::NAN,
        };
        let thread = thread_cpu_seconds() - thread;
        Ok((
            out,
            Times {
                wall,
                thread,
                process,
            },
        ))
    }

    /// The best (smallest) of each time.
    fn min(self, other: Times) -> Times {
        Times {
            wall: self.wall.min(other.wall),
            thread: self.thread.min(other.thread),
            process: self.process.min(other.process),
        }
    }
}

impl std::fmt::Display for Times {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.3} s (processor: the process {:.3} s, the calling thread {:.3} s)",
            self.wall, self.process, self.thread
        )
    }
}

/// The calling thread's processor time so far, in seconds (NaN where the
/// clock fails).
fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer,
    // which points at a writable `timespec`; the clock id is a valid one.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return f64::NAN;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Saves `plan` to a temporary file with a fresh key, drops it, and times
/// `--repeat` loads of it each way (authenticated by the key's tag, and
/// verified by recomputation) and plain reads, against the best build.
fn time_loads(
    o: &Options,
    builder: &FftPlanBuilder<Fr>,
    plan: FftPlan<Fr>,
    build: Times,
) -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::temp_dir().join(format!(
        "{}-{}",
        std::process::id(),
        builder.plan_file_name()?
    ));
    let key = PlanKey::generate()?;
    let saved = std::fs::File::create(&path)
        .map_err(he_fft::Error::from)
        .and_then(|mut file| plan.write_to_with_key(&mut file, &key));
    drop(plan);
    let result = saved.map_err(Into::into).and_then(|()| {
        let bytes = std::fs::metadata(&path)?.len();
        let gib = bytes as f64 / (1u64 << 30) as f64;
        // Each load returns its plan, dropped after it is timed (a plan is
        // dropped after its use, not as part of its load).
        type Loaded = Option<FftPlan<Fr>>;
        let times = |what: &str, load: &dyn Fn() -> Result<Loaded, Box<dyn std::error::Error>>| {
            let mut best = Times::worst();
            for run in 0..o.repeat.max(1) {
                let (loaded, times) = Times::of(load)?;
                drop(loaded);
                best = best.min(times);
                outln!("  {what} {}: {times}", run + 1);
            }
            outln!(
                "plan {what}: best {best} for {gib:.2} GiB: {:.1}% of the best build \
                 (processor time: the calling thread {:.1}%, the process {:.1}%)",
                100.0 * best.wall / build.wall,
                100.0 * best.thread / build.process,
                100.0 * best.process / build.process
            );
            Ok::<_, Box<dyn std::error::Error>>(best)
        };
        times("read only", &|| {
            let mut file = std::fs::File::open(&path)?;
            let mut buffer = vec![0u8; 1 << 20];
            while file.read(&mut buffer)? != 0 {}
            Ok(None)
        })?;
        times("load, authenticated", &|| {
            let (loaded, check) = builder.load_with_key(&mut std::fs::File::open(&path)?, &key)?;
            if check != PlanCheck::Authenticated {
                return Err(format!("the plan was {check}, not authenticated").into());
            }
            Ok(Some(loaded))
        })?;
        times("load + verify by recomputation", &|| {
            Ok(Some(builder.load_from(&mut std::fs::File::open(&path)?)?))
        })?;
        Ok(())
    });
    let _ = std::fs::remove_file(&path);
    result
}

/// Builds an FFT plan for n and prints the time each build takes.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Transform size (a power of two)
    #[arg(long, default_value_t = 32768)]
    n: usize,
    /// Engine and plan-building threads (0 = one per hardware thread)
    #[arg(long, default_value_t = 1)]
    threads: u32,
    /// How many times to build the plan
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Print a digest of each saved plan (to compare builds bit for bit)
    #[arg(long, default_value_t = false)]
    digest: bool,
    /// Save the last plan and time loading it back (authenticated by a key's
    /// tag, and verified by recomputation)
    #[arg(long, default_value_t = false)]
    load: bool,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// A writer keeping the 64-bit FNV-1a hash of the bytes written to it.
struct Digest(u64);

impl std::io::Write for Digest {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
