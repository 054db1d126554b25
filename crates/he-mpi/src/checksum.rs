//! The payload checksum of the exchange frames, built up piece by piece.
//!
//! Word i of a payload goes to lane i mod [`LANES`]; each lane steps
//! through `h ↦ rotl((h ⊕ w) · ODD, 29)`, a bijection of its state for a
//! fixed input word, so any one changed word changes its lane. The header
//! then folds its own fields and the lanes with the same step
//! ([`PayloadSum::seal`]). Eight lanes are one AVX-512 register: on
//! machines with AVX-512 (F and DQ) a payload is summed, or copied and
//! summed in one pass, at the speed of memory; elsewhere the same lanes are
//! computed one word at a time. Both give the same value.

/// Independent lanes: enough multiplications in flight to keep the
/// multiplier busy, and one AVX-512 register.
pub(crate) const LANES: usize = 8;

const ODD: u64 = 0x9e37_79b9_7f4a_7c15;
const START: u64 = 0x5bd1_e995;

fn step(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(ODD).rotate_left(29)
}

/// The lanes of a payload's checksum over the words absorbed so far, in
/// payload order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadSum {
    lanes: [u64; LANES],
    words: usize,
}

impl Default for PayloadSum {
    fn default() -> Self {
        Self {
            lanes: std::array::from_fn(|i| START ^ i as u64),
            words: 0,
        }
    }
}

impl PayloadSum {
    /// The sum of a whole payload.
    pub fn of(payload: &[u64]) -> Self {
        let mut sum = Self::default();
        sum.absorb(payload);
        sum
    }

    /// The words absorbed so far.
    pub fn len(&self) -> usize {
        self.words
    }

    /// Whether nothing is absorbed yet.
    pub fn is_empty(&self) -> bool {
        self.words == 0
    }

    /// Absorbs `words`, the payload's next words.
    pub fn absorb(&mut self, words: &[u64]) {
        self.absorb_with(words, None);
    }

    /// Copies `src` into `dst` and absorbs it, reading each word once: for
    /// staging a payload and summing it in one pass. With AVX-512 the copy
    /// bypasses the caches (the receiver is another core, or another
    /// process). Only the words both slices have are copied and absorbed
    /// (the stagers here pass equal lengths).
    #[cfg(any(feature = "mpi", test))]
    pub(crate) fn copy_absorb(&mut self, dst: &mut [u64], src: &[u64]) {
        let len = dst.len().min(src.len());
        self.absorb_with(&src[..len], Some(&mut dst[..len]));
    }

    fn absorb_with(&mut self, mut words: &[u64], mut dst: Option<&mut [u64]>) {
        // Words until this piece's lanes line up with the registers.
        while !self.words.is_multiple_of(LANES) && !words.is_empty() {
            self.scalar(&words[..1], dst.as_deref_mut().map(|d| &mut d[..1]));
            words = &words[1..];
            dst = dst.map(|d| &mut d[1..]);
        }
        let whole = words.len() / LANES * LANES;
        let (body, tail) = words.split_at(whole);
        let (dst_body, dst_tail) = match dst {
            Some(d) => {
                let (b, t) = d.split_at_mut(whole);
                (Some(b), Some(t))
            }
            None => (None, None),
        };
        let mut dst_body = dst_body;
        if vector::absorb(&mut self.lanes, body, dst_body.as_deref_mut()) {
            self.words += body.len();
        } else {
            self.scalar(body, dst_body);
        }
        self.scalar(tail, dst_tail);
    }

    /// The lanes one word at a time (and the copy, when asked).
    fn scalar(&mut self, words: &[u64], dst: Option<&mut [u64]>) {
        if let Some(dst) = dst {
            dst.copy_from_slice(words);
        }
        for &w in words {
            let lane = &mut self.lanes[self.words % LANES];
            *lane = step(*lane, w);
            self.words += 1;
        }
    }

    /// The checksum of the header fields `header` and this payload: the
    /// fields, then the lanes, folded with the lanes' step.
    pub fn seal(&self, header: &[u64]) -> u64 {
        let fields = header.iter().fold(START, |h, &w| step(h, w));
        self.lanes.iter().fold(fields, |h, &lane| step(h, lane))
    }
}

#[cfg(target_arch = "x86_64")]
mod vector {
    use std::arch::x86_64::{
        __m512i, _mm512_loadu_si512, _mm512_mullo_epi64, _mm512_rol_epi64, _mm512_set1_epi64,
        _mm512_storeu_si512, _mm512_stream_si512, _mm512_xor_si512, _mm_sfence,
    };

    use super::{LANES, ODD};

