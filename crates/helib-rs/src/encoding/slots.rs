//! The SIMD slot layout: which evaluation of the plaintext polynomial each slot holds.

use std::sync::{Arc, OnceLock};

use ark_ff::{BigInteger, FftField, PrimeField, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};

use super::field_ntt::{FieldNtt, FieldNttKernel};
use crate::error::{Error, Result};
use crate::params::MAX_RING_DEGREE;

/// The slot layout of a ring Z_t\[X\]/(X^N + 1) with 2N | t − 1, and the
/// transforms between slots and coefficients.
///
/// Let ψ be the generator of arkworks' `Radix2EvaluationDomain::<F>::new(2N)`,
/// a primitive 2N-th root of unity (its square generates the size-N domain).
/// X^N + 1 has the N roots ψ^e for odd e, so a polynomial m is determined by
/// its N evaluations m(ψ^e). The slots are two rows of N/2:
///
/// * slot (row 0, j), at index j, holds m(ψ^(3^j mod 2N));
/// * slot (row 1, j), at index N/2 + j, holds m(ψ^(−3^j mod 2N));
///
/// for j = 0, …, N/2 − 1 (3 has order N/2 modulo 2N, and ±3^j run through all
/// odd residues). Consequently the Galois automorphism X ↦ X^3 rotates both
/// rows left by one (slot j receives slot j + 1, cyclically), X ↦ X^(3^k)
/// rotates them by k, and X ↦ X^(2N−1) swaps the two rows.
///
/// The transforms are arkworks' coset FFTs: the evaluations at ψ^(2k+1) for
/// k = 0..N are a size-N FFT on the coset ψ·⟨ψ²⟩, followed by a fixed
/// permutation from coset order k to slot order. For fields of 65 to 255
/// bits the engine's [`FieldNtt`] computes them instead when it runs its
/// AVX-512 IFMA kernel (same results, several times faster); elsewhere
/// arkworks' FFT (the engine's portable kernel is not faster).
///
/// # Periodic slots
///
/// Slots that repeat with period P < N/2 along each row (slot (r, j) equal to
/// slot (r, j mod P)) are exactly the polynomials in X^s, s = N/(2P): they
/// are fixed by X ↦ X^(3^P), the rotation by P, whose fixed ring is
/// Z_t\[X^s\]. Such a polynomial is m'(X^s) for the m' of degree < 2P whose
/// slots in the layout of degree 2P (root ψ^s, as arkworks' roots are powers
/// of one two-adic root) are the first P of each row, since 3 has order P
/// modulo 4P (for P ≥ 2). The evaluator's encodings
/// ([`BatchEncoder::encode_for_multiplication`](crate::BatchEncoder::encode_for_multiplication)
/// and the like, whose values are public) take that small route, a transform
/// of size 2P instead of N, and the engine keeps them compact
/// ([`EncodedPlaintext::stride`](crate::EncodedPlaintext::stride));
/// [`slots_to_coefficients`](Self::slots_to_coefficients) and plaintexts to
/// encrypt run the size-N transform whatever the values.
#[derive(Debug, Clone)]
pub struct SlotLayout<F: FftField> {
    /// The coset ψ·⟨ψ²⟩ of size N.
    coset: Radix2EvaluationDomain<F>,
    /// `coset_index[slot]` = k such that the slot holds m(ψ^(2k+1)).
    coset_index: Vec<usize>,
    /// The engine's transform, when it is the faster one.
    engine: Option<Arc<FieldNtt>>,
    /// The layouts of degree 2^k (index k, 2 ≤ k < log2 N), made when a
    /// periodic slot vector first needs one.
    smaller: Arc<[OnceLock<SlotLayout<F>>]>,
}

impl<F: PrimeField + FftField> SlotLayout<F> {
    /// The layout for ring degree `ring_degree` (a power of two in 4 ..= 2^17).
    ///
    /// # Errors
    /// [`Error::BatchingUnsupported`] when `ring_degree` is not a power of two
    /// in 4 ..= 2^17 or F has no primitive 2N-th root of unity.
    pub fn new(ring_degree: usize) -> Result<Self> {
        let unsupported = |reason: String| Error::BatchingUnsupported { reason };
        if !ring_degree.is_power_of_two() || !(4..=MAX_RING_DEGREE).contains(&ring_degree) {
            return Err(unsupported(format!(
                "the ring degree {ring_degree} is not a power of two in [4, 2^17]"
            )));
        }
        let two_n = 2 * ring_degree;
        let no_root = || {
            unsupported(format!(
                "the field has no primitive {two_n}-th root of unity (its two-adicity is {})",
                F::TWO_ADICITY
            ))
        };
        let psi = Radix2EvaluationDomain::<F>::new(two_n)
            .ok_or_else(no_root)?
            .group_gen();
        let coset = Radix2EvaluationDomain::<F>::new(ring_degree)
            .and_then(|domain| domain.get_coset(psi))
            .ok_or_else(no_root)?;
        Ok(Self {
            engine: engine_transform(ring_degree, psi),
            coset,
            coset_index: coset_indices(ring_degree),
            smaller: (0..ring_degree.trailing_zeros())
                .map(|_| OnceLock::new())
                .collect(),
        })
    }

