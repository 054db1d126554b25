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

use crate::stages::{bit_reverse, Order};
use ark_ff::{batch_inversion, FftField, PrimeField};
use helib_rs::lintrans::{Shift, SlotTransform};
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
pub(crate) const AUTOMATIC_DIAGONALS: usize = 256;

impl<F: PrimeField + FftField> Geometry<F> {
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

    /// The stages of the slots-to-coefficients map, in the order they apply,
    /// and which slot-index bits the data is replicated in before each stage
    /// and after the last (one more entry than stages).
    fn forward_stages(&self) -> (Vec<Stage>, Vec<u64>) {
        let (m, l) = (self.log_n, self.bits);
        let target = |u: u32| l - 1 - u;
        let mut stages = Vec::new();
        // Column bits the data depends on.
        let mut occupied: u64 = (1u64 << m) - 1;
        // coefficient bit u → the column bit holding it.
        let mut at: Vec<u32> = (0..m).map(|u| self.initial_position(u)).collect();
        if self.form == SlotForm::Evaluations {
            // Step u reads the index bit m-1-u and produces coefficient bit u.
            for u in 0..m {
                let read = self.initial_position(m - 1 - u);
                let free = occupied & (1u64 << target(u)) == 0;
                let write = if free || target(u) == read {
                    target(u)
                } else {
                    read
                };
                stages.push(Stage {
                    op: Op::Dif { step: u },
                    read,
                    write,
                });
                occupied = (occupied & !(1u64 << read)) | (1u64 << write);
                at[u as usize] = write;
            }
        }
        // Route every coefficient bit to its column: moves into free bits,
        // swaps where a target holds a bit that is itself misplaced.
        loop {
            let mut moved = false;
            for u in 0..m {
                let (from, to) = (at[u as usize], target(u));
                if from != to && occupied & (1u64 << to) == 0 {
                    stages.push(Stage {
                        op: Op::Move,
                        read: from,
                        write: to,
                    });
                    occupied = (occupied & !(1u64 << from)) | (1u64 << to);
                    at[u as usize] = to;
                    moved = true;
                }
            }
            let Some(u) = (0..m).find(|&u| at[u as usize] != target(u)) else {
                break;
            };
            if moved {
                continue;
            }
            let (from, to) = (at[u as usize], target(u));
            // The target is occupied, so it holds another coefficient bit
            // (occupied column bits are exactly those): exchange the two.
            match (0..m).find(|&v| at[v as usize] == to) {
                Some(other) => {
                    stages.push(Stage {
                        op: Op::Swap,
                        read: from,
                        write: to,
                    });
                    at[other as usize] = from;
                }
                None => {
                    stages.push(Stage {
                        op: Op::Move,
                        read: from,
                        write: to,
                    });
                    occupied = (occupied & !(1u64 << from)) | (1u64 << to);
                }
            }
            at[u as usize] = to;
        }
        for y in (l - m)..l {
            stages.push(Stage {
                op: Op::Special,
                read: y,
                write: y,
            });
        }
        // Replication before each stage.
        let mut rep = (self.column_mask() & !((1u64 << m) - 1)) | self.row_bit();
        let mut reps = vec![rep];
        for s in &stages {
            match s.op {
                Op::Dif { .. } | Op::Move => {
                    if s.read != s.write {
                        rep = (rep | (1u64 << s.read)) & !(1u64 << s.write);
                    }
                }
                Op::Swap => {}
                Op::Special => rep &= !((1u64 << (s.read + 1)) - 1) & !self.row_bit(),
            }
            reps.push(rep);
        }
        (stages, reps)
    }

    /// The two source slots of output slot `p`.
    fn sources(&self, stage: &Stage, inverse: bool, p: usize) -> (usize, usize) {
        if stage.op == Op::Swap {
            let (a, b) = (stage.read, stage.write);
            let (x, y) = ((p >> a) & 1, (p >> b) & 1);
            let q = (p & !(1 << a) & !(1 << b)) | (y << a) | (x << b);
            return (q, q);
        }
        let bit = if inverse { stage.write } else { stage.read };
        (p & !(1 << bit), p | (1 << bit))
    }

