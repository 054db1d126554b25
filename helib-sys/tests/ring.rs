//! The ring layer against independent references: the NTT-based negacyclic
//! product modulo a chain prime vs a schoolbook product in u128 arithmetic,
//! and the RNS decomposition / CRT reconstruction vs num-bigint.

mod common;

use common::*;
use helib_sys::test_api::*;
use helib_sys::*;
use num_bigint::BigUint;
use num_traits::{One, Zero};
use rand::rngs::StdRng;
use rand::Rng;

// ------------------------------------------------------- negacyclic product

/// `helib_ring_multiply_mod_prime` on slices.
#[track_caller]
fn engine_mul(ctx: &Ctx, prime_index: usize, a: &[u64], b: &[u64]) -> Vec<u64> {
    assert_eq!(a.len(), ctx.n);
    assert_eq!(b.len(), ctx.n);
    let mut out = vec![u64::MAX; ctx.n];
    // SAFETY: `a`, `b` and `out` each hold exactly N coefficients.
    check(unsafe {
        helib_ring_multiply_mod_prime(
            ctx.ptr,
            prime_index,
            a.as_ptr(),
            b.as_ptr(),
            out.as_mut_ptr(),
        )
    });
    out
}

fn rand_mod(rng: &mut StdRng, n: usize, q: u64) -> Vec<u64> {
    (0..n).map(|_| rng.gen_range(0..q)).collect()
}

#[track_caller]
fn assert_vec_eq(got: &[u64], want: &[u64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        let wrong = (0..got.len()).filter(|&i| got[i] != want[i]).count();
        panic!(
            "{what}: {wrong} coefficients differ; first at {i}: got {}, want {}",
            got[i], want[i]
        );
    }
}

/// Random and structured products for every prime of a context.
fn check_products(n: u64, chain: &[u32], seed: u64, random_per_prime: usize) {
    let ctx = Ctx::new(n, &BigUint::from(65537u32), chain, &[]);
    let n = ctx.n;
    let primes = ctx.primes();
    let mut r = rng(seed);
    for (idx, &q) in primes.iter().enumerate() {
        let what = |s: &str| format!("N={n} q_{idx}={q}: {s}");
        for k in 0..random_per_prime {
            let a = rand_mod(&mut r, n, q);
            let b = rand_mod(&mut r, n, q);
            let got = engine_mul(&ctx, idx, &a, &b);
            assert_vec_eq(
                &got,
                &poly_mul_u64(&a, &b, q),
                &what(&format!("random #{k}")),
            );
            // Commutativity through the engine.
            assert_vec_eq(&engine_mul(&ctx, idx, &b, &a), &got, &what("b * a"));
        }
        let zero = vec![0u64; n];
        let a = rand_mod(&mut r, n, q);
        assert_vec_eq(&engine_mul(&ctx, idx, &zero, &a), &zero, &what("0 * a"));
        assert_vec_eq(&engine_mul(&ctx, idx, &a, &zero), &zero, &what("a * 0"));
        assert_vec_eq(&engine_mul(&ctx, idx, &zero, &zero), &zero, &what("0 * 0"));

        // All q - 1: (-1 * sum X^i)^2 = (sum X^i)^2; coefficient k is
        // (k + 1) - (N - 1 - k) = 2k + 2 - N.
        let minus = vec![q - 1; n];
        let got = engine_mul(&ctx, idx, &minus, &minus);
        let want: Vec<u64> = (0..n as i64)
            .map(|k| (2 * k + 2 - n as i64).rem_euclid(q as i64) as u64)
            .collect();
        assert_vec_eq(&got, &want, &what("all q-1 squared"));
        assert_vec_eq(
            &got,
            &poly_mul_u64(&minus, &minus, q),
            &what("all q-1 vs schoolbook"),
        );

        // X^(N-1) * X^(N-1) = X^(2N-2) = -X^(N-2).
        let mut top = vec![0u64; n];
        top[n - 1] = 1;
        let mut want = vec![0u64; n];
        want[n - 2] = q - 1;
        assert_vec_eq(
            &engine_mul(&ctx, idx, &top, &top),
            &want,
            &what("X^(N-1)^2"),
        );

        // 1 * a = a, X * a is a negacyclic shift, (q-1) * a = -a.
        let mut one = vec![0u64; n];
        one[0] = 1;
        assert_vec_eq(&engine_mul(&ctx, idx, &one, &a), &a, &what("1 * a"));
        let mut x = vec![0u64; n];
        x[1] = 1;
        let mut shifted = vec![0u64; n];
        shifted[0] = (q - a[n - 1]) % q;
        shifted[1..].copy_from_slice(&a[..n - 1]);
        assert_vec_eq(&engine_mul(&ctx, idx, &x, &a), &shifted, &what("X * a"));
        let mut m1 = vec![0u64; n];
        m1[0] = q - 1;
        let neg: Vec<u64> = a.iter().map(|&v| (q - v) % q).collect();
        assert_vec_eq(&engine_mul(&ctx, idx, &m1, &a), &neg, &what("-1 * a"));
    }
}

