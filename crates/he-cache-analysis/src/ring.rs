//! A transparent ring Z_q\[X\]/(X^N + 1) for one NTT-friendly prime q: the
//! arithmetic of the security model, with every coefficient in view.

use he_cache::{Error, Result};

/// A polynomial of the model ring: N coefficients in [0, q).
pub type Poly = Vec<u64>;

/// Z_q\[X\]/(X^N + 1) with a negacyclic NTT (q prime, q ≡ 1 mod 2N).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToyRing {
    n: usize,
    q: u64,
    /// ψ^bitrev(i) for a primitive 2N-th root of unity ψ.
    psi_rev: Vec<u64>,
    /// ψ^-bitrev(i).
    psi_inv_rev: Vec<u64>,
    n_inv: u64,
}

impl ToyRing {
    /// The ring of degree `n` modulo the prime `q`.
    ///
    /// Use a prime the engine itself uses, e.g. `context.chain_primes()[0]`:
    /// every engine ciphertext reduced modulo it is a ciphertext of this ring.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] when `n` is not a power of two ≥ 2, q ≥ 2^62,
    /// 2N does not divide q − 1, or no primitive 2N-th root is found (q is not prime).
    pub fn new(n: usize, q: u64) -> Result<Self> {
        let invalid = |why: &str| Error::InvalidConfig(format!("toy ring N = {n}, q = {q}: {why}"));
        if n < 2 || !n.is_power_of_two() {
            return Err(invalid("N must be a power of two"));
        }
        if !(3..1 << 62).contains(&q) || !(q - 1).is_multiple_of(2 * n as u64) {
            return Err(invalid("q must be below 2^62 with 2N | q - 1"));
        }
        let psi = (2..1000)
            .map(|g| pow_mod(g, (q - 1) / (2 * n as u64), q))
            .find(|&psi| pow_mod(psi, n as u64, q) == q - 1)
            .ok_or_else(|| invalid("no primitive 2N-th root of unity (is q prime?)"))?;
        let psi_inv = pow_mod(psi, q - 2, q);
        let bits = n.trailing_zeros();
        let table = |root: u64| {
            let powers: Vec<u64> =
                std::iter::successors(Some(1u64), |p| Some(mul_mod(*p, root, q)))
                    .take(n)
                    .collect();
            (0..n)
                .map(|i| powers[i.reverse_bits() >> (usize::BITS - bits)])
                .collect()
        };
        Ok(Self {
            n,
            q,
            psi_rev: table(psi),
            psi_inv_rev: table(psi_inv),
            n_inv: pow_mod(n as u64, q - 2, q),
        })
    }

    /// The degree N.
    pub fn degree(&self) -> usize {
        self.n
    }

    /// The modulus q.
    pub fn modulus(&self) -> u64 {
        self.q
    }

    /// The zero polynomial.
    pub fn zero(&self) -> Poly {
        vec![0; self.n]
    }

    /// A polynomial from small signed coefficients.
    pub fn from_signed(&self, coefficients: &[i64]) -> Poly {
        coefficients
            .iter()
            .map(|&c| self.reduce_signed(c))
            .collect()
    }

    /// `c mod q` for a signed c.
    pub fn reduce_signed(&self, c: i64) -> u64 {
        i128::from(c).rem_euclid(i128::from(self.q)) as u64
    }

    /// `a` as exactly N coefficients reduced mod q: missing ones are zero,
    /// those beyond N are ignored. Every operation takes its inputs this way.
    pub fn fit(&self, a: &[u64]) -> Poly {
        let mut out: Poly = a.iter().take(self.n).map(|&x| x % self.q).collect();
        out.resize(self.n, 0);
        out
    }

