//! End-to-end BGV checks through the raw C API, for t = 65537 and for t =
//! the BN254 scalar-field prime r, against a plaintext model of
//! Z_t[X]/(X^N + 1) computed with num-bigint: encryption round trips, the
//! evaluator, modulus switching and its correction factors, the noise budget,
//! and exhaustion that is always reported (never silent garbage).
//!
//! The parameter sets are insecure and small on purpose: the C layer does no
//! security check.

mod common;

use common::*;
use helib_sys::*;
use num_bigint::BigUint;
use num_traits::{One, Zero};
use rand::rngs::StdRng;
use rand::Rng;

/// A context with its keys.
struct Setup {
    ctx: Ctx,
    sk: SecretKey,
    pk: PublicKey,
}

impl Setup {
    fn new(n: u64, t: &BigUint, chain: &[u32]) -> Setup {
        let ctx = Ctx::new(n, t, chain, &[]);
        let sk = SecretKey::generate(&ctx);
        let pk = PublicKey::generate(&sk);
        Setup { ctx, sk, pk }
    }

    fn t(&self) -> &BigUint {
        &self.ctx.t
    }

    fn n(&self) -> usize {
        self.ctx.n
    }

    fn name(&self) -> String {
        let t = if self.ctx.t.bits() > 64 {
            "BN254 r".to_string()
        } else {
            self.ctx.t.to_string()
        };
        format!("N={} t={t} L={}", self.ctx.n, self.ctx.max_level())
    }

    fn decrypt(&self, ct: &Ct) -> Result<Vec<BigUint>, helib_status> {
        decrypt(&self.sk, &self.ctx, ct)
    }

    #[track_caller]
    fn decrypt_ok(&self, ct: &Ct) -> Vec<BigUint> {
        decrypt_ok(&self.sk, &self.ctx, ct)
    }

    /// Checks the invariants of a fresh or evaluated ciphertext that must
    /// decrypt to `want`.
    #[track_caller]
    fn check_ct(&self, ct: &Ct, want: &[BigUint], what: &str) {
        let what = format!("{}: {what}", self.name());
        assert_poly_eq(&self.decrypt_ok(ct), &pad(want, self.n()), &what);
        let exact = noise_budget(&self.sk, ct);
        let est = ct.estimated_budget();
        // Decryption succeeds exactly when the measured budget is >= 1 bit.
        assert!(
            exact >= 1.0,
            "{what}: exact budget {exact} on a decryptable ciphertext"
        );
        assert!(
            est <= exact + 1.0,
            "{what}: the key-free estimate ({est} bits left) is not conservative \
             (exact: {exact} bits left)"
        );
    }
}

fn t65537() -> BigUint {
    BigUint::from(65537u32)
}

/// Boundary messages: 0, 1, t - 1 in a pattern, plus the all-zero polynomial
/// and a short one.
fn boundary_messages(t: &BigUint, n: usize) -> Vec<(&'static str, Vec<BigUint>)> {
    let tm1 = t - 1u32;
    let pattern: Vec<BigUint> = (0..n)
        .map(|i| match i % 3 {
            0 => BigUint::zero(),
            1 => BigUint::one(),
            _ => tm1.clone(),
        })
        .collect();
    vec![
        ("0/1/t-1 pattern", pattern),
        ("all t-1", vec![tm1.clone(); n]),
        ("all zero", vec![BigUint::zero(); n]),
        (
            "short (3 coefficients)",
            vec![tm1.clone(), BigUint::one(), tm1],
        ),
        ("empty (0 coefficients)", vec![]),
        ("single 1 at X^(N-1)", {
            let mut v = vec![BigUint::zero(); n];
            v[n - 1] = BigUint::one();
            v
        }),
    ]
}

// -------------------------------------------------------- encrypt/decrypt