#[test]
fn negacyclic_product_n1024_matches_schoolbook() {
    check_products(1024, &[61, 60, 50, 40, 30], 1, 2);
}

#[test]
fn negacyclic_product_n4096_matches_schoolbook() {
    check_products(4096, &[61, 30], 2, 1);
}

// --------------------------------------------------------------- RNS / CRT

struct Rns<'a> {
    ctx: &'a Ctx,
    primes: Vec<u64>,
}

impl Rns<'_> {
    fn q(&self, level: usize) -> BigUint {
        self.primes[..=level]
            .iter()
            .fold(BigUint::one(), |acc, &p| acc * p)
    }

    #[track_caller]
    fn decompose(&self, level: usize, x: &[BigUint], lpc: usize) -> Vec<u64> {
        let n = self.ctx.n;
        assert_eq!(x.len(), n);
        let limbs = poly_to_limbs(x, lpc);
        let mut res = vec![u64::MAX; (level + 1) * n];
        // SAFETY: `limbs` holds N * lpc limbs; `res` holds (level+1) * N.
        check(unsafe {
            helib_ring_to_rns(
                self.ctx.ptr,
                level,
                limbs.as_ptr(),
                lpc,
                res.as_mut_ptr(),
                res.len(),
            )
        });
        res
    }

    #[track_caller]
    fn reconstruct(&self, level: usize, res: &[u64], lpc: usize) -> Vec<BigUint> {
        let n = self.ctx.n;
        let mut out = vec![u64::MAX; n * lpc];
        // SAFETY: `res` holds (level+1) * N residues; `out` has N * lpc limbs.
        check(unsafe {
            helib_ring_from_rns(
                self.ctx.ptr,
                level,
                res.as_ptr(),
                res.len(),
                out.as_mut_ptr(),
                lpc,
            )
        });
        poly_from_limbs(&out, lpc)
    }
}

