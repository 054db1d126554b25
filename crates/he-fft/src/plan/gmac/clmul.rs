//! GHASH with the processor's carry-less multiplication (PCLMULQDQ, and
//! VPCLMULQDQ on 256-bit registers where there is one): the bulk of a plan
//! file's MAC.
//!
//! GHASH is computed as POLYVAL on byte-reversed blocks under the key
//! mulX_POLYVAL(ByteReverse(H)), the identity of RFC 8452, Appendix A (as
//! RustCrypto's `ghash` crate does); POLYVAL's field product
//! dot(a, b) = a·b·x^-128 mod x^128 + x^127 + x^126 + x^121 + 1 is a
//! carry-less 128×128-bit product (three 64×64-bit ones, Karatsuba) and a
//! Montgomery reduction by two more (Gueron's, as in AES-GCM-SIV's
//! reference code). Horner's rule, `acc = dot(acc ⊕ X_i, H)`, is evaluated
//! 16 blocks at a time (8 on 128-bit registers) with the powers
//! H_k = dot(H_(k−1), H): `acc' = dot(acc ⊕ X_1, H_16) ⊕ … ⊕ dot(X_16, H_1)`,
//! whose products are summed unreduced and reduced once, since the
//! reduction is linear (the aggregated reduction of Gueron and Kounavis'
//! GCM white paper). The results are those of the `ghash` crate, checked
//! by this module's tests on random inputs.
//!
//! Everything here runs in time independent of the key and the data (no
//! table, no branch on either); the key's powers and the running value are
//! wiped on drop.

use std::arch::x86_64::{
    __m128i, __m256i, _mm256_castsi256_si128, _mm256_clmulepi64_epi128, _mm256_extracti128_si256,
    _mm256_loadu_si256, _mm256_set_m128i, _mm256_setzero_si256, _mm256_shuffle_epi32,
    _mm256_shuffle_epi8, _mm256_xor_si256, _mm256_zextsi128_si256, _mm_clmulepi64_si128,
    _mm_loadu_si128, _mm_set_epi64x, _mm_set_epi8, _mm_setzero_si128, _mm_shuffle_epi32,
    _mm_shuffle_epi8, _mm_slli_si128, _mm_srli_si128, _mm_storeu_si128, _mm_xor_si128,
};
use zeroize::Zeroize;

/// Blocks per aggregated step on 256-bit registers (and powers kept).
const WIDE: usize = 16;
/// Blocks per aggregated step on 128-bit registers.
const NARROW: usize = 8;

/// POLYVAL's reduction polynomial x^128 + x^127 + x^126 + x^121 + 1 without
/// its top term, as a little-endian 128-bit integer.
const POLY: u128 = (1 << 127) | (1 << 126) | (1 << 121) | 1;

/// A running GHASH on the carry-less multiplication instructions.
pub(super) struct ClmulGhash {
    /// H_1 … H_16 (POLYVAL elements, little-endian bytes).
    powers: [[u8; 16]; WIDE],
    /// The running POLYVAL value.
    acc: [u8; 16],
    /// Whether VPCLMULQDQ and AVX2 are there (256-bit steps).
    wide: bool,
}

impl Drop for ClmulGhash {
    fn drop(&mut self) {
        self.powers.zeroize();
        self.acc.zeroize();
    }
}

impl ClmulGhash {
    /// GHASH under `h` (the 16 bytes AES_K(0^128)), or `None` when the CPU
    /// lacks PCLMULQDQ or AVX.
    pub(super) fn new(h: &[u8; 16]) -> Option<Self> {
        if !(std::arch::is_x86_feature_detected!("pclmulqdq")
            && std::arch::is_x86_feature_detected!("avx"))
        {
            return None;
        }
        let wide = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("vpclmulqdq");
        // mulX_POLYVAL(ByteReverse(H)), in constant time.
        let mut reversed = *h;
        reversed.reverse();
        let mut v = u128::from_le_bytes(reversed);
        let carry = v >> 127;
        v = (v << 1) ^ (carry.wrapping_neg() & POLY);
        let mut powers = [[0u8; 16]; WIDE];
        powers[0] = v.to_le_bytes();
        v.zeroize();
        reversed.zeroize();
        for k in 1..WIDE {
            // SAFETY: the CPU has PCLMULQDQ and AVX (checked above).
            powers[k] = unsafe { dot_bytes(&powers[k - 1], &powers[0]) };
        }
        Some(Self {
            powers,
            acc: [0; 16],
            wide,
        })
    }

