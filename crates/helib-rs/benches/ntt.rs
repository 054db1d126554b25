//! Criterion benches of the engine's negacyclic NTT modulo one 61-bit prime
//! (the chain primes' size), forward and inverse, for N = 2^12 .. 2^16, on
//! the scalar, AVX2 and AVX-512 kernel paths (each vector path when this CPU
//! has it).
//! The throughput is in butterflies (N/2 log2 N per transform), so criterion's
//! "elem/s" figure inverts to the time per butterfly. The engine times the
//! transforms itself (tables are built once per measurement, outside the
//! timed part), through the test-only `helib_ntt_transform`.
//!
//! `cargo bench -p helib-rs --bench ntt`

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use helib_sys::test_api::helib_ntt_transform;
use helib_sys::{helib_cpu_supports, HELIB_CPU_AVX2, HELIB_CPU_AVX512, HELIB_CPU_SCALAR, HELIB_OK};
use std::time::Duration;

/// The largest prime below 2^61 that is 1 mod 2^17.
const Q: u64 = 0x1fff_ffff_ffe0_0001;

fn supported(path: u32) -> bool {
    let mut out = -1;
    // SAFETY: `out` is a valid, writable int.
    let status = unsafe { helib_cpu_supports(path, &mut out) };
    status == HELIB_OK && out == 1
}

/// Runs the transform `repeats` times on `values` and returns the engine's
/// own time for them.
fn timed(path: u32, inverse: bool, values: &mut [u64], repeats: u64) -> Duration {
    let mut nanos = 0u64;
    // SAFETY: `values` holds exactly `values.len()` words and `nanos` is writable.
    let status = unsafe {
        helib_ntt_transform(
            path,
            Q,
            values.len(),
            i32::from(inverse),
            values.as_mut_ptr(),
            usize::try_from(repeats.max(1)).expect("repeat count fits usize"),
            &mut nanos,
        )
    };
    assert_eq!(status, HELIB_OK);
    Duration::from_nanos(nanos)
}

fn bench_ntt(c: &mut Criterion) {
    let mut paths = vec![("scalar", HELIB_CPU_SCALAR)];
    if supported(HELIB_CPU_AVX2) {
        paths.push(("avx2", HELIB_CPU_AVX2));
    }
    if supported(HELIB_CPU_AVX512) {
        paths.push(("avx512", HELIB_CPU_AVX512));
    }
    for (direction, inverse) in [("forward", false), ("inverse", true)] {
        let mut group = c.benchmark_group(format!("ntt_{direction}"));
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for log_n in 12..=16u32 {
            let n = 1usize << log_n;
            group.throughput(Throughput::Elements((n / 2) as u64 * u64::from(log_n)));
            // Pseudo-random residues below q (a fixed LCG: no rand dependency here).
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            let mut values: Vec<u64> = (0..n)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    (state >> 4) % Q
                })
                .collect();
            for &(name, path) in &paths {
                group.bench_with_input(
                    BenchmarkId::new(name, format!("2^{log_n}")),
                    &path,
                    |b, &path| {
                        b.iter_custom(|iters| timed(path, inverse, &mut values, iters));
                    },
                );
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench_ntt);
criterion_main!(benches);
