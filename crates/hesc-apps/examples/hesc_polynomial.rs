//! HESC evaluation of the all-ones polynomial f(x) = Σ_{i=0..n} xⁱ (paper §3.2.3 and §4.2):
//! the error of conventional vs concatenated SC addition by degree (with
//! averaging), and the time of encrypted HESC evaluation vs plain BGV.
//!
//! ```text
//! cargo run --release --example hesc_polynomial                 # L = 2048, degrees 2..10, averaging 1 and 10
//! cargo run --release --example hesc_polynomial -- --len 512 --averaging 1,4 --max-degree 6   # quicker
//! cargo run --release --example hesc_polynomial -- --json
//! ```
//!
//! With `--json` the last line of stdout, after the tables, is one JSON
//! object: `L` (stream length), `errors` (one object per degree `n` and
//! averaging `A`: `conv_mean`, `conv_max`, `concat_mean`, `concat_max`),
//! `hesc` (per degree `n` and `addition`: `encrypt_ms`, `server_ms`,
//! `decrypt_ms`, `cts`, `fused_cts`) and `plain_bgv_ms`.
//!
//! Plain BGV evaluates the same polynomial on a fixed-point encoding
//! X = round(x·2^k): the powers by ciphertext × ciphertext products with
//! relinearization (depth ⌈log2 n⌉), then one scalar product per power that
//! both aligns the scales (2^(k·(n−i))) and equalizes the BGV correction
//! factors (which differ between powers computed along different
//! modulus-switching paths), and the sum. Its parameters are the smallest
//! 128-bit-secure ones the builder's noise model allows for depth
//! ⌈log2 n⌉ + 1 (the extra level pays for the alignment products).

use std::error::Error;

use clap::Parser;
use example_support::cli::{self, CommonArgs};
use example_support::outln;
use serde::Serialize;
use std::time::{Duration, Instant};

use helib_rs::{
    Ciphertext, CoefficientEncoder, Context, EncodedPlaintext, ModSwitchPolicy, Parameters,
    RelinKey, SecretKey,
};
use hesc::fields::{Fp12289, Fp65537};
use hesc::{params, B2s, PackedHesc, Selection};
use hesc_apps::polynomial::{self, Addition};
use num_bigint::{BigInt, BigUint};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    example_support::exit_with(run(&Options::parse()).map(|()| true));
}