    /// Feeds whole blocks (`blocks.len()` a multiple of 16; a partial last
    /// block is left out).
    pub(super) fn update(&mut self, blocks: &[u8]) {
        // SAFETY: the CPU has what each kernel needs (checked by `new`: the
        // wide one runs only when `wide` is set).
        unsafe {
            if self.wide {
                update_wide(&self.powers, &mut self.acc, blocks);
            } else {
                update_narrow(&self.powers, &mut self.acc, blocks);
            }
        }
    }

    /// The GHASH of the blocks fed.
    pub(super) fn value(&self) -> [u8; 16] {
        let mut out = self.acc;
        out.reverse();
        out
    }
}

/// Loads 16 bytes.
#[target_feature(enable = "avx,pclmulqdq")]
fn load(bytes: &[u8; 16]) -> __m128i {
    // SAFETY: `bytes` holds 16 readable bytes; the load has no alignment
    // requirement.
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
}

/// Stores 16 bytes.
#[target_feature(enable = "avx,pclmulqdq")]
fn store(value: __m128i, out: &mut [u8; 16]) {
    // SAFETY: `out` holds 16 writable bytes; the store has no alignment
    // requirement.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), value) }
}

/// Reverses the 16 bytes of a block.
#[target_feature(enable = "avx,pclmulqdq")]
fn reverse_mask() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

/// One Montgomery step: `t·x^-64` modulo POLYVAL's polynomial (the low
/// 64 bits folded into the high ones).
#[target_feature(enable = "avx,pclmulqdq")]
fn fold(t: __m128i) -> __m128i {
    let poly = _mm_set_epi64x(0xc200_0000_0000_0000_u64 as i64, 1);
    _mm_xor_si128(
        _mm_shuffle_epi32(t, 0x4e),
        _mm_clmulepi64_si128(t, poly, 0x10),
    )
}

/// The POLYVAL element of the 256-bit product with parts `lo`, `hi` and the
/// Karatsuba middle term `mid` (already corrected: the sum of the cross
/// products), times x^-128.
#[target_feature(enable = "avx,pclmulqdq")]
fn reduce(lo: __m128i, hi: __m128i, mid: __m128i) -> __m128i {
    let lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
    let hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
    _mm_xor_si128(hi, fold(fold(lo)))
}

/// `a` with its two 64-bit halves' sum in both halves (Karatsuba's operand).
#[target_feature(enable = "avx,pclmulqdq")]
fn halves(a: __m128i) -> __m128i {
    _mm_xor_si128(a, _mm_shuffle_epi32(a, 0x4e))
}

/// POLYVAL's dot(a, b).
#[target_feature(enable = "avx,pclmulqdq")]
fn dot_bytes(a: &[u8; 16], b: &[u8; 16]) -> [u8; 16] {
    let (a, b) = (load(a), load(b));
    let lo = _mm_clmulepi64_si128(a, b, 0x00);
    let hi = _mm_clmulepi64_si128(a, b, 0x11);
    let mid = _mm_clmulepi64_si128(halves(a), halves(b), 0x00);
    let mut out = [0u8; 16];
    store(
        reduce(lo, hi, _mm_xor_si128(mid, _mm_xor_si128(lo, hi))),
        &mut out,
    );
    out
}

/// Horner's rule over `chunk` (1 to 16 blocks) in one aggregated step on
/// 128-bit registers: block b of k is multiplied by H_(k−b).
#[target_feature(enable = "avx,pclmulqdq")]
fn step_narrow(powers: &[[u8; 16]; WIDE], acc: __m128i, chunk: &[u8]) -> __m128i {
    let k = chunk.len() / 16;
    let reverse = reverse_mask();
    let (mut lo, mut hi, mut mid) = (
        _mm_setzero_si128(),
        _mm_setzero_si128(),
        _mm_setzero_si128(),
    );
    for (b, block) in chunk.chunks_exact(16).enumerate() {
        let block: &[u8; 16] = block.try_into().unwrap_or(&[0; 16]);
        let mut x = _mm_shuffle_epi8(load(block), reverse);
        if b == 0 {
            x = _mm_xor_si128(x, acc);
        }
        let h = load(&powers[k - 1 - b]);
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128(x, h, 0x00));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128(x, h, 0x11));
        mid = _mm_xor_si128(mid, _mm_clmulepi64_si128(halves(x), halves(h), 0x00));
    }
    reduce(lo, hi, _mm_xor_si128(mid, _mm_xor_si128(lo, hi)))
}