fn round_trips(s: &Setup, levels: &[usize], seed: u64) {
    let mut r = rng(seed);
    let n = s.n();
    let t = s.t().clone();
    let pl = s.ctx.plain_limbs();
    for &level in levels {
        let mut messages = boundary_messages(&t, n);
        messages.push(("random", rand_poly(&mut r, n, &t)));
        messages.push(("random half", rand_poly(&mut r, n / 2, &t)));
        for (name, m) in &messages {
            let what = |k: &str| format!("{k} {name} at level {level}");
            for (kind, ct) in [
                ("public", encrypt_pk(&s.pk, &s.ctx, m, level)),
                ("secret", encrypt_sk(&s.sk, &s.ctx, m, level)),
            ] {
                assert_eq!(ct.level(), level, "{}", what(kind));
                assert_eq!(ct.size(), 2, "{}", what(kind));
                assert_eq!(
                    ct.factor(&s.ctx),
                    s.ctx.model_factor(level),
                    "{}: a fresh ciphertext carries the canonical factor",
                    what(kind)
                );
                s.check_ct(&ct, m, &what(kind));
                // Wider output limbs: the extra limbs are zero.
                let wide = decrypt_lpc(&s.sk, &s.ctx, &ct, pl + 2).expect("wide decrypt");
                assert_poly_eq(&wide, &pad(m, n), &what("wide decrypt"));
            }
        }
        // Wider input limbs.
        let m = rand_poly(&mut r, n, &t);
        let limbs = poly_to_limbs(&m, pl + 1);
        let ct = Ct::empty(&s.ctx);
        // SAFETY: `limbs` holds N * (pl + 1) limbs; handles are live.
        check(unsafe { helib_encrypt_public(s.pk.0, limbs.as_ptr(), n, pl + 1, level, ct.0) });
        s.check_ct(
            &ct,
            &m,
            &format!("public, {} limbs per coefficient", pl + 1),
        );
        // SAFETY: as above.
        check(unsafe { helib_encrypt_secret(s.sk.0, limbs.as_ptr(), n, pl + 1, level, ct.0) });
        s.check_ct(
            &ct,
            &m,
            &format!("secret, {} limbs per coefficient", pl + 1),
        );
    }
}

#[test]
fn round_trips_t65537() {
    for (n, seed) in [(1024u64, 10u64), (2048, 11), (4096, 12)] {
        let s = Setup::new(n, &t65537(), &[61; 6]);
        round_trips(&s, &[5, 2, 0], seed);
    }
}

#[test]
fn round_trips_bn254() {
    // Q_4 has 305 bits, enough for fresh noise of ~270 bits.
    for (n, seed) in [(1024u64, 20u64), (2048, 21), (4096, 22)] {
        let s = Setup::new(n, &bn254_r(), &[61; 6]);
        round_trips(&s, &[5, 4], seed);
    }
}

#[test]
fn bn254_coefficient_r_is_rejected_and_r_minus_1_accepted() {
    let s = Setup::new(1024, &bn254_r(), &[61; 6]);
    let r = bn254_r();
    assert_eq!(s.ctx.plain_limbs(), 4);
    let (st, _) = encrypt_pk_raw(&s.pk, &s.ctx, &[BigUint::one(), r.clone()], 5);
    expect_status(st, HELIB_ERR_INVALID_ARGUMENT, "coefficient r");
    let (st, _) = encrypt_sk_raw(&s.sk, &s.ctx, &[(BigUint::one() << 256u32) - 1u32], 5);
    expect_status(st, HELIB_ERR_INVALID_ARGUMENT, "coefficient 2^256 - 1");
    let m = vec![&r - 1u32, &r - 2u32, BigUint::one() << 253u32];
    let ct = encrypt_pk(&s.pk, &s.ctx, &m, 5);
    s.check_ct(&ct, &m, "r - 1, r - 2, 2^253");
}