    /// Absorbs `words` (a multiple of [`LANES`]) into `lanes`, copying them
    /// into `dst` too, with AVX-512; false (nothing done) without it.
    pub(super) fn absorb(lanes: &mut [u64; LANES], words: &[u64], dst: Option<&mut [u64]>) -> bool {
        if !(is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq")) {
            return false;
        }
        // SAFETY: the features the function needs are present.
        unsafe { absorb_avx512(lanes, words, dst) };
        true
    }

    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn absorb_avx512(lanes: &mut [u64; LANES], words: &[u64], dst: Option<&mut [u64]>) {
        let odd = _mm512_set1_epi64(ODD as i64);
        // SAFETY: `lanes` holds 64 bytes; unaligned loads and stores.
        let mut state = unsafe { _mm512_loadu_si512(lanes.as_ptr().cast::<__m512i>()) };
        let step = |state: __m512i, w: __m512i| {
            _mm512_rol_epi64::<29>(_mm512_mullo_epi64(_mm512_xor_si512(state, w), odd))
        };
        match dst {
            None => {
                for chunk in words.chunks_exact(LANES) {
                    // SAFETY: the chunk holds 64 bytes.
                    let w = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast::<__m512i>()) };
                    state = step(state, w);
                }
            }
            Some(dst) => {
                let aligned = dst.as_ptr().align_offset(64) == 0;
                for (chunk, out) in words.chunks_exact(LANES).zip(dst.chunks_exact_mut(LANES)) {
                    // SAFETY: both chunks hold 64 bytes; a streaming store
                    // only when the destination is 64-byte aligned (it
                    // stays so, chunk after chunk).
                    unsafe {
                        let w = _mm512_loadu_si512(chunk.as_ptr().cast::<__m512i>());
                        if aligned {
                            _mm512_stream_si512(out.as_mut_ptr().cast::<__m512i>(), w);
                        } else {
                            _mm512_storeu_si512(out.as_mut_ptr().cast::<__m512i>(), w);
                        }
                        state = step(state, w);
                    }
                }
                // Streaming stores are ordered before what follows.
                _mm_sfence();
            }
        }
        // SAFETY: as above.
        unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast::<__m512i>(), state) };
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod vector {
    use super::LANES;

    /// No vector path on this architecture.
    pub(super) fn absorb(_: &mut [u64; LANES], _: &[u64], _: Option<&mut [u64]>) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes one word at a time, as the definition says.
    fn by_definition(payload: &[u64]) -> PayloadSum {
        let mut sum = PayloadSum::default();
        sum.scalar(payload, None);
        sum
    }

    fn words(len: usize, seed: u64) -> Vec<u64> {
        (0..len as u64)
            .map(|i| {
                (i ^ seed)
                    .wrapping_mul(0x2545_f491_4f6c_dd1d)
                    .rotate_left(17)
            })
            .collect()
    }

    #[test]
    fn pieces_copies_and_whole_payloads_agree_with_the_definition() {
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 1000, 4096 + 5] {
            let payload = words(len, len as u64);
            let expected = by_definition(&payload);
            assert_eq!(PayloadSum::of(&payload), expected, "{len} words whole");
            // In uneven pieces, summed and copied (to an unaligned and an
            // aligned destination).
            for cut in [1, 3, 8, 13] {
                let mut sum = PayloadSum::default();
                let mut copied = PayloadSum::default();
                let mut dst = vec![0u64; len + 8];
                let shift = dst.as_ptr().align_offset(64) + 1;
                let shift = shift.min(8);
                for (k, piece) in payload.chunks(cut.max(1)).enumerate() {
                    sum.absorb(piece);
                    let at = shift + k * cut;
                    copied.copy_absorb(&mut dst[at..at + piece.len()], piece);
                }
                assert_eq!(sum, expected, "{len} words in pieces of {cut}");
                assert_eq!(copied, expected, "{len} words copied in pieces of {cut}");
                assert_eq!(&dst[shift..shift + len], &payload[..]);
            }
        }
    }

    #[test]
    fn any_one_changed_word_changes_the_seal() {
        for len in 0..20usize {
            let payload = words(len, 3);
            let base = PayloadSum::of(&payload).seal(&[1, 2]);
            for at in 0..len {
                for bit in [0, 31, 63] {
                    let mut changed = payload.clone();
                    changed[at] ^= 1 << bit;
                    assert_ne!(
                        PayloadSum::of(&changed).seal(&[1, 2]),
                        base,
                        "{len} words, word {at}"
                    );
                }
            }
            assert_ne!(
                PayloadSum::of(&payload).seal(&[1, 3]),
                base,
                "the header counts"
            );
        }
    }
}
