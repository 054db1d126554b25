//! Fixed-base scalar multiplication on BN254 G1 with precomputed 4-bit windows,
//! read by masked scans so that a secret scalar steers neither branches nor addresses.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::{PrimeField, Zero};
use zeroize::Zeroizing;

use super::ct::{self, AffineLimbs};

/// Bits per window.
const WINDOW: usize = 4;
/// Entries per window (one per digit).
const DIGITS: usize = 1 << WINDOW;
/// Windows covering a 256-bit scalar.
const WINDOWS: usize = 256 / WINDOW;

/// (d + 1)·16^i·B for every window i and digit d.
///
/// Every entry is offset by one multiple of its window's base so that none is
/// the identity (r is an odd prime above 16, so (d + 1)·2^(4i) is never a
/// multiple of it): a digit 0 costs the same addition as any other. The sum
/// over the windows is then k·B + C with C = Σ_i 16^i·B, which
/// [`mul`](Self::mul) subtracts again.
#[derive(Clone)]
pub(crate) struct FixedBaseTable {
    /// `windows[i][d]`; empty when B is the identity.
    windows: Vec<[AffineLimbs; DIGITS]>,
    /// C = Σ_i 16^i·B.
    offset: G1Projective,
}

impl FixedBaseTable {
    /// Precomputes the table of `base` (1024 points).
    pub(crate) fn new(base: G1Projective) -> Self {
        let mut windows = Vec::with_capacity(WINDOWS);
        let mut offset = G1Projective::zero();
        if base.is_zero() {
            return Self { windows, offset };
        }
        let mut window_base = base;
        for _ in 0..WINDOWS {
            offset += window_base;
            let mut row = Vec::with_capacity(DIGITS);
            let mut acc = window_base;
            for _ in 0..DIGITS {
                row.push(acc);
                acc += window_base;
            }
            window_base = row[DIGITS - 1]; // 16 · window_base
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

    /// The offset C = Σ_i 16^i·B that [`mul_offset`](Self::mul_offset) adds.
    pub(crate) fn offset(&self) -> G1Projective {
        self.offset
    }

    /// k·B + C: one masked scan of 16 entries and one mixed addition per
    /// window, whatever k is.
    ///
    /// Callers that add several such products subtract all offsets at once
    /// (see EC-ElGamal encryption), so no intermediate sum is the identity
    /// even when k·B is (k = 0).
    pub(crate) fn mul_offset(&self, k: &Fr) -> G1Projective {
        let scalar = Zeroizing::new(k.into_bigint());
        let mut acc = G1Projective::zero();
        for (i, row) in self.windows.iter().enumerate() {
            let bit = i * WINDOW;
            let digit = (scalar.0[bit / 64] >> (bit % 64)) & (DIGITS as u64 - 1);
            let entry: G1Affine = ct::select(row, digit).point();
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
        let identity = FixedBaseTable::new(G1Projective::zero());
        assert!(identity.mul(&Fr::from(7u64)).is_zero());
    }

    /// The defect this table replaced skipped zero digits and indexed its rows
    /// by the scalar's bytes: the work done depended on the scalar.
    #[test]
    fn every_scalar_reads_every_entry_and_adds_once_per_window() {
        let table = FixedBaseTable::generator();
        for k in ct::test_scalars(4, 25) {
            ct::trace::take();
            let _ = table.mul(&k);
            assert_eq!(
                ct::trace::take(),
                [WINDOWS * DIGITS, WINDOWS, 0],
                "the work for {k} differs"
            );
        }
    }
}
