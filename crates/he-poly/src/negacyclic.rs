//! Products modulo X^n + 1 for n above the ring degree N: [`NegacyclicSplit`].

use ark_ff::{FftField, PrimeField};

use crate::error::{Error, Result};

/// The Chinese remainder split of F\[X\]/(X^n + 1) into m = n/N rings
/// F\[X\]/(X^N + 1), for products modulo X^n + 1 with n above the ring
/// degree N.
///
/// For m a power of two and ψ a primitive 2n-th root of unity in F,
/// X^n + 1 = Π_k (X^N + θ^(2k+1)) with θ = ψ^N, and the k-th factor's
/// quotient ring is F\[X\]/(X^N + 1) after the substitution X ↦ ψ^(2k+1)·X.
/// So [`split`](NegacyclicSplit::split_in_place) maps a polynomial a of n
/// coefficients to m polynomials of N coefficients,
/// â_k(X) = a(ψ^(2k+1)·X) mod (X^N + 1), such that the split of
/// a·b mod (X^n + 1) is the componentwise negacyclic products â_k·b̂_k, and
/// [`merge`](NegacyclicSplit::merge_in_place) inverts it. With each
/// component one coefficient-encoded ciphertext, a product modulo X^n + 1
/// costs m ciphertext products and nothing across ciphertexts; no component
/// wraps into another.
///
/// Both maps are F-linear: a party holding an additive share of a applies
/// them to its share, and the shares of the result sum to the result.
/// The cost is O(n·log m) field operations (a length-m FFT across the
/// components for each of the N coefficient positions, and two twists).
///
/// ```
/// use ark_bn254::Fr;
/// use he_poly::NegacyclicSplit;
///
/// // F[X]/(X^8 + 1) as 4 copies of F[X]/(X^2 + 1).
/// let split = NegacyclicSplit::<Fr>::new(8, 2)?;
/// let a: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
/// let mut b = a.clone();
/// split.split_in_place(&mut b)?;
/// assert_ne!(a, b);
/// split.merge_in_place(&mut b)?;
/// assert_eq!(a, b);
/// # Ok::<(), he_poly::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct NegacyclicSplit<F: PrimeField> {
    len: usize,
    ring_degree: usize,
    /// ψ, a primitive 2n-th root of unity (1 when m = 1: the split is the identity).
    psi: F,
    /// −θ = −ψ^N, the row twist before the transform across components.
    row_twist: F,
    /// ω = θ², a primitive m-th root of unity.
    omega: F,
}

