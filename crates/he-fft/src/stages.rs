//! The radix-2 FFT as a product of sparse slot transforms, and the dense DFT matrix.
//!
//! Both follow one convention: `y = M x` with `M[i][i'] = ω^(i·i')` for the
//! forward transform of size n, ω a primitive n-th root of unity.
//! - Decimation in frequency (Gentleman–Sande): natural input, bit-reversed output.
//! - Decimation in time (Cooley–Tukey): bit-reversed input, natural output.
//!
//! Each butterfly stage of span h is `y_i = a_i x_i + b_i x_(i XOR h)`: three
//! diagonals in the slots (shifts 0, +h, -h; or a row swap when h = N/2).

use crate::layout::Packing;
use ark_ff::FftField;
use helib_rs::lintrans::{Shift, SlotTransform};
use rayon::prelude::*;
use std::collections::BTreeSet;

/// The order of a vector's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Entry i at position i.
    Natural,
    /// Entry i at position bitrev(i) (log2 n bits).
    BitReversed,
}

/// `bitrev(i)` on `bits` bits.
pub fn bit_reverse(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}

/// Reorders `x` (length a power of two) by bit reversal (an involution).
pub fn bit_reverse_permute<T: Copy>(x: &[T]) -> Vec<T> {
    let bits = x.len().trailing_zeros();
    (0..x.len()).map(|i| x[bit_reverse(i, bits)]).collect()
}

/// The `Split` layout of the forward output (the inverse's input): entry
/// `c + C·bitrev(q)` of `values` to ciphertext c, slot q, for C = `groups`.
pub(crate) fn strided_bit_reversed<F: Copy>(values: &[F], groups: usize) -> Vec<Vec<F>> {
    let per = values.len() / groups;
    let bits = per.trailing_zeros();
    (0..groups)
        .map(|c| {
            (0..per)
                .map(|q| values[c + groups * bit_reverse(q, bits)])
                .collect()
        })
        .collect()
}

/// Inverse of [`strided_bit_reversed`].
pub(crate) fn unstride_bit_reversed<F: Copy + Default>(slots: &[Vec<F>], groups: usize) -> Vec<F> {
    let per = slots[0].len();
    let bits = per.trailing_zeros();
    let mut out = vec![F::default(); groups * per];
    for (c, s) in slots.iter().enumerate() {
        for (q, v) in s.iter().enumerate() {
            out[c + groups * bit_reverse(q, bits)] = *v;
        }
    }
    out
}

/// One butterfly stage `y_i = a_i x_i + b_i x_(i XOR h)` as a slot transform.
fn butterfly_stage<F: FftField>(
    packing: Packing,
    h: usize,
    coefficients: impl Fn(usize) -> (F, F),
) -> SlotTransform<F> {
    let slots = 2 * packing.row();
    let identity = Shift {
        swap: false,
        rotation: 0,
    };
    let mut own = vec![F::zero(); slots];
    let mut partner_terms: std::collections::BTreeMap<Shift, Vec<F>> = Default::default();
    for (p, own_p) in own.iter_mut().enumerate() {
        let i = packing.index_of(p);
        let (a, b) = coefficients(i);
        *own_p = a;
        let shift = packing.shift_between(p, i ^ h);
        partner_terms
            .entry(shift)
            .or_insert_with(|| vec![F::zero(); slots])[p] = b;
    }
    let mut t = SlotTransform::zero(packing.row());
    t.add_term(identity, &own);
    for (shift, values) in partner_terms {
        t.add_term(shift, &values);
    }
    t
}

/// The stages of a size-n FFT with root `omega` (forward: ω; inverse: ω^-1,
/// without the 1/n factor), in the order they are applied.
pub fn radix2_stages<F: FftField>(
    packing: Packing,
    omega: F,
    input_order: Order,
) -> Vec<SlotTransform<F>> {
    let n = packing.len();
    let powers: Vec<F> = std::iter::successors(Some(F::one()), |w| Some(*w * omega))
        .take(n)
        .collect();
    let spans = stage_spans(n, input_order);
    // The stages are independent: made in parallel on the pool in use.
    spans
        .into_par_iter()
        .map(|h| {
            let stride = n / (2 * h);
            match input_order {
                // DIF: spans n/2, ..., 1; the twiddle follows the subtraction.
                Order::Natural => butterfly_stage(packing, h, |i| {
                    if i & h == 0 {
                        (F::one(), F::one())
                    } else {
                        let w = powers[stride * (i % (2 * h) - h)];
                        (-w, w)
                    }
                }),
                // DIT: spans 1, ..., n/2; the twiddle precedes the addition.
                Order::BitReversed => butterfly_stage(packing, h, |i| {
                    if i & h == 0 {
                        (F::one(), powers[stride * (i % (2 * h))])
                    } else {
                        (-powers[stride * (i % (2 * h) - h)], F::one())
                    }
                }),
            }
        })
        .collect()
}

