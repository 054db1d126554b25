//! Tests of serialization through the C ABI: round trips of every object kind
//! (decryption after loading equals decryption before), seeded sizes, the
//! format as specified (header fields, SHA-256 checksum and fingerprint,
//! recomputed here independently), wrong-context and wrong-kind loads, and
//! hostile input: every prefix, bit flips, and re-checksummed encodings with
//! out-of-range fields, all refused with a status code and without huge
//! allocations. Failed calls leave their outputs unchanged.

mod common;

use std::ptr::{null, null_mut};

use common::*;
use helib_sys::*;
use num_bigint::BigUint;
use rand::Rng;

const N: usize = 1024;
const HEADER: usize = 48;
const CHECKSUM: usize = 32;

fn t65537() -> BigUint {
    BigUint::from(65537u32)
}

/// N = 1024, t = 65537, three chain primes and one special prime.
fn ks_ctx() -> Ctx {
    Ctx::new(N as u64, &t65537(), &[50, 50, 50], &[60])
}

/// N = 1024, t = BN254 r, a chain long enough for a product at level 10.
fn bn_ctx() -> Ctx {
    Ctx::new(N as u64, &bn254_r(), &[60; 12], &[60, 60])
}

/// Bytes of N residues modulo each of `primes`, packed at their bit widths.
fn poly_bytes(primes: &[u64]) -> usize {
    primes
        .iter()
        .map(|q| N * (64 - q.leading_zeros() as usize) / 8)
        .sum()
}

// ------------------------------------------------------- two-call helpers

/// Runs a serializer with the two-call protocol, checking both calls.
fn serialized_checked(mut f: impl FnMut(*mut u8, *mut usize) -> helib_status) -> Vec<u8> {
    let mut len = 0usize;
    check(f(null_mut(), &mut len));
    assert!(
        len >= HEADER + CHECKSUM,
        "an encoding has a header and a checksum"
    );
    // One byte short: refused, *len and the buffer untouched.
    let mut short = vec![0xAAu8; len - 1];
    let mut short_len = len - 1;
    expect_status(
        f(short.as_mut_ptr(), &mut short_len),
        HELIB_ERR_BUFFER_TOO_SMALL,
        "one byte short",
    );
    assert_eq!(short_len, len - 1, "a failed call leaves *len unchanged");
    assert!(
        short.iter().all(|&b| b == 0xAA),
        "a failed call writes nothing"
    );
    let mut buf = vec![0u8; len + 5];
    let mut cap = buf.len();
    check(f(buf.as_mut_ptr(), &mut cap));
    assert_eq!(cap, len, "the second call reports the size of the first");
    buf.truncate(len);
    buf
}

fn ser_ct(ct: &Ct) -> Vec<u8> {
    // SAFETY: live ciphertext; buffer and length come from `serialized_checked`.
    serialized_checked(|buf, len| unsafe { helib_ciphertext_serialize(ct.0, buf, len) })
}

fn de_ct_raw(ctx: &Ctx, bytes: &[u8], dst: &Ct) -> helib_status {
    // SAFETY: `bytes` is a live slice of the length passed; handles are live.
    unsafe { helib_ciphertext_deserialize(ctx.ptr, bytes.as_ptr(), bytes.len(), dst.0) }
}

fn de_ct(ctx: &Ctx, bytes: &[u8]) -> Ct {
    let ct = Ct::empty(ctx);
    check(de_ct_raw(ctx, bytes, &ct));
    ct
}

fn ser_pk(pk: &PublicKey) -> Vec<u8> {
    // SAFETY: live key; buffer and length come from `serialized_checked`.
    serialized_checked(|buf, len| unsafe { helib_public_key_serialize(pk.0, buf, len) })
}

fn de_pk_raw(ctx: &Ctx, bytes: &[u8]) -> (helib_status, PublicKey) {
    let mut out = 0x10 as *mut helib_public_key; // a sentinel that must survive failures
                                                 // SAFETY: `bytes` is a live slice; `out` is a valid place.
    let s = unsafe { helib_public_key_deserialize(ctx.ptr, bytes.as_ptr(), bytes.len(), &mut out) };
    if s != HELIB_OK {
        assert_eq!(out as usize, 0x10, "a failed call leaves *out unchanged");
        out = null_mut();
    }
    (s, PublicKey(out))
}

fn ser_rk(rk: &RelinKey) -> Vec<u8> {
    // SAFETY: live key; buffer and length come from `serialized_checked`.
    serialized_checked(|buf, len| unsafe { helib_relin_key_serialize(rk.0, buf, len) })
}

fn de_rk_raw(ctx: &Ctx, bytes: &[u8]) -> (helib_status, RelinKey) {
    let mut out = 0x10 as *mut helib_relin_key;
    // SAFETY: `bytes` is a live slice; `out` is a valid place.
    let s = unsafe { helib_relin_key_deserialize(ctx.ptr, bytes.as_ptr(), bytes.len(), &mut out) };
    if s != HELIB_OK {
        assert_eq!(out as usize, 0x10, "a failed call leaves *out unchanged");
        out = null_mut();
    }
    (s, RelinKey(out))
}

fn ser_gk(keys: &GaloisKeys) -> Vec<u8> {
    // SAFETY: live keys; buffer and length come from `serialized_checked`.
    serialized_checked(|buf, len| unsafe { helib_galois_keys_serialize(keys.0, buf, len) })
}

fn de_gk_raw(ctx: &Ctx, bytes: &[u8]) -> (helib_status, GaloisKeys) {
    let mut out = 0x10 as *mut helib_galois_keys;
    // SAFETY: `bytes` is a live slice; `out` is a valid place.
    let s =
        unsafe { helib_galois_keys_deserialize(ctx.ptr, bytes.as_ptr(), bytes.len(), &mut out) };
    if s != HELIB_OK {
        assert_eq!(out as usize, 0x10, "a failed call leaves *out unchanged");
        out = null_mut();
    }
    (s, GaloisKeys(out))
}

fn ser_pt(ctx: &Ctx, m: &[BigUint]) -> Vec<u8> {
    let lpc = ctx.plain_limbs();
    let limbs = poly_to_limbs(m, lpc);
    // SAFETY: `limbs` holds m.len() * lpc limbs; buffer and length come from `serialized_checked`.
    serialized_checked(|buf, len| unsafe {
        helib_plaintext_serialize(ctx.ptr, limbs.as_ptr(), m.len(), lpc, buf, len)
    })
}

fn de_pt_raw(ctx: &Ctx, bytes: &[u8], out: &mut [u64], lpc: usize) -> helib_status {
    // SAFETY: both slices are live with the lengths passed.
    unsafe {
        helib_plaintext_deserialize(
            ctx.ptr,
            bytes.as_ptr(),
            bytes.len(),
            out.as_mut_ptr(),
            out.len(),
            lpc,
        )
    }
}

fn fingerprint(ctx: &Ctx) -> [u8; 32] {
    let mut out = [0u8; 32];
    // SAFETY: live context; `out` holds 32 bytes.
    check(unsafe { helib_context_fingerprint(ctx.ptr, out.as_mut_ptr(), out.len()) });
    out
}

fn relinearize(rk: &RelinKey, ctx: &Ctx, ct: &Ct) -> Ct {
    let out = Ct::empty(ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_relinearize(rk.0, ct.0, out.0) });
    out
}