fn run(opt: &Options) -> Result<(), Box<dyn Error>> {
    let mut rng = ChaCha8Rng::seed_from_u64(opt.seed);
    outln!("f(x) = sum_(i=0..n) x^i in inverted-bipolar SC, L = {}, x in [-1, 1] step 0.01 (201 points), Bernoulli B2S", opt.len);
    outln!("\nMean / max absolute error (averaged over A independent evaluations per point)");
    let mut header = String::from("| n |");
    let mut rule = String::from("|---:|");
    for a in &opt.averaging {
        header +=
            &format!(" conv mean A={a} | conv max A={a} | concat mean A={a} | concat max A={a} |");
        rule += "---:|---:|---:|---:|";
    }
    outln!("{header}\n{rule}");
    let mut json_errors = Vec::new();
    for degree in 2..=opt.max_degree {
        let mut row = format!("| {degree} |");
        for &a in &opt.averaging {
            let conv = polynomial::error_stats(
                degree,
                opt.len,
                Addition::Conventional,
                a,
                B2s::Bernoulli,
                &mut rng,
            )?;
            let cat = polynomial::error_stats(
                degree,
                opt.len,
                Addition::Concatenated,
                a,
                B2s::Bernoulli,
                &mut rng,
            )?;
            row += &format!(
                " {:.4} | {:.4} | {:.4} | {:.4} |",
                conv.mean, conv.max, cat.mean, cat.max
            );
            json_errors.push(ErrorRow {
                n: degree,
                averaging: a,
                conv_mean: conv.mean,
                conv_max: conv.max,
                concat_mean: cat.mean,
                concat_max: cat.max,
            });
        }
        outln!("{row}");
    }

    // Encrypted HESC timing.
    outln!(
        "\nEncrypted HESC, one x per evaluation (ms, median of {} runs), L = {}",
        opt.runs,
        opt.len
    );
    let hesc_params = match opt.hesc_t {
        12289 => params::t12289_n11()?,
        _ => params::t65537(12, 1)?,
    };
    outln!("  parameters: {}", describe(&hesc_params));
    let context = Context::new(&hesc_params)?;
    let sk = SecretKey::generate(&context)?;
    let pk = sk.public_key()?;
    let hesc_rows = if opt.hesc_t == 12289 {
        let hesc = PackedHesc::<Fp12289>::new(&context)?;
        time_hesc(&hesc, &sk, &pk, opt, &mut rng)?
    } else {
        let hesc = PackedHesc::<Fp65537>::new(&context)?;
        time_hesc(&hesc, &sk, &pk, opt, &mut rng)?
    };
    outln!("| n | addition | client encrypt | server (powers + sum) | client decrypt | total | ciphertexts sent back | after fusion |");
    outln!("|---:|---|---:|---:|---:|---:|---:|---:|");
    for r in &hesc_rows {
        outln!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} |",
            r.degree,
            r.addition,
            ms(r.encrypt),
            ms(r.server),
            ms(r.decrypt),
            ms(r.encrypt + r.server + r.decrypt),
            r.cts,
            r.fused_cts
        );
    }

    // Plain BGV: the smallest secure parameters for depth ⌈log2 n⌉ + 1 with a
    // fixed-point plaintext modulus just big enough for the result.
    let depth = (opt.max_degree as f64).log2().ceil() as usize;
    // The builder's noise model is calibrated for ct × pt products; ct × ct
    // products and the alignment cost more, so extra levels are added until
    // the evaluation decrypts (the smallest such set is what plain BGV needs).
    let mut found = None;
    for extra in 1..=4 {
        let params = plain_bgv_parameters(opt.max_degree, opt.frac_bits, depth + extra)?;
        match time_plain_bgv(&params, opt.max_degree, opt.frac_bits, opt.runs) {
            Ok(timing) => {
                found = Some((params, extra, timing));
                break;
            }
            Err(e) => outln!(
                "  (depth {} + {extra} levels: {e}; trying a longer chain)",
                depth
            ),
        }
    }
    let (bgv_params, extra, bgv) = found.ok_or("no parameters up to depth + 4 worked")?;
    outln!(
        "\nPlain BGV evaluation of the same polynomial (fixed point X = x·2^{}, constant-coefficient encoding)",
        opt.frac_bits
    );
    outln!(
        "  n = {}: {} ct x ct products + relinearizations (depth {depth}), up to {} alignment plaintext products; \
         chain sized for depth {depth} + {extra} (the smallest that decrypts): {}",
        opt.max_degree,
        opt.max_degree - 1,
        opt.max_degree,
        describe(&bgv_params)
    );
    outln!(
        "  per evaluation (median of {} runs): encrypt {:.2} ms, powers {:.2} ms, align + sum {:.2} ms, decrypt {:.2} ms, \
         total {:.2} ms (relinearization key: {:.0} ms once, {:.1} MB); max |error| vs exact fixed point: {}",
        opt.runs,
        ms(bgv.encrypt),
        ms(bgv.powers),
        ms(bgv.sum),
        ms(bgv.decrypt),
        ms(bgv.total()),
        ms(bgv.key),
        bgv.key_bytes as f64 / 1e6,
        bgv.max_error
    );
    let hesc_top = hesc_rows
        .iter()
        .filter(|r| r.degree == opt.max_degree)
        .map(|r| (r.encrypt + r.server + r.decrypt, r.addition))
        .min()
        .unwrap_or_default();
    outln!(
        "  HESC degree {} ({}, with fusion): {:.2} ms; plain BGV / HESC = {:.1}x",
        opt.max_degree,
        hesc_top.1,
        ms(hesc_top.0),
        bgv.total().as_secs_f64() / hesc_top.0.as_secs_f64().max(1e-9)
    );
    if opt.common.json {
        let hesc = hesc_rows
            .iter()
            .map(|r| TimingRow {
                n: r.degree,
                addition: r.addition,
                encrypt_ms: ms(r.encrypt),
                server_ms: ms(r.server),
                decrypt_ms: ms(r.decrypt),
                cts: r.cts,
                fused_cts: r.fused_cts,
            })
            .collect();
        outln!();
        cli::print_json(&Report {
            len: opt.len,
            errors: json_errors,
            hesc,
            plain_bgv_ms: ms(bgv.total()),
        });
    }
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn describe(p: &Parameters) -> String {
    format!(
        "t = {}, N = 2^{}, chain {} primes ({} bits), special {} bits, log2(QP) = {}, security {}",
        if p.plaintext_modulus().bits() > 64 {
            format!("{}-bit", p.plaintext_modulus().bits())
        } else {
            p.plaintext_modulus().to_string()
        },
        p.ring_degree().trailing_zeros(),
        p.chain_bits().len(),
        p.chain_bits().iter().sum::<u32>(),
        p.special_bits().iter().sum::<u32>(),
        p.log_qp_bound(),
        p.security_level()
    )
}