    /// The coefficients of a stage (slots-to-coefficients direction).
    fn forward_coefficients(&self, stage: &Stage) -> (Vec<F>, Vec<F>) {
        let (m, slots) = (self.log_n, self.slots);
        let one = F::one();
        let mut first = vec![F::zero(); slots];
        let mut second = vec![F::zero(); slots];
        let n_inv = F::from(self.n as u64).inverse().unwrap_or(one);
        for p in 0..slots {
            let select = (p >> stage.write) & 1;
            let (a, b) = match stage.op {
                Op::Swap => (one, F::zero()),
                Op::Move if select == 0 => (one, F::zero()),
                Op::Move => (F::zero(), one),
                Op::Dif { step } => {
                    // Lower index bits have not moved yet: read them where they started.
                    let span_bit = m - 1 - step;
                    let low = (0..span_bit)
                        .map(|b| ((p >> self.initial_position(b)) & 1) << b)
                        .sum::<usize>();
                    let scale = if step == 0 { n_inv } else { one };
                    if select == 0 {
                        (scale, scale)
                    } else {
                        let w = scale * self.omega(-((low << step) as i64));
                        (w, -w)
                    }
                }
                Op::Special => {
                    // Level M = 2^(y+2): twiddle ψ_M^(s_r·3^j), j = column mod M/2.
                    let y = stage.read;
                    let j = (p & self.column_mask() as usize) & ((1 << (y + 1)) - 1);
                    let slot = (p & self.row_bit() as usize) | j;
                    let e = (self.exponents[slot] * (slots >> (y + 2))) as i64;
                    (one, self.psi(e))
                }
            };
            first[p] = a;
            second[p] = b;
        }
        (first, second)
    }

    fn materialize(&self, stage: &Stage, inverse: bool) -> Materialized<F> {
        let (first, second) = self.forward_coefficients(stage);
        if !inverse || stage.op == Op::Swap {
            return Materialized {
                stage: *stage,
                inverse,
                first,
                second,
            };
        }
        // Invert each 2×2 block: forward outputs (select bit `write` = 0, 1)
        // from sources (bit `read` = 0, 1).
        let (x, y) = (stage.read, stage.write);
        let block = |p: usize| {
            let (p0, p1) = (p & !(1 << y), p | (1 << y));
            (first[p0], second[p0], first[p1], second[p1])
        };
        let mut dets: Vec<F> = (0..self.slots)
            .map(|p| {
                let (a, b, c, d) = block(p);
                a * d - b * c
            })
            .collect();
        batch_inversion(&mut dets);
        let mut inv_first = vec![F::zero(); self.slots];
        let mut inv_second = vec![F::zero(); self.slots];
        for p in 0..self.slots {
            let (a, b, c, d) = block(p);
            let (u, v) = if (p >> x) & 1 == 0 { (d, -b) } else { (-c, a) };
            inv_first[p] = u * dets[p];
            inv_second[p] = v * dets[p];
        }
        Materialized {
            stage: *stage,
            inverse,
            first: inv_first,
            second: inv_second,
        }
    }

    /// The shift from output slot `p` to the canonical copy of source `q`.
    fn canonical_shift(&self, canon: Canon, p: usize, q: usize) -> Shift {
        let row = self.row;
        let column = |s: usize| s & (row - 1);
        match canon {
            Canon::Periodic(period) => Shift {
                swap: false,
                rotation: ((column(q) + row - column(p)) % row) % period,
            },
            Canon::Bits(mask) => {
                let mask = mask as usize;
                let q = (q & !mask) | (p & mask);
                Shift {
                    swap: (q ^ p) & row != 0,
                    rotation: (column(q) + row - column(p)) % row,
                }
            }
        }
    }

    /// The source slot a shift reads for output slot p.
    fn shifted(&self, p: usize, shift: Shift) -> usize {
        let row = self.row;
        let r = (p / row) ^ usize::from(shift.swap);
        r * row + (p % row + shift.rotation) % row
    }

    /// `stages` applied in order, as one canonical slot transform.
    fn compose(&self, stages: &[Materialized<F>], canon: Canon) -> SlotTransform<F> {
        let identity = Shift {
            swap: false,
            rotation: 0,
        };
        let mut current = vec![(identity, vec![F::one(); self.slots])];
        for m in stages {
            let mut acc = Accumulator::new(self.row);
            for (shift, diagonal) in &current {
                for p in 0..self.slots {
                    let (q0, q1) = self.sources(&m.stage, m.inverse, p);
                    for (q, c) in [(q0, m.first[p]), (q1, m.second[p])] {
                        if c.is_zero() || diagonal[q].is_zero() {
                            continue;
                        }
                        let source = self.shifted(q, *shift);
                        acc.add(self.canonical_shift(canon, p, source), p, c * diagonal[q]);
                    }
                }
            }
            current = acc.into_terms();
        }
        let mut t = SlotTransform::zero(self.row);
        for (shift, diagonal) in current {
            t.add_term(shift, &diagonal);
        }
        t
    }