fn multiply(ctx: &Ctx, a: &Ct, b: &Ct) -> Ct {
    let out = Ct::empty(ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_multiply(a.0, b.0, out.0) });
    out
}

fn rotate(keys: &GaloisKeys, ctx: &Ctx, ct: &Ct, step: i64) -> Ct {
    let out = Ct::empty(ctx);
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_rotate_rows(keys.0, ct.0, step, 0, out.0) });
    out
}

// --------------------------------------------- an independent SHA-256

/// SHA-256 (FIPS 180-4), written here independently of the engine's.
fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [
                t1.wrapping_add(t2),
                v[0],
                v[1],
                v[2],
                v[3].wrapping_add(t1),
                v[4],
                v[5],
                v[6],
            ];
        }
        for (x, y) in h.iter_mut().zip(v) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (i, x) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

#[test]
fn own_sha256_matches_the_standard_vectors() {
    let hex = |d: [u8; 32]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert_eq!(
        hex(sha256(b"")),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        hex(sha256(b"abc")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        hex(sha256(
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        )),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
}

/// Replaces the trailing checksum so that a tampered encoding reaches the decoder.
fn reseal(bytes: &mut [u8]) {
    let n = bytes.len();
    let sum = sha256(&bytes[..n - CHECKSUM]);
    bytes[n - CHECKSUM..].copy_from_slice(&sum);
}

/// The payload with `edit` applied, the header's length fixed and the checksum redone.
fn tamper(bytes: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut payload = bytes[HEADER..bytes.len() - CHECKSUM].to_vec();
    edit(&mut payload);
    let mut out = bytes[..HEADER].to_vec();
    out[40..48].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    out.extend_from_slice(&[0u8; CHECKSUM]);
    reseal(&mut out);
    out
}

/// An edit of a payload or header, for the hostile-input tables.
type Edit = Box<dyn Fn(&mut Vec<u8>)>;
/// A decoder under test, returning its status.
type Decode<'a> = Box<dyn Fn(&[u8]) -> helib_status + 'a>;

fn status_of(s: helib_status) -> &'static str {
    match s {
        HELIB_ERR_MALFORMED_INPUT => "HELIB_ERR_MALFORMED_INPUT",
        HELIB_ERR_MISSING_KEY => "HELIB_ERR_MISSING_KEY",
        other => status_name(other),
    }
}

#[track_caller]
fn expect_malformed(s: helib_status, what: &str) {
    assert_eq!(
        s,
        HELIB_ERR_MALFORMED_INPUT,
        "{what}: got {} ({:?})",
        status_of(s),
        last_error()
    );
    assert!(
        last_error().contains("malformed input"),
        "{what}: message {:?}",
        last_error()
    );
}

// ------------------------------------------------------------ round trips

#[test]
fn ciphertext_round_trips_at_every_level_and_size() {
    let ctx = bn_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let mut r = rng(1);
    let m = rand_poly(&mut r, N, &ctx.t);
    let fresh = encrypt_pk(&pk, &ctx, &m, ctx.max_level());

    let bytes = ser_ct(&fresh);
    assert_eq!(&bytes[..4], b"HBGV");
    assert_eq!(
        u16::from_le_bytes([bytes[4], bytes[5]]),
        1,
        "format version"
    );
    assert_eq!(bytes[6], 5, "kind: ciphertext");
    assert_eq!(&bytes[8..40], &fingerprint(&ctx), "fingerprint");
    assert_eq!(
        u64::from_le_bytes(bytes[40..48].try_into().unwrap()) as usize,
        bytes.len() - HEADER - CHECKSUM
    );
    assert_eq!(
        &bytes[bytes.len() - CHECKSUM..],
        &sha256(&bytes[..bytes.len() - CHECKSUM])
    );

    let loaded = de_ct(&ctx, &bytes);
    assert_poly_eq(&decrypt_ok(&sk, &ctx, &loaded), &m, "fresh");
    assert_eq!(loaded.level(), fresh.level());
    assert_eq!(loaded.size(), 2);
    assert_eq!(loaded.noise_estimate(), fresh.noise_estimate());
    assert_eq!(
        ser_ct(&loaded),
        bytes,
        "re-serializing gives the same bytes"
    );

    // Lower levels (factor != 1) and a size-3 product.
    let mut switched = fresh.dup(&ctx);
    // SAFETY: live handles; dst may alias the input.
    check(unsafe { helib_ciphertext_mod_switch_to(switched.0, 10, switched.0) });
    let back = de_ct(&ctx, &ser_ct(&switched));
    assert_eq!(back.level(), 10);
    assert_eq!(back.factor(&ctx), switched.factor(&ctx));
    assert_ne!(back.factor(&ctx), BigUint::from(1u32));
    assert_poly_eq(&decrypt_ok(&sk, &ctx, &back), &m, "level 10");
    switched = back;

    let b = rand_poly(&mut r, N, &ctx.t);
    let cb = encrypt_pk(&pk, &ctx, &b, switched.level());
    let cb = {
        // Same level and factor as `switched`: encrypted at level 10 directly.
        assert_eq!(cb.factor(&ctx), switched.factor(&ctx));
        cb
    };
    let product = multiply(&ctx, &switched, &cb);
    assert_eq!(product.size(), 3);
    let product_back = de_ct(&ctx, &ser_ct(&product));
    assert_eq!(product_back.size(), 3);
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &product_back),
        &decrypt_ok(&sk, &ctx, &product),
        "size 3",
    );
    let want = poly_mul(&m, &b, &ctx.t);
    assert_poly_eq(&decrypt_ok(&sk, &ctx, &product_back), &want, "product");
}

#[test]
fn secret_key_ciphertexts_store_c1_as_a_seed() {
    let ctx = ks_ctx();
    let sk = SecretKey::generate(&ctx);
    let m = rand_poly(&mut rng(2), N, &ctx.t);
    let seeded = encrypt_sk(&sk, &ctx, &m, ctx.max_level());
    let seeded_bytes = ser_ct(&seeded);
    // Negating twice gives the same ciphertext without its seed.
    let expanded = seeded.dup(&ctx);
    // SAFETY: live handle; dst may alias the input.
    check(unsafe { helib_ciphertext_negate(expanded.0, expanded.0) });
    // SAFETY: as above.
    check(unsafe { helib_ciphertext_negate(expanded.0, expanded.0) });
    let expanded_bytes = ser_ct(&expanded);
    let overhead = HEADER + CHECKSUM + 4 + 1 + 1 + 3 + 8;
    let poly = (expanded_bytes.len() - overhead) / 2;
    assert_eq!(
        poly,
        poly_bytes(&ctx.primes()),
        "residues packed at 50 bits"
    );
    assert_eq!(seeded_bytes.len(), overhead + poly + 32);
    let ratio = seeded_bytes.len() as f64 / expanded_bytes.len() as f64;
    assert!(ratio < 0.51, "seeded/expanded = {ratio}");
    for bytes in [&seeded_bytes, &expanded_bytes] {
        let back = de_ct(&ctx, bytes);
        assert_poly_eq(&decrypt_ok(&sk, &ctx, &back), &m, "secret-key ciphertext");
        assert_eq!(&ser_ct(&back), bytes);
    }
    // A seeded load keeps its seed; after mod switching it is gone.
    let back = de_ct(&ctx, &seeded_bytes);
    // SAFETY: live handle; dst may alias the input.
    check(unsafe { helib_ciphertext_mod_switch(back.0, back.0) });
    let switched = ser_ct(&back);
    assert_eq!(
        switched.len(),
        overhead + 2 * poly_bytes(&ctx.primes()[..2])
    );
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &de_ct(&ctx, &switched)),
        &m,
        "switched",
    );
}

