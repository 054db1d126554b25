//! Fixed-base scalar multiplication on BN254 G1 with precomputed 4-bit windows,
//! read by masked scans so that a secret scalar steers neither branches nor addresses.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::{AdditiveGroup, PrimeField, Zero};
use zeroize::Zeroizing;

use super::ct::{self, AffineLimbs};

/// Bits per window.
const WINDOW: usize = 4;
/// Entries per window (one per digit).
const DIGITS: usize = 1 << WINDOW;
/// Windows covering a 256-bit scalar.
const WINDOWS: usize = 256 / WINDOW;

/// (d + c_i)·16^i·B for every window i < T and digit d, with c_i = 1 below
/// the top window and 2 in it; T = 64 windows for any scalar, or fewer for
/// scalars known to be short (16 for a `u64` message).
///
/// The offsets keep every entry away from the identity (r is an odd prime
/// above 18, so (d + c_i)·2^(4i) is never a multiple of it): a digit 0 costs
/// the same addition as any other. The sum over the windows is then k·B + C
/// with C = Σ_i c_i·16^i·B, which [`mul`](Self::mul) subtracts again.
///
/// The windows are added from the top down, so that no addition is an
/// exceptional case of arkworks' group law: before window i < T − 1 the sum
/// is a·B with a = Σ_{j>i} (d_j + c_j)·16^j, a multiple of 16^(i+1) that
/// exceeds the entry's multiplier (d_i + c_i)·16^i ≤ 16^(i+1) (just below
/// the top thanks to c = 2 there), and for i ≥ 1 both are multiples of 16 while any
/// nonzero multiple of r of their size is not, so a ≢ ±(d_i + c_i)·16^i
/// mod r. Only for i = 0 can specific scalars meet the case (a ≡ ±(d_0 + 1)
/// fixes every digit: at most a few dozen scalars, none of them small).
/// Summed from the bottom up instead, any scalar whose low digits are 15
/// followed by a 0 (k = 15, 255, ...) would add two equal points.
#[derive(Clone)]
pub(crate) struct FixedBaseTable {
    /// `windows[i][d]`; empty when B is the identity.
    windows: Vec<[AffineLimbs; DIGITS]>,
    /// C = Σ_i 16^i·B.
    offset: G1Projective,
}

impl FixedBaseTable {
    /// Precomputes the table of `base` for any scalar (1024 points).
    pub(crate) fn new(base: G1Projective) -> Self {
        Self::with_windows(base, WINDOWS)
    }

    /// Precomputes the table of `base` for scalars below 2^64 (256 points).
    pub(crate) fn for_u64(base: G1Projective) -> Self {
        Self::with_windows(base, 64 / WINDOW)
    }

    /// The table with `count` windows (scalars below 16^`count`).
    fn with_windows(base: G1Projective, count: usize) -> Self {
        let mut windows = Vec::with_capacity(count);
        let mut offset = G1Projective::zero();
        if base.is_zero() {
            return Self { windows, offset };
        }
        let mut window_base = base;
        for i in 0..count {
            let mut row = Vec::with_capacity(DIGITS);
            let mut acc = window_base;
            if i == count - 1 {
                acc += window_base; // c = 2 in the top window
            }
            offset += acc;
            for _ in 0..DIGITS {
                row.push(acc);
                acc += window_base;
            }
            window_base = window_base.double().double().double().double(); // 16 · window_base
            let affine = G1Projective::normalize_batch(&row);
            let mut entries = [AffineLimbs::default(); DIGITS];
            for (entry, point) in entries.iter_mut().zip(&affine) {
                // Finite by the argument in the type's docs.
                *entry = AffineLimbs::of(point).unwrap_or_default();
            }
            windows.push(entries);
        }
        Self { windows, offset }
    }

    /// The table of the group generator G.
    pub(crate) fn generator() -> Self {
        Self::new(G1Projective::generator())
    }

    /// The offset C = Σ_i c_i·16^i·B that [`mul_offset`](Self::mul_offset) adds.
    pub(crate) fn offset(&self) -> G1Projective {
        self.offset
    }

    /// k·B + C: one masked scan of 16 entries and one mixed addition per
    /// window, whatever k is. Only the table's windows are read: k must be
    /// below 2^64 for a [`for_u64`](Self::for_u64) table.
    ///
    /// Callers that add several such products subtract all offsets at once
    /// (see EC-ElGamal encryption), so no intermediate sum is the identity
    /// even when k·B is (k = 0).
    pub(crate) fn mul_offset(&self, k: &Fr) -> G1Projective {
        let scalar = Zeroizing::new(k.into_bigint());
        let mut acc = G1Projective::zero();
        for (i, row) in self.windows.iter().enumerate().rev() {
            let bit = i * WINDOW;
            let digit = (scalar.0[bit / 64] >> (bit % 64)) & (DIGITS as u64 - 1);
            let entry: G1Affine = ct::select(row, digit).point();
            if i + 1 < self.windows.len() {
                // The first addition, to the identity, is the same for every k.
                ct::trace::check_addition(&acc, &entry.into());
            }
            acc += entry;
            ct::trace::record(ct::trace::Op::TableAddition);
        }
        acc
    }

    /// k·B. The final subtraction of C meets arkworks' exceptional case (a sum
    /// that is the identity) only for k = 0 or k·B = −2C; use
    /// [`mul_offset`](Self::mul_offset) where k may be a small secret.
    pub(crate) fn mul(&self, k: &Fr) -> G1Projective {
        self.mul_offset(k) - self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_std::UniformRand;
    use rand::SeedableRng;

    #[test]
    fn table_matches_arkworks_scalar_multiplication() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(10);
        for base in [
            G1Projective::generator() * Fr::from(12345u64),
            G1Projective::rand(&mut rng),
        ] {
            let table = FixedBaseTable::new(base);
            for k in ct::test_scalars(8, 24) {
                assert_eq!(table.mul(&k), base * k, "{k}");
                assert_eq!(table.mul_offset(&k), base * k + table.offset(), "{k}");
            }
        }
        let short = FixedBaseTable::for_u64(G1Projective::generator());
        for m in [0u64, 1, 15, 16, 0xffff, 0xf0ff_ffff_ffff_ffff, u64::MAX] {
            ct::trace::take();
            let k = Fr::from(m);
            assert_eq!(
                short.mul_offset(&k) - short.offset(),
                G1Projective::generator() * k
            );
            assert_eq!(ct::trace::take(), [16 * DIGITS, 16, 0, 0], "{m}");
        }
        let identity = FixedBaseTable::new(G1Projective::zero());
        assert!(identity.mul(&Fr::from(7u64)).is_zero());
    }

    /// The defect this table replaced skipped zero digits and indexed its rows
    /// by the scalar's bytes: the work done depended on the scalar. Summing the
    /// windows bottom-up would add equal points for k = 15, 255, ...
    #[test]
    fn every_scalar_reads_every_entry_and_adds_once_per_window() {
        let table = FixedBaseTable::generator();
        for k in ct::test_scalars(4, 25) {
            ct::trace::take();
            let _ = table.mul_offset(&k);
            assert_eq!(
                ct::trace::take(),
                [WINDOWS * DIGITS, WINDOWS, 0, 0],
                "the work for {k} differs, or meets an exceptional addition"
            );
        }
    }
}