    /// The layout of degree `degree` (a power of two from 4 to N/2), made
    /// once.
    fn smaller(&self, degree: usize) -> Result<&SlotLayout<F>> {
        let cell = self
            .smaller
            .get(degree.trailing_zeros() as usize)
            .ok_or_else(|| Error::InvalidArgument(format!("no layout of degree {degree}")))?;
        if let Some(layout) = cell.get() {
            return Ok(layout);
        }
        let made = SlotLayout::new(degree)?;
        Ok(cell.get_or_init(|| made))
    }

    /// The period P < N/2 with which `values` (missing slots zero) repeat
    /// along each row ([`row_period`]), with the first P slots of each row
    /// (the slots of the layout of degree 2P); `None` when the rows do not
    /// repeat.
    fn period(&self, values: &[F]) -> Option<(usize, Vec<F>)> {
        let row = self.row_size();
        let period = row_period(values, row);
        if period >= row {
            return None;
        }
        let at = |slot: usize| values.get(slot).copied().unwrap_or_else(F::zero);
        let firsts = (0..2)
            .flat_map(|r| (0..period).map(move |j| r * row + j))
            .map(at)
            .collect();
        Some((period, firsts))
    }

    /// Whether the transforms run in the engine (its IFMA kernel) rather than arkworks.
    pub fn uses_engine(&self) -> bool {
        self.engine.is_some()
    }

    /// The number of slots, N.
    pub fn slot_count(&self) -> usize {
        self.coset_index.len()
    }

    /// The number of slots in a row, N/2.
    pub fn row_size(&self) -> usize {
        self.coset_index.len() / 2
    }

    /// ψ, the primitive 2N-th root of unity defining the layout.
    pub fn root_of_unity(&self) -> F {
        self.coset.coset_offset()
    }

    /// The slot index of (row, column): `row · N/2 + column`, or `None` out of range.
    pub fn slot_index(&self, row: usize, column: usize) -> Option<usize> {
        (row < 2 && column < self.row_size()).then(|| row * self.row_size() + column)
    }

    /// The odd exponent e such that slot `slot` holds m(ψ^e), or `None` out of range.
    pub fn slot_exponent(&self, slot: usize) -> Option<usize> {
        self.coset_index.get(slot).map(|&k| 2 * k + 1)
    }

