//! Rotations: the inner product of two encrypted BN254 vectors by
//! rotate-and-sum, and (with `--measure-keys`) the key-memory trade-off of
//! one Galois key per step against keys for the powers of two only.
//!
//! Rotate-and-sum: z = x ⊙ y (a ct × ct product, relinearized), then
//! z += rotate(z, 2^i) for i = 0 .. log2(N/2) − 1 leaves every slot of a row
//! holding the row's sum, and z += swap_rows(z) adds the other row: every
//! slot holds Σ x_i·y_i. That takes log2(N/2) rotation keys and the row-swap key.
//!
//! ```text
//! cargo run --release --example rotations                       # N = 2^16 (bn254_n16, 192-bit)
//! cargo run --release --example rotations -- --preset n15       # N = 2^15, 605-bit chain, 128-bit
//! cargo run --release --example rotations -- --preset bench     # N = 2^16, 14 x 61-bit chain (the benches')
//! cargo run --release --example rotations -- --preset bench15   # the same chain at N = 2^15 (insecure)
//! cargo run --release --example rotations -- --threads 1 --json
//! cargo run --release --example rotations -- --preset bench --threads 1 --measure-keys
//! ```
//!
//! With `--json` stdout is one JSON object: `preset`, `ring_degree`,
//! `log2_q`, `threads`; for the inner product `relin_key_bytes`,
//! `galois_keys`, `galois_key_bytes`, `multiply_relin_ms`, `rotation_ms`
//! (mean per rotation) and `verified`; with `--measure-keys` `key_bytes`,
//! `keygen_ms`, `all_steps_bytes`, `power_keys`, `power_keys_bytes`,
//! `direct_rotation_ms`, `mean_terms`, `max_terms`, `composed` (objects with
//! `step`, `terms`, `ms`), `plain8_ms` and `hoisted8_ms`.

use ark_bn254::Fr;
use ark_std::UniformRand;
use clap::Parser;
use example_support::cli::{self, CommonArgs};
use example_support::outln;
use helib_rs::{
    BatchEncoder, Ciphertext, Context, GaloisKeys, ModSwitchPolicy, Parameters, RelinKey,
    RotationPolicy, SecretKey,
};
use std::time::{Duration, Instant};

type Error = Box<dyn std::error::Error>;

fn main() {
    example_support::exit_with(run(&Options::parse()).map(|()| true));
}

fn run(options: &Options) -> Result<(), Error> {
    let params = preset(&options.preset)?;
    let context = Context::new(&params)?;
    if let Some(threads) = options.threads {
        context.set_threads(threads)?;
    }
    let mut out = Report::new(options.common.json);
    out.line(&format!(
        "N = 2^{}, t = BN254 Fr, chain {} primes (log2 Q = {:.0}), special log2 P = {:.0}, \
         security {:?}, threads {}",
        context.ring_degree().trailing_zeros(),
        context.max_level() + 1,
        context.log2_modulus(context.max_level()).unwrap_or(0.0),
        context.log2_special_modulus(),
        params.security_level(),
        context.threads()?
    ));
    out.field("preset", &options.preset);
    out.field("ring_degree", context.ring_degree());
    out.field(
        "log2_q",
        context.log2_modulus(context.max_level()).unwrap_or(0.0),
    );
    out.field("threads", context.threads()?);
    if options.measure_keys {
        measure_keys(&context, &mut out)?;
    } else {
        inner_product(&context, &mut out)?;
    }
    out.finish();
    Ok(())
}

/// The named parameter sets.
fn preset(name: &str) -> Result<Parameters, Error> {
    Ok(match name {
        "n16" => Parameters::bn254_n16(),
        "n17" => Parameters::bn254_n17(),
        // One ct x ct product at N = 2^15 needs ~560 bits; 11 x 55 = 605,
        // with P for 3 digits log2(QP) = 829 <= 868: 128-bit secure.
        "n15" => Parameters::builder()
            .ring_degree(1 << 15)
            .plaintext_modulus_from_field::<Fr>()
            .chain_bits(&[55; 11])
            .build()?,
        // The ~850-bit chain of `cargo bench --bench bgv_ops`.
        "bench" => Parameters::builder()
            .ring_degree(1 << 16)
            .plaintext_modulus_from_field::<Fr>()
            .chain_bits(&[61; 14])
            .build()?,
        // The same chain at N = 2^15: insecure (log2(QP) = 1163 > 868), only
        // for comparison with the benches.
        "bench15" => Parameters::builder()
            .ring_degree(1 << 15)
            .plaintext_modulus_from_field::<Fr>()
            .chain_bits(&[61; 14])
            .allow_insecure()
            .build()?,
        other => {
            return Err(format!("unknown preset {other:?} (n15, n16, n17, bench, bench15)").into())
        }
    })
}

