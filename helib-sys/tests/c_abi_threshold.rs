//! Tests of the threshold part of the C ABI (`helib_c.h`, "threshold"): a
//! two-party run of every entry point against the single-key results, and
//! bad inputs (NULL, wrong lengths, unreduced residues, other contexts, size-3
//! ciphertexts, smudging that does not fit, combinations that do not decrypt),
//! each a status code with a message and no output written; and the
//! context-free noise facts (fresh-noise bound, smudging room) the Rust model reads.

mod common;

use std::ptr::{null, null_mut};

use common::*;
use helib_sys::*;
use num_bigint::BigUint;

const N: usize = 1024;

fn t65537() -> BigUint {
    BigUint::from(65537u32)
}

/// Chain with room for smudging, one special prime.
fn ctx() -> Ctx {
    Ctx::new(N as u64, &t65537(), &[55, 55, 55], &[60])
}

fn add_mod(acc: &mut [u64], x: &[u64], moduli: &[u64]) {
    for (k, (a, b)) in acc.iter_mut().zip(x).enumerate() {
        let q = moduli[(k / N) % moduli.len()];
        *a = (*a + *b) % q;
    }
}

fn chain_len(ctx: &Ctx, level: usize) -> usize {
    let _ = ctx;
    N * (level + 1)
}

/// The widest smudging spec of `parties` parties at `lambda` for `level`.
fn smudging(ctx: &Ctx, parties: u32, lambda: u32, level: usize) -> helib_smudging {
    let mut out = spec(0, 0, 0, f64::NAN);
    // SAFETY: live context; `out` is a valid out-pointer.
    check(unsafe { helib_threshold_smudging_for_level(ctx.ptr, parties, lambda, level, &mut out) });
    out
}

/// A smudging spec with the given fields (possibly out of range).
fn spec(parties: u32, security_bits: u32, level: usize, noise_bits: f64) -> helib_smudging {
    helib_smudging {
        parties,
        security_bits,
        level,
        noise_bits,
    }
}

fn decrypt_share(
    sk: &SecretKey,
    ct: &Ct,
    smudging: &helib_smudging,
    len: usize,
) -> (helib_status, Vec<u64>) {
    let mut out = vec![0u64; len];
    // SAFETY: live handles; `out` holds `len` values.
    let s =
        unsafe { helib_threshold_decrypt_share(sk.0, ct.0, smudging, out.as_mut_ptr(), out.len()) };
    (s, out)
}

#[test]
fn two_parties_public_key_and_decryption_match_the_plaintext() {
    let ctx = ctx();
    let (s1, s2) = (SecretKey::generate(&ctx), SecretKey::generate(&ctx));
    let seed = [9u8; 32];
    let top = ctx.max_level();
    let len = chain_len(&ctx, top);
    let primes = ctx.primes();
    let mut sum = vec![0u64; len];
    for sk in [&s1, &s2] {
        let mut share = vec![0u64; len];
        // SAFETY: live handle; the seed has 32 bytes; `share` holds `len` values.
        check(unsafe {
            helib_threshold_public_key_share(sk.0, seed.as_ptr(), share.as_mut_ptr(), len)
        });
        add_mod(&mut sum, &share, &primes);
    }
    let mut pk = null_mut();
    // SAFETY: live context; `sum` holds `len` values; `pk` is an out-pointer.
    check(unsafe {
        helib_threshold_public_key_assemble(ctx.ptr, seed.as_ptr(), sum.as_ptr(), len, &mut pk)
    });
    let pk = PublicKey(pk);
    let m = rand_poly(&mut rng(1), N, &ctx.t);
    let ct = encrypt_pk(&pk, &ctx, &m, top);
    assert_poly_eq(
        &collective_decrypt(&ctx, [&s1, &s2], &ct),
        &m,
        "collective decryption",
    );

    // Only one party's share: the combination does not decrypt, and the output is untouched.
    let spec = smudging(&ctx, 2, 40, top);
    let (_, only) = decrypt_share(&s1, &ct, &spec, len);
    let mut untouched = vec![7u64; N * ctx.plain_limbs()];
    // SAFETY: live ciphertext; `only` and `untouched` hold as many values as
    // their lengths say.
    let s = unsafe {
        helib_threshold_decrypt_combine(
            ct.0,
            &spec,
            only.as_ptr(),
            len,
            untouched.as_mut_ptr(),
            untouched.len(),
        )
    };
    let msg = expect_status(s, HELIB_ERR_MALFORMED_INPUT, "combine with a share missing");
    assert!(msg.contains("missing, repeated or forged"), "{msg}");
    assert!(untouched.iter().all(|&x| x == 7));
}

