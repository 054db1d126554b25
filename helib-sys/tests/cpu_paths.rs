//! The engine's kernel paths (scalar, AVX2, AVX-512, chosen at run time):
//! every path this CPU runs computes the ChaCha20 keystream of the published
//! test vectors (RFC 8439 §2.3.2 and Appendix A.1) at every lane of its
//! batches, across the 32-bit and 64-bit counter carries, and all paths agree
//! on long streams; every path hashes as SHA-256 (the `sha2` crate's) for
//! every length and every split of the input across blocks, with or without
//! the SHA extensions; the path in use is the one HELIB_CPU asks for, and a
//! value naming no path or a path this CPU lacks is refused with a message
//! (no silent fallback).

use helib_sys::test_api::*;
use helib_sys::*;

const PATHS: [u32; 3] = [HELIB_CPU_SCALAR, HELIB_CPU_AVX2, HELIB_CPU_AVX512];

fn supported(path: u32) -> bool {
    let mut out = -1;
    // SAFETY: `out` is a valid, writable int.
    let status = unsafe { helib_cpu_supports(path, &mut out) };
    assert_eq!(status, HELIB_OK);
    out == 1
}

fn keystream(path: u32, key: &[u8; 32], stream: u64, counter: u64, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    // SAFETY: `key` holds 32 bytes and `out` exactly `len`.
    let status = unsafe {
        helib_chacha20_keystream(path, key.as_ptr(), stream, counter, out.as_mut_ptr(), len)
    };
    assert_eq!(status, HELIB_OK, "path {path}");
    out
}

