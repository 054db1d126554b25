//! Linear maps on the slot vector as data: diagonals keyed by the shift
//! (row swap and rotation) of the input they multiply, and the slot model
//! that evaluates them on plain values.

use ark_ff::Field;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Which generalized diagonal: input swapped or not, and the left rotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shift {
    /// The input's rows are exchanged first.
    pub swap: bool,
    /// Left rotation of both rows, in `0..R`.
    pub rotation: usize,
}

/// `y = Σ_shift diagonal[shift] ⊙ shift(x)` on slot vectors of length `2 * row`.
///
/// The diagonals live in any field whose elements the slots hold (the
/// plaintext field of a [`BatchEncoder`](crate::BatchEncoder)); only nonzero
/// diagonals are stored.
///
/// ```
/// use ark_bn254::Fr;
/// use helib_rs::lintrans::{Shift, SlotTransform};
///
/// // Rows of length 4: y = 2·x + rot_1(x), where rot_1 moves slot j + 1 to j.
/// let mut t = SlotTransform::<Fr>::diagonal(vec![Fr::from(2u64); 8]);
/// t.add_term(Shift { swap: false, rotation: 1 }, &[Fr::from(1u64); 8]);
/// let x: Vec<Fr> = (0..8u64).map(Fr::from).collect();
/// let y = t.apply_plain(&x);
/// assert_eq!(y[0], Fr::from(1u64)); // 2·0 + 1
/// assert_eq!(y[3], Fr::from(6u64)); // 2·3 + x[0], row 0 wraps around
/// assert_eq!(y[4], Fr::from(13u64)); // 2·4 + 5, row 1 rotates on its own
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotTransform<F> {
    row: usize,
    diagonals: BTreeMap<Shift, Vec<F>>,
}

impl<F: Field> SlotTransform<F> {
    /// The zero map on rows of length `row`.
    pub fn zero(row: usize) -> Self {
        Self {
            row,
            diagonals: BTreeMap::new(),
        }
    }

    /// The map `x ↦ v ⊙ x`.
    pub fn diagonal(values: Vec<F>) -> Self {
        let row = values.len() / 2;
        let mut t = Self::zero(row);
        t.add_term(
            Shift {
                swap: false,
                rotation: 0,
            },
            &values,
        );
        t
    }

    /// Length of one row (R = N/2).
    pub fn row(&self) -> usize {
        self.row
    }

    /// The nonzero diagonals.
    pub fn diagonals(&self) -> &BTreeMap<Shift, Vec<F>> {
        &self.diagonals
    }

    /// The period with which all its diagonals repeat along each slot row:
    /// the smallest power of two P < R that serves every diagonal, or R
    /// (the row length) when some diagonal's rows do not repeat. Diagonals
    /// with P < R have compact encodings
    /// ([`EncodedPlaintext::stride`](crate::EncodedPlaintext::stride)), also
    /// after the rotations a schedule applies to them.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::lintrans::SlotTransform;
    ///
    /// let t = SlotTransform::diagonal((0..16u64).map(|i| Fr::from(i % 4)).collect());
    /// assert_eq!(t.period(), 4);
    /// let u = SlotTransform::diagonal((0..16u64).map(Fr::from).collect());
    /// assert_eq!(u.period(), 8);
    /// ```
    pub fn period(&self) -> usize {
        self.diagonals
            .values()
            .map(|d| crate::encoding::row_period(d, self.row))
            .max()
            .unwrap_or(2)
    }

    /// Number of nonzero diagonals (plaintext multiplications to evaluate it).
    pub fn len(&self) -> usize {
        self.diagonals.len()
    }

    /// Whether the map is zero.
    pub fn is_empty(&self) -> bool {
        self.diagonals.is_empty()
    }

    /// Adds `values ⊙ shift(x)` to the map (dropping diagonals that become zero).
    pub fn add_term(&mut self, shift: Shift, values: &[F]) {
        debug_assert_eq!(values.len(), 2 * self.row);
        let entry = self
            .diagonals
            .entry(shift)
            .or_insert_with(|| vec![F::zero(); 2 * self.row]);
        for (d, v) in entry.iter_mut().zip(values) {
            *d += v;
        }
        if entry.iter().all(|d| d.is_zero()) {
            self.diagonals.remove(&shift);
        }
    }

