//! Fixed-base scalar multiplication on BN254 G1 with precomputed 8-bit windows.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::{BigInteger, PrimeField, Zero};

/// Bits per window.
const WINDOW: usize = 8;
/// Windows covering a 256-bit scalar.
const WINDOWS: usize = 256 / WINDOW;

/// d·2^(8i)·B for every window i and digit d: k·B costs 32 mixed additions.
#[derive(Clone)]
pub(crate) struct FixedBaseTable {
    windows: Vec<Vec<G1Affine>>,
}

impl FixedBaseTable {
    /// Precomputes the table of `base` (8192 points).
    pub(crate) fn new(base: G1Projective) -> Self {
        let mut window_base = base;
        let mut windows = Vec::with_capacity(WINDOWS);
        for _ in 0..WINDOWS {
            let mut row = Vec::with_capacity(1 << WINDOW);
            let mut acc = G1Projective::zero();
            for _ in 0..(1 << WINDOW) {
                row.push(acc);
                acc += window_base;
            }
            windows.push(G1Projective::normalize_batch(&row));
            window_base = acc; // 2^8 · window_base
        }
        Self { windows }
    }

    /// The table of the group generator G.
    pub(crate) fn generator() -> Self {
        Self::new(G1Projective::generator())
    }

    /// k·B.
    pub(crate) fn mul(&self, k: &Fr) -> G1Projective {
        let bytes = k.into_bigint().to_bytes_le();
        let mut acc = G1Projective::zero();
        for (row, &digit) in self.windows.iter().zip(bytes.iter()) {
            if digit != 0 {
                acc += row[digit as usize];
            }
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_std::UniformRand;
    use rand::SeedableRng;

    #[test]
    fn table_matches_plain_scalar_multiplication() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(10);
        let base = G1Projective::generator() * Fr::from(12345u64);
        let table = FixedBaseTable::new(base);
        for k in [
            Fr::from(0u64),
            Fr::from(1u64),
            Fr::from(255u64),
            Fr::from(256u64),
            -Fr::from(1u64),
        ]
        .into_iter()
        .chain((0..3).map(|_| Fr::rand(&mut rng)))
        {
            assert_eq!(table.mul(&k), base * k);
        }
    }
}