/// Σ x_i·y_i over N slots by rotate-and-sum, verified in the clear.
fn inner_product(context: &Context, out: &mut Report) -> Result<(), Error> {
    let n = context.ring_degree();
    let (sk, took) = timed(|| SecretKey::generate(context))?;
    let (pk, took_pk) = timed(|| sk.public_key())?;
    out.step("secret and public key", took + took_pk);
    let (rk, took) = timed(|| RelinKey::generate(&sk))?;
    out.step(
        &format!("relinearization key, {:.1} MB", mb(rk.size_bytes())),
        took,
    );
    out.field("relin_key_bytes", rk.size_bytes());
    let steps: Vec<i64> = (0..(n / 2).trailing_zeros()).map(|i| 1i64 << i).collect();
    let (keys, took) = timed(|| {
        let mut keys = GaloisKeys::for_steps(&sk, &steps)?;
        keys.add_row_swap(&sk)?;
        Ok::<_, helib_rs::Error>(keys)
    })?;
    out.step(
        &format!(
            "{} Galois keys (steps 1, 2, .., N/4 and the row swap), {:.1} MB, {:.1} MB each",
            keys.len(),
            mb(keys.size_bytes()),
            mb(keys.size_bytes() / keys.len())
        ),
        took,
    );
    out.field("galois_keys", keys.len());
    out.field("galois_key_bytes", keys.size_bytes());

    let encoder = BatchEncoder::<Fr>::new(context)?;
    let mut rng = ark_std::test_rng();
    let x: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let y: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let ((cx, cy), took) = timed(|| {
        let cx = pk.encrypt(&encoder.encode(&x)?)?;
        let cy = pk.encrypt(&encoder.encode(&y)?)?;
        Ok::<_, helib_rs::Error>((cx, cy))
    })?;
    out.noise("encode and encrypt x and y", &sk, &cx, took)?;

    let (mut z, took) = timed(|| cx.multiply_relin(&cy, &rk, ModSwitchPolicy::BeforeMultiply))?;
    out.noise("x * y, relinearized", &sk, &z, took)?;
    out.field("multiply_relin_ms", ms(took));
    let took = time(|| z.mod_switch_reduce_noise_assign())?;
    out.noise("switch modulus (cheaper rotations)", &sk, &z, took)?;

    let mut rotations = Duration::ZERO;
    for &step in &steps {
        let (rotated, took) = timed(|| z.rotate_rows(step, &keys, RotationPolicy::Exact))?;
        rotations += took;
        z.add_assign(&rotated)?;
    }
    out.noise(
        &format!("{} rotations and additions", steps.len()),
        &sk,
        &z,
        rotations,
    )?;
    out.field("rotation_ms", ms(rotations) / steps.len() as f64);
    let (swapped, took) = timed(|| z.swap_rows(&keys))?;
    z.add_assign(&swapped)?;
    out.noise("row swap and addition", &sk, &z, took)?;

    let (slots, took) = timed(|| encoder.decode(&sk.decrypt(&z)?))?;
    out.step("decrypt and decode", took);
    let expected: Fr = x.iter().zip(&y).map(|(a, b)| *a * b).sum();
    let right = slots.iter().filter(|&&s| s == expected).count();
    out.field("verified", right == n);
    if right == n {
        out.line(&format!(
            "verified: every one of the {n} slots holds the inner product computed in the clear"
        ));
        Ok(())
    } else {
        Err(format!("{} of {n} slots differ from the inner product", n - right).into())
    }
}

