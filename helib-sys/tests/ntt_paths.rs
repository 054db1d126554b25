//! The negacyclic NTT modulo one prime on every kernel path this CPU runs
//! (a path it lacks is skipped with a message): for every length from 2 to
//! 2^16 and primes of 31, 50, 61 and 62 bits, random inputs anywhere in the
//! accepted lazy ranges ([0, 4q) forward, [0, 2q) inverse), inputs at the top
//! of those ranges, and (proptest) arbitrary inputs of lengths up to 2^14
//! give outputs below q that equal the portable (scalar) transform word for
//! word; the inverse undoes the forward transform; pointwise products of
//! transforms are negacyclic products (so the scalar transform is an NTT at
//! all); bad arguments are refused.

mod common;

use common::kernel_paths::{path_name, paths_here, PRIMES};
use helib_sys::test_api::*;
use helib_sys::*;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Checks `transform(path, ..)` against the scalar transform word for word
/// on every path this CPU runs.
fn assert_paths_equal_scalar(paths: &[u32], q: u64, inverse: bool, input: &[u64]) {
    let n = input.len();
    let reference = transform(HELIB_CPU_SCALAR, q, inverse, input);
    assert!(
        reference.iter().all(|&v| v < q),
        "scalar output not reduced, q {q}, n {n}"
    );
    for &path in paths {
        let out = transform(path, q, inverse, input);
        if let Some(j) = (0..n).find(|&j| out[j] != reference[j]) {
            panic!(
                "{} path, q {q:#x}, n {n}, inverse {inverse}: word {j} is {:#x}, scalar {:#x}",
                path_name(path),
                out[j],
                reference[j]
            );
        }
    }
}