#[test]
fn public_key_round_trip_encrypts_for_the_same_secret_key() {
    let ctx = bn_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let bytes = ser_pk(&pk);
    // b packed at 60 bits over the chain, plus the seed of a.
    assert_eq!(
        bytes.len(),
        HEADER + poly_bytes(&ctx.primes()) + 32 + CHECKSUM
    );
    let (s, loaded) = de_pk_raw(&ctx, &bytes);
    check(s);
    assert_eq!(ser_pk(&loaded), bytes);
    let m = rand_poly(&mut rng(3), N, &ctx.t);
    let ct = encrypt_pk(&loaded, &ctx, &m, ctx.max_level());
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &ct),
        &m,
        "encrypted with a loaded key",
    );
}

#[test]
fn relin_key_round_trip_relinearizes() {
    let ctx = bn_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let rk = RelinKey::generate(&sk);
    let bytes = ser_rk(&rk);
    let mut in_memory = 0usize;
    // SAFETY: live key, valid out pointer.
    check(unsafe { helib_relin_key_size_bytes(rk.0, &mut in_memory) });
    let mut digits = 0usize;
    // SAFETY: live context, valid out pointer.
    check(unsafe { helib_context_key_switching_digits(ctx.ptr, &mut digits) });
    assert_eq!(
        bytes.len(),
        HEADER
            + 4
            + digits * (poly_bytes(&[ctx.primes(), ctx.special_primes()].concat()) + 32)
            + CHECKSUM
    );
    let ratio = bytes.len() as f64 / in_memory as f64;
    assert!(
        ratio < 0.5,
        "serialized/in-memory = {ratio} (seeds and 60-bit packing)"
    );
    let (s, loaded) = de_rk_raw(&ctx, &bytes);
    check(s);
    assert_eq!(ser_rk(&loaded), bytes);

    let mut r = rng(4);
    let (a, b) = (rand_poly(&mut r, N, &ctx.t), rand_poly(&mut r, N, &ctx.t));
    let level = 10;
    let ca = encrypt_pk(&pk, &ctx, &a, level);
    let cb = encrypt_pk(&pk, &ctx, &b, level);
    let product = multiply(&ctx, &ca, &cb);
    let relin = relinearize(&loaded, &ctx, &product);
    assert_eq!(relin.size(), 2);
    assert_poly_eq(
        &decrypt_ok(&sk, &ctx, &relin),
        &poly_mul(&a, &b, &ctx.t),
        "relinearized with a loaded key",
    );
}

#[test]
fn galois_keys_round_trip_rotates() {
    let ctx = ks_ctx();
    let sk = SecretKey::generate(&ctx);
    let mut g1 = 0u64;
    let mut swap = 0u64;
    // SAFETY: live context, valid out pointers.
    check(unsafe { helib_galois_element_for_step(ctx.ptr, 1, &mut g1) });
    // SAFETY: as above.
    check(unsafe { helib_galois_element_row_swap(ctx.ptr, &mut swap) });
    let keys = GaloisKeys::with(&ctx, &sk, &[swap, g1]);
    let bytes = ser_gk(&keys);
    let (s, loaded) = de_gk_raw(&ctx, &bytes);
    check(s);
    assert_eq!(&loaded.elements(), &keys.elements());
    assert_eq!(ser_gk(&loaded), bytes);

    let m = rand_poly(&mut rng(5), N, &ctx.t);
    let ct = encrypt_sk(&sk, &ctx, &m, ctx.max_level());
    let want = decrypt_ok(&sk, &ctx, &rotate(&keys, &ctx, &ct, 1));
    let got = decrypt_ok(&sk, &ctx, &rotate(&loaded, &ctx, &ct, 1));
    assert_poly_eq(&got, &want, "rotation with loaded keys");
    assert_ne!(got, m, "the rotation moved something");

    // An empty set round-trips too, also in a context without special primes.
    let plain_ctx = Ctx::new(N as u64, &t65537(), &[50, 50], &[]);
    let empty = GaloisKeys::with(&plain_ctx, &SecretKey::generate(&plain_ctx), &[]);
    let empty_bytes = ser_gk(&empty);
    assert_eq!(empty_bytes.len(), HEADER + 4 + CHECKSUM);
    let (s, back) = de_gk_raw(&plain_ctx, &empty_bytes);
    check(s);
    assert!(&back.elements().is_empty());
}

#[test]
fn plaintext_round_trips_and_omits_trailing_zeros() {
    for ctx in [ks_ctx(), bn_ctx()] {
        let bits = ctx.t.bits() as usize;
        let m = rand_poly(&mut rng(6), N, &ctx.t);
        let bytes = ser_pt(&ctx, &m);
        assert_eq!(bytes[6], 6, "kind: plaintext");
        assert_eq!(bytes.len(), HEADER + 4 + (N * bits).div_ceil(8) + CHECKSUM);
        let lpc = ctx.plain_limbs() + 1;
        let mut out = vec![7u64; N * lpc];
        check(de_pt_raw(&ctx, &bytes, &mut out, lpc));
        assert_poly_eq(&poly_from_limbs(&out, lpc), &m, "plaintext");

        let sparse = [BigUint::from(3u32), BigUint::from(0u32), &ctx.t - 1u32];
        let bytes = ser_pt(&ctx, &sparse);
        assert_eq!(bytes.len(), HEADER + 4 + (3 * bits).div_ceil(8) + CHECKSUM);
        check(de_pt_raw(&ctx, &bytes, &mut out, lpc));
        assert_poly_eq(
            &poly_from_limbs(&out, lpc),
            &pad(&sparse, N),
            "sparse plaintext",
        );
        let zero = ser_pt(&ctx, &[]);
        assert_eq!(zero.len(), HEADER + 4 + CHECKSUM);

        // A coefficient not below t cannot be serialized.
        let limbs = poly_to_limbs(std::slice::from_ref(&ctx.t), ctx.plain_limbs());
        let mut len = 0usize;
        // SAFETY: `limbs` holds one coefficient; `len` is a valid place.
        let s = unsafe {
            helib_plaintext_serialize(
                ctx.ptr,
                limbs.as_ptr(),
                1,
                ctx.plain_limbs(),
                null_mut(),
                &mut len,
            )
        };
        expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "coefficient t");
        // Output too small: refused, buffer untouched.
        let mut small = vec![9u64; N * lpc - 1];
        expect_status(
            de_pt_raw(&ctx, &zero, &mut small, lpc),
            HELIB_ERR_BUFFER_TOO_SMALL,
            "small output",
        );
        assert!(small.iter().all(|&x| x == 9));
    }
}

/// serialize(params) through the C API.
fn ser_params(n: u64, t: &BigUint, chain: &[u32], special: &[u32], flags: u32) -> Vec<u8> {
    let t = t.to_u64_digits();
    // SAFETY: every pointer/length pair is a live slice; buffer and length come from `serialized_checked`.
    serialized_checked(|buf, len| unsafe {
        helib_parameters_serialize(
            n,
            t.as_ptr(),
            t.len(),
            chain.as_ptr(),
            chain.len(),
            special.as_ptr(),
            special.len(),
            flags,
            buf,
            len,
        )
    })
}

