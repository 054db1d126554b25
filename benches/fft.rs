//! Criterion benches of the encrypted FFT (he-fft) over BN254 Fr at N = 2^16,
//! ≥128-bit security, per strategy, size and thread count.
//!
//! Strategies: `dense` (the n×n matrix by BSGS, one level, n diagonals encoded
//! on the fly), `factored` (radix-2 stages grouped into levels, fast keys),
//! `factored-minimal` (the same with O(1) Galois keys per level) and, for
//! n > N, `across` (the factored plan over n/N ciphertexts). Each
//! configuration gets its own parameters: N = 2^16 with the shortest chain
//! holding the plan's depth (`helib_rs::noise::transform_chain_bits`) and the fewest
//! key-switching digits (from 3) that stay within the 128-bit bound.
//!
//! Only the FFT execution is measured by criterion (10 samples, flat
//! sampling, one execution per sample: criterion warns that it cannot
//! complete 10 samples in the target time; that is expected). The one-off
//! phases of every configuration — context, key generation, plan build,
//! Galois key generation (count and bytes), encryption, a first FFT (checked
//! against ark-poly), decryption and peak memory — are printed to stderr and
//! appended to `target/fft-bench/phases.csv` (under `CARGO_TARGET_DIR` if
//! set), with the mean of the criterion samples.
//!
//! Peak memory is per configuration: every configuration runs in its own
//! process (the bench re-executes itself with `FFT_BENCH_CHILD` set, passing
//! the criterion arguments on), so `VmHWM` from `/proc/self/status` at its end
//! is that configuration's peak alone — in one process it would only be the
//! peak so far, and the allocator keeps freed memory resident between
//! configurations.
//!
//! Environment (defaults keep `cargo bench --bench fft` well under 30 minutes
//! on 2 cores):
//! - `FFT_BENCH_LOG_N`: sizes as log2 n, e.g. `8,10,12,14,16,17` (default `8,10`);
//! - `FFT_BENCH_THREADS`: engine threads, e.g. `1,2` (default `1,2`);
//! - `FFT_BENCH_STRATEGIES`: from `dense,factored,factored-minimal`
//!   (default `dense,factored`; n > N always runs the factored plan, labelled `across`);
//! - `FFT_BENCH_DENSE_MAX_LOG_N`: largest size for `dense` (default 8: a
//!   dense execution encodes and multiplies n diagonals, ≈ 20 s at n = 2^8 on
//!   one thread here, so n = 2^10 would take ≈ 15 minutes per thread count
//!   with criterion's 10 samples; it is never run for n > N);
//! - `FFT_BENCH_LEVELS`: factored levels (default ⌈log2 n / 5⌉, clamped to 1..=3);
//! - `FFT_BENCH_RING_LOG`: log2 N (default 16).
//!
//! A criterion filter (`cargo bench --bench fft -- factored/threads=1`) also
//! skips the set-up of configurations it excludes (matched as a substring).

use ark_bn254::Fr;
use ark_ff::PrimeField;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use criterion::{BenchmarkId, Criterion, SamplingMode};
use he_fft::{bit_reverse_permute, FftPlan, KeyMode, Strategy};
use helib_rs::advice::{self, KeySwitching};
use helib_rs::noise;
use helib_rs::{Context, Parameters, SecretKey};
use num_bigint::BigUint;
use rand::SeedableRng;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dense,
    Factored,
    FactoredMinimal,
}

impl Kind {
    fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "dense" => Some(Kind::Dense),
            "factored" => Some(Kind::Factored),
            "factored-minimal" => Some(Kind::FactoredMinimal),
            _ => None,
        }
    }

    fn label(self, n: usize, ring: usize) -> &'static str {
        match self {
            Kind::Dense => "dense",
            Kind::Factored if n > ring => "across",
            Kind::Factored => "factored",
            Kind::FactoredMinimal if n > ring => "across-minimal",
            Kind::FactoredMinimal => "factored-minimal",
        }
    }

    fn key_mode(self) -> KeyMode {
        match self {
            Kind::FactoredMinimal => KeyMode::MinimalKeys,
            _ => KeyMode::Fast,
        }
    }
}