impl<F: PrimeField> NegacyclicSplit<F> {
    /// The split of polynomials of `len` = m·`ring_degree` coefficients, m a
    /// power of two (m = 1 is the identity).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `ring_degree` is not a power of two,
    /// `len` is not a power-of-two multiple of it, or F has no primitive
    /// 2·`len`-th root of unity.
    pub fn new(len: usize, ring_degree: usize) -> Result<Self> {
        if !ring_degree.is_power_of_two() || !len.is_power_of_two() || len < ring_degree {
            return Err(Error::InvalidArgument(format!(
                "{len} coefficients do not split into rings of degree {ring_degree}: \
                 both must be powers of two, the first at least the second"
            )));
        }
        let components = len / ring_degree;
        if components == 1 {
            return Ok(Self {
                len,
                ring_degree,
                psi: F::ONE,
                row_twist: F::ONE,
                omega: F::ONE,
            });
        }
        let order = u64::try_from(len)
            .ok()
            .and_then(|n| n.checked_mul(2))
            .ok_or_else(|| Error::InvalidArgument(format!("{len} coefficients: too many")))?;
        let psi = <F as FftField>::get_root_of_unity(order).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the field has no primitive {order}-th root of unity"
            ))
        })?;
        let theta = psi.pow([ring_degree as u64]);
        Ok(Self {
            len,
            ring_degree,
            psi,
            row_twist: -theta,
            omega: theta.square(),
        })
    }

    /// n, the coefficients of the polynomials split.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the polynomials split have no coefficients (never: n ≥ N ≥ 1).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// N, the ring degree of each component.
    pub fn ring_degree(&self) -> usize {
        self.ring_degree
    }

    /// m = n/N, the number of components.
    pub fn components(&self) -> usize {
        self.len / self.ring_degree
    }

    /// Replaces the n coefficients of a (constant term first) by its m
    /// components, component k in `values[k·N..(k+1)·N]`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `values` does not hold n values.
    pub fn split_in_place(&self, values: &mut [F]) -> Result<()> {
        self.check_len(values.len())?;
        if self.components() == 1 {
            return Ok(());
        }
        self.scale_rows(values, self.row_twist, F::ONE);
        self.transform_rows(values, self.omega);
        self.twist_columns(values, self.psi);
        Ok(())
    }

    /// Inverts [`split_in_place`](Self::split_in_place): replaces m
    /// components (component k in `values[k·N..(k+1)·N]`) by the n
    /// coefficients of the polynomial they are the split of.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `values` does not hold n values.
    pub fn merge_in_place(&self, values: &mut [F]) -> Result<()> {
        self.check_len(values.len())?;
        if self.components() == 1 {
            return Ok(());
        }
        self.twist_columns(values, self.inverse(self.psi));
        self.transform_rows(values, self.inverse(self.omega));
        let scale = self.inverse(F::from(self.components() as u64));
        self.scale_rows(values, self.inverse(self.row_twist), scale);
        Ok(())
    }

    /// The merge of components that are zero except at coefficient
    /// `position` (< N), where component k holds `values[k]`: the m
    /// coefficients of the result at exponents i·N + `position`, i < m (all
    /// others are zero).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a position of N or more, or other
    /// than m values.
    pub fn merge_column(&self, position: usize, values: &[F]) -> Result<Vec<F>> {
        if position >= self.ring_degree || values.len() != self.components() {
            return Err(Error::InvalidArgument(format!(
                "a column is {} values at a position below {}, got {} at {position}",
                self.components(),
                self.ring_degree,
                values.len()
            )));
        }
        // The same steps as merge_in_place on rows of one column.
        let column = Self {
            ring_degree: 1,
            len: self.components(),
            ..self.clone()
        };
        let mut out = values.to_vec();
        if self.components() > 1 {
            let psi_inverse = self.inverse(self.psi);
            for (k, value) in out.iter_mut().enumerate() {
                *value *= psi_inverse.pow([((2 * k + 1) * position) as u64]);
            }
            column.transform_rows(&mut out, self.inverse(self.omega));
            let scale = self.inverse(F::from(self.components() as u64));
            column.scale_rows(&mut out, self.inverse(self.row_twist), scale);
        }
        Ok(out)
    }

    fn check_len(&self, len: usize) -> Result<()> {
        if len != self.len {
            return Err(Error::InvalidArgument(format!(
                "the split works on {} values, got {len}",
                self.len
            )));
        }
        Ok(())
    }

    fn inverse(&self, value: F) -> F {
        // Every value inverted here is a root of unity or m, all nonzero in F.
        value.inverse().unwrap_or(F::ONE)
    }

    /// Row i (coefficients i·N..(i+1)·N) times `scale`·`ratio`^i.
    fn scale_rows(&self, values: &mut [F], ratio: F, scale: F) {
        let mut factor = scale;
        for row in values.chunks_exact_mut(self.ring_degree) {
            if !factor.is_one() {
                row.iter_mut().for_each(|v| *v *= factor);
            }
            factor *= ratio;
        }
    }

    /// Row k times ψ^((2k+1)·j) at column j, for `psi` = ψ or ψ^−1.
    fn twist_columns(&self, values: &mut [F], psi: F) {
        let psi_squared = psi.square();
        let mut step = psi;
        for row in values.chunks_exact_mut(self.ring_degree) {
            let mut factor = F::ONE;
            for v in row.iter_mut() {
                *v *= factor;
                factor *= step;
            }
            step *= psi_squared;
        }
    }

    /// The length-m DFT with root `omega` across the rows, column by column:
    /// row k becomes Σ_i row_i·omega^(i·k). Radix 2, decimation in time,
    /// each butterfly on whole rows.
    fn transform_rows(&self, values: &mut [F], omega: F) {
        let (m, width) = (self.components(), self.ring_degree);
        let bits = m.trailing_zeros();
        for i in 0..m {
            let j = i.reverse_bits() >> (usize::BITS - bits);
            if i < j {
                let (low, high) = values.split_at_mut(j * width);
                low[i * width..(i + 1) * width].swap_with_slice(&mut high[..width]);
            }
        }
        let mut half = 1;
        while half < m {
            let root = omega.pow([(m / (2 * half)) as u64]);
            for start in (0..m).step_by(2 * half) {
                let mut w = F::ONE;
                for t in start..start + half {
                    let (low, high) = values.split_at_mut((t + half) * width);
                    let (x, y) = (&mut low[t * width..(t + 1) * width], &mut high[..width]);
                    for (x, y) in x.iter_mut().zip(y.iter_mut()) {
                        let product = *y * w;
                        *y = *x - product;
                        *x += product;
                    }
                    w *= root;
                }
            }
            half *= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use ark_bn254::Fr;
    use ark_ff::UniformRand;
    use rand::{rngs::StdRng, SeedableRng};

    use super::*;

    /// a·b mod (X^len + 1), schoolbook.
    fn negacyclic(a: &[Fr], b: &[Fr]) -> Vec<Fr> {
        let n = a.len();
        let mut out = vec![Fr::from(0u64); n];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                let k = i + j;
                if k < n {
                    out[k] += *x * y;
                } else {
                    out[k - n] -= *x * y;
                }
            }
        }
        out
    }

    #[test]
    fn products_of_components_are_the_split_of_the_product() {
        let mut rng = StdRng::seed_from_u64(3);
        for (n, ring) in [(8, 8), (8, 4), (16, 4), (32, 4), (64, 8), (16, 1)] {
            let split = NegacyclicSplit::<Fr>::new(n, ring).unwrap();
            let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            let (mut sa, mut sb) = (a.clone(), b.clone());
            split.split_in_place(&mut sa).unwrap();
            split.split_in_place(&mut sb).unwrap();
            let mut product: Vec<Fr> = sa
                .chunks(ring)
                .zip(sb.chunks(ring))
                .flat_map(|(x, y)| negacyclic(x, y))
                .collect();
            split.merge_in_place(&mut product).unwrap();
            assert_eq!(product, negacyclic(&a, &b), "n = {n}, N = {ring}");
            split.merge_in_place(&mut sa).unwrap();
            assert_eq!(sa, a);
        }
    }

    #[test]
    fn a_column_merges_as_the_whole() {
        let mut rng = StdRng::seed_from_u64(4);
        let (n, ring) = (32, 4);
        let split = NegacyclicSplit::<Fr>::new(n, ring).unwrap();
        for position in 0..ring {
            let column: Vec<Fr> = (0..n / ring).map(|_| Fr::rand(&mut rng)).collect();
            let mut whole = vec![Fr::from(0u64); n];
            for (k, v) in column.iter().enumerate() {
                whole[k * ring + position] = *v;
            }
            split.merge_in_place(&mut whole).unwrap();
            let merged = split.merge_column(position, &column).unwrap();
            for (i, value) in whole.iter().enumerate() {
                let expected = if i % ring == position {
                    merged[i / ring]
                } else {
                    Fr::from(0u64)
                };
                assert_eq!(*value, expected, "position {position}, coefficient {i}");
            }
        }
    }

    #[test]
    fn shapes_that_do_not_split_are_refused() {
        for (n, ring) in [(8, 16), (12, 4), (8, 3), (0, 1)] {
            assert!(NegacyclicSplit::<Fr>::new(n, ring).is_err(), "{n}, {ring}");
        }
        let split = NegacyclicSplit::<Fr>::new(8, 2).unwrap();
        assert!(split.split_in_place(&mut [Fr::from(1u64); 7]).is_err());
        assert!(split.merge_column(2, &[Fr::from(1u64); 4]).is_err());
        assert!(split.merge_column(1, &[Fr::from(1u64); 3]).is_err());
    }
}