    /// Applies `shift` to a slot vector: entry `(r, j)` of the result is entry
    /// `(r XOR swap, j + rotation mod R)` of `x`.
    pub fn shift_vector(row: usize, x: &[F], shift: Shift) -> Vec<F> {
        let mut out = Vec::with_capacity(2 * row);
        for r in 0..2 {
            let source_row = if shift.swap { 1 - r } else { r };
            for j in 0..row {
                out.push(x[source_row * row + (j + shift.rotation) % row]);
            }
        }
        out
    }

    /// Evaluates the map on a plain slot vector: the slot model that an
    /// encrypted evaluation ([`EncodedTransform::apply`](super::EncodedTransform::apply))
    /// must match after decryption.
    pub fn apply_plain(&self, x: &[F]) -> Vec<F> {
        let mut y = vec![F::zero(); 2 * self.row];
        for (shift, diagonal) in &self.diagonals {
            let shifted = Self::shift_vector(self.row, x, *shift);
            for ((out, d), s) in y.iter_mut().zip(diagonal).zip(&shifted) {
                *out += *d * s;
            }
        }
        y
    }

    /// `self ∘ first`: the map applying `first`, then `self`.
    ///
    /// `outer(D ⊙ inner(x)) = outer(D) ⊙ (outer ∘ inner)(x)`: shifts compose
    /// additively. The pairs are sorted by the shift they make and each
    /// resulting diagonal is summed on its own, in parallel on the rayon
    /// pool in use, with no intermediate products held. When every diagonal
    /// of both repeats with a period P < R along the rows
    /// ([`period`](Self::period)), so does every product (a shifted
    /// diagonal keeps its period): each is computed on the first P slots of
    /// each row and repeated.
    pub fn after(&self, first: &SlotTransform<F>) -> SlotTransform<F> {
        let row = self.row;
        let period = self.period().max(first.period()).min(row);
        // Each diagonal's first `period` slots of each row (none needed
        // when the period is the row).
        let compact = |t: &SlotTransform<F>| -> BTreeMap<Shift, Vec<F>> {
            if period == row {
                return BTreeMap::new();
            }
            t.diagonals
                .iter()
                .map(|(s, d)| (*s, [&d[..period], &d[row..row + period]].concat()))
                .collect()
        };
        let (outer_compact, inner_compact) = (compact(self), compact(first));
        let mut pairs: BTreeMap<Shift, Vec<Pair<'_, F>>> = BTreeMap::new();
        for (outer, d_outer) in &self.diagonals {
            let d_outer = outer_compact.get(outer).map_or(&d_outer[..], Vec::as_slice);
            for (inner, d_inner) in &first.diagonals {
                let d_inner = inner_compact.get(inner).map_or(&d_inner[..], Vec::as_slice);
                let shift = Shift {
                    swap: outer.swap ^ inner.swap,
                    rotation: (outer.rotation + inner.rotation) % row,
                };
                pairs
                    .entry(shift)
                    .or_default()
                    .push((*outer, d_outer, d_inner));
            }
        }
        let diagonals: Vec<(Shift, Vec<F>)> = pairs
            .into_par_iter()
            .map(|(shift, terms)| {
                let mut sum = vec![F::zero(); 2 * period];
                for (outer, d_outer, d_inner) in terms {
                    // A rotation by k acts on period-P rows as one by k mod P.
                    let outer = Shift {
                        swap: outer.swap,
                        rotation: outer.rotation % period,
                    };
                    add_product_shifted(&mut sum, d_outer, d_inner, outer, period);
                }
                (shift, sum)
            })
            .filter(|(_, sum)| !sum.iter().all(|d| d.is_zero()))
            .map(|(shift, sum)| {
                if period == row {
                    return (shift, sum);
                }
                let repeated = (0..2 * row)
                    .map(|p| sum[(p / row) * period + p % row % period])
                    .collect();
                (shift, repeated)
            })
            .collect();
        SlotTransform {
            row,
            diagonals: diagonals.into_iter().collect(),
        }
    }

    /// `self ∘ diag(v)`: scales the input slot-wise first.
    pub fn after_scaling(&self, v: &[F]) -> SlotTransform<F> {
        self.after(&SlotTransform::diagonal(v.to_vec()))
    }

    /// `diag(v) ∘ self`: scales the output slot-wise.
    pub fn then_scaling(&self, v: &[F]) -> SlotTransform<F> {
        SlotTransform::diagonal(v.to_vec()).after(self)
    }

