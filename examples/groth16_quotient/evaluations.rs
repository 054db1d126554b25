//! Evaluation input converted on the server: the client sends a and b as
//! slot evaluations on H; the server turns each into coefficient form with a
//! he-fft `ConversionPlan` and computes h = ⌊A·B / X^n⌋ with one polynomial
//! product, as for coefficient input.

use std::time::Instant;

use ark_bn254::Fr;
use he_fft::{
    available_memory_bytes, suggest_conversion_parameters, Conversion, ConversionPlan, KeyMode,
};
use he_poly::{BlockLayout, EncryptedPolynomial};
use helib_rs::{Context, SecretKey};
use serde_json::json;

use crate::{Options, Result, Summary, Witness};
use example_support::outln;

/// Largest n whose conversion defaults to keys for every baby and giant
/// step; above it the keys (and their generation time) grow with n, and the
/// minimal set (O(1) keys per level) is the default.
const FAST_KEYS_UP_TO: usize = 1 << 12;

/// Share of the available memory an encoded plan may take; above it the
/// diagonals are encoded at each execution instead.
const ENCODED_PLAN_MEMORY_SHARE: f64 = 0.6;

pub fn run(o: &Options, w: &Witness) -> Result<Summary> {
    let n = o.n;
    // Client, offline: parameters, keys and the Galois keys of the conversion.
    let offline = Instant::now();
    let params =
        suggest_conversion_parameters::<Fr>(n, Conversion::SlotsToCoefficients, 1, o.threads)?;
    let context = Context::new(&params)?;
    if o.threads != 0 {
        context.set_threads(o.threads)?;
    }
    let sk = SecretKey::generate(&context)?;
    let pk = sk.public_key()?;
    let key_mode = o.key_mode.map_or(
        if n <= FAST_KEYS_UP_TO {
            KeyMode::Fast
        } else {
            KeyMode::MinimalKeys
        },
        KeyMode::from,
    );
    let offline_keys_s = offline.elapsed().as_secs_f64();

    // Server, once per (context, n): the conversion plan. It depends on no
    // key, so the server builds it while the client makes its keys.
    let setup = Instant::now();
    let mut builder = ConversionPlan::<Fr>::slots_to_coefficients(&context, n).key_mode(key_mode);
    let encoded_fits = match (builder.memory_estimate(), available_memory_bytes()) {
        (Ok(estimate), Some(available)) => {
            (estimate.peak_bytes() as f64) <= ENCODED_PLAN_MEMORY_SHARE * available as f64
        }
        _ => true,
    };
    if !encoded_fits {
        builder = builder.encode_per_execution();
    }
    let plan = builder.build()?;
    let server_setup_s = setup.elapsed().as_secs_f64();

    let galois = Instant::now();
    let keys = plan.generate_galois_keys(&sk)?;
    let client_offline_s = offline_keys_s + galois.elapsed().as_secs_f64();
    let key_bytes = keys.size_bytes();

    // Client, online: encrypt a and b in slots.
    let online = Instant::now();
    let input_a = plan.encrypt(&pk, &w.a)?;
    let input_b = plan.encrypt(&pk, &w.b)?;
    let mut client_online_s = online.elapsed().as_secs_f64();
    let upload_bytes = input_a.to_bytes()?.len() + input_b.to_bytes()?.len();

    // Server: both inputs to coefficient form (one block of stride N/2
    // each), one product keeping the blocks from X^n on, switched down.
    let server = Instant::now();
    let layout = BlockLayout::fresh(context.ring_degree() / 2, n);
    let a = EncryptedPolynomial::<Fr>::from_blocks(vec![plan.execute(&input_a, &keys)?], layout)?;
    let b = EncryptedPolynomial::<Fr>::from_blocks(vec![plan.execute(&input_b, &keys)?], layout)?;
    let conversion_s = server.elapsed().as_secs_f64();
    let h = EncryptedPolynomial::groth16_quotient(&a, &b, n)?.mod_switch_reduce_noise()?;
    let server_s = server.elapsed().as_secs_f64();
    let download_bytes = h.size_bytes()?;
    let budget = h.estimated_budget_bits();

    // Client, online: decrypt h.
    let decrypt = Instant::now();
    let coefficients = h.decrypt(&sk)?;
    let decrypt_s = decrypt.elapsed().as_secs_f64();
    client_online_s += decrypt_s;

    let log2_q = params.chain_bits().iter().sum::<u32>();
    let log2_p = params.special_bits().iter().sum::<u32>();
    let cost = plan.cost();
    if !o.json {
        outln!(
            "Groth16 quotient from slot evaluations converted on the server: n = {n}, N = {}, \
             log2 Q = {log2_q}, log2 P = {log2_p}; conversion: {} ({} rotations, {} key \
             switches, {} plaintext products per input), {} Galois keys ({:.2} GiB), diagonals \
             encoded {}",
            context.ring_degree(),
            plan.describe(),
            cost.rotations,
            cost.key_switches,
            cost.multiplications,
            keys.len(),
            key_bytes as f64 / f64::from(1 << 30),
            if encoded_fits {
                "once"
            } else {
                "at each execution (the encoded plan would not fit in memory)"
            }
        );
        outln!(
            "server: plan built in {server_setup_s:.3} s (once per context and n); conversions \
             {conversion_s:.3} s, product and switch {:.3} s; h at level {}, estimated budget \
             {budget:.0} bits",
            server_s - conversion_s,
            h.level()
        );
    }
    Ok(Summary {
        h: coefficients,
        server_s,
        client_online_s,
        client_offline_s,
        upload_bytes,
        download_bytes,
        security_bits: params.security_level().bits(),
        details: json!({
            "ring_degree": context.ring_degree(),
            "log2_q": log2_q,
            "log2_p": log2_p,
            "conversion_levels": plan.depth(),
            "key_mode": format!("{key_mode:?}").to_lowercase(),
            "diagonals_encoded_once": encoded_fits,
            "galois_keys": keys.len(),
            "galois_key_bytes": key_bytes,
            "server_setup_s": server_setup_s,
            "server_conversion_s": conversion_s,
            "server_product_s": server_s - conversion_s,
            "client_decrypt_s": decrypt_s,
            "h_level": h.level(),
            "estimated_budget_bits": budget,
        }),
    })
}