/// The butterfly spans of a size-n FFT in the order its stages apply them:
/// n/2, ..., 1 from natural input (DIF), 1, ..., n/2 from bit-reversed (DIT).
fn stage_spans(n: usize, input_order: Order) -> Vec<usize> {
    let spans = std::iter::successors(Some(1usize), |h| Some(2 * h)).take_while(|&h| h < n);
    match input_order {
        Order::Natural => spans.collect::<Vec<_>>().into_iter().rev().collect(),
        Order::BitReversed => spans.collect(),
    }
}

/// Groups consecutive stages into `levels` products of nearly equal length.
pub fn group_stages<F: FftField>(
    stages: &[SlotTransform<F>],
    levels: usize,
) -> Vec<SlotTransform<F>> {
    group_stages_in(stages, &group_bounds(stages.len(), levels))
}

/// The products of the stages in each of `ranges` (consecutive, nonempty),
/// made in parallel on the rayon pool in use.
pub(crate) fn group_stages_in<F: FftField>(
    stages: &[SlotTransform<F>],
    ranges: &[std::ops::Range<usize>],
) -> Vec<SlotTransform<F>> {
    ranges
        .par_iter()
        .map(|range| compose_stages(&stages[range.clone()]))
        .collect()
}

/// The product of consecutive stages (the first applied first).
pub(crate) fn compose_stages<F: FftField>(stages: &[SlotTransform<F>]) -> SlotTransform<F> {
    let mut product = stages[0].clone();
    for stage in &stages[1..] {
        product = stage.after(&product);
    }
    product
}

/// [`group_bounds`] with the shorter runs last instead of first (for the
/// inverse four-step plan, whose last group is made once per ciphertext).
pub(crate) fn group_bounds_short_last(stages: usize, levels: usize) -> Vec<std::ops::Range<usize>> {
    group_bounds(stages, levels)
        .into_iter()
        .rev()
        .map(|r| stages - r.end..stages - r.start)
        .collect()
}

/// Which consecutive stages (of `stages` in all) each of `levels` groups
/// takes: nearly equal runs, at most one group per stage, none empty.
pub(crate) fn group_bounds(stages: usize, levels: usize) -> Vec<std::ops::Range<usize>> {
    let levels = levels.clamp(1, stages.max(1));
    let mut out = Vec::with_capacity(levels);
    let mut start = 0;
    for level in 0..levels {
        let end = start + (stages - start) / (levels - level);
        out.push(start..end);
        start = end;
    }
    out
}

/// The shifts (nonzero diagonals) a slot transform has, without its values:
/// what memory estimates and schedules need before anything is encoded.
pub type Shape = BTreeSet<Shift>;

/// The shape of [`butterfly_stage`] for span `h`: the identity and the shift
/// bringing each slot's partner `i XOR h` to it.
fn butterfly_shape(packing: Packing, h: usize) -> Shape {
    let mut shape = shape_of_shifts(
        packing
            .index_slots()
            .map(|p| packing.shift_between(p, packing.index_of(p) ^ h)),
    );
    shape.insert(Shift {
        swap: false,
        rotation: 0,
    });
    shape
}

/// The set of `shifts`, each run of equal consecutive shifts inserted once
/// (neighbouring slots mostly need the same shift).
fn shape_of_shifts(shifts: impl Iterator<Item = Shift>) -> Shape {
    let mut shape = Shape::new();
    let mut last = None;
    for shift in shifts {
        if last != Some(shift) {
            shape.insert(shift);
            last = Some(shift);
        }
    }
    shape
}

/// The shapes of [`radix2_stages`], in the same order.
pub fn radix2_shapes(packing: Packing, input_order: Order) -> Vec<Shape> {
    stage_spans(packing.len(), input_order)
        .into_iter()
        .map(|h| butterfly_shape(packing, h))
        .collect()
}

