//! The kernel paths of the engine and the primes the path tests use.

use helib_sys::*;

/// Every kernel path of the engine.
pub const PATHS: [u32; 3] = [HELIB_CPU_SCALAR, HELIB_CPU_AVX2, HELIB_CPU_AVX512];

/// Primes that are 1 mod 2^17 (so every length up to 2^16 has its 2n-th
/// roots): the largest below 2^31, 2^50, 2^61 and 2^62 (the engine's
/// largest moduli are below 2^62).
pub const PRIMES: [u64; 4] = [
    0x7ffe_0001,
    0x3_ffff_ffd2_0001,
    0x1fff_ffff_ffe0_0001,
    0x3fff_ffff_ffe8_0001,
];

/// Whether this CPU runs `path`.
pub fn supported(path: u32) -> bool {
    let mut out = -1;
    // SAFETY: `out` is a valid, writable int.
    let status = unsafe { helib_cpu_supports(path, &mut out) };
    assert_eq!(status, HELIB_OK);
    out == 1
}

/// The name of `path` in messages.
pub fn path_name(path: u32) -> &'static str {
    match path {
        HELIB_CPU_SCALAR => "scalar",
        HELIB_CPU_AVX2 => "avx2",
        HELIB_CPU_AVX512 => "avx512",
        _ => "unknown",
    }
}

/// The paths this CPU runs; each one it lacks is named on stderr as skipped.
pub fn paths_here() -> Vec<u32> {
    PATHS
        .into_iter()
        .filter(|&path| {
            let here = supported(path);
            if !here {
                eprintln!(
                    "skipping the {} kernels: this CPU lacks them",
                    path_name(path)
                );
            }
            here
        })
        .collect()
}