type ParamsOut = (u64, Vec<u64>, Vec<u32>, Vec<u32>, u32);

fn de_params(bytes: &[u8]) -> Result<ParamsOut, helib_status> {
    let (mut n, mut flags) = (0u64, 0u32);
    let (mut t, mut chain, mut special) = (vec![0u64; 64], vec![0u32; 64], vec![0u32; 64]);
    let (mut tl, mut cl, mut sl) = (64usize, 64usize, 64usize);
    // SAFETY: every array holds the capacity passed with it; `bytes` is live.
    let s = unsafe {
        helib_parameters_deserialize(
            bytes.as_ptr(),
            bytes.len(),
            &mut n,
            t.as_mut_ptr(),
            &mut tl,
            chain.as_mut_ptr(),
            &mut cl,
            special.as_mut_ptr(),
            &mut sl,
            &mut flags,
        )
    };
    if s != HELIB_OK {
        return Err(s);
    }
    t.truncate(tl);
    chain.truncate(cl);
    special.truncate(sl);
    Ok((n, t, chain, special, flags))
}

#[test]
fn parameters_round_trip_without_a_context() {
    let r = bn254_r();
    let bytes = ser_params(1 << 16, &r, &[58, 59, 59], &[60, 60], 0);
    assert_eq!(&bytes[8..40], &[0u8; 32], "parameters carry no fingerprint");
    assert_eq!(
        de_params(&bytes).unwrap(),
        (
            1 << 16,
            r.to_u64_digits(),
            vec![58, 59, 59],
            vec![60, 60],
            0
        )
    );
    let bytes = ser_params(1024, &t65537(), &[40], &[], 1);
    assert_eq!(
        de_params(&bytes).unwrap(),
        (1024, vec![65537], vec![40], vec![], 1)
    );
    // Every prefix is refused.
    for cut in 0..bytes.len() {
        expect_malformed(de_params(&bytes[..cut]).unwrap_err(), "prefix");
    }
    // Shape errors are refused when serializing...
    let t = [65537u64];
    for (n, chain, flags) in [
        (1000u64, vec![40u32], 0u32),
        (1 << 18, vec![40], 0),
        (1024, vec![], 0),
        (1024, vec![29], 0),
        (1024, vec![62], 0),
        (1024, vec![40], 2),
    ] {
        let mut len = 0usize;
        // SAFETY: live slices; `len` is a valid place.
        let s = unsafe {
            helib_parameters_serialize(
                n,
                t.as_ptr(),
                1,
                chain.as_ptr(),
                chain.len(),
                null(),
                0,
                flags,
                null_mut(),
                &mut len,
            )
        };
        expect_status(s, HELIB_ERR_INVALID_ARGUMENT, "bad parameters");
    }
    // ...and when reading (re-sealed so only the field is wrong).
    let good = ser_params(1024, &t65537(), &[40, 41], &[50], 0);
    let cases: Vec<(&str, Edit)> = vec![
        ("N", Box::new(|p| p[0] = 3)),
        ("t length 0", Box::new(|p| p[8] = 0)),
        ("t high zero byte", Box::new(|p| p[12] = 0)),
        ("chain count 65", Box::new(|p| p[13] = 65)),
        ("prime size 29", Box::new(|p| p[14] = 29)),
        ("flags", Box::new(|p| *p.last_mut().unwrap() = 4)),
        ("trailing byte", Box::new(|p| p.push(0))),
        (
            "t = 1 with high zero bytes",
            Box::new(|p| p[10..13].copy_from_slice(&[1, 0, 0])),
        ),
    ];
    assert_eq!(
        &good[HEADER + 8..HEADER + 13],
        &[3, 0, 1, 0, 1],
        "t = 65537"
    );
    for (what, edit) in cases {
        let bad = tamper(&good, edit);
        expect_malformed(de_params(&bad).unwrap_err(), what);
    }
    // The t-length field bounds the read: a huge length is refused.
    let huge = tamper(&good, |p| p[8..10].copy_from_slice(&u16::MAX.to_le_bytes()));
    expect_malformed(de_params(&huge).unwrap_err(), "huge t length");
}

#[test]
fn fingerprints_follow_the_spec_and_tell_contexts_apart() {
    let a = ks_ctx();
    let b = ks_ctx();
    assert_eq!(
        fingerprint(&a),
        fingerprint(&b),
        "same parameters, same fingerprint"
    );
    // Recompute: SHA-256 of the tag, N, t, chain and special primes.
    let mut input = b"HBGV context fingerprint v1".to_vec();
    input.extend_from_slice(&(N as u64).to_le_bytes());
    let t = a.t.to_bytes_le();
    input.extend_from_slice(&(t.len() as u32).to_le_bytes());
    input.extend_from_slice(&t);
    for primes in [a.primes(), a.special_primes()] {
        input.extend_from_slice(&(primes.len() as u32).to_le_bytes());
        for q in primes {
            input.extend_from_slice(&q.to_le_bytes());
        }
    }
    assert_eq!(fingerprint(&a), sha256(&input));
    let others = [
        Ctx::new(N as u64, &t65537(), &[50, 50, 50], &[61]),
        Ctx::new(N as u64, &BigUint::from(65539u32), &[50, 50, 50], &[60]),
        Ctx::new(2 * N as u64, &t65537(), &[50, 50, 50], &[60]),
        Ctx::new(N as u64, &t65537(), &[50, 50], &[60]),
    ];
    for other in &others {
        assert_ne!(fingerprint(&a), fingerprint(other));
    }
    let mut short = [0u8; 31];
    // SAFETY: live context; `short` holds 31 bytes, which the call must refuse.
    let s = unsafe { helib_context_fingerprint(a.ptr, short.as_mut_ptr(), short.len()) };
    expect_status(s, HELIB_ERR_BUFFER_TOO_SMALL, "31-byte fingerprint");
}

// ---------------------------------------------------- refusals and hostility