/// The shape of `outer ∘ inner`: every sum of a shift of each (rotations
/// add, swaps cancel in pairs). It contains the composite's shifts; it could
/// only be larger if some diagonal cancelled to zero.
pub fn compose_shapes(outer: &Shape, inner: &Shape, row: usize) -> Shape {
    let mut out = Shape::new();
    for o in outer {
        for i in inner {
            out.insert(Shift {
                swap: o.swap ^ i.swap,
                rotation: (o.rotation + i.rotation) % row,
            });
        }
    }
    out
}

/// The period of the diagonals of each product of stages in `ranges` of a
/// size-n FFT in `packing` (stages in the order `input_order` applies
/// them), without scalings: a stage of span h has coefficients that depend
/// on i mod 2h alone, so a product's diagonals repeat with period 2·(its
/// widest span) in the vector index, which is their period along each slot
/// row when it is below the row (for [`Packing::Row`] it divides n, the
/// period of the packing itself). A period of N/2 or more means rows that do
/// not repeat; see [`helib_rs::EncodedPlaintext::words_per_prime`].
pub(crate) fn group_periods(
    packing: Packing,
    input_order: Order,
    ranges: &[std::ops::Range<usize>],
) -> Vec<usize> {
    let spans = stage_spans(packing.len(), input_order);
    ranges
        .iter()
        .map(|range| 2 * spans[range.clone()].iter().max().copied().unwrap_or(1))
        .collect()
}

/// The shapes of [`group_stages_in`] (and of [`group_stages`] with
/// [`group_bounds`]) for stage shapes `stages`.
pub(crate) fn group_shapes_in(
    stages: &[Shape],
    ranges: &[std::ops::Range<usize>],
    row: usize,
) -> Vec<Shape> {
    ranges
        .iter()
        .map(|range| {
            stages[range.start + 1..range.end]
                .iter()
                .fold(stages[range.start].clone(), |product, stage| {
                    compose_shapes(stage, &product, row)
                })
        })
        .collect()
}

/// The shape of [`bit_reversal`].
pub fn bit_reversal_shape(packing: Packing) -> Shape {
    let bits = packing.len().trailing_zeros();
    shape_of_shifts(
        packing
            .index_slots()
            .map(|p| packing.shift_between(p, bit_reverse(packing.index_of(p), bits))),
    )
}

/// The permutation `y_i = x_(bitrev(i))` as a slot transform (up to n diagonals).
pub fn bit_reversal<F: FftField>(packing: Packing) -> SlotTransform<F> {
    let n = packing.len();
    let bits = n.trailing_zeros();
    let slots = 2 * packing.row();
    let mut terms: std::collections::BTreeMap<Shift, Vec<F>> = Default::default();
    for p in 0..slots {
        let i = packing.index_of(p);
        let shift = packing.shift_between(p, bit_reverse(i, bits));
        terms.entry(shift).or_insert_with(|| vec![F::zero(); slots])[p] = F::one();
    }
    let mut t = SlotTransform::zero(packing.row());
    for (shift, values) in terms {
        t.add_term(shift, &values);
    }
    t
}

/// The shifts of a dense n×n matrix in `packing`: every rotation of the
/// vector, plus the swapped ones for a two-row packing.
pub fn dense_shape(packing: Packing) -> Shape {
    match packing {
        Packing::Row { n, .. } => (0..n)
            .map(|rotation| Shift {
                swap: false,
                rotation,
            })
            .collect(),
        Packing::Full { row } => [false, true]
            .into_iter()
            .flat_map(|swap| (0..row).map(move |rotation| Shift { swap, rotation }))
            .collect(),
    }
}

/// The diagonals of a dense n×n matrix `M[i][i'] = entry(i, i')`, produced
/// one at a time (a dense FFT has n of them, each as long as the slots).
pub struct DenseDiagonals<'a, F> {
    packing: Packing,
    entry: Box<dyn Fn(usize, usize) -> F + Send + Sync + 'a>,
}

impl<'a, F: FftField> DenseDiagonals<'a, F> {
    /// A dense matrix given entry-wise.
    pub fn new(packing: Packing, entry: impl Fn(usize, usize) -> F + Send + Sync + 'a) -> Self {
        Self {
            packing,
            entry: Box::new(entry),
        }
    }

    /// The shifts with (possibly) nonzero diagonals: [`dense_shape`].
    pub fn shifts(&self) -> Vec<Shift> {
        dense_shape(self.packing).into_iter().collect()
    }

