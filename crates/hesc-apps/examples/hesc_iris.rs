//! HESC oblivious inference on Iris (paper §4.3–4.4): a 4-4-3 network with x²
//! activation, trained here, evaluated in float, in conventional and
//! concatenated stochastic computing, and on encrypted inputs with packed
//! HESC over BGV — with and without fusion of the output ciphertexts.
//!
//! ```text
//! cargo run --release --example hesc_iris                      # full tables (a few minutes)
//! cargo run --release --example hesc_iris -- --quick           # L = 64, 256, 1024 only, 2 trials, no BN254 run
//! cargo run --release --example hesc_iris -- --lens 1024,2048 --trials 10 --log-n 15
//! cargo run --release --example hesc_iris -- --json            # also print a JSON summary
//! ```
//!
//! Flags: see `--help`. With `--json` the last line of stdout is one JSON
//! object after the text tables: `float_test` (float accuracy on the test
//! set) and `rows`, one object per stream length with `L`, `float`,
//! `conventional`, `concatenated`, `hesc` (test accuracies), the
//! per-sample times `encrypt_ms`, `layer1_ms`, `layer2_ms`, `decrypt_ms`,
//! `fuse_ms`, `decrypt_fused_ms`, and the ciphertext counts `output_cts`,
//! `fused_cts`.

use std::error::Error;

use clap::Parser;
use example_support::cli::{self, CommonArgs};
use example_support::outln;
use serde::Serialize;
use std::time::{Duration, Instant};

use ark_ff::{FftField, PrimeField};
use helib_rs::{Context, Parameters, PublicKey, SecretKey};
use hesc::fields::{Fp12289, Fp65537};
use hesc::{params, FusionCapacity, PackedHesc};
use hesc_apps::iris::{self, sc, Dataset, Network, Normalizer, TrainConfig, INPUTS, OUTPUTS};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn main() {
    example_support::exit_with(run(&Options::parse_and_apply_quick()).map(|()| true));
}

