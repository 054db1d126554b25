//! Where the entries of a length-n vector live in the slots of one or more ciphertexts.
//!
//! - `Row` (n ≤ N/2): the vector repeats along each row (period n) and both
//!   rows hold the same copy, so a row rotation by k rotates the vector by k mod n.
//! - `Full` (n = N): entries `0..N/2` in row 0, `N/2..N` in row 1.
//! - `Split` (n = C·N, C ≥ 2): C ciphertexts, each `Full`; which entry sits
//!   where depends on the transform (see [`crate::FftPlan`]).

/// How one ciphertext's slots hold a length-`n` vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// n ≤ R: replicated along both rows with period n.
    Row {
        /// Vector length.
        n: usize,
        /// Row length R = N/2.
        row: usize,
    },
    /// n = N = 2R: row 0 then row 1.
    Full {
        /// Row length R = N/2.
        row: usize,
    },
}

impl Packing {
    /// The packing of a length-`n` vector in one ciphertext with rows of length `row`.
    pub fn for_length(n: usize, row: usize) -> Option<Self> {
        if n <= row {
            Some(Packing::Row { n, row })
        } else if n == 2 * row {
            Some(Packing::Full { row })
        } else {
            None
        }
    }

    /// Vector length.
    pub fn len(&self) -> usize {
        match *self {
            Packing::Row { n, .. } => n,
            Packing::Full { row } => 2 * row,
        }
    }

    /// Whether the vector is empty (never, for valid packings).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row length R.
    pub fn row(&self) -> usize {
        match *self {
            Packing::Row { row, .. } | Packing::Full { row } => row,
        }
    }

    /// The vector index held by slot `p` (0..N).
    pub fn index_of(&self, p: usize) -> usize {
        match *self {
            Packing::Row { n, row } => (p % row) % n,
            Packing::Full { .. } => p,
        }
    }

    /// Slots that hold every vector index: the first n for a row packing
    /// (slot p < n holds index p), every slot for the full one. A shift to a
    /// slot of a row packing depends only on the index the slot holds
    /// ([`shift_between`](Self::shift_between)), so these slots give every
    /// shift a permutation of indices needs.
    pub(crate) fn index_slots(&self) -> std::ops::Range<usize> {
        0..self.len()
    }

    /// The slot vector (length N) holding `x` (length n).
    pub fn pack<T: Copy>(&self, x: &[T]) -> Vec<T> {
        (0..2 * self.row()).map(|p| x[self.index_of(p)]).collect()
    }

    /// The vector (length n) held by a slot vector: index i is read from slot i.
    pub fn unpack<T: Copy>(&self, slots: &[T]) -> Vec<T> {
        slots[..self.len()].to_vec()
    }

    /// The shift bringing vector index `source` to a slot holding index `target`:
    /// (swap, left rotation in `0..R`).
    pub fn shift_between(&self, target_slot: usize, source: usize) -> helib_rs::lintrans::Shift {
        match *self {
            Packing::Row { n, row } => {
                // The data repeats with period n, so any rotation congruent to
                // source - target mod n works: take the one closest to zero
                // (as a rotation mod R) to keep the set of rotations compact.
                let target = self.index_of(target_slot);
                let delta = (source + n - target) % n;
                let rotation = if delta > n / 2 {
                    row - (n - delta)
                } else {
                    delta
                };
                helib_rs::lintrans::Shift {
                    swap: false,
                    rotation,
                }
            }
            Packing::Full { row } => {
                let (r, j) = (target_slot / row, target_slot % row);
                let (r2, j2) = (source / row, source % row);
                helib_rs::lintrans::Shift {
                    swap: r != r2,
                    rotation: (j2 + row - j) % row,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_packing_replicates_with_period_n() {
        let p = Packing::for_length(4, 8).unwrap();
        let slots = p.pack(&[10, 11, 12, 13]);
        assert_eq!(
            slots,
            [10, 11, 12, 13, 10, 11, 12, 13, 10, 11, 12, 13, 10, 11, 12, 13]
        );
        assert_eq!(p.unpack(&slots), [10, 11, 12, 13]);
    }

    #[test]
    fn shifts_bring_the_source_to_the_target() {
        for packing in [
            Packing::for_length(8, 16).unwrap(),
            Packing::for_length(32, 16).unwrap(),
        ] {
            let x: Vec<usize> = (0..packing.len()).collect();
            let slots = packing.pack(&x);
            for target_slot in 0..32 {
                for source in 0..packing.len() {
                    let shift = packing.shift_between(target_slot, source);
                    let row = packing.row();
                    let r = target_slot / row;
                    let source_row = if shift.swap { 1 - r } else { r };
                    let slot = source_row * row + (target_slot % row + shift.rotation) % row;
                    assert_eq!(slots[slot], source);
                }
            }
        }
    }
}