#[test]
fn loads_into_another_context_or_as_another_kind_are_refused() {
    let ctx = ks_ctx();
    let other = Ctx::new(N as u64, &t65537(), &[50, 50, 50], &[61]);
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let rk = RelinKey::generate(&sk);
    let gk = GaloisKeys::with(&ctx, &sk, &[3]);
    let m = rand_poly(&mut rng(7), N, &ctx.t);
    let ct = encrypt_pk(&pk, &ctx, &m, ctx.max_level());
    let (ct_b, pk_b, rk_b, gk_b, pt_b) = (
        ser_ct(&ct),
        ser_pk(&pk),
        ser_rk(&rk),
        ser_gk(&gk),
        ser_pt(&ctx, &m),
    );

    let dst = encrypt_pk(
        &PublicKey::generate(&SecretKey::generate(&other)),
        &other,
        &[],
        0,
    );
    expect_status(
        de_ct_raw(&other, &ct_b, &dst),
        HELIB_ERR_CONTEXT_MISMATCH,
        "ciphertext",
    );
    assert_eq!(dst.level(), 0, "a failed load leaves dst unchanged");
    assert!(last_error().contains("different parameters"));
    expect_status(de_pk_raw(&other, &pk_b).0, HELIB_ERR_CONTEXT_MISMATCH, "pk");
    expect_status(de_rk_raw(&other, &rk_b).0, HELIB_ERR_CONTEXT_MISMATCH, "rk");
    expect_status(de_gk_raw(&other, &gk_b).0, HELIB_ERR_CONTEXT_MISMATCH, "gk");
    let mut out = vec![0u64; N];
    expect_status(
        de_pt_raw(&other, &pt_b, &mut out, 1),
        HELIB_ERR_CONTEXT_MISMATCH,
        "plaintext",
    );
    // A destination of another context is refused before anything is read.
    expect_status(
        de_ct_raw(&ctx, &ct_b, &dst),
        HELIB_ERR_CONTEXT_MISMATCH,
        "dst of another context",
    );

    // Every object given to every other decoder: malformed (wrong kind).
    let all = [&ct_b, &pk_b, &rk_b, &gk_b, &pt_b];
    let target = Ct::empty(&ctx);
    for (i, bytes) in all.iter().enumerate() {
        if i != 0 {
            expect_malformed(de_ct_raw(&ctx, bytes, &target), "as ciphertext");
        }
        if i != 1 {
            expect_malformed(de_pk_raw(&ctx, bytes).0, "as public key");
        }
        if i != 2 {
            expect_malformed(de_rk_raw(&ctx, bytes).0, "as relin key");
        }
        if i != 3 {
            expect_malformed(de_gk_raw(&ctx, bytes).0, "as Galois keys");
        }
        if i != 4 {
            expect_malformed(de_pt_raw(&ctx, bytes, &mut out, 1), "as plaintext");
        }
        expect_malformed(de_params(bytes).unwrap_err(), "as parameters");
    }
    // NULL arguments.
    let mut len = 0usize;
    // SAFETY: NULL handles must be refused without being dereferenced.
    unsafe {
        expect_status(
            helib_ciphertext_serialize(null(), null_mut(), &mut len),
            HELIB_ERR_NULL_POINTER,
            "NULL ct",
        );
        expect_status(
            helib_ciphertext_serialize(ct.0, null_mut(), null_mut()),
            HELIB_ERR_NULL_POINTER,
            "NULL len",
        );
        expect_status(
            helib_ciphertext_deserialize(ctx.ptr, null(), 10, target.0),
            HELIB_ERR_NULL_POINTER,
            "NULL buf",
        );
        expect_status(
            helib_public_key_deserialize(ctx.ptr, pk_b.as_ptr(), pk_b.len(), null_mut()),
            HELIB_ERR_NULL_POINTER,
            "NULL out",
        );
    }
    // An empty ciphertext cannot be serialized.
    // SAFETY: live handle, valid out pointer.
    let s = unsafe { helib_ciphertext_serialize(target.0, null_mut(), &mut len) };
    assert_ne!(s, HELIB_OK);
}

#[test]
fn truncations_and_bit_flips_are_refused_and_leave_dst_unchanged() {
    let ctx = ks_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let rk = RelinKey::generate(&sk);
    let gk = GaloisKeys::with(&ctx, &sk, &[5]);
    let m = rand_poly(&mut rng(8), N, &ctx.t);
    let ct_b = ser_ct(&encrypt_sk(&sk, &ctx, &m, ctx.max_level()));
    // The first (valid) load below writes `m` at the top level into dst;
    // every later, failed load must leave it so.
    let dst = Ct::empty(&ctx);

    let decoders: Vec<(&str, Vec<u8>, Decode)> = vec![
        (
            "ciphertext",
            ct_b.clone(),
            Box::new(|b: &[u8]| de_ct_raw(&ctx, b, &dst)),
        ),
        (
            "public key",
            ser_pk(&pk),
            Box::new(|b: &[u8]| de_pk_raw(&ctx, b).0),
        ),
        (
            "relin key",
            ser_rk(&rk),
            Box::new(|b: &[u8]| de_rk_raw(&ctx, b).0),
        ),
        (
            "Galois keys",
            ser_gk(&gk),
            Box::new(|b: &[u8]| de_gk_raw(&ctx, b).0),
        ),
        (
            "plaintext",
            ser_pt(&ctx, &m),
            Box::new(|b: &[u8]| {
                let mut out = vec![0u64; N];
                de_pt_raw(&ctx, b, &mut out, 1)
            }),
        ),
    ];
    let mut r = rng(9);
    for (what, bytes, decode) in &decoders {
        check(decode(bytes));
        // Every prefix of the header region, then prefixes at a stride.
        let cuts = (0..200).chain((200..bytes.len()).step_by(997));
        for cut in cuts {
            expect_malformed(decode(&bytes[..cut]), what);
        }
        let mut longer = bytes.clone();
        longer.push(0);
        expect_malformed(decode(&longer), what);
        // Random single and multiple bit flips anywhere (the checksum catches them).
        for trial in 0..40 {
            let mut bad = bytes.clone();
            for _ in 0..1 + trial % 3 {
                let bit = r.gen_range(0..bad.len() * 8);
                bad[bit / 8] ^= 1 << (bit % 8);
            }
            expect_malformed(decode(&bad), what);
        }
    }
    // Lengths past the end of the bytes (a caller's mistake or a lie): the
    // edges of size_t and random ones, each refused before a byte past the
    // frame is read; a length beyond any array as such (helib_c.h, "Sizes").
    // SAFETY (every closure): live handles and valid out-pointers; the
    // engine must not read past the bytes' real length.
    type RawDecode<'a> = Box<dyn Fn(*const u8, usize) -> helib_status + 'a>;
    let raw: Vec<(&str, Vec<u8>, RawDecode<'_>)> = vec![
        (
            "ciphertext",
            ct_b.clone(),
            // SAFETY: see the comment above the table.
            Box::new(|p, len| unsafe { helib_ciphertext_deserialize(ctx.ptr, p, len, dst.0) }),
        ),
        (
            "public key",
            ser_pk(&pk),
            // SAFETY: see the comment above the table.
            Box::new(|p, len| unsafe {
                let mut out = null_mut();
                helib_public_key_deserialize(ctx.ptr, p, len, &mut out)
            }),
        ),
        (
            "relin key",
            ser_rk(&rk),
            // SAFETY: see the comment above the table.
            Box::new(|p, len| unsafe {
                let mut out = null_mut();
                helib_relin_key_deserialize(ctx.ptr, p, len, &mut out)
            }),
        ),
        (
            "Galois keys",
            ser_gk(&gk),
            // SAFETY: see the comment above the table.
            Box::new(|p, len| unsafe {
                let mut out = null_mut();
                helib_galois_keys_deserialize(ctx.ptr, p, len, &mut out)
            }),
        ),
        (
            "plaintext",
            ser_pt(&ctx, &m),
            // SAFETY: see the comment above the table.
            Box::new(|p, len| unsafe {
                let mut out = vec![0u64; N];
                helib_plaintext_deserialize(ctx.ptr, p, len, out.as_mut_ptr(), N, 1)
            }),
        ),
    ];
    for (what, bytes, decode) in &raw {
        let edges = [
            (1usize << 61) - 1,
            1 << 61,
            (1 << 62) + 1,
            (1 << 63) - 1,
            1 << 63,
            usize::MAX,
        ];
        let random: Vec<usize> = (0..40)
            .map(|trial| match trial % 2 {
                0 => bytes.len() + r.gen_range(1..1 << 20),
                _ => r.gen_range(bytes.len() + 1..=usize::MAX),
            })
            .collect();
        for len in edges.into_iter().chain(random) {
            let want = if len > isize::MAX as usize {
                HELIB_ERR_INVALID_ARGUMENT
            } else {
                HELIB_ERR_MALFORMED_INPUT
            };
            expect_status(
                decode(bytes.as_ptr(), len),
                want,
                &format!("{what}, len = {len:#x}"),
            );
        }
    }
    assert_poly_eq(&decrypt_ok(&sk, &ctx, &dst), &m, "dst after failed loads");
    assert_eq!(dst.level(), ctx.max_level());
}