fn run(opt: &Options) -> Result<(), Box<dyn Error>> {
    let data = load_iris()?;
    let (train_raw, test_raw) = iris::stratified_split(&data, 10, 7);
    let normalizer = Normalizer::fit(&train_raw)?;
    let (train, test) = (
        normalizer.apply_all(&train_raw),
        normalizer.apply_all(&test_raw),
    );
    let started = Instant::now();
    let config = TrainConfig {
        epochs: opt.epochs,
        ..TrainConfig::default()
    };
    let net = iris::train(&train, &config);
    let float_train = iris::accuracy(&train, |x| Ok(net.forward(x)))?;
    let float_test = iris::accuracy(&test, |x| Ok(net.forward(x)))?;
    outln!("HESC oblivious inference on Iris (linfa-datasets, 150 samples)");
    outln!(
        "  split 120/30 (stratified), features scaled to [-1, 1]; 4-4-3 network, x^2 activation, \
         weights in [-1, 1]; trained in {:.1} s ({} Adam steps, softmax scale {} + center loss weight {})",
        started.elapsed().as_secs_f64(),
        config.epochs,
        config.scale,
        config.center_weight
    );
    outln!(
        "  float accuracy: train {:.1} %, test {:.1} %",
        100.0 * float_train,
        100.0 * float_test
    );
    let min_margin = test
        .features
        .iter()
        .zip(&test.labels)
        .map(|(x, &y)| margin(&net.forward(x), y))
        .fold(f64::INFINITY, f64::min);
    outln!("  smallest test margin o_y - max_(k != y) o_k: {min_margin:.4}\n");

    // Packed HESC over BGV with t = 65537.
    let params65537 = params::t65537(opt.log_n, 2)?;
    let bgv = Bgv::<Fp65537>::new(&params65537)?;
    outln!("Encrypted HESC: {}", bgv.describe());

    let mut rng = ChaCha8Rng::seed_from_u64(opt.seed);
    let mut rows = Vec::new();
    outln!("\nTest accuracy (%) vs stream length L (SC columns: mean of {} trials; HESC: one encrypted run)", opt.trials);
    outln!("| L | float | conventional SC | concatenated SC | encrypted HESC | HESC = plaintext model bits |");
    outln!("|---:|---:|---:|---:|---:|:---:|");
    for &len in &opt.lens {
        let conventional = mean_accuracy(opt.trials, |_| {
            iris::accuracy(&test, |x| sc::conventional(&net, x, len, &mut rng))
        })?;
        let concatenated = mean_accuracy(opt.trials, |_| {
            let outputs = sc::concatenated(&net, &test.features, len, &mut rng)?;
            Ok(hits(&outputs, &test.labels) as f64 / test.len() as f64)
        })?;
        let run = bgv.run(&net, &test, len, &mut rng, true)?;
        outln!(
            "| {len} | {:.1} | {:.1} | {:.1} | {:.1} | {} |",
            100.0 * float_test,
            100.0 * conventional,
            100.0 * concatenated,
            100.0 * run.accuracy,
            if run.matches_model { "yes" } else { "NO" }
        );
        rows.push((len, conventional, concatenated, run));
    }

    outln!(
        "\nPer-sample time (ms), t = 65537, N = 2^{} ({} samples, lanes = samples per ciphertext)",
        opt.log_n,
        test.len()
    );
    outln!("| L | lanes | model enc (offline) | encrypt | layer 1 | layer 2 | decrypt | fuse | decrypt fused | total w/o fusion | total w/ fusion | output cts | fused cts | decrypt speed-up |");
    outln!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (len, _, _, run) in &rows {
        run.print_timing_row(*len);
    }

    outln!(
        "\nFusion capacity (radix W = 6: output slots hold up to 5) and the Iris output at L = {}",
        opt.fusion_len
    );
    outln!("| t | N | security | budget after layer 2 (bits) | max fused by t | by noise | output cts | fused cts | decrypt (ms/sample) | fused: fuse + decrypt (ms/sample) |");
    outln!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    if !opt.skip_12289 {
        let b = Bgv::<Fp12289>::new(&params::t12289_n11()?)?;
        let run = b.run(&net, &test, opt.fusion_len, &mut rng, false)?;
        b.print_fusion_row("12289 (paper)", &run)?;
    }
    let run = rows.iter().find(|r| r.0 == opt.fusion_len).map(|r| &r.3);
    match run {
        Some(run) => bgv.print_fusion_row("65537", run)?,
        None => {
            let run = bgv.run(&net, &test, opt.fusion_len, &mut rng, false)?;
            bgv.print_fusion_row("65537", &run)?;
        }
    }
    if !opt.skip_bn254 {
        let b = Bgv::<ark_bn254::Fr>::new(&Parameters::bn254_n15())?;
        let run = b.run(&net, &test, opt.fusion_len, &mut rng, false)?;
        b.print_fusion_row("BN254 r (254 bits)", &run)?;
    }

    if opt.common.json {
        let rows = rows
            .iter()
            .map(|(len, conv, cat, run)| SummaryRow {
                len: *len,
                float: float_test,
                conventional: *conv,
                concatenated: *cat,
                hesc: run.accuracy,
                encrypt_ms: run.per_sample(run.times.encrypt),
                layer1_ms: run.per_sample(run.times.layer1),
                layer2_ms: run.per_sample(run.times.layer2),
                decrypt_ms: run.per_sample(run.times.decrypt),
                fuse_ms: run.per_sample(run.times.fuse),
                decrypt_fused_ms: run.per_sample(run.times.decrypt_fused),
                output_cts: run.output_cts,
                fused_cts: run.fused_cts,
            })
            .collect();
        outln!();
        cli::print_json(&Summary { float_test, rows });
    }
    Ok(())
}

/// The Iris data shipped inside `linfa-datasets` (no download).
fn load_iris() -> Result<Dataset, Box<dyn Error>> {
    let ds = linfa_datasets::iris();
    let records = &ds.records;
    let features = (0..records.nrows())
        .map(|i| std::array::from_fn(|a| records[[i, a]]))
        .collect();
    Ok(Dataset::new(features, ds.targets.to_vec())?)
}

fn margin(o: &[f64; OUTPUTS], y: usize) -> f64 {
    let other = (0..OUTPUTS)
        .filter(|&k| k != y)
        .map(|k| o[k])
        .fold(f64::NEG_INFINITY, f64::max);
    o[y] - other
}

fn hits(outputs: &[[f64; OUTPUTS]], labels: &[usize]) -> usize {
    outputs
        .iter()
        .zip(labels)
        .filter(|(o, &y)| iris::argmax(o) == y)
        .count()
}

fn mean_accuracy(
    trials: usize,
    mut f: impl FnMut(usize) -> hesc::Result<f64>,
) -> hesc::Result<f64> {
    let mut total = 0.0;
    for t in 0..trials {
        total += f(t)?;
    }
    Ok(total / trials.max(1) as f64)
}