struct Settings {
    log_sizes: Vec<u32>,
    threads: Vec<u32>,
    kinds: Vec<Kind>,
    dense_max_log_n: u32,
    levels: Option<usize>,
    ring_log: u32,
}

fn env_list<T: std::str::FromStr>(name: &str, default: &str) -> Vec<T> {
    let text = std::env::var(name).unwrap_or_else(|_| default.to_string());
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            s.trim()
                .parse()
                .unwrap_or_else(|_| panic!("{name}: cannot parse {s:?}"))
        })
        .collect()
}

impl Settings {
    fn from_env() -> Self {
        let kinds = std::env::var("FFT_BENCH_STRATEGIES")
            .unwrap_or_else(|_| "dense,factored".into())
            .split(',')
            .map(|s| Kind::parse(s).unwrap_or_else(|| panic!("unknown strategy {s:?}")))
            .collect();
        Self {
            log_sizes: env_list("FFT_BENCH_LOG_N", "8,10"),
            threads: env_list("FFT_BENCH_THREADS", "1,2"),
            kinds,
            dense_max_log_n: env_list("FFT_BENCH_DENSE_MAX_LOG_N", "8")[0],
            levels: env_list::<usize>("FFT_BENCH_LEVELS", "").first().copied(),
            ring_log: env_list("FFT_BENCH_RING_LOG", "16")[0],
        }
    }
}

/// N = 2^`ring_log` with the shortest chain for `depth` levels and the fewest
/// key-switching digits (3..=8) that keep 128-bit security.
fn parameters(ring_log: u32, depth: usize, threads: u32) -> Option<(Parameters, usize)> {
    let n = 1 << ring_log;
    let bits = noise::transform_chain_bits(n, f64::from(Fr::MODULUS_BIT_SIZE), depth);
    let digits: Vec<KeySwitching> = (3..=8).map(KeySwitching::Digits).collect();
    let t: BigUint = Fr::MODULUS.into();
    let (params, ks) = advice::smallest_ring(&t, ring_log..=ring_log, &digits, threads, |_| {
        Ok(noise::uniform_primes(bits, 40))
    })
    .ok()?;
    match ks {
        KeySwitching::Digits(d) => Some((params, d)),
        KeySwitching::None => None,
    }
}

/// The environment variable naming the one configuration a child process runs.
const CHILD: &str = "FFT_BENCH_CHILD";

/// The criterion filter among the arguments, if any (the first positional one).
fn criterion_filter() -> Option<String> {
    const TAKES_VALUE: [&str; 18] = [
        "-c",
        "--color",
        "-s",
        "--save-baseline",
        "-b",
        "--baseline",
        "--baseline-lenient",
        "--format",
        "--profile-time",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--plotting-backend",
    ];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--output-format" || TAKES_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

fn csv_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("fft-bench").join("phases.csv")
}

const CSV_HEADER: &str =
    "id,strategy,key_mode,threads,n,ring_degree,ciphertexts,depth,log2_q,log2_p,\
key_switching_digits,security,context_s,secret_public_key_s,plan_build_s,galois_keys,\
galois_key_bytes,galois_keygen_s,encrypt_s,first_fft_s,decrypt_s,verified,plain_fft_s,\
criterion_mean_s,peak_rss_bytes";

fn append_csv(line: &str) {
    let path = csv_path();
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let new = !path.exists();
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        if new {
            let _ = writeln!(f, "{CSV_HEADER}");
        }
        let _ = writeln!(f, "{line}");
    }
}

/// One benchmark configuration.
#[derive(Debug, Clone, Copy)]
struct Config {
    kind: Kind,
    log_n: u32,
    threads: u32,
}

impl Config {
    fn id(&self, ring: usize) -> String {
        format!(
            "{}/threads={}/n=2^{}",
            self.kind.label(1 << self.log_n, ring),
            self.threads,
            self.log_n
        )
    }