#[test]
fn decryption_with_another_secret_key_is_refused() {
    // Same context, different key: the "noise" is uniform mod Q, so
    // decryption must report exhaustion rather than return garbage.
    for t in [t65537(), bn254_r()] {
        let s = Setup::new(1024, &t, &[61; 6]);
        let other = SecretKey::generate(&s.ctx);
        let mut r = rng(30);
        let m = rand_poly(&mut r, 1024, &t);
        for level in [5usize, 4] {
            let ct = encrypt_pk(&s.pk, &s.ctx, &m, level);
            let got = decrypt(&other, &s.ctx, &ct);
            assert_eq!(
                got.err(),
                Some(HELIB_ERR_NOISE_BUDGET_EXHAUSTED),
                "{}: decrypting with the wrong key at level {level}",
                s.name()
            );
        }
    }
}

// ---------------------------------------------------------------- evaluator

/// A random plaintext with `weight` nonzero coefficients (all if `weight`
/// is N).
fn sparse_poly(r: &mut StdRng, n: usize, t: &BigUint, weight: usize) -> Vec<BigUint> {
    if weight >= n {
        return rand_poly(r, n, t);
    }
    let mut p = vec![BigUint::zero(); n];
    for _ in 0..weight {
        let i = r.gen_range(0..n);
        p[i] = rand_below(r, t);
    }
    p
}

fn binary(op: &str, a: &Ct, b: &Ct, dst: &Ct) -> helib_status {
    // SAFETY: live handles of one context; dst may alias an input.
    unsafe {
        match op {
            "add" => helib_ciphertext_add(a.0, b.0, dst.0),
            "sub" => helib_ciphertext_sub(a.0, b.0, dst.0),
            _ => unreachable!(),
        }
    }
}

fn mul_scalar(a: &Ct, k: &BigUint, dst: &Ct) -> helib_status {
    let mut limbs = k.to_u64_digits();
    if limbs.is_empty() {
        limbs.push(0);
    }
    // SAFETY: `limbs` holds k_nlimbs limbs; live handles.
    unsafe { helib_ciphertext_mul_scalar(a.0, limbs.as_ptr(), limbs.len(), dst.0) }
}

