//! The linear maps between a slot vector and the coefficients of the plaintext
//! polynomial, as slot transforms: the "special FFT" of CKKS bootstrapping
//! carried over to BGV slots over F_t, fused with the size-n FFT on H.
//!
//! # The special FFT
//! Write R = N/2, ℓ = log2 R, and index a slot p by its row r (bit ℓ of p)
//! and column c (bits 0..ℓ). Slot (r, c) holds m(ψ^(s_r·3^c)) with s_0 = 1,
//! s_1 = −1 ([`helib_rs::SlotLayout`]). For M a power of two, let P_M(m) be
//! the M values m(ψ_M^(s_r·3^j)), j < M/2, of a polynomial of degree < M,
//! ψ_M = ψ^(N/M). Splitting m(X) = m_e(X²) + X·m_o(X²) gives, for M ≥ 8
//! (where 3^(M/4) ≡ 1 mod M),
//!
//! `P_M(m)[r, j] = P_(M/2)(m_e)[r, j mod M/4] + ψ_M^(s_r·3^j) · P_(M/2)(m_o)[r, j mod M/4]`,
//!
//! a butterfly on column bit log2(M/4) whose partner is a rotation by ±M/4
//! inside each row. With m_e in the first half of a block of M/2 columns and
//! m_o in the second, recursively, the coefficient k of a polynomial of
//! degree < n ≤ R sits in the block of R/n columns numbered bitrev(k) (its
//! bit u in column bit ℓ−1−u), the same in both rows and in every column of
//! the block (a constant polynomial has the same value everywhere, so the
//! recursion below M = 2N/n is a mere replication). From there log2(n)
//! butterflies on the column bits ℓ−log2(n) … ℓ−1 produce every slot. The
//! recursion at M = 4 (n = R) mixes the rows, but not when both rows hold
//! the same data, which is the case here.
//!
//! # Moving bits instead of permuting
//! The slot side holds a length-n vector replicated along the rows (he-fft's
//! `Row` packing): it only depends on the column bits 0..log2(n). A butterfly
//! that reads bit x and writes its two outputs selected by a bit y on which
//! the input does not depend (`out[p] = α(p)·in[p with x:=0] + β(p)·in[p with
//! x:=1]`, the choice of (α, β) made by bit y of p) costs three diagonals like
//! an in-place one, and leaves the output independent of x. The steps of the
//! decimation-in-frequency inverse FFT on H (which produce the coefficient
//! bits low first) therefore write coefficient bit u straight into column bit
//! ℓ−1−u, where the special FFT wants it: evaluations on H become the whole
//! slot vector of their interpolant in 2·log2(n) butterflies, without any
//! permutation. Raw coefficients need only the bit moves; the rare collisions
//! of a target bit with an unread source bit are solved by bit swaps (three
//! diagonals each).
//!
//! # Levels
//! Consecutive butterflies are merged into one transform per multiplication
//! level; merged, the moves and the special butterflies on the bits they
//! wrote cost no more diagonals than the moves alone, because the input does
//! not depend on those bits. Every merged transform is kept in canonical form:
//! a diagonal reads each source at the copy nearest the output (for the
//! `Row`-packed input, at a rotation below n), so diagonals that only differ
//! by where they read the same replicated value are one. A single level is
//! the dense map, computed directly from Lagrange's formula: n diagonals.

use crate::error::{Error, Result};
use crate::stages::{bit_reverse, Order};
use helib_rs::lintrans::{Shift, SlotTransform};

mod dense;
mod grouping;
mod stages;
#[cfg(test)]
mod tests;

use ark_ff::{batch_inversion, FftField, PrimeField};
use helib_rs::SlotLayout;

/// What the slot side of a conversion holds, as a length-n vector in
/// he-fft's `Row` packing (repeated along both slot rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotForm {
    /// The polynomial's values on H = ⟨ω⟩ (|H| = n): slot vector a, polynomial
    /// A = the interpolant of a (`Radix2EvaluationDomain::ifft(a)`).
    Evaluations,
    /// The polynomial's coefficients themselves.
    Coefficients,
}

/// The direction of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// Slots holding a vector → a ciphertext whose plaintext polynomial has
    /// the corresponding coefficients (n of them, the rest zero).
    SlotsToCoefficients,
    /// A plaintext polynomial of degree < n → slots holding the vector.
    CoefficientsToSlots,
}

/// One butterfly (or bit swap) of the stage list, in the slots-to-coefficients direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Step `step` of the decimation-in-frequency inverse FFT on H.
    Dif { step: u32 },
    /// Moves a coefficient bit (identity butterfly).
    Move,
    /// Exchanges the column bits `read` and `write`.
    Swap,
    /// The special-FFT butterfly on column bit `read` (= `write`).
    Special,
}

/// A stage reading column bit `read` and selecting its output by bit `write`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stage {
    op: Op,
    read: u32,
    write: u32,
}

/// Where a level's input is replicated, so that a diagonal may read any copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Canon {
    /// `Row` packing of period n: every rotation counts modulo n, rows alike.
    Periodic(usize),
    /// The input does not depend on these slot-index bits (bit ℓ is the row).
    Bits(u64),
}

/// A stage with its coefficients for every output slot: `out[p] =
/// first[p]·in[sources(p).0] + second[p]·in[sources(p).1]`.
struct Materialized<F> {
    stage: Stage,
    inverse: bool,
    first: Vec<F>,
    second: Vec<F>,
}