    /// a + b.
    pub fn add(&self, a: &[u64], b: &[u64]) -> Poly {
        let (a, b) = (self.fit(a), self.fit(b));
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| add_mod(x, y, self.q))
            .collect()
    }

    /// a − b.
    pub fn sub(&self, a: &[u64], b: &[u64]) -> Poly {
        let (a, b) = (self.fit(a), self.fit(b));
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| add_mod(x, self.q - y, self.q))
            .collect()
    }

    /// k · a.
    pub fn scale(&self, a: &[u64], k: u64) -> Poly {
        self.fit(a).iter().map(|&x| mul_mod(x, k, self.q)).collect()
    }

    /// a · b (negacyclic).
    pub fn mul(&self, a: &[u64], b: &[u64]) -> Poly {
        let (mut x, mut y) = (self.fit(a), self.fit(b));
        self.forward(&mut x);
        self.forward(&mut y);
        let mut product: Poly = x
            .iter()
            .zip(&y)
            .map(|(&u, &v)| mul_mod(u, v, self.q))
            .collect();
        self.inverse(&mut product);
        product
    }

    /// The inverse of x mod q (0 for x = 0).
    pub fn invert_scalar(&self, x: u64) -> u64 {
        pow_mod(x, self.q - 2, self.q)
    }

    /// Cooley–Tukey negacyclic NTT (natural order in, bit-reversed out).
    fn forward(&self, a: &mut [u64]) {
        let q = self.q;
        let mut half = self.n;
        let mut m = 1;
        while m < self.n {
            half /= 2;
            for i in 0..m {
                let (start, w) = (2 * i * half, self.psi_rev[m + i]);
                for j in start..start + half {
                    let (u, v) = (a[j], mul_mod(a[j + half], w, q));
                    a[j] = add_mod(u, v, q);
                    a[j + half] = add_mod(u, q - v, q);
                }
            }
            m *= 2;
        }
    }

    /// Gentleman–Sande inverse of [`forward`](Self::forward), scaled by N^-1.
    fn inverse(&self, a: &mut [u64]) {
        let q = self.q;
        let mut half = 1;
        let mut m = self.n;
        while m > 1 {
            let h = m / 2;
            for i in 0..h {
                let (start, w) = (2 * i * half, self.psi_inv_rev[h + i]);
                for j in start..start + half {
                    let (u, v) = (a[j], a[j + half]);
                    a[j] = add_mod(u, v, q);
                    a[j + half] = mul_mod(add_mod(u, q - v, q), w, q);
                }
            }
            half *= 2;
            m = h;
        }
        for x in a.iter_mut() {
            *x = mul_mod(*x, self.n_inv, q);
        }
    }
}

pub(crate) fn add_mod(a: u64, b: u64, q: u64) -> u64 {
    let s = a + b;
    if s >= q {
        s - q
    } else {
        s
    }
}

pub(crate) fn mul_mod(a: u64, b: u64, q: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(q)) as u64
}

pub(crate) fn pow_mod(mut base: u64, mut exp: u64, q: u64) -> u64 {
    let mut acc = 1 % q;
    base %= q;
    while exp > 0 {
        if exp & 1 == 1 {
            acc = mul_mod(acc, base, q);
        }
        base = mul_mod(base, base, q);
        exp >>= 1;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 12289 = 3 · 2^12 + 1, the NewHope prime.
    const Q: u64 = 12289;

    fn schoolbook(ring: &ToyRing, a: &[u64], b: &[u64]) -> Poly {
        let n = ring.degree();
        let mut out = vec![0u64; n];
        for (i, &x) in a.iter().enumerate() {
            for (j, &y) in b.iter().enumerate() {
                let p = mul_mod(x, y, Q);
                let k = (i + j) % n;
                out[k] = if i + j < n {
                    add_mod(out[k], p, Q)
                } else {
                    add_mod(out[k], Q - p, Q)
                };
            }
        }
        out
    }

    #[test]
    fn ntt_product_matches_the_schoolbook_negacyclic_product() {
        let ring = ToyRing::new(64, Q).unwrap();
        let a: Poly = (0..64u64).map(|i| (i * i * 37 + 5) % Q).collect();
        let b: Poly = (0..64u64).map(|i| (i * 1001 + 77) % Q).collect();
        assert_eq!(ring.mul(&a, &b), schoolbook(&ring, &a, &b));
        // X^63 · X = X^64 = −1.
        let mut x63 = ring.zero();
        x63[63] = 1;
        let mut x = ring.zero();
        x[1] = 1;
        let mut minus_one = ring.zero();
        minus_one[0] = Q - 1;
        assert_eq!(ring.mul(&x63, &x), minus_one);
    }

    #[test]
    fn inputs_of_the_wrong_length_are_fitted_to_n() {
        let ring = ToyRing::new(16, Q).unwrap();
        assert_eq!(ring.fit(&[1, 2]).len(), 16);
        assert_eq!(
            ring.add(&[1], &[Q + 2; 40]),
            ring.fit(&[3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2])
        );
        assert_eq!(ring.mul(&[], &[5]), ring.zero());
    }

    #[test]
    fn bad_rings_are_refused() {
        assert!(ToyRing::new(48, Q).is_err());
        assert!(ToyRing::new(8192, Q).is_err());
        assert!(ToyRing::new(64, 12291).is_err());
        assert_eq!(ring_ok().reduce_signed(-1), Q - 1);
    }

    fn ring_ok() -> ToyRing {
        ToyRing::new(16, Q).unwrap()
    }
}