fn evaluator(s: &Setup, level: usize, plain_weight: usize, seed: u64) {
    let mut r = rng(seed);
    let n = s.n();
    let t = s.t().clone();
    let c = s.ctx.model_factor(level);
    let m1 = rand_poly(&mut r, n, &t);
    let m2 = boundary_messages(&t, n).swap_remove(0).1;
    let a = encrypt_pk(&s.pk, &s.ctx, &m1, level);
    let b = encrypt_sk(&s.sk, &s.ctx, &m2, level);
    let dst = Ct::empty(&s.ctx);

    check(binary("add", &a, &b, &dst));
    s.check_ct(&dst, &poly_add(&m1, &m2, &t), "add");
    check(binary("sub", &a, &b, &dst));
    s.check_ct(&dst, &poly_sub(&m1, &m2, &t), "sub");
    check(binary("sub", &b, &a, &dst));
    s.check_ct(&dst, &poly_sub(&m2, &m1, &t), "sub reversed");
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_negate(a.0, dst.0) });
    s.check_ct(&dst, &poly_neg(&m1, &t), "negate");

    // Scalars: 0, 1, t - 1, a random one, and unreduced ones of many limbs.
    let k_rand = rand_below(&mut r, &t);
    let scalars = [
        BigUint::zero(),
        BigUint::one(),
        &t - 1u32,
        k_rand.clone(),
        &t + 5u32,
        &k_rand + (&t << 300u32),
        t.clone(),
    ];
    for k in &scalars {
        check(mul_scalar(&a, k, &dst));
        s.check_ct(
            &dst,
            &poly_scalar(&m1, k, &t),
            &format!("mul_scalar by {k}"),
        );
        assert_eq!(dst.factor(&s.ctx), c, "mul_scalar keeps the factor");
    }

    // Plaintext operations (plaintext factor = ciphertext factor for +/-).
    let p = sparse_poly(&mut r, n, &t, plain_weight);
    let p_add = encode(&s.ctx, &p, level, Some(&c));
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_add_plain(a.0, p_add.0, dst.0) });
    s.check_ct(&dst, &poly_add(&m1, &p, &t), "add_plain");
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_sub_plain(a.0, p_add.0, dst.0) });
    s.check_ct(&dst, &poly_sub(&m1, &p, &t), "sub_plain");

    let prod = poly_mul(&p, &m1, &t);
    let p_mul = encode(&s.ctx, &p, level, None);
    let before = noise_budget(&s.sk, &a);
    let est_before = a.estimated_budget();
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mul_plain(a.0, p_mul.0, dst.0) });
    s.check_ct(&dst, &prod, "mul_plain");
    assert_eq!(dst.factor(&s.ctx), c, "mul_plain by a factor-1 plaintext");
    let after = noise_budget(&s.sk, &dst);
    assert!(
        after < before,
        "{}: budget {before} -> {after} after mul_plain",
        s.name()
    );
    assert!(
        dst.estimated_budget() < est_before,
        "estimated budget after mul_plain"
    );

    // A plaintext with a non-1 factor f multiplies the factor by f but
    // still decrypts to m * p.
    let f = rand_below(&mut r, &t).max(BigUint::from(2u32));
    let p_f = encode(&s.ctx, &p, level, Some(&f));
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mul_plain(a.0, p_f.0, dst.0) });
    assert_eq!(
        dst.factor(&s.ctx),
        (&c * &f) % &t,
        "factor after mul_plain by factor f"
    );
    s.check_ct(&dst, &prod, "mul_plain by a plaintext with factor f");

    // Aliasing: every operation with dst == an input.
    let x = a.dup(&s.ctx);
    check(binary("add", &x, &x, &x));
    let mut model = poly_add(&m1, &m1, &t);
    s.check_ct(&x, &model, "add in place (x + x)");
    check(binary("sub", &x, &b, &x));
    model = poly_sub(&model, &m2, &t);
    s.check_ct(&x, &model, "sub in place");
    // SAFETY: live handle, aliased.
    check(unsafe { helib_ciphertext_negate(x.0, x.0) });
    model = poly_neg(&model, &t);
    s.check_ct(&x, &model, "negate in place");
    check(mul_scalar(&x, &k_rand, &x));
    model = poly_scalar(&model, &k_rand, &t);
    s.check_ct(&x, &model, "mul_scalar in place");
    // SAFETY: live handles, aliased.
    check(unsafe { helib_ciphertext_add_plain(x.0, p_add.0, x.0) });
    model = poly_add(&model, &p, &t);
    s.check_ct(&x, &model, "add_plain in place");
    let small = sparse_poly(&mut r, n, &BigUint::from(1000u32), 4);
    let p_small = encode(&s.ctx, &small, level, None);
    // SAFETY: live handles, aliased.
    check(unsafe { helib_ciphertext_mul_plain(x.0, p_small.0, x.0) });
    model = poly_mul(&small, &model, &t);
    s.check_ct(&x, &model, "mul_plain in place");
    let y = b.dup(&s.ctx);
    check(binary("sub", &b, &y, &y));
    s.check_ct(&y, &vec![BigUint::zero(); n], "b - b (dst aliases b)");
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_copy(a.0, y.0) });
    s.check_ct(&y, &m1, "copy");
    // Copy onto itself is a no-op.
    // SAFETY: live handle, aliased.
    check(unsafe { helib_ciphertext_copy(y.0, y.0) });
    s.check_ct(&y, &m1, "self copy");
}

#[test]
fn evaluator_matches_model_t65537() {
    for (n, seed) in [(1024u64, 40u64), (2048, 41), (4096, 42)] {
        let s = Setup::new(n, &t65537(), &[61; 6]);
        // Dense plaintexts everywhere (u128 model).
        evaluator(&s, 5, n as usize, seed);
        evaluator(&s, 2, n as usize, seed + 100);
    }
}

