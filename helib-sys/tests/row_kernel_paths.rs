//! The row kernels of modulus switching and key switching (scaling, the
//! reduction from [0, 4q), subtract-then-scale, add-then-scale and the base
//! conversion) on every kernel path this CPU runs (a path it lacks is
//! skipped with a message): for lengths that are and are not multiples of
//! the vector width, primes of 31 to 62 bits, random inputs, inputs at the
//! top of each kernel's range and (proptest) arbitrary ones, every path
//! equals the exact value computed here with 128-bit integers, word for
//! word; bad arguments are refused.

mod common;

use common::kernel_paths::{paths_here, PRIMES};
use helib_sys::test_api::*;
use helib_sys::*;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Lengths around the 4- and 8-lane widths, and a long row with a tail.
const LENGTHS: [usize; 8] = [0, 1, 3, 4, 7, 9, 16, 1029];

/// One kernel's inputs: `values` (in place), `constants` and `other`.
#[derive(Clone, Debug)]
struct Case {
    kernel: u32,
    prime: u64,
    constants: Vec<u64>,
    other: Vec<u64>,
    values: Vec<u64>,
}

fn run(path: u32, case: &Case) -> (helib_status, Vec<u64>) {
    let mut values = case.values.clone();
    // SAFETY: every pointer is valid for the length passed with it.
    let status = unsafe {
        helib_row_kernel(
            path,
            case.kernel,
            case.prime,
            case.constants.as_ptr(),
            case.constants.len(),
            case.other.as_ptr(),
            case.other.len(),
            values.as_mut_ptr(),
            values.len(),
        )
    };
    (status, values)
}

fn mul(a: u64, b: u64, q: u64) -> u64 {
    ((a as u128 * b as u128) % q as u128) as u64
}

/// The exact result, with 128-bit integers.
fn expected(case: &Case) -> Vec<u64> {
    let q = case.prime;
    let n = case.values.len();
    (0..n)
        .map(|j| {
            let v = case.values[j];
            match case.kernel {
                HELIB_ROW_SCALE => mul(v, case.constants[0], q),
                HELIB_ROW_REDUCE_FROM_4Q => v % q,
                HELIB_ROW_SUBTRACT_MULTIPLE_THEN_SCALE => {
                    let multiple = mul(case.other[j], case.constants[0], q);
                    mul((v + q - multiple) % q, case.constants[1], q)
                }
                HELIB_ROW_ADD_THEN_SCALE => mul(v + case.other[j], case.constants[0], q),
                _ => {
                    let sum: u128 = (0..case.constants.len())
                        .map(|s| mul(case.other[s * n + j], case.constants[s], q) as u128)
                        .sum();
                    (sum % q as u128) as u64
                }
            }
        })
        .collect()
}

/// A case of `kernel` with inputs drawn by `word(bound)` (a value below bound).
fn case(
    kernel: u32,
    prime: u64,
    n: usize,
    sources: usize,
    word: &mut dyn FnMut(u64) -> u64,
) -> Case {
    let q = prime;
    let (constants, other_len, value_bound) = match kernel {
        HELIB_ROW_SCALE => (1, 0, u64::MAX),
        HELIB_ROW_REDUCE_FROM_4Q => (0, 0, 4 * q),
        HELIB_ROW_SUBTRACT_MULTIPLE_THEN_SCALE => (2, n, q),
        HELIB_ROW_ADD_THEN_SCALE => (1, n, q),
        _ => (sources, sources * n, u64::MAX),
    };
    let other_bound = if kernel == HELIB_ROW_ADD_THEN_SCALE {
        q
    } else {
        u64::MAX
    };
    Case {
        kernel,
        prime,
        constants: (0..constants).map(|_| word(q)).collect(),
        other: (0..other_len).map(|_| word(other_bound)).collect(),
        values: (0..n).map(|_| word(value_bound)).collect(),
    }
}

const KERNELS: [u32; 5] = [
    HELIB_ROW_SCALE,
    HELIB_ROW_REDUCE_FROM_4Q,
    HELIB_ROW_SUBTRACT_MULTIPLE_THEN_SCALE,
    HELIB_ROW_ADD_THEN_SCALE,
    HELIB_ROW_BASE_CONVERT,
];

fn check_on_every_path(case: &Case) {
    let want = expected(case);
    for path in paths_here() {
        let (status, got) = run(path, case);
        assert_eq!(status, HELIB_OK, "path {path}, {case:?}");
        assert_eq!(got, want, "path {path}, kernel {}", case.kernel);
    }
}

#[test]
fn every_path_is_exact_for_random_and_top_of_range_inputs() {
    let mut rng = StdRng::seed_from_u64(11);
    for kernel in KERNELS {
        for prime in PRIMES {
            for n in LENGTHS {
                for sources in [1, 5, 12] {
                    check_on_every_path(&case(kernel, prime, n, sources, &mut |bound| {
                        rng.gen_range(0..bound)
                    }));
                    // The top of every range: bound - 1, and just below it.
                    let mut k = 0u64;
                    check_on_every_path(&case(kernel, prime, n, sources, &mut |bound| {
                        k += 1;
                        bound - 1 - k % 3
                    }));
                }
            }
        }
    }
}

#[test]
fn bad_arguments_are_refused() {
    let path = HELIB_CPU_SCALAR;
    let good = case(HELIB_ROW_ADD_THEN_SCALE, PRIMES[0], 4, 1, &mut |b| b - 1);
    assert_eq!(run(path, &good).0, HELIB_OK);
    let refused = |case: &Case, what: &str| {
        assert_eq!(run(path, case).0, HELIB_ERR_INVALID_ARGUMENT, "{what}");
    };
    refused(
        &Case {
            kernel: 5,
            ..good.clone()
        },
        "an unknown kernel",
    );
    refused(
        &Case {
            prime: 1 << 40,
            ..good.clone()
        },
        "a composite modulus",
    );
    refused(
        &Case {
            constants: vec![1, 2],
            ..good.clone()
        },
        "too many constants",
    );
    refused(
        &Case {
            constants: vec![PRIMES[0]],
            ..good.clone()
        },
        "a constant of q",
    );
    refused(
        &Case {
            other: vec![0; 3],
            ..good.clone()
        },
        "a short operand",
    );
    refused(
        &Case {
            other: vec![PRIMES[0]; 4],
            ..good.clone()
        },
        "an operand of q",
    );
    refused(
        &Case {
            values: vec![PRIMES[0]; 4],
            other: vec![0; 4],
            ..good.clone()
        },
        "a value of q",
    );
    let reduce = case(HELIB_ROW_REDUCE_FROM_4Q, PRIMES[0], 4, 1, &mut |_| {
        4 * PRIMES[0]
    });
    refused(&reduce, "a value of 4q");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_path_is_exact_for_arbitrary_inputs(
        kernel in 0u32..5,
        prime in prop::sample::select(PRIMES.to_vec()),
        n in 0usize..70,
        sources in 1usize..14,
        seed in any::<u64>(),
    ) {
        let mut rng = StdRng::seed_from_u64(seed);
        check_on_every_path(&case(kernel, prime, n, sources, &mut |bound| rng.gen_range(0..bound)));
    }
}