/// Keys per step against composed rotations: memory, key generation and
/// rotation times, and hoisting.
fn measure_keys(context: &Context, out: &mut Report) -> Result<(), Error> {
    let n = context.ring_degree();
    let half = (n / 2) as i64;
    let sk = SecretKey::generate(context)?;
    let pk = sk.public_key()?;
    let encoder = BatchEncoder::<Fr>::new(context)?;
    let mut rng = ark_std::test_rng();
    let values: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let ct = pk.encrypt(&encoder.encode(&values)?)?;

    // One key: its size and generation time.
    let (one, keygen) = measured(3, || GaloisKeys::for_steps(&sk, &[1]))?;
    let key_bytes = one.size_bytes();
    out.timing(
        &format!("one Galois key, {:.1} MB (mean of 3)", mb(key_bytes)),
        keygen,
    );
    out.field("key_bytes", key_bytes);
    out.field("keygen_ms", ms(keygen.best()));
    let all = (half - 1) as usize;
    out.line(&format!(
        "  every step (N/2 - 1 = {all} keys): {:.1} GB, ~{:.0} s to generate (computed from one key)",
        (all * key_bytes) as f64 / 1e9,
        keygen.best().as_secs_f64() * all as f64
    ));
    out.field("all_steps_bytes", all * key_bytes);

    let (powers, took) = measured(1, || GaloisKeys::for_power_of_two_steps(&sk))?;
    out.timing(
        &format!(
            "power-of-two keys (2 log2(N/2) - 1 = {}): {:.2} GB",
            powers.len(),
            powers.size_bytes() as f64 / 1e9
        ),
        took,
    );
    out.field("power_keys", powers.len());
    out.field("power_keys_bytes", powers.size_bytes());

    // Direct rotations (one key switch), averaged.
    let (rotated, direct) = measured(3, || ct.rotate_rows(1, &powers, RotationPolicy::Exact))?;
    out.timing("direct rotation by 1 (own key), mean of 3", direct);
    out.field("direct_rotation_ms", ms(direct.best()));
    let exact = sk.noise_budget(&rotated)?;

    // Composed rotations by steps of growing non-adjacent-form weight.
    let weights: Vec<usize> = (1..half)
        .map(|k| GaloisKeys::composition(context, k).len())
        .collect();
    let mean = weights.iter().sum::<usize>() as f64 / weights.len() as f64;
    let max = weights.iter().copied().max().unwrap_or(0);
    out.line(&format!(
        "  over all k in 1..N/2: {mean:.2} key switches per composed rotation on average, {max} at most"
    ));
    out.field("mean_terms", mean);
    out.field("max_terms", max);
    let mut composed_rows = Vec::new();
    for terms in [2, 3, max] {
        let Some(k) = (1..half).find(|&k| weights[k as usize - 1] == terms) else {
            continue;
        };
        let (rotated, took) = measured(1, || ct.rotate_rows(k, &powers, RotationPolicy::Compose))?;
        let budget = sk.noise_budget(&rotated)?;
        out.timing(
            &format!(
                "composed rotation by {k} ({terms} terms {:?}), budget {budget:.1} vs {exact:.1} direct",
                GaloisKeys::composition(context, k)
            ),
            took,
        );
        composed_rows.push(serde_json::json!({
            "step": k,
            "terms": terms,
            "ms": ms(took.best()),
        }));
    }
    out.field("composed", composed_rows);

    // Hoisting: 8 rotations one by one against the same 8 sharing one decomposition.
    let steps: Vec<i64> = (1..=8).collect();
    let mut baby = GaloisKeys::new(context)?;
    baby.add_steps(&sk, &steps)?;
    let (_, plain) = measured(2, || {
        steps
            .iter()
            .map(|&k| ct.rotate_rows(k, &baby, RotationPolicy::Exact))
            .collect::<Result<Vec<Ciphertext>, _>>()
    })?;
    let (_, hoisted) = measured(2, || ct.rotate_rows_hoisted(&steps, &baby))?;
    out.timing("8 plain rotations (mean of 2)", plain);
    out.timing("8 hoisted rotations (mean of 2)", hoisted);
    out.line(&format!(
        "  hoisting: {:.2}x cheaper per rotation",
        plain.best().as_secs_f64() / hoisted.best().as_secs_f64()
    ));
    out.field("plain8_ms", ms(plain.best()));
    out.field("hoisted8_ms", ms(hoisted.best()));
    Ok(())
}