#[test]
fn evaluator_matches_model_bn254() {
    // Q_9 has ~610 bits: room for a fresh ciphertext (~270 bits) times a
    // dense 254-bit plaintext (~264 more bits).
    let s = Setup::new(1024, &bn254_r(), &[61; 10]);
    evaluator(&s, 9, 1024, 50);
    for (n, seed) in [(2048u64, 51u64), (4096, 52)] {
        let s = Setup::new(n, &bn254_r(), &[61; 10]);
        evaluator(&s, 9, 8, seed);
    }
}

// ------------------------------------------------------------ mod switching

/// Switches down one prime at a time and checks the message and the factor
/// at each level; stops early only if decryption reports exhaustion (which
/// must not happen at or above `must_reach`).
fn switch_down(s: &Setup, m: &[BigUint], must_reach: usize) {
    let t = s.t().clone();
    let primes = s.ctx.primes();
    let top = s.ctx.max_level();
    let ct = encrypt_pk(&s.pk, &s.ctx, m, top);
    let mut factor = BigUint::one();
    for level in (0..top).rev() {
        // SAFETY: live handle, aliased (switch in place).
        let st = unsafe { helib_ciphertext_mod_switch(ct.0, ct.0) };
        if st == HELIB_ERR_NOISE_BUDGET_EXHAUSTED && level < must_reach {
            break;
        }
        check(st);
        assert_eq!(ct.level(), level);
        factor = factor * BigUint::from(primes[level + 1]).modinv(&t).unwrap() % &t;
        assert_eq!(
            ct.factor(&s.ctx),
            factor,
            "{}: factor at level {level}",
            s.name()
        );
        assert_eq!(
            s.ctx.correction_factor(level),
            factor,
            "canonical factor at {level}"
        );
        match s.decrypt(&ct) {
            Ok(got) => assert_poly_eq(&got, m, &format!("{}: after switch to {level}", s.name())),
            Err(HELIB_ERR_NOISE_BUDGET_EXHAUSTED) if level < must_reach => break,
            Err(e) => panic!("{}: decrypt at level {level}: {}", s.name(), status_name(e)),
        }
    }
}

#[test]
fn mod_switch_preserves_the_message_t65537() {
    let mut r = rng(60);
    for n in [1024u64, 2048, 4096] {
        let s = Setup::new(n, &t65537(), &[61, 61, 55, 50, 45, 40]);
        let m = rand_poly(&mut r, n as usize, &t65537());
        switch_down(&s, &m, 0);
    }
}

#[test]
fn mod_switch_preserves_the_message_bn254() {
    let mut r = rng(61);
    let s = Setup::new(2048, &bn254_r(), &[61; 7]);
    let m = rand_poly(&mut r, 2048, &bn254_r());
    // 5 primes (305 bits) hold BN254 noise; below that exhaustion may be
    // reported, but never garbage.
    switch_down(&s, &m, 4);
}

#[test]
fn mod_switch_to_and_reduce_noise() {
    let t = t65537();
    let s = Setup::new(1024, &t, &[61; 6]);
    let mut r = rng(62);
    let m = rand_poly(&mut r, 1024, &t);
    let ct = encrypt_sk(&s.sk, &s.ctx, &m, 5);
    let dst = Ct::empty(&s.ctx);
    for level in [5usize, 3, 0] {
        // SAFETY: live handles.
        check(unsafe { helib_ciphertext_mod_switch_to(ct.0, level, dst.0) });
        assert_eq!(dst.level(), level);
        assert_eq!(dst.factor(&s.ctx), s.ctx.model_factor(level));
        s.check_ct(&dst, &m, &format!("mod_switch_to {level}"));
    }
    // On a fresh ciphertext (noise near the switching floor) a switch would
    // cost budget, so the policy keeps the level.
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mod_switch_reduce_noise(ct.0, dst.0) });
    assert_eq!(dst.level(), 5, "reduce_noise switched a fresh ciphertext");
    s.check_ct(&dst, &m, "reduce_noise on a fresh ciphertext");
    // After four dense products (~25 bits each) the noise is far above the
    // floor: at least one switch, the message kept, (almost) no budget lost.
    let mut pm = m.clone();
    for _ in 0..4 {
        let pv = rand_poly(&mut r, 1024, &t);
        let p = encode(&s.ctx, &pv, 5, None);
        pm = poly_mul(&pv, &pm, &t);
        // SAFETY: live handles, aliased.
        check(unsafe { helib_ciphertext_mul_plain(ct.0, p.0, ct.0) });
    }
    s.check_ct(&ct, &pm, "four products");
    let before = noise_budget(&s.sk, &ct);
    let est_before = ct.estimated_budget();
    // SAFETY: live handles.
    check(unsafe { helib_ciphertext_mod_switch_reduce_noise(ct.0, dst.0) });
    assert!(
        dst.level() < 5,
        "reduce_noise stayed at the top after four products"
    );
    s.check_ct(&dst, &pm, "after reduce_noise");
    let after = noise_budget(&s.sk, &dst);
    assert!(
        after > before - 2.0,
        "reduce_noise lost budget: {before} -> {after}"
    );
    let est_after = dst.estimated_budget();
    assert!(
        est_after > est_before - 1.0,
        "reduce_noise lost estimated budget: {est_before} -> {est_after}"
    );
}