fn check_round_trips(n: u64, chain: &[u32], levels: &[usize], seed: u64) {
    let ctx = Ctx::new(n, &BigUint::from(65537u32), chain, &[]);
    let rns = Rns {
        primes: ctx.primes(),
        ctx: &ctx,
    };
    let n = ctx.n;
    let mut r = rng(seed);
    for &level in levels {
        let q = rns.q(level);
        let need = limbs_for_below(&q);
        let mut x = rand_poly(&mut r, n, &q);
        // Boundary values.
        let boundary = [
            BigUint::zero(),
            BigUint::one(),
            &q - 1u32,
            &q - 2u32,
            BigUint::from(u64::MAX) % &q,
            (BigUint::one() << 64u32) % &q,
            &q >> 1u32,
            BigUint::from(rns.primes[0]) % &q,
            BigUint::from(rns.primes[level]) - 1u32,
        ];
        for (k, b) in boundary.iter().enumerate() {
            x[k] = b.clone();
            x[n - 1 - k] = b.clone();
        }
        for lpc in [need, need + 2] {
            let what = format!("N={n} level={level} lpc={lpc}");
            let res = rns.decompose(level, &x, lpc);
            for (i, &p) in rns.primes[..=level].iter().enumerate() {
                let pb = BigUint::from(p);
                for (j, xj) in x.iter().enumerate() {
                    let want = big_to_limbs(&(xj % &pb), 1)[0];
                    assert_eq!(
                        res[i * n + j],
                        want,
                        "{what}: residue of coefficient {j} ({xj}) mod q_{i} = {p}"
                    );
                }
            }
            let back = rns.reconstruct(level, &res, lpc);
            assert_poly_eq(&back, &x, &format!("{what}: from_rns(to_rns(x))"));
        }

        // from_rns on arbitrary residues: the result y must be < Q and have
        // those residues (checked with num-bigint).
        let res: Vec<u64> = rns.primes[..=level]
            .iter()
            .flat_map(|&p| {
                let mut v: Vec<u64> = (0..n).map(|_| r.gen_range(0..p)).collect();
                v[0] = 0;
                v[1] = p - 1;
                v
            })
            .collect();
        let y = rns.reconstruct(level, &res, need);
        for (j, yj) in y.iter().enumerate() {
            assert!(
                yj < &q,
                "level {level}: reconstructed coefficient {j} is not < Q"
            );
            for (i, &p) in rns.primes[..=level].iter().enumerate() {
                assert_eq!(
                    yj % BigUint::from(p),
                    BigUint::from(res[i * n + j]),
                    "level {level}: CRT coefficient {j} mod q_{i}"
                );
            }
        }
        // All residues q_i - 1 reconstruct to Q - 1.
        let minus: Vec<u64> = rns.primes[..=level]
            .iter()
            .flat_map(|&p| vec![p - 1; n])
            .collect();
        let y = rns.reconstruct(level, &minus, need);
        assert!(
            y.iter().all(|v| *v == &q - 1u32),
            "level {level}: residues q_i - 1 must give Q - 1"
        );
    }
}

#[test]
fn rns_round_trips_match_num_bigint_n1024() {
    check_round_trips(1024, &[61, 61, 50, 40, 30, 61], &[0, 1, 2, 5], 3);
}

#[test]
fn rns_round_trips_match_num_bigint_n4096() {
    check_round_trips(4096, &[61; 6], &[0, 3, 5], 4);
}

#[test]
fn to_rns_rejects_values_not_below_q() {
    let ctx = Ctx::new(1024, &BigUint::from(65537u32), &[61, 50, 40], &[]);
    let rns = Rns {
        primes: ctx.primes(),
        ctx: &ctx,
    };
    let n = ctx.n;
    for level in 0..3 {
        let q = rns.q(level);
        let lpc = limbs_for_below(&q) + 1;
        for (name, bad) in [
            ("Q", q.clone()),
            ("Q + 1", &q + 1u32),
            ("2Q", &q * 2u32),
            ("all-ones limbs", (BigUint::one() << (64 * lpc)) - 1u32),
        ] {
            let mut x = vec![BigUint::one(); n];
            x[n / 2] = bad;
            let limbs = poly_to_limbs(&x, lpc);
            let mut res = vec![0u64; (level + 1) * n];
            // SAFETY: `limbs` holds N * lpc limbs; `res` (level+1) * N.
            let s = unsafe {
                helib_ring_to_rns(
                    ctx.ptr,
                    level,
                    limbs.as_ptr(),
                    lpc,
                    res.as_mut_ptr(),
                    res.len(),
                )
            };
            expect_status(
                s,
                HELIB_ERR_INVALID_ARGUMENT,
                &format!("to_rns of {name} at level {level}"),
            );
        }
    }
}
