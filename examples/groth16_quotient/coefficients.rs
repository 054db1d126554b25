//! Coefficient input: the client sends its interpolants A and B; the server
//! computes h = ⌊A·B / X^n⌋ with one polynomial product.

use std::sync::Arc;
use std::time::Instant;

use ark_bn254::Fr;
use ark_poly::EvaluationDomain;
use he_cache::{PoolConfig, SecurePool};
use he_poly::{EncryptedPolynomial, PolyParameters};
use helib_rs::{Context, SecretKey};
use serde_json::json;

use crate::{Options, Result, Summary, Witness};
use example_support::outln;

pub fn run(o: &Options, w: &Witness) -> Result<Summary> {
    let n = o.n;
    // Client, offline: parameters, keys and a pool of encryptions of zero.
    let offline = Instant::now();
    let params = PolyParameters::for_field::<Fr>(n, 1)?;
    let context = Context::new(params.parameters())?;
    if o.threads != 0 {
        context.set_threads(o.threads)?;
    }
    let sk = SecretKey::generate(&context)?;
    let pk = Arc::new(sk.public_key()?);
    let blocks = n.div_ceil(params.stride());
    let pool = SecurePool::new(Arc::clone(&pk), PoolConfig::new(2 * blocks).workers(0))?;
    pool.fill(2 * blocks)?;
    let client_offline_s = offline.elapsed().as_secs_f64();

    // Client, online: interpolate a and b, encrypt A and B from the pool.
    let online = Instant::now();
    let (interpolant_a, interpolant_b) = (w.domain.ifft(&w.a), w.domain.ifft(&w.b));
    let ifft_s = online.elapsed().as_secs_f64();
    let a = EncryptedPolynomial::encrypt_with(&pool, &interpolant_a, params.stride())?;
    let b = EncryptedPolynomial::encrypt_with(&pool, &interpolant_b, params.stride())?;
    let mut client_online_s = online.elapsed().as_secs_f64();
    let encrypt_s = client_online_s - ifft_s;
    let upload_bytes = a.size_bytes()? + b.size_bytes()?;

    // Server: one product, only the blocks from X^n on, switched down for the download.
    let server = Instant::now();
    let product = EncryptedPolynomial::groth16_quotient(&a, &b, n)?;
    let product_s = server.elapsed().as_secs_f64();
    let h = product.mod_switch_reduce_noise()?;
    let server_s = server.elapsed().as_secs_f64();
    let download_bytes = h.size_bytes()?;
    let budget = h.estimated_budget_bits();
    let level = h.level();

    // Client, online: decrypt h.
    let decrypt = Instant::now();
    let coefficients = h.decrypt(&sk)?;
    let decrypt_s = decrypt.elapsed().as_secs_f64();
    client_online_s += decrypt_s;

    let p = params.parameters();
    if !o.json {
        outln!(
            "Groth16 quotient from coefficient-form A, B: n = {n}, N = {}, {} blocks of {} per \
             polynomial, log2 Q = {} ({} primes, no special primes, no keys but the public key)",
            p.ring_degree(),
            blocks,
            params.stride(),
            p.chain_bits().iter().sum::<u32>(),
            p.chain_bits().len()
        );
        outln!(
            "h: {} blocks at level {level}, estimated budget {budget:.0} bits",
            h.blocks().len()
        );
    }
    Ok(Summary {
        h: coefficients,
        server_s,
        client_online_s,
        client_offline_s,
        upload_bytes,
        download_bytes,
        security_bits: p.security_level().bits(),
        details: json!({
            "ring_degree": p.ring_degree(),
            "log2_q": p.chain_bits().iter().sum::<u32>(),
            "stride": params.stride(),
            "blocks_per_polynomial": blocks,
            "h_blocks": h.blocks().len(),
            "h_level": level,
            "estimated_budget_bits": budget,
            "client_ifft_s": ifft_s,
            "client_encrypt_s": encrypt_s,
            "server_product_s": product_s,
            "server_mod_switch_s": server_s - product_s,
            "client_decrypt_s": decrypt_s,
        }),
    })
}