    /// The coefficients of the polynomial whose slots hold `values` (missing
    /// slots are zero).
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] for more than N values.
    pub fn slots_to_coefficients(&self, values: &[F]) -> Result<Vec<F>> {
        let n = self.slot_count();
        if values.len() > n {
            return Err(Error::InvalidPlaintext(format!(
                "{} slot values were given but there are only {n} slots",
                values.len()
            )));
        }
        let mut evaluations = vec![F::zero(); n];
        for (&k, &value) in self.coset_index.iter().zip(values) {
            evaluations[k] = value;
        }
        match &self.engine {
            Some(engine) => run_engine(engine, &mut evaluations, false)?,
            None => self.coset.ifft_in_place(&mut evaluations),
        }
        Ok(evaluations)
    }

    /// The coefficients of the polynomial whose slots hold `values` (missing
    /// slots are zero), written into `out` as N integers of `width`
    /// little-endian limbs each: exactly [`slots_to_coefficients`](Self::slots_to_coefficients)
    /// followed by each coefficient's canonical integer, without field
    /// elements in between when the engine runs the transform.
    ///
    /// With [`Route::Periodic`] (public values only) slots repeating along
    /// the rows take the size-2P route ([periodic slots](Self#periodic-slots)),
    /// whose work depends on the values; [`Route::Full`] runs the size-N
    /// transform whatever they are.
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] for more than N values, for `out` not of
    /// N·`width` limbs, or for a coefficient that needs more than `width` limbs.
    pub(crate) fn slots_to_coefficient_limbs(
        &self,
        values: &[F],
        width: usize,
        out: &mut [u64],
        route: Route,
    ) -> Result<()> {
        let n = self.slot_count();
        if values.len() > n {
            return Err(Error::InvalidPlaintext(format!(
                "{} slot values were given but there are only {n} slots",
                values.len()
            )));
        }
        if width == 0 || out.len() != n * width {
            return Err(Error::InvalidPlaintext(format!(
                "{} limbs cannot hold {n} coefficients of {width} limbs",
                out.len()
            )));
        }
        if let Some((period, firsts)) = (route == Route::Periodic)
            .then(|| self.period(values))
            .flatten()
        {
            let mut small = vec![0u64; 2 * period * width];
            self.smaller(2 * period)?.slots_to_coefficient_limbs(
                &firsts,
                width,
                &mut small,
                Route::Full,
            )?;
            out.fill(0);
            let stride = n / (2 * period);
            for (k, c) in small.chunks_exact(width).enumerate() {
                out[k * stride * width..(k * stride + 1) * width].copy_from_slice(c);
            }
            return Ok(());
        }
        let Some(engine) = &self.engine else {
            let coefficients = self.slots_to_coefficients(values)?;
            for (&c, limbs) in coefficients.iter().zip(out.chunks_exact_mut(width)) {
                if !super::field_limbs::write(c, limbs) {
                    return Err(does_not_fit());
                }
            }
            return Ok(());
        };
        // The engine works on 4 limbs an element; the evaluations go
        // straight to their coset positions in that form.
        let mut scratch = Vec::new();
        let limbs: &mut [u64] = if width == 4 {
            out
        } else {
            scratch.resize(4 * n, 0);
            &mut scratch
        };
        limbs.fill(0);
        for (&k, value) in self.coset_index.iter().zip(values) {
            let repr = value.into_bigint();
            let repr = repr.as_ref();
            if repr.iter().skip(4).any(|&l| l != 0) {
                return Err(does_not_fit());
            }
            for (o, &l) in limbs[4 * k..4 * k + 4].iter_mut().zip(repr) {
                *o = l;
            }
        }
        engine.inverse(limbs, FieldNttKernel::Auto)?;
        if width != 4 {
            for (c, o) in scratch.chunks_exact(4).zip(out.chunks_exact_mut(width)) {
                let used = width.min(4);
                if c[used..].iter().any(|&l| l != 0) {
                    return Err(does_not_fit());
                }
                o[..used].copy_from_slice(&c[..used]);
                o[used..].fill(0);
            }
        }
        Ok(())
    }

    /// The slot values of the polynomial with `coefficients` (constant term
    /// first; missing ones are zero).
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] for more than N coefficients.
    pub fn coefficients_to_slots(&self, coefficients: &[F]) -> Result<Vec<F>> {
        let n = self.slot_count();
        if coefficients.len() > n {
            return Err(Error::InvalidPlaintext(format!(
                "{} coefficients were given but the ring degree is {n}",
                coefficients.len()
            )));
        }
        let mut evaluations = coefficients.to_vec();
        evaluations.resize(n, F::zero());
        match &self.engine {
            Some(engine) => run_engine(engine, &mut evaluations, true)?,
            None => self.coset.fft_in_place(&mut evaluations),
        }
        Ok(self.coset_index.iter().map(|&k| evaluations[k]).collect())
    }
}

/// The engine's transform for F and ψ, when F's modulus has 65 to 255 bits
/// and the engine runs it with its IFMA kernel; `None` otherwise (arkworks
/// is used then).
fn engine_transform<F: PrimeField>(ring_degree: usize, psi: F) -> Option<Arc<FieldNtt>> {
    // The engine's kernel is faster only with AVX-512 IFMA: without it, its
    // tables (10 ms at N = 2^16, part of every FFT plan's build and load)
    // would be made only to be dropped.
    if !(65..=255).contains(&F::MODULUS_BIT_SIZE) || !ifma_detected() {
        return None;
    }
    let t = limbs4(&F::MODULUS)?;
    let psi = limbs4(&psi.into_bigint())?;
    let engine = FieldNtt::new(t, ring_degree, psi).ok()?;
    engine.vectorized().then(|| Arc::new(engine))
}

