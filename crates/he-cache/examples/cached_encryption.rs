//! Cached encryption on synthetic series shaped like the Smuche paper's
//! workloads, with every encryptor of `he-cache`.
//!
//! The three series (seeded, synthetic — no data is downloaded):
//! - **covid**: 341 days × 16 daily metrics (5,456 counts up to ~3·10^5);
//! - **bitcoin**: 1,086 three-day trade volumes up to 10^12;
//! - **hg38**: 34,424 genome annotations (positions up to 2.5·10^8, exon counts).
//!
//! Each is encrypted, one value per ciphertext as in the paper, by fresh
//! public-key encryption, Rache (radix 2, just enough pivots for the series'
//! maximum, as the paper sizes nPivot), Smuche (pivots 10^0..10^12) and the
//! secure pool (online step timed; its offline preparation timed apart).
//! Then the secure encryptors once more with **batching**: the series is
//! packed into N slots per plaintext with a `BatchEncoder<Fr>` (slot i of
//! ciphertext j holds value j·N + i), so ⌈len/N⌉ ciphertexts carry it all.
//! The cached constructions cannot batch: they build ciphertexts by scalar
//! operations, which act on every slot alike.
//!
//! Parameters: t = BN254 Fr, N = 2^14 by default (128-bit secure; chain
//! sized by `he_cache::params::cached_encryption` for 40-bit scalars, the
//! largest values here), engine threads = 1.
//!
//! ```text
//! cargo run --release --example cached_encryption                 # first 256 values of each series (~1.5 min)
//! cargo run --release --example cached_encryption -- --limit 2000 # more values
//! cargo run --release --example cached_encryption -- --full       # whole series (~40 min at N = 2^14 on 2 busy cores)
//! cargo run --release --example cached_encryption -- --log-n 15 --json
//! ```
//!
//! With `--json`, stdout is one JSON array with one object per row:
//! `series`, `encryptor` (its name), `secure` (bool), `values`,
//! `ciphertexts`, `offline_ms`, `online_ms`, `us_per_value` (online time per
//! value, µs) and `min_budget_bits` (least remaining noise budget of the
//! checked outputs).

use std::error::Error;

use clap::Parser;
use example_support::cli::{self, CommonArgs};
use example_support::outln;
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ark_bn254::Fr;
use ark_ff::PrimeField;
use he_cache::{
    params, Encryptor, Engine, FreshEncryptor, InsecureRache, InsecureSmuche, PlaintextEncryptor,
    PoolConfig, Radix, SecurePool, Security, WhenDry,
};
use helib_rs::{BatchEncoder, Ciphertext, Context, Plaintext, SecretKey};
use num_bigint::BigUint;
use rand::{rngs::StdRng, Rng, SeedableRng};

/// Encrypts three synthetic series with every encryptor of he-cache (fresh,
/// Rache, Smuche, the secure pool; then batched) and compares their speed.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// log2 of the ring degree N
    #[arg(long, default_value_t = 14, value_parser = clap::value_parser!(u32).range(10..=17))]
    log_n: u32,
    /// Values taken from the start of each series
    #[arg(long, default_value_t = 256, conflicts_with = "full")]
    limit: usize,
    /// Whole series (instead of --limit)
    #[arg(long, default_value_t = false)]
    full: bool,
    /// Engine worker threads (0 = one per hardware thread)
    #[arg(long, default_value_t = 1)]
    threads: u32,
    #[command(flatten)]
    common: CommonArgs,
}

impl Options {
    fn limit(&self) -> Option<usize> {
        (!self.full).then_some(self.limit)
    }
}

/// A named synthetic series.
struct Series {
    name: &'static str,
    values: Vec<u64>,
}

/// The three workloads, from fixed seeds.
fn workloads() -> Vec<Series> {
    let mut rng = StdRng::seed_from_u64(2023);
    let covid = (0..341)
        .flat_map(|day| {
            let wave = 1.0 + (f64::from(day) / 40.0).sin() * 0.8;
            (0..16).map(move |metric| (day, metric, wave))
        })
        .map(|(_, metric, wave)| {
            let scale = 10f64.powi(1 + metric % 5);
            (scale * wave * rng.gen_range(0.5..1.5)) as u64
        })
        .collect();
    let bitcoin = (0..1086)
        .map(|i| {
            let trend = 6.0 + 6.0 * f64::from(i) / 1086.0;
            10f64.powf(trend - rng.gen_range(0.0..0.7)) as u64
        })
        .collect();
    let hg38 = (0..34_424)
        .map(|i| match i % 4 {
            0 | 1 => rng.gen_range(10_000..250_000_000),
            2 => rng.gen_range(1..120),
            _ => rng.gen_range(100..2_000_000),
        })
        .collect();
    vec![
        Series {
            name: "covid",
            values: covid,
        },
        Series {
            name: "bitcoin",
            values: bitcoin,
        },
        Series {
            name: "hg38",
            values: hg38,
        },
    ]
}