/// Packed HESC with keys.
struct Bgv<F: PrimeField + FftField> {
    hesc: PackedHesc<F>,
    sk: SecretKey,
    pk: PublicKey,
}

#[derive(Default)]
struct Times {
    model: Duration,
    encrypt: Duration,
    layer1: Duration,
    layer2: Duration,
    decrypt: Duration,
    fuse: Duration,
    decrypt_fused: Duration,
}

struct Run {
    accuracy: f64,
    matches_model: bool,
    samples: usize,
    lanes: usize,
    times: Times,
    output_cts: usize,
    fused_cts: usize,
    budget_bits: f64,
}

impl Run {
    fn per_sample(&self, d: Duration) -> f64 {
        d.as_secs_f64() * 1e3 / self.samples.max(1) as f64
    }

    fn print_timing_row(&self, len: usize) {
        let t = &self.times;
        let ms = |d| self.per_sample(d);
        let common = ms(t.encrypt) + ms(t.layer1) + ms(t.layer2);
        outln!(
            "| {len} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {:.1}x |",
            self.lanes,
            ms(t.model),
            ms(t.encrypt),
            ms(t.layer1),
            ms(t.layer2),
            ms(t.decrypt),
            ms(t.fuse),
            ms(t.decrypt_fused),
            common + ms(t.decrypt),
            common + ms(t.fuse) + ms(t.decrypt_fused),
            self.output_cts,
            self.fused_cts,
            t.decrypt.as_secs_f64() / (t.fuse + t.decrypt_fused).as_secs_f64().max(1e-9)
        );
    }
}

impl<F: PrimeField + FftField> Bgv<F> {
    fn new(params: &Parameters) -> Result<Self, Box<dyn Error>> {
        let context = Context::new(params)?;
        let hesc = PackedHesc::new(&context)?;
        let sk = SecretKey::generate(&context)?;
        let pk = sk.public_key()?;
        Ok(Self { hesc, sk, pk })
    }

    fn describe(&self) -> String {
        let p = self.hesc.context().parameters();
        format!(
            "BGV t = {}, N = 2^{}, chain {:?} bits, special {:?} bits, log2(QP) = {}, security {}",
            p.plaintext_modulus(),
            p.ring_degree().trailing_zeros(),
            p.chain_bits(),
            p.special_bits(),
            p.log_qp_bound(),
            p.security_level()
        )
    }

    /// Encrypted inference of every sample of `data` at length `len`; lanes
    /// as many as fit a ciphertext. Decrypts both plainly and fused (and
    /// checks they agree); `check_model` also compares with the plaintext model.
    fn run(
        &self,
        net: &Network,
        data: &Dataset,
        len: usize,
        rng: &mut ChaCha8Rng,
        check_model: bool,
    ) -> Result<Run, Box<dyn Error>> {
        let (hesc, pk, sk) = (&self.hesc, &self.pk, &self.sk);
        let lanes = (hesc.slot_count() / len).clamp(1, data.len());
        let mut times = Times::default();
        let start = Instant::now();
        let model_plain = sc::ModelStreams::generate(net, lanes, len, rng)?;
        let model = model_plain.map(|l| hesc.encrypt(pk, l))?;
        times.model = start.elapsed();
        let (mut correct, mut matches, mut output_cts, mut fused_cts, mut budget) =
            (0, true, 0, 0, f64::INFINITY);
        for (batch_index, batch) in data.features.chunks(lanes).enumerate() {
            let mut samples: Vec<[f64; INPUTS]> = batch.to_vec();
            samples.resize(lanes, [0.0; INPUTS]); // pad the last batch
            let inputs_plain = sc::InputStreams::generate(&samples, len, rng)?;
            let t = Instant::now();
            let inputs = inputs_plain.map(|l| hesc.encrypt(pk, l))?;
            times.encrypt += t.elapsed();
            let t = Instant::now();
            let hidden = sc::layer1(hesc, &inputs, &model)?;
            times.layer1 += t.elapsed();
            let t = Instant::now();
            let outputs = sc::layer2(hesc, &hidden, &model)?;
            times.layer2 += t.elapsed();
            drop(hidden);
            output_cts += outputs.iter().map(|o| o.ciphertext_count()).sum::<usize>();
            budget = outputs
                .iter()
                .flat_map(|o| o.ciphertexts())
                .map(|c| c.estimated_budget_bits())
                .fold(budget, f64::min);

            let t = Instant::now();
            let plain: Vec<sc::Lanes> = outputs
                .iter()
                .map(|o| hesc.decrypt(sk, o))
                .collect::<hesc::Result<_>>()?;
            times.decrypt += t.elapsed();
            let t = Instant::now();
            let refs: Vec<_> = outputs.iter().collect();
            let fused = hesc.fuse(&refs, None)?;
            times.fuse += t.elapsed();
            fused_cts += fused.ciphertext_count();
            let t = Instant::now();
            let separated = hesc.decrypt_fused(sk, &fused)?;
            times.decrypt_fused += t.elapsed();
            matches &= separated == plain;
            if check_model && batch_index == 0 {
                let hidden = sc::layer1(&sc::Plain, &inputs_plain, &model_plain)?;
                matches &= sc::layer2(&sc::Plain, &hidden, &model_plain)? == plain;
            }
            let predictions = sc::outputs_per_lane(&plain);
            let labels = &data.labels[batch_index * lanes..];
            correct += hits(&predictions[..batch.len()], &labels[..batch.len()]);
        }
        Ok(Run {
            accuracy: correct as f64 / data.len() as f64,
            matches_model: matches,
            samples: data.len(),
            lanes,
            times,
            output_cts,
            fused_cts,
            budget_bits: budget,
        })
    }