fn unhex(text: &str) -> Vec<u8> {
    let text: String = text.split_whitespace().collect();
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// (key, engine nonce `stream`, block counter, the serialized block). The
/// engine keeps a 64-bit counter in words 12-13 and the stream id in words
/// 14-15; RFC 8439's 96-bit nonce fills words 13-15, so its first word is the
/// high half of our counter.
fn vectors() -> Vec<([u8; 32], u64, u64, Vec<u8>)> {
    let zero = [0u8; 32];
    let mut one = [0u8; 32];
    one[31] = 1;
    let mut ff = [0u8; 32];
    ff[1] = 0xff;
    let mut counting = [0u8; 32];
    for (i, byte) in counting.iter_mut().enumerate() {
        *byte = i as u8;
    }
    vec![
        // §2.3.2: nonce 00:00:00:09:00:00:00:4a:00:00:00:00, counter 1.
        (
            counting,
            0x4a00_0000,
            1 | 0x0900_0000 << 32,
            unhex(
                "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e
                 d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e",
            ),
        ),
        // A.1 #1 to #5.
        (
            zero,
            0,
            0,
            unhex(
                "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7
                 da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586",
            ),
        ),
        (
            zero,
            0,
            1,
            unhex(
                "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed
                 29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f",
            ),
        ),
        (
            one,
            0,
            1,
            unhex(
                "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a
                 8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0",
            ),
        ),
        (
            ff,
            0,
            2,
            unhex(
                "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca
                 13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096",
            ),
        ),
        // Nonce 00..02: its last word is word 15, the high half of the stream id.
        (
            zero,
            0x0200_0000 << 32,
            0,
            unhex(
                "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7
                 8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d",
            ),
        ),
    ]
}

#[test]
fn every_path_gives_the_published_blocks_at_every_lane() {
    let mut checked = 0;
    for path in PATHS.into_iter().filter(|&p| supported(p)) {
        for (key, stream, counter, block) in vectors() {
            // The block at position `lane` of a run of 40 blocks: each lane of
            // the 8- and 16-block batches, and the scalar tail. Starting below
            // zero wraps the 64-bit counter inside a batch.
            for lane in 0..24u64 {
                let run = keystream(path, &key, stream, counter.wrapping_sub(lane), 64 * 40);
                let at = 64 * lane as usize;
                assert_eq!(
                    run[at..at + 64],
                    block[..],
                    "path {path}, counter {counter:#x}, lane {lane}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 6 * 24, "the scalar path always runs");
}

#[test]
fn paths_agree_on_long_streams_and_across_counter_carries() {
    let mut key = [0u8; 32];
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = (i as u8).wrapping_mul(37).wrapping_add(11);
    }
    // Starts just below a carry of the low counter word, and below the 64-bit wrap.
    for (stream, counter) in [
        (7u64, 0xffff_fff0u64 - 5),
        (u64::MAX, u64::MAX - 40),
        (1 << 40, 3),
    ] {
        // Lengths that leave a partial block and a scalar tail.
        for len in [1usize, 64 * 7 + 13, 64 * 16, 64 * 300 + 5] {
            let reference = keystream(HELIB_CPU_SCALAR, &key, stream, counter, len);
            for path in PATHS.into_iter().filter(|&p| supported(p)) {
                assert_eq!(
                    keystream(path, &key, stream, counter, len),
                    reference,
                    "path {path}, counter {counter:#x}, {len} bytes"
                );
            }
        }
    }
}

fn gaussian(path: u32, key: &[u8; 32], stream: u64, n: usize) -> Vec<i32> {
    let mut out = vec![0i32; n];
    // SAFETY: `key` holds 32 bytes and `out` exactly `n` values.
    let status = unsafe { helib_gaussian_samples(path, key.as_ptr(), stream, out.as_mut_ptr(), n) };
    assert_eq!(status, HELIB_OK, "path {path}");
    out
}

#[test]
fn paths_draw_the_same_gaussian_errors_from_the_same_keystream() {
    let mut key = [0u8; 32];
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = (i as u8).wrapping_mul(91).wrapping_add(5);
    }
    // Sizes below one vector, with a scalar tail, and several batches.
    for n in [1usize, 7, 8, 1003, 1 << 16] {
        for stream in [0u64, 9] {
            let reference = gaussian(HELIB_CPU_SCALAR, &key, stream, n);
            for path in PATHS.into_iter().filter(|&p| supported(p)) {
                assert_eq!(
                    gaussian(path, &key, stream, n),
                    reference,
                    "path {path}, n = {n}"
                );
            }
        }
    }
    // The shared samples follow the engine's distribution: sigma = 3.2, cut at 42.
    let samples = gaussian(HELIB_CPU_SCALAR, &key, 3, 1 << 16);
    assert!(samples.iter().all(|x| x.abs() <= 42));
    let count = samples.len() as f64;
    let mean = samples.iter().map(|&x| f64::from(x)).sum::<f64>() / count;
    let variance = samples
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        / count;
    assert!(mean.abs() < 0.1, "mean {mean}");
    assert!(
        (variance - 3.2 * 3.2).abs() < 0.05 * 3.2 * 3.2,
        "variance {variance}"
    );
    assert!(samples.iter().any(|&x| x < -6) && samples.iter().any(|&x| x > 6));
}

fn engine_sha256(path: u32, data: &[u8], chunk: usize) -> [u8; 32] {
    let mut out = [0u8; 32];
    // SAFETY: `data` holds `data.len()` bytes and `out` 32.
    let status = unsafe { helib_sha256(path, data.as_ptr(), data.len(), chunk, out.as_mut_ptr()) };
    assert_eq!(status, HELIB_OK, "path {path}");
    out
}

#[test]
fn every_path_hashes_as_sha256_at_every_length_and_split() {
    use rand::{Rng, SeedableRng};
    use sha2::Digest;
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5a256);
    let mut data = vec![0u8; (1 << 20) + 77];
    rng.fill(&mut data[..]);
    let lengths = [
        0,
        1,
        3,
        55,
        56,
        57,
        63,
        64,
        65,
        119,
        120,
        127,
        128,
        129,
        1000,
        4096,
        data.len(),
    ];
    for path in PATHS.into_iter().filter(|&p| supported(p)) {
        for &len in &lengths {
            let expected: [u8; 32] = sha2::Sha256::digest(&data[..len]).into();
            for chunk in [0, 1, 7, 63, 64, 65, 200] {
                if chunk == 1 && len > 4096 {
                    continue; // byte at a time over a megabyte adds nothing
                }
                assert_eq!(
                    engine_sha256(path, &data[..len], chunk),
                    expected,
                    "path {path}, {len} bytes, fed {chunk} at a time"
                );
            }
        }
    }
}

fn last_error() -> String {
    // SAFETY: the engine returns a NUL-terminated, thread-local message.
    unsafe { std::ffi::CStr::from_ptr(helib_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// HELIB_CPU asked for something this process cannot do: the path query and
/// every context construction fail with a message that names the variable.
fn assert_refused(request: &str, reason: &str) {
    let mut path = u32::MAX;
    // SAFETY: `path` is a valid, writable u32.
    let status = unsafe { helib_cpu_path(&mut path) };
    assert_eq!(status, HELIB_ERR_INVALID_ARGUMENT, "HELIB_CPU={request}");
    let message = last_error();
    assert!(
        message.contains(&format!("HELIB_CPU={request}")) && message.contains(reason),
        "HELIB_CPU={request}: {message}"
    );
    let t = [65537u64];
    let chain = [40u32, 40];
    let mut ctx = std::ptr::null_mut();
    // SAFETY: t has 1 limb, chain 2 entries, no special primes; `ctx` is writable.
    let status = unsafe {
        helib_context_new(
            1024,
            t.as_ptr(),
            1,
            chain.as_ptr(),
            2,
            std::ptr::null(),
            0,
            1,
            0,
            &mut ctx,
        )
    };
    assert_eq!(status, HELIB_ERR_INVALID_ARGUMENT, "HELIB_CPU={request}");
    assert!(ctx.is_null());
    let message = last_error();
    assert!(
        message.contains(&format!("HELIB_CPU={request}")) && message.contains(reason),
        "context under HELIB_CPU={request}: {message}"
    );
}

#[test]
fn the_path_in_use_is_the_one_helib_cpu_forces() {
    let request = std::env::var("HELIB_CPU").ok();
    let forced = match request.as_deref() {
        Some("scalar") => Some(HELIB_CPU_SCALAR),
        Some("avx2") => Some(HELIB_CPU_AVX2),
        Some("avx512") => Some(HELIB_CPU_AVX512),
        _ => None,
    };
    let mut path = u32::MAX;
    // SAFETY: `path` is a valid, writable u32.
    let status = unsafe { helib_cpu_path(&mut path) };
    match (request.as_deref(), forced) {
        // A path this CPU runs: in use.
        (_, Some(p)) if supported(p) => assert_eq!((status, path), (HELIB_OK, p)),
        // A path this CPU lacks: no silent fallback, a clear error.
        (Some(name), Some(_)) => assert_refused(name, "does not support"),
        (None | Some("") | Some("auto"), None) => {
            assert_eq!(status, HELIB_OK);
            let widest = PATHS.into_iter().filter(|&p| supported(p)).max();
            assert_eq!(Some(path), widest, "the widest supported path by default");
        }
        // A value naming no path.
        (Some(other), None) => assert_refused(other, "is not one of scalar, avx2, avx512, auto"),
        (None, Some(_)) => unreachable!("a forced path comes from the variable"),
    }
}

/// The refusals above, each in a child process (the variable is read once per
/// process): a value naming no path on every machine, and each path this CPU
/// lacks (none on a CPU with AVX-512; CI also runs the test binary on an
/// emulated CPU without it).
#[test]
fn unusable_helib_cpu_values_are_refused_in_a_fresh_process() {
    if std::env::var_os("HELIB_CPU_CHILD").is_some() {
        return;
    }
    let mut requests = vec!["avx1024".to_string(), "AVX2".to_string()];
    for (path, name) in PATHS.into_iter().zip(["scalar", "avx2", "avx512"]) {
        if !supported(path) {
            requests.push(name.to_string());
        }
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    for request in requests {
        let output = std::process::Command::new(&exe)
            .args([
                "--exact",
                "the_path_in_use_is_the_one_helib_cpu_forces",
                "--test-threads",
                "1",
            ])
            .env("HELIB_CPU", &request)
            .env("HELIB_CPU_CHILD", "1")
            .output()
            .expect("the test binary runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("1 passed"),
            "HELIB_CPU={request}: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn unknown_paths_are_refused() {
    let mut out = 0;
    // SAFETY: `out` is a valid, writable int.
    let status = unsafe { helib_cpu_supports(3, &mut out) };
    assert_eq!(status, HELIB_ERR_INVALID_ARGUMENT);
    let key = [0u8; 32];
    let mut buf = [0u8; 64];
    // SAFETY: `key` holds 32 bytes and `buf` 64.
    let status =
        unsafe { helib_chacha20_keystream(9, key.as_ptr(), 0, 0, buf.as_mut_ptr(), buf.len()) };
    assert_eq!(status, HELIB_ERR_INVALID_ARGUMENT);
    assert_eq!(buf, [0u8; 64], "nothing written on failure");
}