#[test]
fn hostile_fields_with_valid_checksums_are_refused() {
    let ctx = ks_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let m = rand_poly(&mut rng(10), N, &ctx.t);
    let seeded = ser_ct(&encrypt_sk(&sk, &ctx, &m, ctx.max_level()));
    let full = ser_ct(&encrypt_pk(&pk, &ctx, &m, ctx.max_level()));
    let dst = Ct::empty(&ctx);
    // Payload: level u32, parts u8, flags u8, factor (3 bytes for 65537), noise f64, residues.
    assert_eq!(seeded[HEADER + 5], 1, "seeded flag");
    assert_eq!(full[HEADER + 5], 0, "not seeded");
    let cases: Vec<(&str, &Vec<u8>, Edit)> = vec![
        (
            "level 3",
            &full,
            Box::new(|p: &mut Vec<u8>| p[0..4].copy_from_slice(&3u32.to_le_bytes())),
        ),
        (
            "level u32::MAX",
            &full,
            Box::new(|p: &mut Vec<u8>| p[0..4].copy_from_slice(&u32::MAX.to_le_bytes())),
        ),
        ("size 1", &full, Box::new(|p: &mut Vec<u8>| p[4] = 1)),
        ("size 4", &full, Box::new(|p: &mut Vec<u8>| p[4] = 4)),
        ("size 255", &full, Box::new(|p: &mut Vec<u8>| p[4] = 255)),
        ("flags 2", &full, Box::new(|p: &mut Vec<u8>| p[5] = 2)),
        (
            "seeded flag on a full ciphertext",
            &full,
            Box::new(|p: &mut Vec<u8>| p[5] = 1),
        ),
        (
            "seeded size-3",
            &seeded,
            Box::new(|p: &mut Vec<u8>| p[4] = 3),
        ),
        (
            "factor 0",
            &full,
            Box::new(|p: &mut Vec<u8>| p[6..9].copy_from_slice(&[0, 0, 0])),
        ),
        (
            "factor t",
            &full,
            Box::new(|p: &mut Vec<u8>| p[6..9].copy_from_slice(&[1, 0, 1])),
        ),
        (
            "noise NaN",
            &full,
            Box::new(|p: &mut Vec<u8>| p[9..17].copy_from_slice(&f64::NAN.to_le_bytes())),
        ),
        (
            "noise infinite",
            &full,
            Box::new(|p: &mut Vec<u8>| p[9..17].copy_from_slice(&f64::INFINITY.to_le_bytes())),
        ),
        (
            "residue all ones",
            &full,
            Box::new(|p: &mut Vec<u8>| p[17..24].copy_from_slice(&[0xFF; 7])),
        ),
        (
            "last residue all ones",
            &full,
            Box::new(|p: &mut Vec<u8>| {
                let n = p.len();
                p[n - 7..].copy_from_slice(&[0xFF; 7]);
            }),
        ),
        (
            "one byte more",
            &full,
            Box::new(|p: &mut Vec<u8>| p.push(0)),
        ),
        (
            "one byte less",
            &full,
            Box::new(|p: &mut Vec<u8>| {
                p.pop();
            }),
        ),
        (
            "seed missing",
            &seeded,
            Box::new(|p: &mut Vec<u8>| p.truncate(p.len() - 32)),
        ),
    ];
    for (what, bytes, edit) in cases {
        expect_malformed(de_ct_raw(&ctx, &tamper(bytes, edit), &dst), what);
    }

    // Header fields, re-sealed.
    let header_cases: Vec<(&str, Edit)> = vec![
        ("magic", Box::new(|b: &mut Vec<u8>| b[0] = b'X')),
        ("version 2", Box::new(|b: &mut Vec<u8>| b[4] = 2)),
        ("version 0", Box::new(|b: &mut Vec<u8>| b[4] = 0)),
        ("kind 0", Box::new(|b: &mut Vec<u8>| b[6] = 0)),
        ("kind 200", Box::new(|b: &mut Vec<u8>| b[6] = 200)),
        ("reserved", Box::new(|b: &mut Vec<u8>| b[7] = 1)),
        (
            "payload length huge",
            Box::new(|b: &mut Vec<u8>| b[40..48].copy_from_slice(&u64::MAX.to_le_bytes())),
        ),
        (
            "payload length short",
            Box::new(|b: &mut Vec<u8>| b[40] = b[40].wrapping_sub(1)),
        ),
    ];
    for (what, edit) in header_cases {
        let mut bad = full.clone();
        edit(&mut bad);
        reseal(&mut bad);
        expect_malformed(de_ct_raw(&ctx, &bad, &dst), what);
    }
    // A changed fingerprint with a valid checksum: a context mismatch.
    let mut bad = full.clone();
    bad[8] ^= 1;
    reseal(&mut bad);
    expect_status(
        de_ct_raw(&ctx, &bad, &dst),
        HELIB_ERR_CONTEXT_MISMATCH,
        "fingerprint",
    );
    // A bare header claiming an enormous payload allocates nothing.
    let mut bare = full[..HEADER].to_vec();
    bare[40..48].copy_from_slice(&(1u64 << 60).to_le_bytes());
    bare.extend_from_slice(&[0u8; CHECKSUM]);
    reseal(&mut bare);
    expect_malformed(de_ct_raw(&ctx, &bare, &dst), "enormous payload");

    // Galois keys: a huge count, unsorted and even elements.
    let sk_keys = GaloisKeys::with(&ctx, &sk, &[3, 5]);
    let gk = ser_gk(&sk_keys);
    let key_bytes = (gk.len() - HEADER - CHECKSUM - 4) / 2;
    let gk_cases: Vec<(&str, Edit)> = vec![
        (
            "count u32::MAX",
            Box::new(|p: &mut Vec<u8>| p[0..4].copy_from_slice(&u32::MAX.to_le_bytes())),
        ),
        (
            "count N",
            Box::new(|p: &mut Vec<u8>| p[0..4].copy_from_slice(&(N as u32).to_le_bytes())),
        ),
        (
            "count 3",
            Box::new(|p: &mut Vec<u8>| p[0..4].copy_from_slice(&3u32.to_le_bytes())),
        ),
        (
            "even element",
            Box::new(|p: &mut Vec<u8>| p[4..12].copy_from_slice(&4u64.to_le_bytes())),
        ),
        (
            "element 2N + 1",
            Box::new(|p: &mut Vec<u8>| p[4..12].copy_from_slice(&(2 * N as u64 + 1).to_le_bytes())),
        ),
        (
            "descending",
            Box::new(move |p: &mut Vec<u8>| {
                p[4 + key_bytes..12 + key_bytes].copy_from_slice(&1u64.to_le_bytes())
            }),
        ),
        (
            "duplicate",
            Box::new(move |p: &mut Vec<u8>| {
                p[4 + key_bytes..12 + key_bytes].copy_from_slice(&3u64.to_le_bytes())
            }),
        ),
        (
            "digit count",
            Box::new(|p: &mut Vec<u8>| p[12..16].copy_from_slice(&7u32.to_le_bytes())),
        ),
    ];
    for (what, edit) in gk_cases {
        expect_malformed(de_gk_raw(&ctx, &tamper(&gk, edit)).0, what);
    }

    // Plaintext: count above N, a coefficient equal to t, nonzero padding.
    let pt = ser_pt(&ctx, &[BigUint::from(1u32)]);
    let pt_cases: Vec<(&str, Edit)> = vec![
        (
            "count N + 1",
            Box::new(|p: &mut Vec<u8>| p[0..4].copy_from_slice(&(N as u32 + 1).to_le_bytes())),
        ),
        (
            "count u32::MAX",
            Box::new(|p: &mut Vec<u8>| p[0..4].copy_from_slice(&u32::MAX.to_le_bytes())),
        ),
        (
            "coefficient t",
            Box::new(|p: &mut Vec<u8>| p[4..7].copy_from_slice(&[1, 0, 1])),
        ),
        ("padding", Box::new(|p: &mut Vec<u8>| p[6] |= 0x80)),
    ];
    for (what, edit) in pt_cases {
        let mut out = vec![0u64; N];
        expect_malformed(de_pt_raw(&ctx, &tamper(&pt, edit), &mut out, 1), what);
    }

    // Relinearization keys cannot exist without special primes.
    let plain_ctx = Ctx::new(N as u64, &t65537(), &[50, 50, 50], &[61]);
    let rk = ser_rk(&RelinKey::generate(&SecretKey::generate(&plain_ctx)));
    let no_special = Ctx::new(N as u64, &t65537(), &[50, 50, 50], &[]);
    let mut moved = rk.clone();
    moved[8..40].copy_from_slice(&fingerprint(&no_special));
    reseal(&mut moved);
    expect_malformed(de_rk_raw(&no_special, &moved).0, "no special primes");
}

