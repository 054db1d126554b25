//! Entry points that write a ciphertext of a known context (given, or the
//! input ciphertext's) into a caller's `dst` (encryption, deserialization,
//! assembling a threshold shares-to-encryption or collective key-switching
//! result) refuse a `dst` made in another context with
//! HELIB_ERR_CONTEXT_MISMATCH and leave it as it was.

mod common;

use common::*;
use helib_sys::*;
use num_bigint::BigUint;

const N: usize = 1024;

fn new_ctx() -> Ctx {
    Ctx::new(N as u64, &BigUint::from(65537u32), &[55, 55, 55], &[60])
}

/// The sum of one party's shares-to-encryption share: the shares of the
/// plaintext `m` at `level`, under `sk`'s context, from `seed`.
fn s2e_sum(sk: &SecretKey, seed: &[u8; 32], level: usize, m: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; (level + 1) * N];
    // SAFETY: live key; `m` holds m.len() one-limb coefficients, `out` the
    // chain share at `level`.
    check(unsafe {
        helib_threshold_s2e_share(
            sk.0,
            seed.as_ptr(),
            level,
            m.as_ptr(),
            m.len(),
            1,
            out.as_mut_ptr(),
            out.len(),
        )
    });
    out
}

/// Checks that `write` refuses a dst of `other`'s context with
/// HELIB_ERR_CONTEXT_MISMATCH and leaves it as it was: an empty one stays
/// empty, a written one keeps its level and plaintext. Returns the written
/// dst.
#[track_caller]
fn refuses_foreign_dst(what: &str, other: &Ctx, write: impl Fn(&Ct) -> helib_status) -> Ct {
    let other_sk = SecretKey::generate(other);
    // An empty dst of the other context stays empty.
    let foreign = Ct::empty(other);
    let msg = expect_status(
        write(&foreign),
        HELIB_ERR_CONTEXT_MISMATCH,
        &format!("{what} into an empty dst of another context"),
    );
    assert!(msg.contains("context"), "{msg}");
    let mut size = 0usize;
    // SAFETY: live ciphertext, valid out-pointer.
    let s = unsafe { helib_ciphertext_size(foreign.0, &mut size) };
    assert_ne!(s, HELIB_OK, "the refused call wrote the empty dst");
    // A written dst of the other context keeps its plaintext.
    let kept = [BigUint::from(9u32)];
    let written = encrypt_sk(&other_sk, other, &kept, 0);
    expect_status(
        write(&written),
        HELIB_ERR_CONTEXT_MISMATCH,
        &format!("{what} into a written dst of another context"),
    );
    assert_eq!(written.level(), 0);
    assert_poly_eq(
        &decrypt_ok(&other_sk, other, &written),
        &pad(&kept, N),
        "the foreign dst after the refused call",
    );
    written
}

#[test]
fn s2e_assemble_refuses_a_dst_of_another_context() {
    let ctx = new_ctx();
    // The same parameters, another context.
    let other = new_ctx();
    let sk = SecretKey::generate(&ctx);
    let seed = [3u8; 32];
    let level = ctx.max_level();
    let m = [5u64, 0, 7];
    let sum = s2e_sum(&sk, &seed, level, &m);

    let assemble = |context: &Ctx, dst: &Ct| {
        // SAFETY: live handles; `sum` holds the chain share at `level`.
        unsafe {
            helib_threshold_s2e_assemble(
                context.ptr,
                seed.as_ptr(),
                level,
                1,
                sum.as_ptr(),
                sum.len(),
                dst.0,
            )
        }
    };
    let written = refuses_foreign_dst("s2e_assemble", &other, |dst| assemble(&ctx, dst));
    // As encryption and deserialization do with the same dst.
    let one = [1u64];
    // SAFETY: live handles; `one` holds one coefficient.
    let s = unsafe { helib_encrypt_secret(sk.0, one.as_ptr(), 1, 1, level, written.0) };
    expect_status(
        s,
        HELIB_ERR_CONTEXT_MISMATCH,
        "encrypt_secret, the same dst",
    );

    // A dst of the context is written: the shares' plaintext, decrypted.
    let dst = Ct::empty(&ctx);
    check(assemble(&ctx, &dst));
    let want: Vec<BigUint> = m.iter().map(|&x| BigUint::from(x)).collect();
    assert_poly_eq(&decrypt_ok(&sk, &ctx, &dst), &pad(&want, N), "assembled");
}

#[test]
fn key_switch_assemble_refuses_a_dst_of_another_context() {
    let ctx = Ctx::new(N as u64, &BigUint::from(65537u32), &[61, 61, 61], &[61]);
    let other = Ctx::new(N as u64, &BigUint::from(65537u32), &[61, 61, 61], &[61]);
    let sk = SecretKey::generate(&ctx);
    let target = SecretKey::generate(&ctx);
    let target_pk = PublicKey::generate(&target);
    let level = ctx.max_level();
    let m = [
        BigUint::from(6u32),
        BigUint::from(0u32),
        BigUint::from(8u32),
    ];
    let ct = encrypt_sk(&sk, &ctx, &m, level);
    let mut spec = helib_smudging {
        parties: 0,
        security_bits: 0,
        level: 0,
        noise_bits: 0.0,
    };
    // SAFETY: live context, valid out-pointer.
    check(unsafe { helib_threshold_smudging_for_level(ctx.ptr, 1, 40, level, &mut spec) });
    let len = (level + 1) * N;
    let (mut h0, mut h1) = (vec![0u64; len], vec![0u64; len]);
    // SAFETY: live handles; h0 and h1 hold the chain share at ct's level.
    check(unsafe {
        helib_threshold_key_switch_share(
            sk.0,
            ct.0,
            target_pk.0,
            &spec,
            h0.as_mut_ptr(),
            h1.as_mut_ptr(),
            len,
        )
    });

    let assemble = |dst: &Ct| {
        // SAFETY: live handles; h0 and h1 hold the chain share at ct's level.
        unsafe {
            helib_threshold_key_switch_assemble(ct.0, &spec, h0.as_ptr(), h1.as_ptr(), len, dst.0)
        }
    };
    refuses_foreign_dst("key_switch_assemble", &other, assemble);

    // A dst of the context is written: ct's plaintext under the target key.
    let dst = Ct::empty(&ctx);
    check(assemble(&dst));
    assert_poly_eq(
        &decrypt_ok(&target, &ctx, &dst),
        &pad(&m, N),
        "key-switched",
    );
}