struct HescRow {
    degree: usize,
    addition: &'static str,
    encrypt: Duration,
    server: Duration,
    decrypt: Duration,
    cts: usize,
    fused_cts: usize,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Client: B2S + encryption of n streams; server: powers and the sum;
/// client: (fused) decryption and S2B. The conventional sum needs one
/// plaintext product per power, which small parameters may not afford.
fn time_hesc<F: ark_ff::PrimeField + ark_ff::FftField>(
    hesc: &PackedHesc<F>,
    sk: &SecretKey,
    pk: &helib_rs::PublicKey,
    opt: &Options,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<HescRow>, Box<dyn Error>> {
    let mut rows = Vec::new();
    for degree in 2..=opt.max_degree {
        for (addition, name) in [
            (Addition::Concatenated, "concatenated"),
            (Addition::Conventional, "conventional"),
        ] {
            let (mut enc, mut server, mut dec) = (Vec::new(), Vec::new(), Vec::new());
            let (mut cts, mut fused_cts) = (0, 0);
            let mut failed = None;
            for _ in 0..opt.runs {
                let x = rng.gen_range(-1.0..=1.0);
                let t = Instant::now();
                let inputs = polynomial::input_streams(x, degree, opt.len, B2s::Bernoulli, rng)?;
                let encrypted = inputs
                    .iter()
                    .map(|s| hesc.encrypt(pk, std::slice::from_ref(s)))
                    .collect::<hesc::Result<Vec<_>>>()?;
                enc.push(t.elapsed());
                let selection = [Selection::uniform(
                    degree + 1,
                    opt.len,
                    B2s::Bernoulli,
                    rng,
                )?];
                let t = Instant::now();
                let result = match polynomial::evaluate_packed(
                    hesc,
                    pk,
                    &encrypted,
                    addition,
                    Some(&selection),
                ) {
                    Ok(r) => r,
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                };
                server.push(t.elapsed());
                let t = Instant::now();
                let value = polynomial::decrypt_packed(hesc, sk, &result, degree, !opt.no_fuse)?;
                dec.push(t.elapsed());
                cts = result.ciphertext_count();
                fused_cts = hesc.fuse(&[&result], None)?.ciphertext_count();
                // Same streams in the clear give the same value.
                let model = polynomial::evaluate_model(&inputs, addition, Some(&selection[0]))?;
                if (model.value() * (degree + 1) as f64 - value[0]).abs() > 1e-12 {
                    return Err("encrypted and plaintext SC disagree".into());
                }
            }
            if let Some(e) = failed {
                outln!("  n = {degree}, {name}: not possible with these parameters ({e})");
                continue;
            }
            rows.push(HescRow {
                degree,
                addition: name,
                encrypt: median(enc),
                server: median(server),
                decrypt: median(dec),
                cts,
                fused_cts: if !opt.no_fuse { fused_cts } else { cts },
            });
        }
    }
    Ok(rows)
}

/// The plain-BGV parameters for Σ xⁱ up to `degree` with X = x·2^k: t must
/// hold ±(n+1)·2^(k·n) without wrapping, so t = 2^(k·n + ⌈log2(n+1)⌉ + 2) + 1;
/// the chain is sized for `depth` multiplications and N is the smallest
/// power of two that keeps log2(QP) within the 128-bit bound.
fn plain_bgv_parameters(
    degree: usize,
    frac_bits: u32,
    depth: usize,
) -> Result<Parameters, Box<dyn Error>> {
    let t_bits = frac_bits as usize * degree + ((degree + 1) as f64).log2().ceil() as usize + 2;
    let t = (BigUint::from(1u32) << t_bits) + 1u32;
    for log_n in 12..=17u32 {
        for digits in [3usize, 4, 6] {
            let built = Parameters::builder()
                .ring_degree(1 << log_n)
                .plaintext_modulus(t.clone())
                .multiplicative_depth(depth)
                .key_switching_digits(digits)
                .build();
            if let Ok(params) = built {
                return Ok(params);
            }
        }
    }
    Err("no secure plain-BGV parameters up to N = 2^17".into())
}

/// Timings of one plain-BGV evaluation.
struct BgvTiming {
    key: Duration,
    key_bytes: usize,
    encrypt: Duration,
    powers: Duration,
    sum: Duration,
    decrypt: Duration,
    max_error: BigUint,
}

impl BgvTiming {
    fn total(&self) -> Duration {
        self.encrypt + self.powers + self.sum + self.decrypt
    }
}

/// Plain BGV: encrypt X, the powers Xⁱ = X^⌊i/2⌋·X^⌈i/2⌉ (switching modulus
/// before each product), then Σ rᵢ·[Xⁱ] + 2^(k·n) at the lowest level, where
/// rᵢ is the constant 2^(k·(n−i)) encoded with correction factor F/Fᵢ (F:
/// the factor of Xⁿ): it aligns the scales and turns each power's factor Fᵢ
/// into F; decrypt and compare
/// with the exact fixed-point value. Median of `runs` per phase.
fn time_plain_bgv(
    params: &Parameters,
    degree: usize,
    frac_bits: u32,
    runs: usize,
) -> Result<BgvTiming, Box<dyn Error>> {
    let context = Context::new(params)?;
    let t = context.plaintext_modulus().clone();
    let sk = SecretKey::generate(&context)?;
    let pk = sk.public_key()?;
    let start = Instant::now();
    let rk = RelinKey::generate(&sk)?;
    let key = start.elapsed();
    let encoder = CoefficientEncoder::new(&context);
    let k = frac_bits as usize;
    let (mut enc, mut pow, mut sum, mut dec) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut max_error = BigUint::default();
    for run in 0..runs {
        let x = ((run as i64 * 37) % (1 << frac_bits)) - (1 << (frac_bits - 1));
        let t0 = Instant::now();
        let ct = pk.encrypt(&encoder.encode_i64(&[x])?)?;
        enc.push(t0.elapsed());

        let t0 = Instant::now();
        let mut powers: Vec<Ciphertext> = vec![ct];
        for i in 2..=degree {
            let (a, b) = (i / 2, i - i / 2);
            let p = powers[a - 1].multiply_relin(
                &powers[b - 1],
                &rk,
                ModSwitchPolicy::BeforeMultiply,
            )?;
            powers.push(p);
        }
        pow.push(t0.elapsed());

        let t0 = Instant::now();
        let level = powers.iter().map(Ciphertext::level).min().unwrap_or(0);
        // Align to the factor of the deepest (noisiest) power, which then needs no product.
        let target = powers[degree - 1]
            .mod_switch_to(level)?
            .correction_factor()
            .clone();
        let mut acc: Option<Ciphertext> = None;
        for (i, p) in powers.iter().enumerate() {
            let mut term = p.mod_switch_to(level)?;
            let shift = k * (degree - i - 1);
            if shift > 0 || *term.correction_factor() != target {
                // A constant plaintext with factor F/Fᵢ turns the product's factor into F.
                let inverse = term
                    .correction_factor()
                    .modinv(&t)
                    .ok_or("correction factor not invertible")?;
                let scale = encoder.encode_biguint(&[(BigUint::from(1u32) << shift) % &t])?;
                let align =
                    EncodedPlaintext::with_factor(&scale, level, &(&target * inverse % &t))?;
                term.mul_plain_assign(&align)?;
            }
            match acc.as_mut() {
                None => acc = Some(term),
                Some(sum) => sum.add_assign(&term)?,
            }
        }
        let mut acc = acc.ok_or("degree 0")?;
        let one = encoder.encode_biguint(&[(BigUint::from(1u32) << (k * degree)) % &t])?;
        acc.add_plain_assign(&EncodedPlaintext::for_addition_to(&one, &acc)?)?;
        sum.push(t0.elapsed());

        let t0 = Instant::now();
        let value = encoder.decode_centered(&sk.decrypt(&acc)?)?.swap_remove(0);
        dec.push(t0.elapsed());
        let exact: BigInt = (0..=degree)
            .map(|i| BigInt::from(x).pow(i as u32) << (k * (degree - i)))
            .sum();
        max_error = max_error.max((value - exact).magnitude().clone());
    }
    Ok(BgvTiming {
        key,
        key_bytes: rk.size_bytes(),
        encrypt: median(enc),
        powers: median(pow),
        sum: median(sum),
        decrypt: median(dec),
        max_error,
    })
}

/// HESC evaluation of f(x) = sum_(i=0..n) x^i: SC addition errors by
/// degree, and encrypted HESC time against plain BGV.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Stream length L
    #[arg(long, default_value_t = 2048, value_parser = cli::positive)]
    len: usize,
    /// Largest degree n (2..=10)
    #[arg(long, default_value_t = 10, value_parser = degree)]
    max_degree: usize,
    /// Averaging counts A, comma-separated
    #[arg(long, value_delimiter = ',', value_parser = cli::positive, default_values_t = [1, 10])]
    averaging: Vec<usize>,
    /// Timed runs (the median is reported)
    #[arg(long, default_value_t = 5, value_parser = cli::positive)]
    runs: usize,
    /// Plaintext modulus of the HESC run (12289 or 65537)
    #[arg(long, default_value_t = 12289, value_parser = hesc_modulus)]
    hesc_t: u32,
    /// Fractional bits k of plain BGV's fixed-point encoding (1..=24)
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=24))]
    frac_bits: u32,
    /// Do not fuse the output ciphertexts
    #[arg(long, default_value_t = false)]
    no_fuse: bool,
    /// Seed of the stochastic streams
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    common: CommonArgs,
}

fn degree(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (2..=10).contains(&n) => Ok(n),
        _ => Err(format!("{text:?}: the degree goes from 2 to 10")),
    }
}

fn hesc_modulus(text: &str) -> Result<u32, String> {
    match text {
        "12289" => Ok(12289),
        "65537" => Ok(65537),
        _ => Err(format!("{text:?}: use 12289 or 65537")),
    }
}

/// One row of the error table in the `--json` report.
#[derive(Serialize)]
struct ErrorRow {
    n: usize,
    #[serde(rename = "A")]
    averaging: usize,
    conv_mean: f64,
    conv_max: f64,
    concat_mean: f64,
    concat_max: f64,
}

/// One HESC timing row in the `--json` report.
#[derive(Serialize)]
struct TimingRow {
    n: usize,
    addition: &'static str,
    encrypt_ms: f64,
    server_ms: f64,
    decrypt_ms: f64,
    cts: usize,
    fused_cts: usize,
}

/// The `--json` report.
#[derive(Serialize)]
struct Report {
    #[serde(rename = "L")]
    len: usize,
    errors: Vec<ErrorRow>,
    hesc: Vec<TimingRow>,
    plain_bgv_ms: f64,
}