    /// The rotations (as signed steps in `(-R/2, R/2]`) and whether a swap is used.
    pub fn signed_rotations(&self) -> Vec<i64> {
        let mut steps: Vec<i64> = self
            .diagonals
            .keys()
            .map(|s| signed(s.rotation, self.row))
            .collect();
        steps.sort_unstable();
        steps.dedup();
        steps
    }
}

/// One term of a composition: the outer shift and the outer and inner diagonals.
type Pair<'a, F> = (Shift, &'a [F], &'a [F]);

/// `sum += a ⊙ shift(b)` for slot vectors of rows of length `row`.
fn add_product_shifted<F: Field>(sum: &mut [F], a: &[F], b: &[F], shift: Shift, row: usize) {
    let k = shift.rotation % row;
    for r in 0..2 {
        let source = if shift.swap { 1 - r } else { r };
        let out = &mut sum[r * row..(r + 1) * row];
        let a = &a[r * row..(r + 1) * row];
        let b = &b[source * row..(source + 1) * row];
        // Entry j takes b[j + k] for j < row − k, then b[j + k − row].
        let (head_out, tail_out) = out.split_at_mut(row - k);
        let (head_a, tail_a) = a.split_at(row - k);
        add_products(head_out, head_a, &b[k..]);
        add_products(tail_out, tail_a, &b[..k]);
    }
}

/// `out += a ⊙ b`, skipping the products by 0 and 1 (the same sums): the
/// diagonals of FFT stages are mostly zeros and ones (a butterfly's shifted
/// diagonals are zero on half the slots, its identity diagonal is one on
/// the other half), and a field product costs far more than the test.
fn add_products<F: Field>(out: &mut [F], a: &[F], b: &[F]) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        if x.is_zero() {
            continue;
        }
        if x.is_one() {
            *o += y;
        } else {
            *o += *x * y;
        }
    }
}

/// `k` in `0..row` as a signed step in `(-row/2, row/2]`.
pub(crate) fn signed(k: usize, row: usize) -> i64 {
    let k = (k % row) as i64;
    let row = row as i64;
    if k > row / 2 {
        k - row
    } else {
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_std::{test_rng, UniformRand};

    fn random_vector(n: usize) -> Vec<Fr> {
        let mut rng = test_rng();
        (0..n).map(|_| Fr::rand(&mut rng)).collect()
    }

    fn random_transform(row: usize, terms: usize, seed: u64) -> SlotTransform<Fr> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut t = SlotTransform::zero(row);
        for _ in 0..terms {
            let shift = Shift {
                swap: rng.gen(),
                rotation: rng.gen_range(0..row),
            };
            let values: Vec<Fr> = (0..2 * row).map(|_| Fr::from(rng.gen::<u64>())).collect();
            t.add_term(shift, &values);
        }
        t
    }

    #[test]
    fn composition_matches_applying_in_sequence() {
        let row = 16;
        let a = random_transform(row, 5, 1);
        let b = random_transform(row, 4, 2);
        let x = random_vector(2 * row);
        assert_eq!(
            b.after(&a).apply_plain(&x),
            b.apply_plain(&a.apply_plain(&x))
        );
    }

    #[test]
    fn shifts_rotate_left_and_swap_rows() {
        let row = 4;
        let x: Vec<Fr> = (0..8u64).map(Fr::from).collect();
        let y = SlotTransform::shift_vector(
            row,
            &x,
            Shift {
                swap: true,
                rotation: 1,
            },
        );
        let want: Vec<Fr> = [5u64, 6, 7, 4, 1, 2, 3, 0]
            .into_iter()
            .map(Fr::from)
            .collect();
        assert_eq!(y, want);
    }

    #[test]
    fn scalings_fold_into_the_map() {
        let row = 8;
        let t = random_transform(row, 3, 3);
        let v = random_vector(2 * row);
        let x = random_vector(2 * row);
        let vx: Vec<Fr> = v.iter().zip(&x).map(|(a, b)| *a * b).collect();
        assert_eq!(t.after_scaling(&v).apply_plain(&x), t.apply_plain(&vx));
        let tx = t.apply_plain(&x);
        let want: Vec<Fr> = v.iter().zip(&tx).map(|(a, b)| *a * b).collect();
        assert_eq!(t.then_scaling(&v).apply_plain(&x), want);
    }

    #[test]
    fn signed_steps_are_centred() {
        assert_eq!(signed(0, 16), 0);
        assert_eq!(signed(8, 16), 8);
        assert_eq!(signed(9, 16), -7);
        assert_eq!(signed(15, 16), -1);
    }
}