/// The result of the last of `repeat` (≥ 1) runs of `f`, and their mean
/// wall-clock and CPU time. The machine may be shared: with one engine
/// thread, the CPU time is what the operation costs whatever else runs.
fn measured<T, E>(repeat: u32, mut f: impl FnMut() -> Result<T, E>) -> Result<(T, Timing), E> {
    let cpu = cpu_time();
    let start = Instant::now();
    let mut value = f()?;
    for _ in 1..repeat {
        value = f()?;
    }
    let wall = start.elapsed() / repeat;
    let cpu = cpu
        .zip(cpu_time())
        .map(|(a, b)| b.saturating_sub(a) / repeat);
    Ok((value, Timing { wall, cpu }))
}

/// A wall-clock time and, where the OS reports it, the process's CPU time.
#[derive(Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Option<Duration>,
}

impl Timing {
    fn text(&self) -> String {
        match self.cpu {
            Some(cpu) => format!("{:.1} ms, cpu {:.1} ms", ms(self.wall), ms(cpu)),
            None => format!("{:.1} ms", ms(self.wall)),
        }
    }

    /// CPU time if known, else wall-clock time.
    fn best(&self) -> Duration {
        self.cpu.unwrap_or(self.wall)
    }
}

/// The CPU time of all threads of this process (Linux: the first field of
/// each thread's schedstat, in nanoseconds); `None` elsewhere.
fn cpu_time() -> Option<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

fn timed<T, E>(f: impl FnOnce() -> Result<T, E>) -> Result<(T, Duration), E> {
    let start = Instant::now();
    let value = f()?;
    Ok((value, start.elapsed()))
}

fn time<E>(f: impl FnOnce() -> Result<(), E>) -> Result<Duration, E> {
    timed(f).map(|((), took)| took)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

/// Human-readable lines, or one JSON object at the end.
struct Report {
    json: bool,
    fields: serde_json::Map<String, serde_json::Value>,
}

impl Report {
    fn new(json: bool) -> Self {
        Self {
            json,
            fields: serde_json::Map::new(),
        }
    }

    fn line(&self, text: &str) {
        if !self.json {
            outln!("{text}");
        }
    }

    fn step(&self, what: &str, took: Duration) {
        self.line(&format!("  {what:<72} [{:>8.1} ms]", ms(took)));
    }

    fn timing(&self, what: &str, took: Timing) {
        self.line(&format!("  {what:<72} [{}]", took.text()));
    }

    /// A step with the ciphertext's level and both noise budgets.
    fn noise(
        &self,
        what: &str,
        sk: &SecretKey,
        ct: &Ciphertext,
        took: Duration,
    ) -> helib_rs::Result<()> {
        let exact = sk.noise_budget(ct)?;
        self.step(
            &format!(
                "{what}: level {}, budget {exact:.1} bits (estimate {:.1})",
                ct.level(),
                ct.estimated_budget_bits()
            ),
            took,
        );
        Ok(())
    }

    fn field(&mut self, name: &str, value: impl serde::Serialize) {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        self.fields.insert(name.into(), value);
    }

    fn finish(self) {
        if self.json {
            cli::print_json(&self.fields);
        }
    }
}

/// The inner product of two encrypted BN254 vectors by rotate-and-sum, or
/// (with --measure-keys) the key-memory trade-off of rotation keys.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Parameter set: n15, n16, n17 (the BN254 presets; n15 with a 605-bit
    /// chain), bench (N = 2^16, 14 x 61-bit chain) or bench15 (the same chain
    /// at N = 2^15, insecure)
    #[arg(long, default_value = "n16",
          value_parser = ["n15", "n16", "n17", "bench", "bench15"])]
    preset: String,
    /// Engine worker threads (0 = one per hardware thread) [default: the
    /// preset's]
    #[arg(long)]
    threads: Option<u32>,
    /// Measure the key-memory trade-off instead of the inner product
    #[arg(long, default_value_t = false)]
    measure_keys: bool,
    #[command(flatten)]
    common: CommonArgs,
}