/// Whether the CPU may run the engine's IFMA kernel (the engine decides;
/// without the instructions it never does).
fn ifma_detected() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512ifma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The limbs of an integer below 2^256, zero-padded to 4.
fn limbs4<B: BigInteger>(value: &B) -> Option<[u64; 4]> {
    let limbs = value.as_ref();
    if limbs.iter().skip(4).any(|&l| l != 0) {
        return None;
    }
    let mut out = [0u64; 4];
    for (o, &l) in out.iter_mut().zip(limbs) {
        *o = l;
    }
    Some(out)
}

/// Runs the engine's forward (coefficients → coset evaluations) or inverse
/// transform on `values` in place.
fn run_engine<F: PrimeField>(engine: &FieldNtt, values: &mut [F], forward: bool) -> Result<()> {
    let mut limbs = vec![0u64; 4 * values.len()];
    for (value, out) in values.iter().zip(limbs.chunks_exact_mut(4)) {
        for (o, &l) in out.iter_mut().zip(value.into_bigint().as_ref()) {
            *o = l;
        }
    }
    if forward {
        engine.forward(&mut limbs, FieldNttKernel::Auto)?;
    } else {
        engine.inverse(&mut limbs, FieldNttKernel::Auto)?;
    }
    for (value, chunk) in values.iter_mut().zip(limbs.chunks_exact(4)) {
        let mut bigint = F::BigInt::default();
        for (b, &l) in bigint.as_mut().iter_mut().zip(chunk) {
            *b = l;
        }
        *value = F::from_bigint(bigint).ok_or_else(|| Error::Engine {
            status: crate::error::Status::Internal,
            message: "the field NTT returned an unreduced element".into(),
        })?;
    }
    Ok(())
}

/// How [`SlotLayout::slots_to_coefficient_limbs`] may compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// The size-N transform, for any values (a plaintext to encrypt may be secret).
    Full,
    /// The size-2P transform for slots repeating with period P along the
    /// rows: only for public values (the evaluator's encodings), since
    /// finding P takes a time that depends on them.
    Periodic,
}

/// The smallest power of two P from 2 to `row`/2 with which the slots
/// `values` (two rows of `row`; missing slots zero) repeat along each row
/// (slot (r, j) equal to slot (r, j mod P)), or `row` when they do not. Its
/// encoding is compact ([`SlotLayout`]'s periodic slots).
pub(crate) fn row_period<F: Zero + Copy + PartialEq>(values: &[F], row: usize) -> usize {
    let at = |slot: usize| values.get(slot).copied().unwrap_or_else(F::zero);
    let repeats =
        |p: usize| (0..2).all(|r| (p..row).all(|j| at(r * row + j) == at(r * row + j - p)));
    std::iter::successors(Some(2usize), |p| Some(2 * p))
        .take_while(|&p| p < row)
        .find(|&p| repeats(p))
        .unwrap_or(row)
}

/// The error of a coefficient wider than the plaintext limbs.
fn does_not_fit() -> Error {
    Error::InvalidPlaintext("a field element does not fit the plaintext limbs".into())
}