// ------------------------------------------------ loaded noise estimates

/// Payload offset of the noise estimate of a `ks_ctx` ciphertext (after the
/// level u32, the size u8, the flags u8 and the 3-byte factor).
const NOISE_AT: usize = 9;

/// `bytes` (a serialized `ks_ctx` ciphertext) claiming the noise estimate `noise`.
fn with_noise_estimate(bytes: &[u8], noise: f64) -> Vec<u8> {
    tamper(bytes, |p| {
        p[NOISE_AT..NOISE_AT + 8].copy_from_slice(&noise.to_le_bytes())
    })
}

/// `ct` reloaded with an estimate leaving it `budget` bits at its level.
fn with_budget(ctx: &Ctx, ct: &Ct, budget: f64) -> Ct {
    let mut log2_q = f64::NAN;
    // SAFETY: live context, valid out pointer.
    check(unsafe { helib_context_log2_modulus(ctx.ptr, ct.level(), &mut log2_q) });
    let loaded = de_ct(
        ctx,
        &with_noise_estimate(&ser_ct(ct), log2_q - 1.0 - budget),
    );
    assert!((loaded.estimated_budget() - budget).abs() < 1e-9);
    loaded
}

#[test]
fn operations_refuse_results_beyond_the_estimated_budget() {
    // Q_0 has 50 bits: every operation's added noise (a sum doubles, a key
    // switch adds ~t * 2^6, a plaintext up to t/2) moves an estimate near
    // Q_0 by far more than 1e-12 bits.
    let ctx = ks_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let rk = RelinKey::generate(&sk);
    let mut g = 0u64;
    // SAFETY: live context, valid out pointer.
    check(unsafe { helib_galois_element_for_step(ctx.ptr, 1, &mut g) });
    let gk = GaloisKeys::with(&ctx, &sk, &[g]);
    let mut r = rng(21);
    let m = rand_poly(&mut r, N, &ctx.t);
    let fresh0 = encrypt_pk(&pk, &ctx, &m, 0);
    let fresh1 = encrypt_pk(&pk, &ctx, &m, 1);
    // A size-3 ciphertext at level 0: a product at the top, switched down.
    let top = encrypt_pk(&pk, &ctx, &m, 2);
    let size3 = multiply(&ctx, &top, &top);
    // SAFETY: live handles; dst may alias the input.
    check(unsafe { helib_ciphertext_mod_switch_to(size3.0, 0, size3.0) });
    let factor = fresh0.factor(&ctx);
    let p_add = encode(&ctx, &rand_poly(&mut r, N, &ctx.t), 0, Some(&factor));
    let p_mul = encode(&ctx, &[BigUint::from(3u32)], 0, None);
    // The constant added is k times the factor: make that t/2, the largest.
    let inverse = factor.modpow(&(&ctx.t - 2u32), &ctx.t);
    let k_add = [u64::try_from(inverse * 32768u32 % &ctx.t).unwrap()];
    let k_mul = [2u64];

    let run = |what: &str, a: &Ct, d: &Ct| -> helib_status {
        let dsts = [d.0];
        // SAFETY: every handle is live and `d` is distinct from the inputs;
        // the scalar and element pointers point at live values of the
        // lengths passed.
        unsafe {
            match what {
                "add" => helib_ciphertext_add(a.0, a.0, d.0),
                "sub" => helib_ciphertext_sub(a.0, a.0, d.0),
                "add_plain" => helib_ciphertext_add_plain(a.0, p_add.0, d.0),
                "sub_plain" => helib_ciphertext_sub_plain(a.0, p_add.0, d.0),
                "mul_plain" => helib_ciphertext_mul_plain(a.0, p_mul.0, d.0),
                "add_scalar" => helib_ciphertext_add_scalar(a.0, k_add.as_ptr(), 1, d.0),
                "mul_scalar" => helib_ciphertext_mul_scalar(a.0, k_mul.as_ptr(), 1, d.0),
                "multiply" => helib_ciphertext_multiply(a.0, a.0, d.0),
                "mod_switch" => helib_ciphertext_mod_switch(a.0, d.0),
                "mod_switch_to" => helib_ciphertext_mod_switch_to(a.0, 0, d.0),
                "relinearize" => helib_ciphertext_relinearize(rk.0, a.0, d.0),
                "apply_galois" => helib_ciphertext_apply_galois(gk.0, a.0, g, d.0),
                "rotate_rows" => helib_ciphertext_rotate_rows(gk.0, a.0, 1, 0, d.0),
                "apply_galois_hoisted" => {
                    helib_ciphertext_apply_galois_hoisted(gk.0, a.0, &g, 1, dsts.as_ptr())
                }
                "add_public_key_mask" => helib_ciphertext_add_public_key_mask(pk.0, a.0, d.0),
                other => unreachable!("no operation {other}"),
            }
        }
    };
    // Each operation with the input it applies to.
    let cases: [(&str, &Ct); 15] = [
        ("add", &fresh0),
        ("sub", &fresh0),
        ("add_plain", &fresh0),
        ("sub_plain", &fresh0),
        ("mul_plain", &fresh0),
        ("add_scalar", &fresh0),
        ("mul_scalar", &fresh0),
        ("multiply", &top),
        ("mod_switch", &fresh1),
        ("mod_switch_to", &fresh1),
        ("relinearize", &size3),
        ("apply_galois", &fresh0),
        ("rotate_rows", &fresh0),
        ("apply_galois_hoisted", &fresh0),
        ("add_public_key_mask", &fresh0),
    ];
    let mut accepted = Vec::new();
    for (what, input) in cases {
        // With the honest estimate the operation succeeds...
        let dst = Ct::empty(&ctx);
        check(run(what, input, &dst));
        // ...and with one just above one bit it refuses, writing nothing.
        let tight = with_budget(&ctx, input, 1.0 + 1e-12);
        let sentinel = fresh1.dup(&ctx);
        let status = run(what, &tight, &sentinel);
        if status == HELIB_OK {
            accepted.push(what);
            continue;
        }
        expect_status(status, HELIB_ERR_NOISE_BUDGET_EXHAUSTED, what);
        assert!(last_error().contains("refused"), "{what}: {}", last_error());
        assert_eq!(sentinel.level(), 1, "{what}: dst untouched");
        assert_poly_eq(&decrypt_ok(&sk, &ctx, &sentinel), &m, what);
    }
    assert!(
        accepted.is_empty(),
        "results beyond the budget from {accepted:?}"
    );
}