    /// The number of stages of the factored map.
    pub(crate) fn stage_count(&self) -> usize {
        self.forward_stages().0.len()
    }

    /// An estimate of the diagonals of the level made of stages `range`
    /// (stage indices in the slots-to-coefficients order).
    fn estimated_diagonals(
        &self,
        stages: &[Stage],
        reps: &[u64],
        range: std::ops::Range<usize>,
        conversion: Conversion,
    ) -> usize {
        let forward = conversion == Conversion::SlotsToCoefficients;
        let mut read = 0u64;
        for s in &stages[range.clone()] {
            let bits = match (s.op, forward) {
                (Op::Swap, _) => (1u64 << s.read) | (1u64 << s.write),
                (_, true) => 1u64 << s.read,
                (_, false) => 1u64 << s.write,
            };
            read |= bits;
        }
        let input = if forward {
            reps[range.start]
        } else {
            reps[range.end]
        };
        let read = read & !input & self.column_mask();
        let periodic = forward && range.start == 0;
        let mut count = 1usize;
        let mut b = 0;
        while b < self.bits {
            if read & (1u64 << b) == 0 {
                b += 1;
                continue;
            }
            let start = b;
            while b < self.bits && read & (1u64 << b) != 0 {
                b += 1;
            }
            let len = (b - start) as usize;
            let run = if periodic && b == self.log_n {
                1usize << len
            } else {
                (1usize << (len + 1)) - 1
            };
            count = count.saturating_mul(run);
        }
        let cap = if periodic { self.n } else { self.slots };
        count.min(cap)
    }

    /// Splits the stages into `levels` consecutive groups minimizing the
    /// estimated cost (2√D rotations and D/16 for the products of a level
    /// with D diagonals). Returns the group boundaries and each group's
    /// estimated diagonals.
    fn grouping(
        &self,
        levels: usize,
        conversion: Conversion,
    ) -> (Vec<std::ops::Range<usize>>, Vec<usize>) {
        let (stages, reps) = self.forward_stages();
        let k = stages.len();
        let levels = levels.clamp(1, k);
        let cost = |d: usize| 2.0 * (d as f64).sqrt() + d as f64 / 16.0;
        // best[g][j]: first j stages in g groups.
        let mut best = vec![vec![(f64::INFINITY, 0usize); k + 1]; levels + 1];
        best[0][0] = (0.0, 0);
        for g in 1..=levels {
            for j in g..=k {
                for i in (g - 1)..j {
                    let prior = best[g - 1][i].0;
                    if prior.is_infinite() {
                        continue;
                    }
                    let c =
                        prior + cost(self.estimated_diagonals(&stages, &reps, i..j, conversion));
                    if c < best[g][j].0 {
                        best[g][j] = (c, i);
                    }
                }
            }
        }
        let mut bounds = Vec::with_capacity(levels);
        let mut j = k;
        for g in (1..=levels).rev() {
            let i = best[g][j].1;
            bounds.push(i..j);
            j = i;
        }
        bounds.reverse();
        let estimates = bounds
            .iter()
            .map(|r| self.estimated_diagonals(&stages, &reps, r.clone(), conversion))
            .collect();
        (bounds, estimates)
    }

    /// The estimated diagonals per level of a `levels`-level plan (exact for one level).
    pub(crate) fn estimate(&self, levels: usize, conversion: Conversion) -> Vec<usize> {
        if levels == 1 {
            return vec![self.n];
        }
        self.grouping(levels, conversion).1
    }

    /// The conversion as `levels` slot transforms, applied in order.
    pub(crate) fn levels(&self, levels: usize, conversion: Conversion) -> Vec<SlotTransform<F>> {
        if levels == 1 {
            return vec![match conversion {
                Conversion::SlotsToCoefficients => self.dense_to_coefficients(),
                Conversion::CoefficientsToSlots => self.dense_to_slots(),
            }];
        }
        let (stages, reps) = self.forward_stages();
        let (bounds, _) = self.grouping(levels, conversion);
        match conversion {
            Conversion::SlotsToCoefficients => bounds
                .iter()
                .map(|range| {
                    let canon = if range.start == 0 {
                        Canon::Periodic(self.n)
                    } else {
                        Canon::Bits(reps[range.start])
                    };
                    let materialized: Vec<_> = stages[range.clone()]
                        .iter()
                        .map(|s| self.materialize(s, false))
                        .collect();
                    self.compose(&materialized, canon)
                })
                .collect(),
            Conversion::CoefficientsToSlots => bounds
                .iter()
                .rev()
                .map(|range| {
                    let materialized: Vec<_> = stages[range.clone()]
                        .iter()
                        .rev()
                        .map(|s| self.materialize(s, true))
                        .collect();
                    self.compose(&materialized, Canon::Bits(reps[range.end]))
                })
                .collect(),
        }
    }

