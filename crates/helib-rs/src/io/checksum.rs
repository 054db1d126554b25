//! The running checksum of a word stream: sixteen independent lanes.

/// Lanes of the running checksum: enough independent multiply chains for
/// the vector units (and for a scalar core's multiplier) to stay busy.
const LANES: usize = 16;

/// The running checksum of a word stream (see the [module docs](super)).
#[derive(Debug, Clone, Copy)]
pub(super) struct Checksum {
    lanes: [u64; LANES],
    pub(super) words: u64,
}

const MIX: u64 = 0x9e37_79b9_7f4a_7c15;
const FOLD: u64 = 0xc2b2_ae3d_27d4_eb4f;

/// Runs whole rounds (one word per lane) of `data` through `lanes`.
#[inline(always)]
fn rounds(lanes: &mut [u64; LANES], data: &[u64]) {
    let mut l = *lanes;
    for round in data.chunks_exact(LANES) {
        for (lane, &w) in l.iter_mut().zip(round) {
            *lane = Checksum::step(*lane, w);
        }
    }
    *lanes = l;
}

/// [`rounds`] compiled for AVX2 (the lanes become four 4-word vectors).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn rounds_avx2(lanes: &mut [u64; LANES], data: &[u64]) {
    rounds(lanes, data);
}

impl Checksum {
    pub(super) fn new() -> Self {
        let mut lanes = [0u64; LANES];
        let mut seed = 0x243f_6a88_85a3_08d3u64;
        for lane in &mut lanes {
            *lane = seed;
            seed = Self::step(seed, 0x1319_8a2e_0370_7344);
        }
        Self { lanes, words: 0 }
    }

    #[inline(always)]
    fn step(lane: u64, word: u64) -> u64 {
        (lane ^ word).wrapping_mul(MIX).rotate_left(29)
    }

    /// Feeds one word to its lane.
    #[inline(always)]
    fn single(&mut self, w: u64) {
        let i = (self.words % LANES as u64) as usize;
        self.lanes[i] = Self::step(self.lanes[i], w);
        self.words += 1;
    }

    pub(super) fn update(&mut self, words: &[u64]) {
        // Lane i takes the words at stream positions ≡ i mod LANES: single
        // words up to the next round, whole rounds, then single words.
        let behind = (LANES - (self.words % LANES as u64) as usize) % LANES;
        let (head, rest) = words.split_at(behind.min(words.len()));
        for &w in head {
            self.single(w);
        }
        let (whole, tail) = rest.split_at(rest.len() - rest.len() % LANES);
        #[cfg(target_arch = "x86_64")]
        if whole.len() >= 4 * LANES && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { rounds_avx2(&mut self.lanes, whole) };
        } else {
            rounds(&mut self.lanes, whole);
        }
        #[cfg(not(target_arch = "x86_64"))]
        rounds(&mut self.lanes, whole);
        self.words += whole.len() as u64;
        for &w in tail {
            self.single(w);
        }
    }

    /// The value a checkpoint stores.
    pub(super) fn value(&self) -> u64 {
        let mut h = self.words.wrapping_mul(FOLD);
        for lane in self.lanes {
            h = (h ^ lane).wrapping_mul(FOLD).rotate_left(31);
        }
        h ^ (h >> 29)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_sees_every_single_word_change() {
        // Long enough for whole rounds on the vector path, with a tail.
        let words: Vec<u64> = (0..203u64).map(|i| i.wrapping_mul(MIX)).collect();
        let mut whole = Checksum::new();
        whole.update(&words);
        // Fed in pieces of any size, the sum is the same; the scalar rounds
        // give what the vector ones give.
        let mut scalar = Checksum::new();
        rounds(&mut scalar.lanes, &words[..192]);
        scalar.words = 192;
        scalar.update(&words[192..]);
        assert_eq!(scalar.value(), whole.value());
        for split in [1, 3, 4, 5, 16, 17, 64, 100] {
            let mut parts = Checksum::new();
            for chunk in words.chunks(split) {
                parts.update(chunk);
            }
            assert_eq!(parts.value(), whole.value());
        }
        for i in 0..words.len() {
            for bit in [0, 31, 63] {
                let mut changed = words.clone();
                changed[i] ^= 1 << bit;
                let mut sum = Checksum::new();
                sum.update(&changed);
                assert_ne!(sum.value(), whole.value(), "word {i} bit {bit}");
            }
        }
        // A trailing zero word changes the length, hence the sum.
        let mut longer = Checksum::new();
        longer.update(&words);
        longer.update(&[0]);
        assert_ne!(longer.value(), whole.value());
    }
}
