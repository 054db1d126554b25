//! The engine recycles the pages of freed residue buffers for later buffers
//! of any size: first-touched memory (page faults the kernel has to zero) is
//! what the process pays for, and on a virtual machine it has cost more than
//! the arithmetic. A test binary of its own: fresh pages are counted for the
//! whole process, so no other test may run beside it.

mod common;

use example_support::cli::ResourceUse;
use helib_rs::{Ciphertext, Context, Parameters, Plaintext, SecretKey};

/// Residue rows of this ring are 32 KiB, so a polynomial over 40 or more
/// primes is a buffer the engine pools (1 MiB and up). Insecure on purpose:
/// the test needs many primes on a small ring, not secrecy.
const RING: usize = 4096;
const PRIMES: usize = 48;

fn fresh_bytes() -> u64 {
    ResourceUse::now()
        .expect("getrusage works on Linux")
        .fresh_page_bytes
}

/// The bytes of a ciphertext of `size` polynomials at `level`.
fn ciphertext_bytes(level: usize, size: usize) -> u64 {
    (size * (level + 1) * RING * 8) as u64
}

#[test]
fn buffers_of_new_sizes_reuse_freed_pages() {
    if common::address_sanitizer_loaded() {
        // The sanitizer build keeps no pool, so that freed buffers stay poisoned.
        eprintln!("skipped under AddressSanitizer");
        return;
    }
    let params = Parameters::builder()
        .ring_degree(RING)
        .plaintext_modulus(65537u32.into())
        .chain_bits(&[60; PRIMES])
        .special_bits(&[60])
        .threads(1)
        .allow_insecure()
        .build()
        .expect("valid parameters");
    let context = Context::new(&params).expect("the engine accepts them");
    let sk = SecretKey::generate(&context).expect("key generation");
    let message = Plaintext::from_u64s(&context, &[3, 1, 4, 1, 5, 9, 2, 6]).expect("plaintext");
    let top = sk.encrypt(&message).expect("encryption");
    let top_level = top.level();
    let decrypts = |ct: &Ciphertext| sk.decrypt(ct).expect("decryption") == message;

    // Shrinking: every round allocates a size never seen before (one prime
    // fewer), which an exact-size pool would map afresh.
    let warm_up = top.mod_switch_to(top_level - 1).expect("switch");
    assert!(decrypts(&warm_up));
    drop(warm_up);
    let before = fresh_bytes();
    let mut allocated = 0;
    for drop_primes in 2..=8 {
        let level = top_level - drop_primes;
        let smaller = top.mod_switch_to(level).expect("switch");
        assert!(
            decrypts(&smaller),
            "recycled pages gave a wrong result at level {level}"
        );
        allocated += ciphertext_bytes(level, 2);
    }
    let shrinking = fresh_bytes() - before;
    assert!(
        shrinking * 4 < allocated,
        "new smaller sizes touched {shrinking} fresh bytes for {allocated} bytes of ciphertexts"
    );

    // Growing: with only smaller buffers waiting, a larger one is made from
    // their pages plus the missing tail.
    let low = top.mod_switch_to(top_level - 8).expect("switch");
    drop(low);
    let before = fresh_bytes();
    let larger = top.mod_switch_to(top_level - 2).expect("switch");
    let growing = fresh_bytes() - before;
    assert!(decrypts(&larger));
    let needed = ciphertext_bytes(top_level - 2, 2);
    assert!(
        growing * 2 < needed,
        "a larger size touched {growing} fresh bytes for a {needed}-byte ciphertext"
    );
}