/// One line of the result table.
struct Row {
    series: &'static str,
    encryptor: String,
    secure: bool,
    values: usize,
    ciphertexts: usize,
    offline: Duration,
    online: Duration,
    min_budget: f64,
}

impl Row {
    fn new(series: &'static str, encryptor: &dyn Encryptor, offline: Duration) -> Self {
        Self {
            series,
            encryptor: encryptor.name(),
            secure: encryptor.security() == Security::Secure,
            values: 0,
            ciphertexts: 0,
            offline,
            online: Duration::ZERO,
            min_budget: f64::INFINITY,
        }
    }

    fn per_value_us(&self) -> f64 {
        self.online.as_secs_f64() * 1e6 / self.values as f64
    }
}

/// Keys, the batch encoder, and checks against the secret key.
struct Bench {
    sk: SecretKey,
    pk: Arc<helib_rs::PublicKey>,
    encoder: BatchEncoder<Fr>,
}

/// Outputs kept for checking: a few, not all (each is megabytes).
const CHECKED: usize = 8;

impl Bench {
    /// Checks that `ct` decrypts to the constant `value`; returns its remaining budget.
    fn check_constant(&self, ct: &Ciphertext, value: u64) -> Result<f64, Box<dyn Error>> {
        let expected = Plaintext::from_u64s(self.encoder.context(), &[value])?;
        if self.sk.decrypt(ct)? != expected {
            return Err(format!("an output did not decrypt to {value}").into());
        }
        Ok(self.sk.noise_budget(ct)?)
    }

    /// Checks that `ct`'s first slots hold `values`; returns its remaining budget.
    fn check_slots(&self, ct: &Ciphertext, values: &[u64]) -> Result<f64, Box<dyn Error>> {
        let slots = self.encoder.decode(&self.sk.decrypt(ct)?)?;
        if !values.iter().zip(&slots).all(|(v, s)| Fr::from(*v) == *s) {
            return Err("a batched output decrypted to wrong slots".into());
        }
        Ok(self.sk.noise_budget(ct)?)
    }

    /// Encrypts `values` one per ciphertext, adding to `row`; checks the
    /// first few outputs of the row.
    fn per_value_into(
        &self,
        row: &mut Row,
        encryptor: &dyn Encryptor,
        values: &[u64],
    ) -> Result<(), Box<dyn Error>> {
        for &value in values {
            let start = Instant::now();
            let ct = encryptor.encrypt_value(&BigUint::from(value))?;
            row.online += start.elapsed();
            if row.values < CHECKED {
                row.min_budget = row.min_budget.min(self.check_constant(&ct, value)?);
            }
            row.values += 1;
            row.ciphertexts += 1;
        }
        Ok(())
    }

    /// Encrypts `values` one per ciphertext.
    fn per_value(
        &self,
        series: &'static str,
        encryptor: &dyn Encryptor,
        offline: Duration,
        values: &[u64],
    ) -> Result<Row, Box<dyn Error>> {
        let mut row = Row::new(series, encryptor, offline);
        self.per_value_into(&mut row, encryptor, values)?;
        Ok(row)
    }

    /// The pool per value, prepared in chunks on this thread: offline
    /// (fill) and online (encrypt) timed apart. In deployment the offline
    /// part runs on background workers.
    fn pool_per_value(&self, series: &'static str, values: &[u64]) -> Result<Row, Box<dyn Error>> {
        const CHUNK: usize = 32;
        let config = PoolConfig::new(CHUNK).workers(0).when_dry(WhenDry::Fail);
        let pool = SecurePool::new(self.pk.clone(), config)?;
        let mut row = Row::new(series, &pool, Duration::ZERO);
        for chunk in values.chunks(CHUNK) {
            let start = Instant::now();
            pool.fill(chunk.len())?;
            row.offline += start.elapsed();
            self.per_value_into(&mut row, &pool, chunk)?;
        }
        Ok(row)
    }

    /// Packs `values` into slots, ⌈len/N⌉ plaintexts, and encrypts them.
    fn batched(
        &self,
        series: &'static str,
        encryptor: &dyn PlaintextEncryptor,
        offline: Duration,
        values: &[u64],
    ) -> Result<Row, Box<dyn Error>> {
        let mut online = Duration::ZERO;
        let mut min_budget = f64::INFINITY;
        let mut ciphertexts = 0;
        for chunk in values.chunks(self.encoder.slot_count()) {
            let start = Instant::now();
            let slots: Vec<Fr> = chunk.iter().map(|&v| Fr::from(v)).collect();
            let ct = encryptor.encrypt_plaintext(&self.encoder.encode(&slots)?)?;
            online += start.elapsed();
            min_budget = min_budget.min(self.check_slots(&ct, chunk)?);
            ciphertexts += 1;
        }
        Ok(Row {
            series,
            encryptor: format!("{} (batched)", encryptor.name()),
            secure: true,
            values: values.len(),
            ciphertexts,
            offline,
            online,
            min_budget,
        })
    }
}