    fn print_fusion_row(&self, name: &str, run: &Run) -> Result<(), Box<dyn Error>> {
        let p = self.hesc.context().parameters();
        let capacity = FusionCapacity::new(p.plaintext_modulus(), 6, run.budget_bits)?;
        outln!(
            "| {name} | 2^{} | {} | {:.1} | {} | {} | {} | {} | {:.2} | {:.2} |",
            p.ring_degree().trailing_zeros(),
            p.security_level(),
            run.budget_bits,
            capacity.by_plaintext,
            capacity.by_noise,
            run.output_cts,
            run.fused_cts,
            run.per_sample(run.times.decrypt),
            run.per_sample(run.times.fuse + run.times.decrypt_fused)
        );
        Ok(())
    }
}

/// HESC oblivious inference on Iris: a 4-4-3 network with x² activation,
/// in float, in stochastic computing, and on encrypted inputs.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Stream lengths L, comma-separated
    #[arg(long, value_delimiter = ',', value_parser = cli::positive,
          default_values_t = [64, 128, 256, 512, 1024, 2048, 4096])]
    lens: Vec<usize>,
    /// Stochastic-computing repetitions averaged per accuracy
    #[arg(long, default_value_t = 5, value_parser = cli::positive)]
    trials: usize,
    /// Ring degree 2^K for t = 65537
    #[arg(long, default_value_t = 14, value_parser = clap::value_parser!(u32).range(13..=15))]
    log_n: u32,
    /// Training steps
    #[arg(long, default_value_t = TrainConfig::default().epochs)]
    epochs: usize,
    /// Stream length of the fusion runs
    #[arg(long, default_value_t = 1024, value_parser = cli::positive)]
    fusion_len: usize,
    /// Skip the fusion run with t = BN254 r
    #[arg(long, default_value_t = false)]
    skip_bn254: bool,
    /// Skip the fusion run with t = 12289
    #[arg(long, default_value_t = false)]
    skip_12289: bool,
    /// Quick run: L = 64, 256, 1024, 2 trials, no BN254 run (overrides
    /// --lens and --trials)
    #[arg(long, default_value_t = false)]
    quick: bool,
    /// Seed of the stochastic streams
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    common: CommonArgs,
}

impl Options {
    fn parse_and_apply_quick() -> Self {
        let mut o = Options::parse();
        if o.quick {
            o.lens = vec![64, 256, 1024];
            o.trials = 2;
            o.skip_bn254 = true;
        }
        o
    }
}

/// The `--json` summary (see the module documentation).
#[derive(Serialize)]
struct Summary {
    float_test: f64,
    rows: Vec<SummaryRow>,
}

#[derive(Serialize)]
struct SummaryRow {
    #[serde(rename = "L")]
    len: usize,
    float: f64,
    conventional: f64,
    concatenated: f64,
    hesc: f64,
    encrypt_ms: f64,
    layer1_ms: f64,
    layer2_ms: f64,
    decrypt_ms: f64,
    fuse_ms: f64,
    decrypt_fused_ms: f64,
    output_cts: usize,
    fused_cts: usize,
}