// ---------------------------------------------------- noise and exhaustion

/// Multiplies by random dense plaintexts (switching modulus first each
/// time) until the engine refuses or decryption reports exhaustion. Returns
/// the number of products that decrypted correctly.
fn mul_plain_until_exhausted(s: &Setup, seed: u64, max_steps: usize) -> usize {
    let mut r = rng(seed);
    let n = s.n();
    let t = s.t().clone();
    let mut m = rand_poly(&mut r, n, &t);
    let ct = encrypt_pk(&s.pk, &s.ctx, &m, s.ctx.max_level());
    assert!(noise_budget(&s.sk, &ct) > 0.0, "fresh budget");
    let mut good = 0usize;
    for step in 0..max_steps {
        // SAFETY: live handle, aliased.
        check(unsafe { helib_ciphertext_mod_switch_reduce_noise(ct.0, ct.0) });
        let level = ct.level();
        let p = rand_poly(&mut r, n, &t);
        let pt = encode(&s.ctx, &p, level, None);
        let before = noise_budget(&s.sk, &ct);
        let dst = Ct::empty(&s.ctx);
        // SAFETY: live handles.
        let st = unsafe { helib_ciphertext_mul_plain(ct.0, pt.0, dst.0) };
        if st == HELIB_ERR_NOISE_BUDGET_EXHAUSTED {
            assert!(!last_error().is_empty());
            // The refused input is intact.
            assert_poly_eq(&s.decrypt_ok(&ct), &m, "input after a refused mul_plain");
            return good;
        }
        check(st);
        m = poly_mul(&p, &m, &t);
        match s.decrypt(&dst) {
            Ok(got) => {
                assert_poly_eq(
                    &got,
                    &m,
                    &format!("{}: step {step} (level {level})", s.name()),
                );
                let after = noise_budget(&s.sk, &dst);
                assert!(
                    after < before,
                    "{}: budget did not decrease ({before} -> {after})",
                    s.name()
                );
                good += 1;
            }
            Err(HELIB_ERR_NOISE_BUDGET_EXHAUSTED) => return good,
            Err(e) => panic!("{}: decrypt: {}", s.name(), status_name(e)),
        }
        // SAFETY: live handles.
        check(unsafe { helib_ciphertext_copy(dst.0, ct.0) });
    }
    panic!(
        "{}: {max_steps} plaintext products without exhaustion being reported",
        s.name()
    );
}