/// A conversion's geometry: ring, size, form and slot-side order, with the
/// powers of ψ and the slots' exponents.
pub(crate) struct Geometry<F: PrimeField + FftField> {
    slots: usize,
    row: usize,
    bits: u32,
    n: usize,
    log_n: u32,
    form: SlotForm,
    order: Order,
    exponents: Vec<usize>,
    psi_powers: Vec<F>,
}

/// The shifts of a level and their diagonals, with a slot-indexed lookup.
struct Accumulator<F> {
    row: usize,
    index: Vec<u32>,
    shifts: Vec<Shift>,
    diagonals: Vec<Vec<F>>,
}

impl<F: PrimeField> Accumulator<F> {
    fn new(row: usize) -> Self {
        Self {
            row,
            index: vec![u32::MAX; 2 * row],
            shifts: Vec::new(),
            diagonals: Vec::new(),
        }
    }

    fn add(&mut self, shift: Shift, p: usize, value: F) {
        let key = usize::from(shift.swap) * self.row + shift.rotation;
        let mut i = self.index[key] as usize;
        if self.index[key] == u32::MAX {
            i = self.shifts.len();
            self.index[key] = i as u32;
            self.shifts.push(shift);
            self.diagonals.push(vec![F::zero(); 2 * self.row]);
        }
        self.diagonals[i][p] += value;
    }

    /// The nonzero diagonals.
    fn into_terms(self) -> Vec<(Shift, Vec<F>)> {
        self.shifts
            .into_iter()
            .zip(self.diagonals)
            .filter(|(_, d)| d.iter().any(|v| !v.is_zero()))
            .collect()
    }
}

/// The largest number of diagonals the automatic level choice accepts in one level.
const AUTOMATIC_DIAGONALS: usize = 256;

impl<F: PrimeField + FftField> Geometry<F> {
    /// Refuses conversion sizes: n must be a power of two from 2 to N/2.
    ///
    /// # Errors
    /// [`Error::InvalidSize`] for n not a power of two ≥ 2, then
    /// [`Error::ConversionSize`] for n > N/2.
    pub(crate) fn check_size(ring_degree: usize, n: usize) -> Result<()> {
        if n < 2 || !n.is_power_of_two() {
            return Err(Error::InvalidSize(n));
        }
        if n > ring_degree / 2 {
            return Err(Error::ConversionSize {
                n,
                max: ring_degree / 2,
            });
        }
        Ok(())
    }

    /// The geometry of a conversion of length `n` (a power of two in 2..=N/2)
    /// in a ring of `slots` = N slots, or `None` when the sizes are out of
    /// range or F lacks the roots of unity.
    pub(crate) fn new(slots: usize, n: usize, form: SlotForm, order: Order) -> Option<Self> {
        if !n.is_power_of_two() || n < 2 || n > slots / 2 || !slots.is_power_of_two() {
            return None;
        }
        let layout = SlotLayout::<F>::new(slots).ok()?;
        let psi = layout.root_of_unity();
        let exponents = (0..slots)
            .map(|p| layout.slot_exponent(p))
            .collect::<Option<Vec<_>>>()?;
        let psi_powers = std::iter::successors(Some(F::one()), |x| Some(*x * psi))
            .take(2 * slots)
            .collect();
        let row = slots / 2;
        Some(Self {
            slots,
            row,
            bits: row.trailing_zeros(),
            n,
            log_n: n.trailing_zeros(),
            form,
            order,
            exponents,
            psi_powers,
        })
    }

    /// ψ^e for any integer exponent e.
    fn psi(&self, e: i64) -> F {
        self.psi_powers[e.rem_euclid(2 * self.slots as i64) as usize]
    }

    /// ω^e, ω = ψ^(2N/n) the generator of H.
    fn omega(&self, e: i64) -> F {
        self.psi(e * (2 * self.slots / self.n) as i64)
    }

    /// The evaluation point of slot p.
    fn point(&self, p: usize) -> F {
        self.psi_powers[self.exponents[p]]
    }

    /// The vector index held by slot-side position `position` (0..n).
    fn index_at(&self, position: usize) -> usize {
        match self.order {
            Order::Natural => position,
            Order::BitReversed => bit_reverse(position, self.log_n),
        }
    }

    /// The column bit holding bit b of the slot-side vector index.
    fn initial_position(&self, b: u32) -> u32 {
        match self.order {
            Order::Natural => b,
            Order::BitReversed => self.log_n - 1 - b,
        }
    }

    fn row_bit(&self) -> u64 {
        1u64 << self.bits
    }

    fn column_mask(&self) -> u64 {
        (1u64 << self.bits) - 1
    }
    /// The slot-side vector `values` (length n, natural order) in `Row`
    /// packing, each copy in the plan's order.
    pub(crate) fn pack(&self, values: &[F]) -> Vec<F> {
        (0..self.slots)
            .map(|p| values[self.index_at((p % self.row) % self.n)])
            .collect()
    }

    /// The slot-side vector, in natural order, read from a `Row`-packed slot vector.
    pub(crate) fn unpack(&self, slots: &[F]) -> Vec<F> {
        let mut out = vec![F::zero(); self.n];
        for (position, v) in slots[..self.n].iter().enumerate() {
            out[self.index_at(position)] = *v;
        }
        out
    }
}
