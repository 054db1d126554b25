//! Word-size arithmetic modulo a prime q for the residue test: products,
//! powers of two, pairings of residue vectors and signed multi-limb sums.

/// A signed sum of products of a word by a multi-limb magnitude, kept as
/// per-limb 128-bit column sums (no overflow below 2^64 products).
pub(super) struct SignedSum {
    positive: Vec<u128>,
    negative: Vec<u128>,
}

impl SignedSum {
    pub(super) fn new(width: usize) -> Self {
        Self {
            positive: vec![0; width + 1],
            negative: vec![0; width + 1],
        }
    }

    pub(super) fn add(&mut self, u: u64, magnitude: &[u64], negative: bool) {
        let columns = if negative {
            &mut self.negative
        } else {
            &mut self.positive
        };
        for (k, &m) in magnitude.iter().enumerate() {
            let p = u as u128 * m as u128;
            columns[k] += p as u64 as u128;
            columns[k + 1] += p >> 64;
        }
    }

    /// The sum modulo q.
    pub(super) fn modulo(&self, q: u64) -> u64 {
        let reduce = |columns: &[u128]| {
            columns.iter().enumerate().fold(0u64, |acc, (k, &c)| {
                let term = mul_mod((c % q as u128) as u64, pow2_mod(64 * k as u32, q), q);
                ((acc as u128 + term as u128) % q as u128) as u64
            })
        };
        let (p, n) = (reduce(&self.positive), reduce(&self.negative));
        ((p as u128 + q as u128 - n as u128) % q as u128) as u64
    }
}

/// `Σ_k a_k · b_k mod q` (each below 2^64), with the products' halves
/// summed apart.
pub(super) fn pairing(a: &[u64], b: &[u64], q: u64) -> u64 {
    let (mut low, mut high) = (0u128, 0u128);
    for (&x, &y) in a.iter().zip(b) {
        let p = x as u128 * y as u128;
        low += p as u64 as u128;
        high += p >> 64;
    }
    let q128 = q as u128;
    let high = mul_mod((high % q128) as u64, pow2_mod(64, q), q);
    ((high as u128 + low % q128) % q128) as u64
}

/// `a · b mod q`.
pub(super) fn mul_mod(a: u64, b: u64, q: u64) -> u64 {
    (a as u128 * b as u128 % q as u128) as u64
}

/// `2^e mod q`, by squaring.
pub(super) fn pow2_mod(e: u32, q: u64) -> u64 {
    let (mut result, mut base, mut e) = (1u64 % q, 2u64 % q, e);
    while e > 0 {
        if e & 1 == 1 {
            result = mul_mod(result, base, q);
        }
        base = mul_mod(base, base, q);
        e >>= 1;
    }
    result
}