#[test]
fn mul_plain_chain_ends_in_reported_exhaustion() {
    // t = 65537: each product costs ~27 bits, each switch frees 61.
    let s = Setup::new(1024, &t65537(), &[61; 6]);
    let good = mul_plain_until_exhausted(&s, 70, 40);
    assert!(
        good >= 3,
        "only {good} products before exhaustion with t = 65537"
    );
    let s = Setup::new(2048, &t65537(), &[61; 4]);
    let good = mul_plain_until_exhausted(&s, 71, 40);
    assert!(
        good >= 1,
        "only {good} products before exhaustion (N = 2048)"
    );
    // BN254: one dense product fits in 10 primes, not many more.
    let s = Setup::new(1024, &bn254_r(), &[61; 10]);
    let good = mul_plain_until_exhausted(&s, 72, 40);
    assert!(good >= 1, "no BN254 product decrypted");
    // With 6 primes not even one dense BN254 product fits.
    let s = Setup::new(1024, &bn254_r(), &[61; 6]);
    assert_eq!(mul_plain_until_exhausted(&s, 73, 40), 0);
}

/// Repeated multiplication by scalars of size ~t/2: every step either is
/// refused, or decrypts correctly, or decryption reports exhaustion. When
/// the engine refuses, doubling by addition must end in a refusal too: of
/// the addition (the estimate would drop below one bit) or of the decryption.
fn huge_scalars(s: &Setup, seed: u64) {
    let mut r = rng(seed);
    let n = s.n();
    let t = s.t().clone();
    let mut m = rand_poly(&mut r, n, &t);
    let ct = encrypt_pk(&s.pk, &s.ctx, &m, s.ctx.max_level());
    let half = &t >> 1u32;
    let mut decrypted_exhausted = false;
    let mut steps = 0;
    while steps < 100 {
        steps += 1;
        // |k| close to t/2 (centered), given with extra multiples of t.
        let k = &half - rand_below(&mut r, &BigUint::from(1000u32)) + (&t << 70u32);
        let st = mul_scalar(&ct, &k, &ct);
        if st == HELIB_ERR_NOISE_BUDGET_EXHAUSTED {
            assert!(!last_error().is_empty());
            break;
        }
        check(st);
        m = poly_scalar(&m, &k, &t);
        match s.decrypt(&ct) {
            Ok(got) => assert_poly_eq(&got, &m, &format!("{}: scalar step {steps}", s.name())),
            Err(HELIB_ERR_NOISE_BUDGET_EXHAUSTED) => {
                decrypted_exhausted = true;
                break;
            }
            Err(e) => panic!("{}: decrypt: {}", s.name(), status_name(e)),
        }
    }
    assert!(
        steps < 100,
        "{}: 100 huge scalars without exhaustion",
        s.name()
    );
    // Now push the noise over the edge by doubling.
    let two = BigUint::from(2u32);
    let mut addition_refused = false;
    while !decrypted_exhausted && !addition_refused && steps < 1000 {
        steps += 1;
        // SAFETY: live handle, aliased.
        let st = unsafe { helib_ciphertext_add(ct.0, ct.0, ct.0) };
        if st == HELIB_ERR_NOISE_BUDGET_EXHAUSTED {
            assert!(!last_error().is_empty());
            addition_refused = true;
            break;
        }
        check(st);
        m = poly_scalar(&m, &two, &t);
        match s.decrypt(&ct) {
            Ok(got) => assert_poly_eq(&got, &m, &format!("{}: doubling step {steps}", s.name())),
            Err(HELIB_ERR_NOISE_BUDGET_EXHAUSTED) => decrypted_exhausted = true,
            Err(e) => panic!("{}: decrypt: {}", s.name(), status_name(e)),
        }
    }
    assert!(
        decrypted_exhausted || addition_refused,
        "{}: neither an addition nor a decryption refused",
        s.name()
    );
    assert!(!last_error().is_empty());
    let est = ct.estimated_budget();
    if addition_refused {
        // The refused doubling left a ciphertext within two bits of the
        // edge, which still decrypts.
        assert!(
            (1.0..2.0).contains(&est),
            "{}: estimated budget {est}",
            s.name()
        );
        let got = s
            .decrypt(&ct)
            .unwrap_or_else(|e| panic!("{}: {}", s.name(), status_name(e)));
        assert_poly_eq(
            &got,
            &m,
            &format!("{}: after the refused doubling", s.name()),
        );
        return;
    }
    // The exact budget of an exhausted ciphertext is (about) zero.
    let b = noise_budget(&s.sk, &ct);
    assert!(
        (0.0..1.0).contains(&b),
        "{}: exact budget {b} on a ciphertext decryption refused",
        s.name()
    );
    assert!(
        est < 1.5,
        "{}: estimated budget {est} after exhaustion",
        s.name()
    );
}