    /// Whether a one-level plan exists for the direction: converting back
    /// reads each output's coset of H, which lies in one row only for n ≤ N/4.
    pub(crate) fn dense_supported(&self, conversion: Conversion) -> bool {
        conversion == Conversion::SlotsToCoefficients || 2 * self.n <= self.row
    }

    /// The one-level slots-to-coefficients map: output slot p (point x_p) is
    /// `Σ_i basis_i(x_p)·v_i` for the slot-side vector v, and the `Row`
    /// packing puts v at every rotation below n.
    fn dense_to_coefficients(&self) -> SlotTransform<F> {
        let n = self.n;
        let n_f = F::from(n as u64);
        let points: Vec<F> = (0..self.slots).map(|p| self.point(p)).collect();
        let vanishing: Vec<F> = points
            .iter()
            .map(|x| x.pow([n as u64]) - F::one())
            .collect();
        let mut t = SlotTransform::zero(self.row);
        for rho in 0..n {
            let index = |p: usize| self.index_at(((p % self.row) + rho) % n);
            let diagonal: Vec<F> = match self.form {
                SlotForm::Coefficients => points
                    .iter()
                    .enumerate()
                    .map(|(p, x)| x.pow([index(p) as u64]))
                    .collect(),
                SlotForm::Evaluations => {
                    // L_i(x) = ω^i (x^n − 1) / (n (x − ω^i)).
                    let mut denominators: Vec<F> = points
                        .iter()
                        .enumerate()
                        .map(|(p, x)| n_f * (*x - self.omega(index(p) as i64)))
                        .collect();
                    batch_inversion(&mut denominators);
                    (0..self.slots)
                        .map(|p| self.omega(index(p) as i64) * vanishing[p] * denominators[p])
                        .collect()
                }
            };
            t.add_term(
                Shift {
                    swap: false,
                    rotation: rho,
                },
                &diagonal,
            );
        }
        t
    }