fn transform(path: u32, prime: u64, inverse: bool, values: &[u64]) -> Vec<u64> {
    let mut out = values.to_vec();
    // SAFETY: `out` holds exactly `out.len()` words; the time pointer may be null.
    let status = unsafe {
        helib_ntt_transform(
            path,
            prime,
            out.len(),
            i32::from(inverse),
            out.as_mut_ptr(),
            1,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, HELIB_OK, "path {path}, q {prime}, n {}", out.len());
    out
}

fn random_below(rng: &mut StdRng, n: usize, bound: u64) -> Vec<u64> {
    (0..n).map(|_| rng.gen_range(0..bound)).collect()
}

fn lengths() -> impl Iterator<Item = usize> {
    (1..=16).map(|k| 1usize << k)
}

/// Inputs with the extremes of the range mixed in (0, q - 1, q, bound - 1).
fn lazy_inputs(rng: &mut StdRng, n: usize, q: u64, bound: u64) -> Vec<u64> {
    let mut values = random_below(rng, n, bound);
    for (j, v) in values.iter_mut().enumerate() {
        match j % 7 {
            1 => *v = bound - 1,
            3 => *v = q - 1,
            5 => *v = q,
            _ if j % 11 == 0 => *v = 0,
            _ => {}
        }
    }
    values
}

#[test]
fn every_path_equals_the_scalar_transform() {
    let mut rng = StdRng::seed_from_u64(12);
    let paths = paths_here();
    for q in PRIMES {
        for n in lengths() {
            for inverse in [false, true] {
                let bound = if inverse { 2 * q } else { 4 * q };
                for input in [
                    random_below(&mut rng, n, bound),
                    lazy_inputs(&mut rng, n, q, bound),
                ] {
                    assert_paths_equal_scalar(&paths, q, inverse, &input);
                }
            }
        }
    }
}

/// Every input at or just below the top of the lazy range (bound - 1, where
/// every conditional subtraction is taken and the lazy sums are largest),
/// alone and alternating with 0 and q - 1.
#[test]
fn every_path_equals_the_scalar_transform_at_the_top_of_the_range() {
    let mut rng = StdRng::seed_from_u64(15);
    let paths = paths_here();
    for q in PRIMES {
        for n in lengths() {
            for inverse in [false, true] {
                let bound = if inverse { 2 * q } else { 4 * q };
                let near_top: Vec<u64> = (0..n).map(|_| bound - 1 - rng.gen_range(0..4)).collect();
                let alternating: Vec<u64> = (0..n)
                    .map(|j| [bound - 1, 0, bound - 1, q - 1][j % 4])
                    .collect();
                for input in [vec![bound - 1; n], near_top, alternating] {
                    assert_paths_equal_scalar(&paths, q, inverse, &input);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Arbitrary inputs of every length from 2 to 2^14 (each word taken
    /// below the bound, or at its top when `top` picks it) on every path.
    #[test]
    fn every_path_equals_the_scalar_transform_on_arbitrary_inputs(
        log_n in 1u32..=14,
        prime in 0..PRIMES.len(),
        inverse in any::<bool>(),
        top in any::<u64>(),
        words in prop::collection::vec(any::<u64>(), 1usize << 14),
    ) {
        let q = PRIMES[prime];
        let bound = if inverse { 2 * q } else { 4 * q };
        let input: Vec<u64> = words[..1usize << log_n]
            .iter()
            .enumerate()
            .map(|(j, &w)| if (top >> (j % 64)) & 1 == 1 { bound - 1 - w % 4 } else { w % bound })
            .collect();
        assert_paths_equal_scalar(&paths_here(), q, inverse, &input);
    }
}

#[test]
fn inverse_undoes_forward_on_every_path() {
    let mut rng = StdRng::seed_from_u64(13);
    for path in paths_here() {
        for q in PRIMES {
            for n in lengths() {
                let input = random_below(&mut rng, n, 4 * q);
                let back = transform(path, q, true, &transform(path, q, false, &input));
                let expected: Vec<u64> = input.iter().map(|&v| v % q).collect();
                assert_eq!(back, expected, "path {path}, q {q}, n {n}");
            }
        }
    }
}

fn mul_mod(a: u64, b: u64, q: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(q)) as u64
}

/// Schoolbook product in Z_q[X]/(X^n + 1).
fn negacyclic_product(a: &[u64], b: &[u64], q: u64) -> Vec<u64> {
    let n = a.len();
    let mut out = vec![0u64; n];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let p = mul_mod(x, y, q);
            let k = (i + j) % n;
            out[k] = if i + j < n {
                (out[k] + p) % q
            } else {
                (out[k] + q - p) % q
            };
        }
    }
    out
}

#[test]
fn pointwise_products_are_negacyclic_products() {
    let mut rng = StdRng::seed_from_u64(14);
    for path in paths_here() {
        for q in PRIMES {
            for n in (1..=7).map(|k| 1usize << k) {
                let a = random_below(&mut rng, n, q);
                let b = random_below(&mut rng, n, q);
                let (fa, fb) = (transform(path, q, false, &a), transform(path, q, false, &b));
                let pointwise: Vec<u64> = fa
                    .iter()
                    .zip(&fb)
                    .map(|(&x, &y)| mul_mod(x, y, q))
                    .collect();
                assert_eq!(
                    transform(path, q, true, &pointwise),
                    negacyclic_product(&a, &b, q),
                    "path {path}, q {q}, n {n}"
                );
            }
        }
    }
}

#[test]
fn bad_arguments_are_refused() {
    let q = PRIMES[2];
    let call = |path: u32, prime: u64, inverse: i32, values: &mut [u64], repeats: usize| {
        // SAFETY: `values` holds exactly `values.len()` words.
        unsafe {
            helib_ntt_transform(
                path,
                prime,
                values.len(),
                inverse,
                values.as_mut_ptr(),
                repeats,
                std::ptr::null_mut(),
            )
        }
    };
    let mut ok = vec![1u64; 8];
    assert_eq!(call(HELIB_CPU_SCALAR, q, 0, &mut ok, 1), HELIB_OK);
    assert_eq!(
        call(HELIB_CPU_SCALAR, q, 0, &mut [1u64; 6], 1),
        HELIB_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        call(HELIB_CPU_SCALAR, q, 0, &mut [], 1),
        HELIB_ERR_INVALID_ARGUMENT
    );
    // Composite, not 1 mod 2n, and too large moduli.
    assert_eq!(
        call(HELIB_CPU_SCALAR, 17 * 97, 0, &mut ok, 1),
        HELIB_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        call(HELIB_CPU_SCALAR, 19, 0, &mut ok, 1),
        HELIB_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        call(HELIB_CPU_SCALAR, (1u64 << 63) + 1, 0, &mut ok, 1),
        HELIB_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        call(HELIB_CPU_SCALAR, q, 2, &mut ok, 1),
        HELIB_ERR_INVALID_ARGUMENT
    );
    assert_eq!(
        call(HELIB_CPU_SCALAR, q, 0, &mut ok, 0),
        HELIB_ERR_INVALID_ARGUMENT
    );
    assert_eq!(call(7, q, 0, &mut ok, 1), HELIB_ERR_INVALID_ARGUMENT);
    // Inputs at the top of the accepted ranges pass, one above is refused.
    let mut top = vec![4 * q - 1; 8];
    assert_eq!(call(HELIB_CPU_SCALAR, q, 0, &mut top, 1), HELIB_OK);
    let mut over = vec![4 * q; 8];
    assert_eq!(
        call(HELIB_CPU_SCALAR, q, 0, &mut over, 1),
        HELIB_ERR_INVALID_ARGUMENT
    );
    let mut over = vec![2 * q; 8];
    assert_eq!(
        call(HELIB_CPU_SCALAR, q, 1, &mut over, 1),
        HELIB_ERR_INVALID_ARGUMENT
    );
    // A null array.
    // SAFETY: the engine checks the pointer before any access.
    let status = unsafe {
        helib_ntt_transform(
            HELIB_CPU_SCALAR,
            q,
            8,
            0,
            std::ptr::null_mut(),
            1,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, HELIB_ERR_NULL_POINTER);
}