#[test]
fn huge_scalars_exhaust_and_decryption_reports_it() {
    huge_scalars(&Setup::new(1024, &t65537(), &[61; 3]), 80);
    huge_scalars(&Setup::new(2048, &t65537(), &[61; 6]), 81);
    huge_scalars(&Setup::new(1024, &bn254_r(), &[61; 6]), 82);
    huge_scalars(&Setup::new(4096, &bn254_r(), &[61; 10]), 83);
}

// ------------------------------------------------------------- concurrency

/// Read-only access to a context, its keys and one ciphertext from several
/// threads.
struct SharedSetup {
    s: Setup,
    ct: Ct,
    m: Vec<BigUint>,
}

// SAFETY: the header says a context may be shared freely and that handles
// may be used concurrently with functions taking them as `const`. The
// threads below pass the context, the keys and `ct` only as const inputs
// (encrypt, decrypt, noise budget, set_threads, which is documented as
// thread-safe); every ciphertext they write is their own.
unsafe impl Sync for SharedSetup {}

#[test]
fn shared_context_and_keys_across_threads() {
    let t = t65537();
    let s = Setup::new(2048, &t, &[61; 4]);
    // SAFETY: live context.
    check(unsafe { helib_context_set_threads(s.ctx.ptr, 2) });
    let mut r = rng(100);
    let m = rand_poly(&mut r, 2048, &t);
    let ct = encrypt_pk(&s.pk, &s.ctx, &m, 3);
    let shared = SharedSetup { s, ct, m };
    let shared = &shared;
    std::thread::scope(|scope| {
        for id in 0..3u64 {
            scope.spawn(move || {
                let s = &shared.s;
                let t = s.t().clone();
                let mut r = rng(200 + id);
                for round in 0..3 {
                    let m = rand_poly(&mut r, 2048, &t);
                    let p = rand_poly(&mut r, 2048, &t);
                    let ct = if round % 2 == 0 {
                        encrypt_pk(&s.pk, &s.ctx, &m, 3)
                    } else {
                        encrypt_sk(&s.sk, &s.ctx, &m, 3)
                    };
                    let pt = encode(&s.ctx, &p, 3, None);
                    // SAFETY: `ct` and `pt` belong to this thread; aliased dst.
                    check(unsafe { helib_ciphertext_mul_plain(ct.0, pt.0, ct.0) });
                    // SAFETY: as above.
                    check(unsafe { helib_ciphertext_mod_switch(ct.0, ct.0) });
                    let what = format!("thread {id} round {round}");
                    assert_poly_eq(&s.decrypt_ok(&ct), &poly_mul(&p, &m, &t), &what);
                    // The shared ciphertext, read concurrently by everyone.
                    assert_poly_eq(&s.decrypt_ok(&shared.ct), &shared.m, "shared ct");
                    assert!(noise_budget(&s.sk, &shared.ct) > 0.0);
                }
            });
        }
        // Resize the pool while the others use it (documented thread-safe).
        scope.spawn(move || {
            for k in 0..30u32 {
                // SAFETY: live context; set_threads is thread-safe.
                check(unsafe { helib_context_set_threads(shared.s.ctx.ptr, 1 + k % 3) });
                std::thread::yield_now();
            }
        });
    });
    let mut th = 0u32;
    // SAFETY: live context, valid out pointer.
    check(unsafe { helib_context_threads(shared.s.ctx.ptr, &mut th) });
    assert_eq!(th, 1 + 29 % 3);
}