    /// `kind:log_n:threads`, as passed to a child process.
    fn encode(&self) -> String {
        let kind = match self.kind {
            Kind::Dense => "dense",
            Kind::Factored => "factored",
            Kind::FactoredMinimal => "factored-minimal",
        };
        format!("{kind}:{}:{}", self.log_n, self.threads)
    }

    fn decode(text: &str) -> Option<Self> {
        let mut parts = text.split(':');
        Some(Self {
            kind: Kind::parse(parts.next()?)?,
            log_n: parts.next()?.parse().ok()?,
            threads: parts.next()?.parse().ok()?,
        })
    }
}

fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / f64::from(1u32 << 30))
}

/// Sets up one configuration, prints its one-off phases, and benchmarks its FFT
/// (in a child process).
fn configuration(c: &mut Criterion, s: &Settings, config: Config) {
    let Config {
        kind,
        log_n,
        threads,
    } = config;
    let n = 1usize << log_n;
    let ring = 1usize << s.ring_log;
    let label = kind.label(n, ring);
    let id = config.id(ring);
    let mut group = c.benchmark_group("fft");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1));
    if std::env::args().any(|a| a == "--list") {
        group.bench_function(BenchmarkId::from_parameter(&id), |b| b.iter(|| ()));
        return;
    }

    let strategy = match kind {
        Kind::Dense => Strategy::Dense,
        _ => Strategy::Factored {
            levels: Some(
                s.levels
                    .unwrap_or_else(|| he_fft::default_levels(n.trailing_zeros() as usize)),
            ),
        },
    };
    let depth = match strategy {
        Strategy::Dense => 1,
        Strategy::Factored { levels } => levels.unwrap_or(1),
    };
    let Some((params, digits)) = parameters(s.ring_log, depth, threads) else {
        eprintln!("fft/{id}: skipped, no ≥128-bit parameters at N = {ring} for depth {depth}");
        return;
    };
    let log_q: u32 = params.chain_bits().iter().sum();
    let log_p: u32 = params.special_bits().iter().sum();

    let start = Instant::now();
    let context = Context::new(&params).expect("context");
    let context_s = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let sk = SecretKey::generate(&context).expect("secret key");
    let pk = sk.public_key().expect("public key");
    let keys_s = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let plan = FftPlan::<Fr>::builder(&context, n)
        .strategy(strategy)
        .key_mode(kind.key_mode())
        .build()
        .expect("plan");
    let plan_s = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let keys = plan.generate_galois_keys(&sk).expect("Galois keys");
    let galois_s = start.elapsed().as_secs_f64();
    let mut rng = rand::rngs::StdRng::seed_from_u64(u64::from(log_n));
    let x: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let start = Instant::now();
    let inputs = plan.encrypt(&pk, &x).expect("encrypt");
    let encrypt_s = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let outputs = plan.execute(&inputs, &keys).expect("FFT");
    let first_s = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let got = plan.decrypt(&sk, &outputs).expect("decrypt");
    let decrypt_s = start.elapsed().as_secs_f64();
    drop(outputs);
    let start = Instant::now();
    let domain = Radix2EvaluationDomain::<Fr>::new(n).expect("domain");
    let natural = domain.fft(&x);
    let plain_s = start.elapsed().as_secs_f64();
    // Factored plans on one ciphertext return the bit-reversed order.
    let want = if kind != Kind::Dense && n <= ring {
        bit_reverse_permute(&natural)
    } else {
        natural
    };
    let verified = got == want;
    let cost = plan.cost();
    eprintln!(
        "fft/{id}: N=2^{} logQ={log_q} logP={log_p} digits={digits} security={} depth={} \
         ciphertexts={} | context {context_s:.2}s, sk+pk {keys_s:.2}s, plan build {plan_s:.2}s, \
         Galois keys {} ({:.0} MiB) {galois_s:.2}s, encrypt {encrypt_s:.3}s, \
         first FFT {first_s:.2}s ({} rotations, {} key switches, {} plaintext products), decrypt {decrypt_s:.3}s, \
         plain FFT {:.3}ms, verified {verified}",
        s.ring_log,
        params.security_level(),
        plan.depth(),
        plan.ciphertexts(),
        keys.len(),
        keys.size_bytes() as f64 / f64::from(1 << 20),
        cost.rotations,
        cost.key_switches,
        cost.multiplications,
        plain_s * 1e3,
    );
    assert!(
        verified,
        "fft/{id}: the decrypted FFT differs from ark-poly's"
    );

    // Ten samples of one execution each (flat sampling); the times are also
    // kept here for the CSV (the first one is criterion's warm-up).
    let times = std::cell::RefCell::new(Vec::new());
    group.measurement_time(Duration::from_secs_f64((first_s * 5.0).max(0.01)));
    group.bench_function(BenchmarkId::from_parameter(&id), |b| {
        b.iter_custom(|iterations| {
            let start = Instant::now();
            for _ in 0..iterations {
                drop(plan.execute(&inputs, &keys).expect("FFT"));
            }
            let took = start.elapsed();
            times
                .borrow_mut()
                .push(took.as_secs_f64() / iterations as f64);
            took
        })
    });
    group.finish();
    let times = times.into_inner();
    let measured = &times[times.len().min(1)..];
    let mean = measured.iter().sum::<f64>() / measured.len().max(1) as f64;

    let peak = example_support::peak_memory_bytes();
    eprintln!(
        "fft/{id}: FFT mean {mean:.3}s over {} samples (HE / plain = {:.0}×), peak RSS of the configuration {}",
        measured.len(),
        mean / plain_s.max(1e-9),
        peak.map_or("n/a".into(), gib),
    );
    append_csv(&format!(
        "fft/{id},{label},{:?},{threads},{n},{ring},{},{},{log_q},{log_p},{digits},{},\
         {context_s:.6},{keys_s:.6},{plan_s:.6},{},{},{galois_s:.6},{encrypt_s:.6},\
         {first_s:.6},{decrypt_s:.6},{verified},{plain_s:.6},{mean:.6},{}",
        kind.key_mode(),
        plan.ciphertexts(),
        plan.depth(),
        params.security_level().bits(),
        keys.len(),
        keys.size_bytes(),
        peak.map_or(String::new(), |b| b.to_string()),
    ));
}