/// Times the construction of a cache.
fn timed<T>(
    make: impl FnOnce() -> Result<T, he_cache::Error>,
) -> Result<(T, Duration), he_cache::Error> {
    let start = Instant::now();
    let value = make()?;
    Ok((value, start.elapsed()))
}

fn run_series(
    bench: &Bench,
    series: &Series,
    limit: Option<usize>,
) -> Result<Vec<Row>, Box<dyn Error>> {
    let values = &series.values[..limit.unwrap_or(usize::MAX).min(series.values.len())];
    let max = values.iter().copied().max().unwrap_or(1).max(1);
    let bits = (u64::BITS - max.leading_zeros()) as usize;
    let engine = Engine::new(bench.pk.clone());
    let (rache, rache_setup) = timed(|| InsecureRache::new(engine.clone(), Radix::new(2, bits)?))?;
    let (smuche, smuche_setup) =
        timed(|| InsecureSmuche::new(engine.clone(), Radix::new(10, 13)?))?;
    let fresh = FreshEncryptor::new(bench.pk.clone());

    let mut rows = vec![
        bench.per_value(series.name, &fresh, Duration::ZERO, values)?,
        bench.per_value(series.name, &rache, rache_setup, values)?,
        bench.per_value(series.name, &smuche, smuche_setup, values)?,
        bench.pool_per_value(series.name, values)?,
        bench.batched(series.name, &fresh, Duration::ZERO, values)?,
    ];
    let packed = values.len().div_ceil(bench.encoder.slot_count());
    let pool = SecurePool::new(bench.pk.clone(), PoolConfig::new(packed).workers(0))?;
    let (_, pool_setup) = timed(|| pool.fill(packed))?;
    rows.push(bench.batched(series.name, &pool, pool_setup, values)?);
    Ok(rows)
}

fn print_table(rows: &[Row]) {
    outln!(
        "{:<8} {:<24} {:>6} {:>7} {:>5} {:>11} {:>11} {:>10} {:>8} {:>7}",
        "series",
        "encryptor",
        "secure",
        "values",
        "cts",
        "offline ms",
        "online ms",
        "µs/value",
        "speedup",
        "budget"
    );
    for group in rows.chunk_by(|a, b| a.series == b.series) {
        let fresh = group[0].per_value_us();
        for row in group {
            outln!(
                "{:<8} {:<24} {:>6} {:>7} {:>5} {:>11.1} {:>11.1} {:>10.1} {:>7.1}× {:>7.1}",
                row.series,
                row.encryptor,
                if row.secure { "yes" } else { "NO" },
                row.values,
                row.ciphertexts,
                row.offline.as_secs_f64() * 1e3,
                row.online.as_secs_f64() * 1e3,
                row.per_value_us(),
                fresh / row.per_value_us(),
                row.min_budget,
            );
        }
    }
}

/// One JSON object per row, in an array.
#[derive(Serialize)]
struct JsonRow<'a> {
    series: &'a str,
    encryptor: &'a str,
    secure: bool,
    values: usize,
    ciphertexts: usize,
    offline_ms: f64,
    online_ms: f64,
    us_per_value: f64,
    min_budget_bits: f64,
}

fn print_json(rows: &[Row]) {
    let items: Vec<JsonRow<'_>> = rows
        .iter()
        .map(|r| JsonRow {
            series: r.series,
            encryptor: &r.encryptor,
            secure: r.secure,
            values: r.values,
            ciphertexts: r.ciphertexts,
            offline_ms: r.offline.as_secs_f64() * 1e3,
            online_ms: r.online.as_secs_f64() * 1e3,
            us_per_value: r.per_value_us(),
            min_budget_bits: r.min_budget,
        })
        .collect();
    cli::print_json(&items);
}

fn main() {
    example_support::exit_with(run(&Options::parse()).map(|()| true));
}

fn run(options: &Options) -> Result<(), Box<dyn Error>> {
    let bn254: BigUint = Fr::MODULUS.into();
    let params = params::cached_encryption(1 << options.log_n, bn254, 40)
        .threads(options.threads)
        .build()?;
    let context = Context::new(&params)?;
    let sk = SecretKey::generate(&context)?;
    let bench = Bench {
        pk: Arc::new(sk.public_key()?),
        encoder: BatchEncoder::new(&context)?,
        sk,
    };
    if !options.common.json {
        let log_q = context.log2_modulus(context.max_level()).unwrap_or(0.0);
        outln!(
            "t = BN254 Fr, N = 2^{}, log2 Q = {log_q:.0} ({} primes), {}-bit security; values per series: {}",
            options.log_n,
            context.max_level() + 1,
            params.security_level().bits(),
            options.limit().map_or("all".to_string(), |l| format!("first {l}")),
        );
        outln!("speedup = fresh µs/value ÷ this µs/value (online); budget = least remaining noise budget (bits) of the checked outputs\n");
    }
    let mut rows = Vec::new();
    for series in workloads() {
        rows.extend(run_series(&bench, &series, options.limit())?);
    }
    if options.common.json {
        print_json(&rows);
    } else {
        print_table(&rows);
    }
    Ok(())
}