/// For each slot, the index k of its evaluation point ψ^(2k+1) in coset order.
fn coset_indices(ring_degree: usize) -> Vec<usize> {
    let two_n = 2 * ring_degree;
    let half = ring_degree / 2;
    let mut row0 = Vec::with_capacity(half);
    let mut row1 = Vec::with_capacity(half);
    let mut power = 1usize; // 3^j mod 2N
    for _ in 0..half {
        row0.push((power - 1) / 2);
        row1.push((two_n - power - 1) / 2);
        power = power * 3 % two_n;
    }
    row0.extend(row1);
    row0
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::{Field, One, UniformRand, Zero};
    use ark_ff::{Fp64, MontBackend, MontConfig};
    use ark_poly::{univariate::DensePolynomial, DenseUVPolynomial, Polynomial};

    #[derive(MontConfig)]
    #[modulus = "17"]
    #[generator = "3"]
    struct F17Config;
    type F17 = Fp64<MontBackend<F17Config, 1>>;

    #[test]
    fn indices_are_a_permutation() {
        for log_n in 2..=12 {
            let n = 1usize << log_n;
            let mut seen = coset_indices(n);
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "N = {n}");
        }
    }

    #[test]
    fn root_is_primitive_and_squares_to_the_subgroup_generator() {
        let layout = SlotLayout::<Fr>::new(64).unwrap();
        let psi = layout.root_of_unity();
        assert_eq!(psi.pow([64u64]), -Fr::one());
        let small = Radix2EvaluationDomain::<Fr>::new(64).unwrap();
        assert_eq!(psi.square(), small.group_gen());
    }

    #[test]
    fn slots_are_evaluations_at_the_documented_points() {
        let n = 16;
        let layout = SlotLayout::<Fr>::new(n).unwrap();
        let mut rng = ark_std::test_rng();
        let coefficients: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let poly = DensePolynomial::from_coefficients_slice(&coefficients);
        let slots = layout.coefficients_to_slots(&coefficients).unwrap();
        let psi = layout.root_of_unity();
        for j in 0..n / 2 {
            let e = 3u64.pow(j as u32) % (2 * n as u64);
            assert_eq!(slots[j], poly.evaluate(&psi.pow([e])), "row 0, column {j}");
            let minus_e = 2 * n as u64 - e;
            assert_eq!(
                slots[n / 2 + j],
                poly.evaluate(&psi.pow([minus_e])),
                "row 1, column {j}"
            );
            assert_eq!(layout.slot_exponent(j), Some(e as usize));
        }
        assert_eq!(layout.slots_to_coefficients(&slots).unwrap(), coefficients);
    }

    #[test]
    fn short_inputs_are_zero_padded_and_long_ones_refused() {
        let layout = SlotLayout::<Fr>::new(8).unwrap();
        let coefficients = layout.slots_to_coefficients(&[]).unwrap();
        assert!(coefficients.iter().all(Zero::is_zero));
        let constant = layout.coefficients_to_slots(&[Fr::from(9u64)]).unwrap();
        assert_eq!(constant, vec![Fr::from(9u64); 8]);
        assert!(matches!(
            layout.slots_to_coefficients(&[Fr::one(); 9]),
            Err(Error::InvalidPlaintext(_))
        ));
        assert!(matches!(
            layout.coefficients_to_slots(&[Fr::one(); 9]),
            Err(Error::InvalidPlaintext(_))
        ));
        assert_eq!(layout.slot_index(1, 3), Some(7));
        assert_eq!(layout.slot_index(2, 0), None);
        assert_eq!(layout.slot_index(0, 4), None);
    }

    /// The periodic route gives the full route's coefficient limbs for
    /// slots of every period (rows differing, short inputs zero-padded), and
    /// the same as the full route for slots that do not repeat.
    #[test]
    fn the_periodic_route_gives_the_full_routes_coefficients() {
        let n = 256;
        let row = n / 2;
        let layout = SlotLayout::<Fr>::new(n).unwrap();
        let mut rng = ark_std::test_rng();
        let coefficients = |values: &[Fr], route: Route| {
            let mut out = vec![0u64; 4 * n];
            layout
                .slots_to_coefficient_limbs(values, 4, &mut out, route)
                .unwrap();
            out
        };
        for log_p in 0..=row.trailing_zeros() {
            let period = 1usize << log_p;
            let rows: Vec<Vec<Fr>> = (0..2)
                .map(|_| (0..period).map(|_| Fr::rand(&mut rng)).collect())
                .collect();
            let values: Vec<Fr> = (0..n).map(|p| rows[p / row][p % row % period]).collect();
            let expected_period = if period == row { row } else { period.max(2) };
            assert_eq!(row_period(&values, row), expected_period);
            assert_eq!(
                coefficients(&values, Route::Periodic),
                coefficients(&values, Route::Full),
                "period {period}"
            );
            // Only row 0 given: row 1 is zero, a period of its own.
            let short = &values[..row];
            assert_eq!(
                coefficients(short, Route::Periodic),
                coefficients(short, Route::Full),
                "period {period}, one row"
            );
        }
        assert_eq!(row_period::<Fr>(&[], row), 2);
    }

    #[test]
    fn unsupported_sizes_are_reported() {
        assert!(matches!(
            SlotLayout::<Fr>::new(6),
            Err(Error::BatchingUnsupported { .. })
        ));
        assert!(matches!(
            SlotLayout::<Fr>::new(2),
            Err(Error::BatchingUnsupported { .. })
        ));
        assert!(matches!(
            SlotLayout::<Fr>::new(1 << 18),
            Err(Error::BatchingUnsupported { .. })
        ));
        // The field of order 17 has two-adicity 4: 2N = 32 has no root.
        assert!(matches!(
            SlotLayout::<F17>::new(16),
            Err(Error::BatchingUnsupported { .. })
        ));
        assert!(SlotLayout::<F17>::new(8).is_ok());
    }
}