#[test]
fn bad_arguments_give_status_codes() {
    let ctx = ctx();
    let other = ctx_other();
    let sk = SecretKey::generate(&ctx);
    let sk_other = SecretKey::generate(&other);
    let seed = [1u8; 32];
    let top = ctx.max_level();
    let len = chain_len(&ctx, top);
    let mut out = vec![0u64; len];

    // SAFETY: in every call below, handles are live or NULL on purpose, and
    // every buffer holds at least the length passed with it.
    unsafe {
        expect_status(
            helib_threshold_public_key_share(null(), seed.as_ptr(), out.as_mut_ptr(), len),
            HELIB_ERR_NULL_POINTER,
            "NULL secret key",
        );
        expect_status(
            helib_threshold_public_key_share(sk.0, null(), out.as_mut_ptr(), len),
            HELIB_ERR_NULL_POINTER,
            "NULL seed",
        );
        expect_status(
            helib_threshold_public_key_share(sk.0, seed.as_ptr(), out.as_mut_ptr(), len - 1),
            HELIB_ERR_INVALID_ARGUMENT,
            "short output",
        );
        expect_status(
            helib_threshold_public_key_share(sk.0, seed.as_ptr(), null_mut(), len),
            HELIB_ERR_NULL_POINTER,
            "NULL output",
        );

        // Unreduced residues are refused, naming the prime.
        let mut bad = vec![0u64; len];
        bad[N + 3] = u64::MAX;
        let mut pk = null_mut();
        let msg = expect_status(
            helib_threshold_public_key_assemble(ctx.ptr, seed.as_ptr(), bad.as_ptr(), len, &mut pk),
            HELIB_ERR_INVALID_ARGUMENT,
            "unreduced residue",
        );
        assert!(
            msg.contains("not reduced") && msg.contains("prime 1"),
            "{msg}"
        );
        assert!(pk.is_null());
        expect_status(
            helib_threshold_public_key_assemble(
                ctx.ptr,
                seed.as_ptr(),
                bad.as_ptr(),
                len + N,
                &mut pk,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "long sum",
        );

        // Key shares: invalid elements, wrong lengths, no special primes.
        let mut key_len = 0usize;
        check(helib_threshold_key_share_len(ctx.ptr, &mut key_len));
        assert_eq!(key_len, 3 * 4 * N, "three digits of four primes");
        let plain = Ctx::new(N as u64, &t65537(), &[55, 55], &[]);
        let mut none = 0usize;
        expect_status(
            helib_threshold_key_share_len(plain.ptr, &mut none),
            HELIB_ERR_INVALID_ARGUMENT,
            "no special primes",
        );
        let mut key = vec![0u64; key_len];
        expect_status(
            helib_threshold_galois_key_share(sk.0, 2, seed.as_ptr(), key.as_mut_ptr(), key_len),
            HELIB_ERR_INVALID_ARGUMENT,
            "even Galois element",
        );
        expect_status(
            helib_threshold_galois_key_share(sk.0, 3, seed.as_ptr(), key.as_mut_ptr(), key_len - 1),
            HELIB_ERR_INVALID_ARGUMENT,
            "short key share",
        );
        let mut h1 = vec![0u64; key_len];
        expect_status(
            helib_threshold_relin_key_round1(
                sk.0,
                sk_other.0,
                seed.as_ptr(),
                key.as_mut_ptr(),
                h1.as_mut_ptr(),
                key_len,
            ),
            HELIB_ERR_CONTEXT_MISMATCH,
            "ephemeral secret of another context",
        );
        // Round 1 writes both outputs in place and round 2 reads the sums in
        // place: overlapping buffers are refused before anything is touched.
        let overlap = expect_status(
            helib_threshold_relin_key_round1(
                sk.0,
                sk.0,
                seed.as_ptr(),
                key.as_mut_ptr(),
                key.as_mut_ptr(),
                key_len,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "h0 and h1 the same buffer",
        );
        assert!(overlap.contains("overlap"), "{overlap}");
        let mut whole = vec![0u64; key_len + N];
        let (first, shifted) = (whole.as_mut_ptr(), whole.as_mut_ptr().add(N));
        expect_status(
            helib_threshold_relin_key_round1(sk.0, sk.0, seed.as_ptr(), first, shifted, key_len),
            HELIB_ERR_INVALID_ARGUMENT,
            "h0 and h1 overlapping by all but one prime",
        );
        for (h0_sum, h1_sum, what) in [
            (key.as_ptr(), h1.as_ptr(), "out is h0_sum"),
            (h1.as_ptr(), key.as_ptr(), "out is h1_sum"),
        ] {
            expect_status(
                helib_threshold_relin_key_round2(
                    sk.0,
                    sk.0,
                    h0_sum,
                    h1_sum,
                    key_len,
                    key.as_mut_ptr(),
                    key_len,
                ),
                HELIB_ERR_INVALID_ARGUMENT,
                what,
            );
        }
        // An unreduced residue in the last row of a sum, found only as that
        // row is used: refused, and every row already written is wiped.
        let (mut h0_sum, mut h1_sum) = (vec![0u64; key_len], vec![0u64; key_len]);
        check(helib_threshold_relin_key_round1(
            sk.0,
            sk.0,
            seed.as_ptr(),
            h0_sum.as_mut_ptr(),
            h1_sum.as_mut_ptr(),
            key_len,
        ));
        h1_sum[key_len - 1] = u64::MAX;
        let mut written = vec![7u64; key_len];
        let msg = expect_status(
            helib_threshold_relin_key_round2(
                sk.0,
                sk.0,
                h0_sum.as_ptr(),
                h1_sum.as_ptr(),
                key_len,
                written.as_mut_ptr(),
                key_len,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "unreduced round-1 sum",
        );
        assert!(
            msg.contains("h1_sum") && msg.contains("not reduced"),
            "{msg}"
        );
        assert!(written.iter().all(|&x| x == 0), "the output is wiped");
        let mut rk = null_mut();
        let mut unreduced = vec![0u64; key_len];
        unreduced[key_len - 1] = u64::MAX;
        expect_status(
            helib_threshold_relin_key_assemble(
                ctx.ptr,
                2,
                unreduced.as_ptr(),
                h1.as_ptr(),
                key_len,
                &mut rk,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "unreduced relinearization sum",
        );
        assert!(rk.is_null());
        expect_status(
            helib_threshold_relin_key_assemble(
                ctx.ptr,
                0,
                h1.as_ptr(),
                h1.as_ptr(),
                key_len,
                &mut rk,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "a relinearization key of no parties",
        );
        assert!(rk.is_null());

        // Ciphertext-bound shares.
        let pk = PublicKey::generate(&sk);
        let m = rand_poly(&mut rng(2), N, &ctx.t);
        let ct = encrypt_pk(&pk, &ctx, &m, top);
        let top_spec = smudging(&ctx, 2, 40, top);
        expect_status(
            helib_threshold_decrypt_share(sk_other.0, ct.0, &top_spec, out.as_mut_ptr(), len),
            HELIB_ERR_CONTEXT_MISMATCH,
            "secret share of another context",
        );
        expect_status(
            helib_threshold_decrypt_share(sk.0, ct.0, null(), out.as_mut_ptr(), len),
            HELIB_ERR_NULL_POINTER,
            "no smudging spec",
        );
        let bound = top_spec.noise_bits;
        for (parties, lambda) in [(0, 40), (4097, 40), (2, 0), (2, 129)] {
            let bad = spec(parties, lambda, top, bound);
            expect_status(
                helib_threshold_decrypt_share(sk.0, ct.0, &bad, out.as_mut_ptr(), len),
                HELIB_ERR_INVALID_ARGUMENT,
                "parties or lambda out of range",
            );
            let mut unused = top_spec;
            expect_status(
                helib_threshold_smudging_for_level(ctx.ptr, parties, lambda, top, &mut unused),
                HELIB_ERR_INVALID_ARGUMENT,
                "parties or lambda out of range",
            );
        }
        for noise in [f64::NAN, f64::INFINITY, -1.0, 0.0] {
            expect_status(
                helib_threshold_decrypt_share(
                    sk.0,
                    ct.0,
                    &spec(2, 40, top, noise),
                    out.as_mut_ptr(),
                    len,
                ),
                HELIB_ERR_INVALID_ARGUMENT,
                "a noise bound that is not a number above the floor",
            );
        }
        expect_status(
            helib_threshold_decrypt_share(
                sk.0,
                ct.0,
                &spec(2, 40, top + 1, bound),
                out.as_mut_ptr(),
                len,
            ),
            HELIB_ERR_INVALID_LEVEL,
            "a spec above the top level",
        );
        let empty = Ct::empty(&ctx);
        expect_status(
            helib_threshold_decrypt_share(sk.0, empty.0, &top_spec, out.as_mut_ptr(), len),
            HELIB_ERR_INVALID_ARGUMENT,
            "empty ciphertext",
        );
        let square = Ct::empty(&ctx);
        check(helib_ciphertext_multiply(ct.0, ct.0, square.0));
        let msg = expect_status(
            helib_threshold_decrypt_share(sk.0, square.0, &top_spec, out.as_mut_ptr(), len),
            HELIB_ERR_INVALID_ARGUMENT,
            "size-3 ciphertext",
        );
        assert!(msg.contains("relinearize"), "{msg}");

        // Smudging that does not fit: at level 0 there is no room for 2^-128.
        let low = Ct::empty(&ctx);
        check(helib_ciphertext_mod_switch_to(ct.0, 0, low.0));
        let mut low_spec = top_spec;
        let msg = expect_status(
            helib_threshold_smudging_for_level(ctx.ptr, 2, 128, 0, &mut low_spec),
            HELIB_ERR_NOISE_BUDGET_EXHAUSTED,
            "smudging beyond the modulus",
        );
        assert!(msg.contains("cannot hold"), "{msg}");
        let mut bits = 0u32;
        let wide = spec(2, 128, 0, bound);
        let msg = expect_status(
            helib_threshold_smudging_bits(ctx.ptr, &wide, &mut bits),
            HELIB_ERR_NOISE_BUDGET_EXHAUSTED,
            "smudging beyond the modulus",
        );
        assert!(msg.contains("does not fit"), "{msg}");
        let mut low_out = vec![5u64; N];
        expect_status(
            helib_threshold_decrypt_share(sk.0, low.0, &wide, low_out.as_mut_ptr(), N),
            HELIB_ERR_NOISE_BUDGET_EXHAUSTED,
            "decryption share beyond the modulus",
        );
        assert!(low_out.iter().all(|&x| x == 5), "nothing released");
        // The spec of another level refuses the ciphertext, whatever it holds.
        let lower = smudging(&ctx, 2, 40, top - 1);
        let msg = expect_status(
            helib_threshold_decrypt_share(sk.0, ct.0, &lower, out.as_mut_ptr(), len),
            HELIB_ERR_LEVEL_MISMATCH,
            "a ciphertext at another level than agreed",
        );
        assert!(msg.contains("agreed"), "{msg}");
        check(helib_threshold_smudging_bits(ctx.ptr, &top_spec, &mut bits));
        assert!(bits > 40 && bits < 160, "{bits}");

        // Shares to encryption: level, lengths, limbs.
        let share = vec![0u64; N];
        expect_status(
            helib_threshold_s2e_share(
                sk.0,
                seed.as_ptr(),
                top + 1,
                share.as_ptr(),
                N,
                1,
                out.as_mut_ptr(),
                len,
            ),
            HELIB_ERR_INVALID_LEVEL,
            "level above the top",
        );
        expect_status(
            helib_threshold_s2e_share(
                sk.0,
                seed.as_ptr(),
                top,
                share.as_ptr(),
                N,
                0,
                out.as_mut_ptr(),
                len,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "zero limbs per coefficient",
        );
        let too_big = vec![65537u64; N];
        expect_status(
            helib_threshold_s2e_share(
                sk.0,
                seed.as_ptr(),
                top,
                too_big.as_ptr(),
                N,
                1,
                out.as_mut_ptr(),
                len,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "share coefficient not below t",
        );
        let dst = Ct::empty(&ctx);
        expect_status(
            helib_threshold_s2e_assemble(ctx.ptr, seed.as_ptr(), top, 0, out.as_ptr(), len, dst.0),
            HELIB_ERR_INVALID_ARGUMENT,
            "zero parties",
        );

        // Key switching towards a key of another context.
        let pk_other = PublicKey::generate(&sk_other);
        let mut h1c = vec![0u64; len];
        expect_status(
            helib_threshold_key_switch_share(
                sk.0,
                ct.0,
                pk_other.0,
                &top_spec,
                out.as_mut_ptr(),
                h1c.as_mut_ptr(),
                len,
            ),
            HELIB_ERR_CONTEXT_MISMATCH,
            "target key of another context",
        );
        let mut digest = [0u8; 32];
        expect_status(
            helib_threshold_ciphertext_digest(ct.0, digest.as_mut_ptr(), 31),
            HELIB_ERR_INVALID_ARGUMENT,
            "short digest buffer",
        );
        check(helib_threshold_ciphertext_digest(
            ct.0,
            digest.as_mut_ptr(),
            32,
        ));
        let mut again = [0u8; 32];
        check(helib_threshold_ciphertext_digest(
            low.0,
            again.as_mut_ptr(),
            32,
        ));
        assert_ne!(
            digest, again,
            "different ciphertexts have different digests"
        );
    }
}

fn ctx_other() -> Ctx {
    Ctx::new(N as u64, &t65537(), &[55, 55, 55], &[60])
}

/// Sums the parties' key shares residue-wise.
fn key_sum(ctx: &Ctx, len: usize, shares: &[Vec<u64>]) -> Vec<u64> {
    let mut moduli = ctx.primes();
    moduli.extend(ctx.special_primes());
    let mut sum = vec![0u64; len];
    for s in shares {
        add_mod(&mut sum, s, &moduli);
    }
    sum
}

/// Collective decryption of `ct` by both parties.
fn collective_decrypt(ctx: &Ctx, parties: [&SecretKey; 2], ct: &Ct) -> Vec<BigUint> {
    let len = chain_len(ctx, ct.level());
    let primes = ctx.primes();
    let mut agg = vec![0u64; len];
    let spec = smudging(ctx, 2, 40, ct.level());
    for sk in parties {
        let (s, share) = decrypt_share(sk, ct, &spec, len);
        check(s);
        add_mod(&mut agg, &share, &primes);
    }
    let pl = ctx.plain_limbs();
    let mut out = vec![0u64; N * pl];
    // SAFETY: live ciphertext; `agg` and `out` hold as many values as their lengths say.
    check(unsafe {
        helib_threshold_decrypt_combine(ct.0, &spec, agg.as_ptr(), len, out.as_mut_ptr(), out.len())
    });
    poly_from_limbs(&out, pl)
}

#[test]
fn two_parties_relinearization_and_galois_keys_work() {
    let ctx = ctx();
    let parties = [SecretKey::generate(&ctx), SecretKey::generate(&ctx)];
    let ephemeral = [SecretKey::generate(&ctx), SecretKey::generate(&ctx)];
    let seed = [3u8; 32];
    let top = ctx.max_level();
    let mut key_len = 0usize;
    // SAFETY: live context; valid out-pointer.
    check(unsafe { helib_threshold_key_share_len(ctx.ptr, &mut key_len) });

    // The collective public key.
    let len = chain_len(&ctx, top);
    let mut pk_shares = Vec::new();
    for sk in &parties {
        let mut share = vec![0u64; len];
        // SAFETY: live handle; the seed has 32 bytes; `share` holds `len` values.
        check(unsafe {
            helib_threshold_public_key_share(sk.0, seed.as_ptr(), share.as_mut_ptr(), len)
        });
        pk_shares.push(share);
    }
    let mut pk_sum = vec![0u64; len];
    for s in &pk_shares {
        add_mod(&mut pk_sum, s, &ctx.primes());
    }
    let mut pk = null_mut();
    // SAFETY: live context; `pk_sum` holds `len` values; `pk` is an out-pointer.
    check(unsafe {
        helib_threshold_public_key_assemble(ctx.ptr, seed.as_ptr(), pk_sum.as_ptr(), len, &mut pk)
    });
    let pk = PublicKey(pk);

    // Relinearization key, two rounds.
    let (mut h0s, mut h1s) = (Vec::new(), Vec::new());
    for (sk, u) in parties.iter().zip(&ephemeral) {
        let (mut h0, mut h1) = (vec![0u64; key_len], vec![0u64; key_len]);
        // SAFETY: live handles; h0 and h1 hold `key_len` values.
        check(unsafe {
            helib_threshold_relin_key_round1(
                sk.0,
                u.0,
                seed.as_ptr(),
                h0.as_mut_ptr(),
                h1.as_mut_ptr(),
                key_len,
            )
        });
        h0s.push(h0);
        h1s.push(h1);
    }
    let (h0_sum, h1_sum) = (key_sum(&ctx, key_len, &h0s), key_sum(&ctx, key_len, &h1s));
    let mut round2 = Vec::new();
    for (sk, u) in parties.iter().zip(&ephemeral) {
        let mut out = vec![0u64; key_len];
        // SAFETY: live handles; the sums and `out` hold `key_len` values.
        check(unsafe {
            helib_threshold_relin_key_round2(
                sk.0,
                u.0,
                h0_sum.as_ptr(),
                h1_sum.as_ptr(),
                key_len,
                out.as_mut_ptr(),
                key_len,
            )
        });
        round2.push(out);
    }
    let b_sum = key_sum(&ctx, key_len, &round2);
    let mut rk = null_mut();
    // SAFETY: live context; the sums hold `key_len` values; `rk` is an out-pointer.
    check(unsafe {
        helib_threshold_relin_key_assemble(
            ctx.ptr,
            parties.len() as u32,
            b_sum.as_ptr(),
            h1_sum.as_ptr(),
            key_len,
            &mut rk,
        )
    });
    let rk = RelinKey(rk);

    // A Galois key.
    let g = 5u64;
    let mut g_shares = Vec::new();
    for sk in &parties {
        let mut share = vec![0u64; key_len];
        // SAFETY: live handle; `share` holds `key_len` values.
        check(unsafe {
            helib_threshold_galois_key_share(sk.0, g, seed.as_ptr(), share.as_mut_ptr(), key_len)
        });
        g_shares.push(share);
    }
    let g_sum = key_sum(&ctx, key_len, &g_shares);
    let keys = GaloisKeys::empty(&ctx);
    // SAFETY: live key set; `g_sum` holds `key_len` values.
    check(unsafe {
        helib_threshold_galois_keys_insert(
            keys.0,
            g,
            seed.as_ptr(),
            parties.len() as u32,
            g_sum.as_ptr(),
            key_len,
        )
    });

    // A product, relinearized, and an automorphism, against the plaintext model.
    let mut r = rng(4);
    let a = rand_poly(&mut r, N, &ctx.t);
    let b = rand_poly(&mut r, N, &ctx.t);
    let (ca, cb) = (
        encrypt_pk(&pk, &ctx, &a, top),
        encrypt_pk(&pk, &ctx, &b, top),
    );
    let product = Ct::empty(&ctx);
    let relinearized = Ct::empty(&ctx);
    let rotated = Ct::empty(&ctx);
    // SAFETY: live handles; distinct destinations.
    unsafe {
        check(helib_ciphertext_multiply(ca.0, cb.0, product.0));
        check(helib_ciphertext_relinearize(
            rk.0,
            product.0,
            relinearized.0,
        ));
        check(helib_ciphertext_apply_galois(keys.0, ca.0, g, rotated.0));
    }
    let want = poly_mul(&a, &b, &ctx.t);
    let got = collective_decrypt(&ctx, [&parties[0], &parties[1]], &relinearized);
    assert_poly_eq(&got, &want, "relinearized product");
    // X -> X^5 on a: coefficient i goes to 5i mod 2N, negated past N.
    let mut automorphism = vec![BigUint::from(0u32); N];
    for (i, c) in a.iter().enumerate() {
        let e = (5 * i) % (2 * N);
        automorphism[e % N] = if e < N {
            c.clone()
        } else {
            (&ctx.t - c) % &ctx.t
        };
    }
    let got = collective_decrypt(&ctx, [&parties[0], &parties[1]], &rotated);
    assert_poly_eq(&got, &automorphism, "automorphism");
}

/// The Shamir re-sharing entry points: NULL handles and buffers, sizes and
/// indices out of range, wrong lengths, an active set below the threshold or
/// with a repeat, and a share used before activation are status codes, and
/// no object is returned.
#[test]
fn shamir_bad_arguments_give_status_codes() {
    let ctx = ctx();
    let sk = SecretKey::generate(&ctx);
    let each = chain_len(&ctx, ctx.max_level());
    let mut dealt = vec![vec![0u64; each]; 3];
    let outs: Vec<*mut u64> = dealt.iter_mut().map(|d| d.as_mut_ptr()).collect();
    let mut one_null = outs.clone();
    one_null[1] = null_mut();

    // SAFETY: in every call below, handles are live or NULL on purpose, and
    // every buffer holds at least the length passed with it.
    unsafe {
        let deal = |sk: *const helib_secret_key, t: u32, n: u32, outs: &[*mut u64], len: usize| {
            helib_shamir_deal(sk, t, n, outs.as_ptr(), len)
        };
        expect_status(
            deal(null(), 2, 3, &outs, each),
            HELIB_ERR_NULL_POINTER,
            "deal without a key",
        );
        expect_status(
            deal(sk.0, 0, 3, &outs, each),
            HELIB_ERR_INVALID_ARGUMENT,
            "threshold 0",
        );
        expect_status(
            deal(sk.0, 4, 3, &outs, each),
            HELIB_ERR_INVALID_ARGUMENT,
            "threshold above N",
        );
        expect_status(
            deal(sk.0, 2, 3, &outs, each - 1),
            HELIB_ERR_INVALID_ARGUMENT,
            "short dealing",
        );
        expect_status(
            deal(sk.0, 2, 3, &outs, each + 1),
            HELIB_ERR_INVALID_ARGUMENT,
            "long dealing",
        );
        expect_status(
            helib_shamir_deal(sk.0, 2, 3, null(), each),
            HELIB_ERR_NULL_POINTER,
            "deal into NULL",
        );
        expect_status(
            deal(sk.0, 2, 3, &one_null, each),
            HELIB_ERR_NULL_POINTER,
            "deal with one NULL recipient buffer",
        );
        assert!(
            dealt.iter().flatten().all(|&v| v == 0),
            "nothing dealt on an error"
        );
        check(deal(sk.0, 2, 3, &outs, each));
        assert!(
            dealt.iter().all(|d| d.iter().any(|&v| v != 0)),
            "each recipient dealt to"
        );
        let dealing: Vec<u64> = dealt.concat();

        let mut share = null_mut();
        expect_status(
            helib_shamir_combine(null(), 1, 2, 3, dealing.as_ptr(), dealing.len(), &mut share),
            HELIB_ERR_NULL_POINTER,
            "combine without a context",
        );
        expect_status(
            helib_shamir_combine(ctx.ptr, 1, 2, 3, null(), dealing.len(), &mut share),
            HELIB_ERR_NULL_POINTER,
            "combine without dealings",
        );
        for (index, t, n) in [(0u32, 2u32, 3u32), (4, 2, 3), (1, 3, 2), (1, 2, 5000)] {
            expect_status(
                helib_shamir_combine(
                    ctx.ptr,
                    index,
                    t,
                    n,
                    dealing.as_ptr(),
                    dealing.len(),
                    &mut share,
                ),
                HELIB_ERR_INVALID_ARGUMENT,
                "combine: index or sizes out of range",
            );
        }
        expect_status(
            helib_shamir_combine(
                ctx.ptr,
                1,
                2,
                3,
                dealing.as_ptr(),
                dealing.len() - 1,
                &mut share,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "combine: wrong length",
        );
        assert!(share.is_null());
        check(helib_shamir_combine(
            ctx.ptr,
            1,
            2,
            3,
            dealing.as_ptr(),
            dealing.len(),
            &mut share,
        ));
        assert!(!share.is_null());

        let mut imported = null_mut();
        let residues = &dealing[..each];
        expect_status(
            helib_shamir_share_from_residues(
                null(),
                1,
                2,
                3,
                residues.as_ptr(),
                each,
                &mut imported,
            ),
            HELIB_ERR_NULL_POINTER,
            "share from residues without a context",
        );
        expect_status(
            helib_shamir_share_from_residues(ctx.ptr, 1, 2, 3, null(), each, &mut imported),
            HELIB_ERR_NULL_POINTER,
            "share from residues without residues",
        );
        expect_status(
            helib_shamir_share_from_residues(ctx.ptr, 1, 2, 3, residues.as_ptr(), each, null_mut()),
            HELIB_ERR_NULL_POINTER,
            "share from residues without a place for it",
        );
        for (index, t, n) in [(0u32, 2u32, 3u32), (4, 2, 3), (1, 3, 2), (1, 2, 5000)] {
            expect_status(
                helib_shamir_share_from_residues(
                    ctx.ptr,
                    index,
                    t,
                    n,
                    residues.as_ptr(),
                    each,
                    &mut imported,
                ),
                HELIB_ERR_INVALID_ARGUMENT,
                "share from residues: index or sizes out of range",
            );
        }
        expect_status(
            helib_shamir_share_from_residues(
                ctx.ptr,
                1,
                2,
                3,
                residues.as_ptr(),
                each - 1,
                &mut imported,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "share from residues: wrong length",
        );
        let mut unreduced = residues.to_vec();
        unreduced[7] = u64::MAX;
        expect_status(
            helib_shamir_share_from_residues(
                ctx.ptr,
                1,
                2,
                3,
                unreduced.as_ptr(),
                each,
                &mut imported,
            ),
            HELIB_ERR_INVALID_ARGUMENT,
            "share from residues: an unreduced residue",
        );
        assert!(imported.is_null());
        check(helib_shamir_share_from_residues(
            ctx.ptr,
            1,
            2,
            3,
            residues.as_ptr(),
            each,
            &mut imported,
        ));
        assert!(!imported.is_null());
        helib_secret_share_free(imported);

        let mut active = null_mut();
        let set = [1u32, 3];
        expect_status(
            helib_shamir_activate(null(), set.as_ptr(), 2, &mut active),
            HELIB_ERR_NULL_POINTER,
            "activate without a share",
        );
        expect_status(
            helib_shamir_activate(share, null(), 2, &mut active),
            HELIB_ERR_NULL_POINTER,
            "activate without a set",
        );
        expect_status(
            helib_shamir_activate(share, set.as_ptr(), 1, &mut active),
            HELIB_ERR_INVALID_ARGUMENT,
            "active set below the threshold",
        );
        let repeated = [1u32, 1];
        expect_status(
            helib_shamir_activate(share, repeated.as_ptr(), 2, &mut active),
            HELIB_ERR_INVALID_ARGUMENT,
            "repeated party",
        );
        expect_status(
            helib_shamir_activate(share, set.as_ptr(), 5000, &mut active),
            HELIB_ERR_INVALID_ARGUMENT,
            "oversized active set",
        );
        assert!(active.is_null());

        let mut out = vec![0u64; each];
        expect_status(
            helib_threshold_decrypt_share_residues(null(), null(), null(), out.as_mut_ptr(), each),
            HELIB_ERR_NULL_POINTER,
            "decryption share without a share",
        );
        expect_status(
            helib_threshold_decrypt_share_residues(share, null(), null(), out.as_mut_ptr(), each),
            HELIB_ERR_INVALID_ARGUMENT,
            "decryption share before activation",
        );
        let (mut i, mut t, mut n, mut a) = (0u32, 0u32, 0u32, 9usize);
        expect_status(
            helib_shamir_share_info(null(), &mut i, &mut t, &mut n, &mut a),
            HELIB_ERR_NULL_POINTER,
            "info without a share",
        );
        check(helib_shamir_share_info(
            share, &mut i, &mut t, &mut n, &mut a,
        ));
        assert_eq!((i, t, n, a), (1, 2, 3, 0));
        helib_secret_share_free(share);
        helib_secret_share_free(null_mut());
    }
}

#[test]
fn context_free_noise_facts_check_their_arguments() {
    let mut room = 0u32;
    // SAFETY: `room` is a valid out-pointer.
    let status = unsafe { helib_threshold_smudging_room_bits(1024, 3, 40, &mut room) };
    assert_eq!(status, HELIB_OK);
    assert_eq!(room, 40 + 10 + 2 + 2 + HELIB_SMUDGING_CHECK_BITS);
    let refused = [
        (1024, 0, 40),
        (1024, HELIB_MAX_PARTIES + 1, 40),
        (1024, 3, 0),
        (1024, 3, 129),
        (0, 3, 40),
    ];
    for (n, parties, lambda) in refused {
        // SAFETY: `room` is a valid out-pointer.
        let status = unsafe { helib_threshold_smudging_room_bits(n, parties, lambda, &mut room) };
        assert_eq!(status, HELIB_ERR_INVALID_ARGUMENT, "{n} {parties} {lambda}");
    }
    // SAFETY: a NULL out-pointer is refused before any write.
    let status = unsafe { helib_threshold_smudging_room_bits(1024, 3, 40, null_mut()) };
    assert_eq!(status, HELIB_ERR_NULL_POINTER);

    let mut fresh = 0.0f64;
    // SAFETY: `fresh` is a valid out-pointer.
    let status = unsafe { helib_noise_fresh_bits(1 << 15, 254.0, &mut fresh) };
    assert_eq!(status, HELIB_OK);
    let expansion = 2.0 * (2.0 * 32768.0f64 / 3.0).sqrt() + 1.0;
    let formula = 254.0 + (HELIB_NOISE_TAIL * HELIB_ERROR_STD_DEV * expansion + 0.5).log2();
    assert!((fresh - formula).abs() < 1e-9, "{fresh} {formula}");

    let mut squared = 0.0f64;
    // SAFETY: `squared` is a valid out-pointer.
    let status = unsafe { helib_noise_squared_secret_rounding_bits(1 << 16, 254.0, &mut squared) };
    assert_eq!(status, HELIB_OK);
    // 8 standard deviations of a rounding term (uniform in [-1/2, 1/2)) times
    // s^2 (standard deviation (2/3)·√N in each of N products): 8·N/√27.
    let formula = 254.0 + (HELIB_NOISE_TAIL * 65536.0 / 27.0f64.sqrt()).log2();
    assert!((squared - formula).abs() < 1e-9, "{squared} {formula}");

    type ModelFigure = unsafe extern "C" fn(usize, f64, *mut f64) -> helib_status;
    let figures: [(&str, ModelFigure); 2] = [
        ("fresh", helib_noise_fresh_bits),
        ("squared secret", helib_noise_squared_secret_rounding_bits),
    ];
    for (name, figure) in figures {
        let mut out = 0.0f64;
        for (n, log_t) in [(0, 17.0), (1024, f64::NAN), (1024, f64::INFINITY)] {
            // SAFETY: `out` is a valid out-pointer.
            let status = unsafe { figure(n, log_t, &mut out) };
            assert_eq!(status, HELIB_ERR_INVALID_ARGUMENT, "{name} {n} {log_t}");
        }
        // SAFETY: a NULL out-pointer is refused before any write.
        let status = unsafe { figure(1024, 17.0, null_mut()) };
        assert_eq!(status, HELIB_ERR_NULL_POINTER, "{name}");
    }
}