    /// The one-level coefficients-to-slots map (n ≤ N/4): output slot (r, c)
    /// reads the n slots of its own coset of H, (r, c mod R/n + t·R/n), at
    /// the rotations τ·R/n, τ < n, and interpolates.
    fn dense_to_slots(&self) -> SlotTransform<F> {
        let (n, row) = (self.n, self.row);
        let stride = row / n;
        let n_f = F::from(n as u64);
        let n_inv = n_f.inverse().unwrap_or(F::one());
        let mut t = SlotTransform::zero(row);
        for tau in 0..n {
            let source = |p: usize| {
                let (r, c) = (p / row, p % row);
                let t = (tau + c / stride) % n;
                r * row + c % stride + t * stride
            };
            let index = |p: usize| self.index_at((p % row) % n);
            let diagonal: Vec<F> = match self.form {
                // A_i = (1/n) Σ_t s_t z_t^(−i).
                SlotForm::Coefficients => {
                    let mut z: Vec<F> = (0..self.slots)
                        .map(|p| self.point(source(p)).pow([index(p) as u64]))
                        .collect();
                    batch_inversion(&mut z);
                    z.into_iter().map(|v| v * n_inv).collect()
                }
                // a_i = Σ_t s_t ℓ_t(ω^i), ℓ_t(y) = (y^n − Z) z_t / (n Z (y − z_t)), Z = z_t^n.
                SlotForm::Evaluations => {
                    let z: Vec<F> = (0..self.slots).map(|p| self.point(source(p))).collect();
                    let big_z: Vec<F> = z.iter().map(|z| z.pow([n as u64])).collect();
                    let mut denominators: Vec<F> = (0..self.slots)
                        .map(|p| n_f * big_z[p] * (self.omega(index(p) as i64) - z[p]))
                        .collect();
                    batch_inversion(&mut denominators);
                    (0..self.slots)
                        .map(|p| (F::one() - big_z[p]) * z[p] * denominators[p])
                        .collect()
                }
            };
            t.add_term(
                Shift {
                    swap: false,
                    rotation: tau * stride,
                },
                &diagonal,
            );
        }
        t
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

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
    use ark_std::UniformRand;
    use rand::SeedableRng;

    fn random(n: usize, seed: u64) -> Vec<Fr> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..n).map(|_| Fr::rand(&mut rng)).collect()
    }

    /// The coefficients behind a slot-side vector in natural order.
    fn coefficients(form: SlotForm, v: &[Fr]) -> Vec<Fr> {
        match form {
            SlotForm::Coefficients => v.to_vec(),
            SlotForm::Evaluations => Radix2EvaluationDomain::<Fr>::new(v.len()).unwrap().ifft(v),
        }
    }

    /// Every level split of both directions against `SlotLayout`, the plain oracle.
    fn check(slots: usize, n: usize, form: SlotForm, order: Order, levels: &[usize]) {
        let g = Geometry::<Fr>::new(slots, n, form, order).unwrap();
        let layout = SlotLayout::<Fr>::new(slots).unwrap();
        let v = random(n, (slots * 31 + n) as u64);
        let want_slots = layout
            .coefficients_to_slots(&coefficients(form, &v))
            .unwrap();
        let packed = g.pack(&v);
        assert_eq!(g.unpack(&packed), v);
        for &k in levels {
            let what = format!("N={slots} n={n} {form:?} {order:?} levels={k}");
            let mut x = packed.clone();
            for t in g.levels(k, Conversion::SlotsToCoefficients) {
                x = t.apply_plain(&x);
            }
            assert!(x == want_slots, "to coefficients, {what}");
            if k == 1 && !g.dense_supported(Conversion::CoefficientsToSlots) {
                continue;
            }
            let mut y = want_slots.clone();
            for t in g.levels(k, Conversion::CoefficientsToSlots) {
                y = t.apply_plain(&y);
            }
            assert!(y == packed, "to slots, {what}");
        }
    }

    #[test]
    fn every_form_order_and_split_matches_the_slot_layout() {
        for (slots, n) in [(8, 2), (8, 4), (16, 2), (16, 4), (16, 8), (32, 4), (64, 8)] {
            for form in [SlotForm::Evaluations, SlotForm::Coefficients] {
                for order in [Order::Natural, Order::BitReversed] {
                    check(slots, n, form, order, &[1, 2, 3, 4]);
                }
            }
        }
    }

    #[test]
    fn larger_rings_and_full_rows() {
        for (slots, n) in [(128, 64), (256, 32), (256, 128), (512, 16)] {
            for form in [SlotForm::Evaluations, SlotForm::Coefficients] {
                for order in [Order::Natural, Order::BitReversed] {
                    check(slots, n, form, order, &[1, 3, 5]);
                }
            }
        }
    }

    #[test]
    fn merged_levels_stay_sparse() {
        // n = 64 at N = 1024: 2·6 butterflies; three levels.
        let g = Geometry::<Fr>::new(1024, 64, SlotForm::Evaluations, Order::Natural).unwrap();
        for conversion in [
            Conversion::SlotsToCoefficients,
            Conversion::CoefficientsToSlots,
        ] {
            let levels = g.levels(3, conversion);
            let counts: Vec<usize> = levels.iter().map(|t| t.len()).collect();
            assert!(
                counts.iter().all(|&c| c <= 31),
                "{conversion:?}: {counts:?}"
            );
            // The estimate the grouping used bounds the real count.
            let estimates = g.estimate(3, conversion);
            for (c, e) in counts.iter().zip(&estimates) {
                assert!(c <= e, "{conversion:?}: {counts:?} vs {estimates:?}");
            }
        }
        // The dense level has exactly n diagonals.
        assert_eq!(g.levels(1, Conversion::SlotsToCoefficients)[0].len(), 64);
        assert_eq!(g.levels(1, Conversion::CoefficientsToSlots)[0].len(), 64);
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        assert!(Geometry::<Fr>::new(16, 16, SlotForm::Evaluations, Order::Natural).is_none());
        assert!(Geometry::<Fr>::new(16, 1, SlotForm::Evaluations, Order::Natural).is_none());
        assert!(Geometry::<Fr>::new(16, 6, SlotForm::Evaluations, Order::Natural).is_none());
        let full_row = Geometry::<Fr>::new(16, 8, SlotForm::Evaluations, Order::Natural).unwrap();
        assert!(!full_row.dense_supported(Conversion::CoefficientsToSlots));
        assert!(full_row.dense_supported(Conversion::SlotsToCoefficients));
    }
}