/// Feeds whole blocks on 128-bit registers, 8 per reduction.
#[target_feature(enable = "avx,pclmulqdq")]
fn update_narrow(powers: &[[u8; 16]; WIDE], acc: &mut [u8; 16], blocks: &[u8]) {
    let mut a = load(acc);
    let whole = blocks.len() - blocks.len() % 16;
    for chunk in blocks[..whole].chunks(16 * NARROW) {
        a = step_narrow(powers, a, chunk);
    }
    store(a, acc);
}

/// Feeds whole blocks on 256-bit registers (two blocks a register), 16 per
/// reduction; the last fewer than 16 as [`update_narrow`] does.
#[target_feature(enable = "avx2,pclmulqdq,vpclmulqdq")]
fn update_wide(powers: &[[u8; 16]; WIDE], acc: &mut [u8; 16], blocks: &[u8]) {
    // Register j holds blocks 2j and 2j + 1 of a step, their powers H_(16−2j)
    // and H_(15−2j), and those powers' halves' sums.
    let keys: [__m256i; WIDE / 2] = std::array::from_fn(|j| {
        _mm256_set_m128i(
            load(&powers[WIDE - 2 - 2 * j]),
            load(&powers[WIDE - 1 - 2 * j]),
        )
    });
    let key_halves: [__m256i; WIDE / 2] =
        std::array::from_fn(|j| _mm256_xor_si256(keys[j], _mm256_shuffle_epi32(keys[j], 0x4e)));
    let reverse = _mm256_set_m128i(reverse_mask(), reverse_mask());
    let lanes =
        |v: __m256i| _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    let mut a = load(acc);
    let steps = blocks.chunks_exact(16 * WIDE);
    let rest = steps.remainder();
    for step in steps {
        let (mut lo, mut hi, mut mid) = (
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
            _mm256_setzero_si256(),
        );
        for (j, pair) in step.chunks_exact(32).enumerate() {
            // SAFETY: `pair` holds 32 readable bytes; the load has no
            // alignment requirement.
            let raw = unsafe { _mm256_loadu_si256(pair.as_ptr().cast()) };
            let mut x = _mm256_shuffle_epi8(raw, reverse);
            if j == 0 {
                x = _mm256_xor_si256(x, _mm256_zextsi128_si256(a));
            }
            lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128(x, keys[j], 0x00));
            hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128(x, keys[j], 0x11));
            let x_halves = _mm256_xor_si256(x, _mm256_shuffle_epi32(x, 0x4e));
            mid = _mm256_xor_si256(mid, _mm256_clmulepi64_epi128(x_halves, key_halves[j], 0x00));
        }
        let (lo, hi, mid) = (lanes(lo), lanes(hi), lanes(mid));
        a = reduce(lo, hi, _mm_xor_si128(mid, _mm_xor_si128(lo, hi)));
    }
    let whole = rest.len() - rest.len() % 16;
    if whole > 0 {
        a = step_narrow(powers, a, &rest[..whole]);
    }
    store(a, acc);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ghash::universal_hash::{KeyInit, UniversalHash};

    /// Pseudorandom bytes (a fixed xorshift sequence).
    fn bytes(len: usize, seed: u64) -> Vec<u8> {
        let mut s = seed | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s as u8
            })
            .collect()
    }

    /// Both kernels (where the CPU has them) give the `ghash` crate's
    /// values for every length up to 40 blocks and longer ones, fed whole
    /// or in pieces.
    #[test]
    fn kernels_match_the_ghash_crate() {
        let Some(probe) = ClmulGhash::new(&[1; 16]) else {
            return;
        };
        let widths: &[bool] = if probe.wide { &[false, true] } else { &[false] };
        for seed in 1..4u64 {
            let key: [u8; 16] = bytes(16, seed * 77).try_into().unwrap();
            let data = bytes(16 * 700, seed);
            let lengths = (0..=40).chain([63, 64, 65, 127, 128, 129, 300, 700]);
            for blocks in lengths {
                let message = &data[..16 * blocks];
                let mut reference = ghash::GHash::new(&key.into());
                reference.update_padded(message);
                let want: [u8; 16] = reference.finalize().into();
                for &wide in widths {
                    let mut whole = ClmulGhash::new(&key).unwrap();
                    whole.wide = wide;
                    whole.update(message);
                    assert_eq!(whole.value(), want, "{blocks} blocks, wide {wide}");
                    let mut pieces = ClmulGhash::new(&key).unwrap();
                    pieces.wide = wide;
                    for piece in message.chunks(16 * (1 + blocks % 23)) {
                        pieces.update(piece);
                    }
                    assert_eq!(
                        pieces.value(),
                        want,
                        "{blocks} blocks in pieces, wide {wide}"
                    );
                }
            }
        }
    }
}