fn main() {
    let settings = Settings::from_env();
    let ring = 1usize << settings.ring_log;
    if let Ok(spec) = std::env::var(CHILD) {
        let config = Config::decode(&spec).unwrap_or_else(|| panic!("bad {CHILD}={spec:?}"));
        let mut criterion = Criterion::default().configure_from_args();
        configuration(&mut criterion, &settings, config);
        criterion.final_summary();
        return;
    }
    // The parent runs every configuration in a child process of its own.
    let exe = std::env::current_exe().expect("the bench's own path");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = criterion_filter();
    let mut failed = Vec::new();
    for &threads in &settings.threads {
        for &log_n in &settings.log_sizes {
            let n = 1usize << log_n;
            for &kind in &settings.kinds {
                if kind == Kind::Dense && (log_n > settings.dense_max_log_n || n > ring) {
                    continue;
                }
                let config = Config {
                    kind,
                    log_n,
                    threads,
                };
                let id = format!("fft/{}", config.id(ring));
                if filter.as_ref().is_some_and(|f| !id.contains(f.as_str())) {
                    continue;
                }
                let status = std::process::Command::new(&exe)
                    .args(&args)
                    .env(CHILD, config.encode())
                    .status();
                if !status.is_ok_and(|s| s.success()) {
                    failed.push(id);
                }
            }
        }
    }
    if !std::env::args().any(|a| a == "--list") {
        eprintln!("one-off phases appended to {}", csv_path().display());
    }
    if !failed.is_empty() {
        eprintln!("failed: {}", failed.join(", "));
        std::process::exit(1);
    }
}