#[test]
fn loaded_noise_estimates_below_the_floor_are_raised_to_it() {
    let ctx = ks_ctx();
    let sk = SecretKey::generate(&ctx);
    let pk = PublicKey::generate(&sk);
    let mut r = rng(22);
    let m = rand_poly(&mut r, N, &ctx.t);
    let top = ctx.max_level();
    // A fresh secret-key encryption carries the floor, the smallest estimate
    // the engine assigns.
    let floor_ct = encrypt_sk(&sk, &ctx, &m, top);
    let floor = floor_ct.noise_estimate();
    let fresh = encrypt_pk(&pk, &ctx, &m, top);
    assert!(fresh.noise_estimate() > floor);
    let bytes = ser_ct(&fresh);

    for forged in [-1e300, f64::MIN, -5.0, 0.0, floor - 1e-9] {
        let loaded = de_ct(&ctx, &with_noise_estimate(&bytes, forged));
        assert_eq!(loaded.noise_estimate(), floor, "forged {forged:e}");
        assert_eq!(
            loaded.estimated_budget(),
            floor_ct.estimated_budget(),
            "forged {forged:e}: no more budget than a fresh encryption"
        );
    }
    // Honest estimates and larger ones load unchanged; an exhausted one
    // decrypts to nothing and feeds no operation.
    for kept in [floor, fresh.noise_estimate(), 1e300] {
        let loaded = de_ct(&ctx, &with_noise_estimate(&bytes, kept));
        assert_eq!(loaded.noise_estimate(), kept);
    }
    let exhausted = de_ct(&ctx, &with_noise_estimate(&bytes, 1e300));
    expect_status(
        decrypt(&sk, &ctx, &exhausted).unwrap_err(),
        HELIB_ERR_NOISE_BUDGET_EXHAUSTED,
        "decrypt with an exhausted estimate",
    );

    // With a forged -1e300 the estimate used to stay near -1e300 through any
    // chain of products, so nothing ever refused; now huge scalar products
    // run out of (estimated) budget as for the honest ciphertext.
    let loaded = de_ct(&ctx, &with_noise_estimate(&bytes, -1e300));
    let k = (&ctx.t >> 1u32) - 3u32;
    let k_limbs = k.to_u64_digits();
    let mut expected = m.clone();
    let mut products = 0;
    loop {
        // SAFETY: live handle (dst aliases the input); `k_limbs` is a live slice.
        let status = unsafe {
            helib_ciphertext_mul_scalar(loaded.0, k_limbs.as_ptr(), k_limbs.len(), loaded.0)
        };
        if status == HELIB_ERR_NOISE_BUDGET_EXHAUSTED {
            break;
        }
        check(status);
        products += 1;
        expected = poly_scalar(&expected, &k, &ctx.t);
        assert_poly_eq(&decrypt_ok(&sk, &ctx, &loaded), &expected, "product");
        assert!(products < 20, "20 products by ~t/2 never refused");
    }
    assert!(products >= 5, "{products} products");
}

// ------------------------------------------------------ secret-key export

fn import_sk_raw(ctx: &Ctx, bytes: &[u8]) -> (helib_status, SecretKey) {
    let mut out = 0x10 as *mut helib_secret_key; // a sentinel that must survive failures
                                                 // SAFETY: `bytes` is a live slice; `out` is a valid place.
    let s = unsafe { helib_secret_key_import(ctx.ptr, bytes.as_ptr(), bytes.len(), &mut out) };
    if s != HELIB_OK {
        assert_eq!(out as usize, 0x10, "a failed call leaves *out unchanged");
        out = null_mut();
    }
    (s, SecretKey(out))
}

#[test]
fn secret_key_export_follows_the_format_and_loads_under_its_context_only() {
    let ctx = ks_ctx();
    let sk = SecretKey::generate(&ctx);
    // SAFETY: live key; buffer and length come from `serialized_checked`.
    let bytes = serialized_checked(|buf, len| unsafe { helib_secret_key_export(sk.0, buf, len) });

    // Frame of kind 7 with N/4 payload bytes and the standard checksum.
    assert_eq!(bytes.len(), HEADER + N / 4 + CHECKSUM);
    assert_eq!(&bytes[..4], b"HBGV");
    assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 1);
    assert_eq!((bytes[6], bytes[7]), (7, 0));
    assert_eq!(bytes[8..40], fingerprint(&ctx));
    assert_eq!(bytes[40..48], ((N / 4) as u64).to_le_bytes());
    assert_eq!(
        bytes[bytes.len() - CHECKSUM..],
        sha256(&bytes[..bytes.len() - CHECKSUM])
    );
    // 2-bit codes 0, 1, 2 (never 3), about a third of each.
    let codes: Vec<u8> = bytes[HEADER..HEADER + N / 4]
        .iter()
        .flat_map(|&b| (0..4).map(move |k| (b >> (2 * k)) & 3))
        .collect();
    assert!(codes.iter().all(|&c| c < 3));
    for value in 0..3u8 {
        let count = codes.iter().filter(|&&c| c == value).count();
        assert!(
            count > N / 5 && count < N / 2,
            "code {value}: {count} of {N}"
        );
    }

    // Loads and decrypts what the original encrypted.
    let (s, loaded) = import_sk_raw(&ctx, &bytes);
    check(s);
    let m = rand_poly(&mut rng(5), N, &t65537());
    let ct = encrypt_sk(&sk, &ctx, &m, ctx.max_level());
    assert_poly_eq(&decrypt_ok(&loaded, &ctx, &ct), &m, "loaded key");

    // Another context: a mismatch. A code 3: malformed. Null arguments.
    let other = Ctx::new(N as u64, &t65537(), &[50, 50], &[60]);
    let (s, _) = import_sk_raw(&other, &bytes);
    expect_status(s, HELIB_ERR_CONTEXT_MISMATCH, "other context");
    let bad = tamper(&bytes, |p| p[17] |= 0b11 << 4);
    let (s, _) = import_sk_raw(&ctx, &bad);
    expect_malformed(s, "a coefficient code 3");
    assert!(last_error().contains("code 3"), "{}", last_error());
    let mut out = null_mut();
    // SAFETY: NULL buffer, valid out pointer: refused before any read.
    let s = unsafe { helib_secret_key_import(ctx.ptr, std::ptr::null(), 0, &mut out) };
    expect_status(s, HELIB_ERR_NULL_POINTER, "NULL buffer");
    // SAFETY: NULL key and NULL length: refused before any use.
    let s = unsafe { helib_secret_key_export(null(), null_mut(), null_mut()) };
    expect_status(s, HELIB_ERR_NULL_POINTER, "NULL key");
}