    /// The diagonal for `shift`: slot p gets `M[i][source]` where the shift
    /// brings `source` to slot p.
    pub fn diagonal(&self, shift: Shift) -> Vec<F> {
        let row = self.packing.row();
        (0..2 * row)
            .map(|p| {
                let i = self.packing.index_of(p);
                let r = p / row;
                let source_row = if shift.swap { 1 - r } else { r };
                let source = self
                    .packing
                    .index_of(source_row * row + (p % row + shift.rotation) % row);
                (self.entry)(i, source)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::Field;
    use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
    use ark_std::{test_rng, UniformRand};

    fn check_fft(n: usize, row: usize) {
        let packing = Packing::for_length(n, row).unwrap();
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let mut rng = test_rng();
        let x: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let want = domain.fft(&x);
        // DIF: natural -> bit-reversed.
        let mut slots = packing.pack(&x);
        for stage in radix2_stages(packing, domain.group_gen, Order::Natural) {
            slots = stage.apply_plain(&slots);
        }
        assert_eq!(
            bit_reverse_permute(&packing.unpack(&slots)),
            want,
            "DIF n={n}"
        );
        // DIT: bit-reversed -> natural, grouped into 2 levels.
        let stages = radix2_stages(packing, domain.group_gen, Order::BitReversed);
        let mut slots = packing.pack(&bit_reverse_permute(&x));
        for level in group_stages(&stages, 2) {
            slots = level.apply_plain(&slots);
        }
        assert_eq!(packing.unpack(&slots), want, "DIT n={n}");
        // The permutation and the dense matrix.
        let perm = bit_reversal::<Fr>(packing);
        assert_eq!(
            packing.unpack(&perm.apply_plain(&packing.pack(&x))),
            bit_reverse_permute(&x)
        );
        let omega = domain.group_gen;
        let dense = DenseDiagonals::new(packing, move |i, j| omega.pow([(i * j) as u64]));
        let mut dense_map = SlotTransform::zero(row);
        for shift in dense.shifts() {
            dense_map.add_term(shift, &dense.diagonal(shift));
        }
        assert_eq!(
            packing.unpack(&dense_map.apply_plain(&packing.pack(&x))),
            want,
            "dense n={n}"
        );
    }

    #[test]
    fn stages_compute_the_fft_in_every_packing() {
        for (n, row) in [(2, 8), (8, 8), (4, 16), (16, 8), (32, 16)] {
            check_fft(n, row);
        }
    }

    fn shape_of(t: &SlotTransform<Fr>) -> Shape {
        t.diagonals().keys().copied().collect()
    }

    /// The value-free shapes name exactly the diagonals the transforms get.
    #[test]
    fn shapes_match_the_transforms() {
        for (n, row) in [
            (2, 8),
            (8, 8),
            (4, 16),
            (16, 8),
            (32, 16),
            (64, 64),
            (128, 64),
        ] {
            let packing = Packing::for_length(n, row).unwrap();
            let omega = Radix2EvaluationDomain::<Fr>::new(n).unwrap().group_gen;
            for order in [Order::Natural, Order::BitReversed] {
                let stages = radix2_stages(packing, omega, order);
                let shapes = radix2_shapes(packing, order);
                assert_eq!(
                    stages.iter().map(shape_of).collect::<Vec<_>>(),
                    shapes,
                    "n={n} row={row} {order:?}"
                );
                for levels in 1..=5 {
                    assert_eq!(
                        group_stages(&stages, levels)
                            .iter()
                            .map(shape_of)
                            .collect::<Vec<_>>(),
                        group_shapes_in(&shapes, &group_bounds(shapes.len(), levels), row),
                        "n={n} row={row} {order:?} levels={levels}"
                    );
                }
            }
            assert_eq!(
                shape_of(&bit_reversal::<Fr>(packing)),
                bit_reversal_shape(packing)
            );
        }
    }

    #[test]
    fn merged_stages_have_few_diagonals() {
        let packing = Packing::for_length(64, 64).unwrap();
        let omega = Radix2EvaluationDomain::<Fr>::new(64).unwrap().group_gen;
        let stages = radix2_stages(packing, omega, Order::Natural);
        let levels = group_stages(&stages, 2);
        // 3 stages merged: at most 2^4 - 1 diagonals.
        assert!(
            levels.iter().all(|l| l.len() <= 15),
            "{:?}",
            levels.iter().map(|l| l.len()).collect::<Vec<_>>()
        );
    }
}
