//! Which rank holds which blocks and which slot columns.

use std::ops::Range;

use crate::error::{Error, Result};

/// How items are shared by `ranks` ranks: contiguous runs, as even as the
/// count allows (rank r holds items ⌊r·c/R⌋ .. ⌊(r+1)·c/R⌋).
///
/// Blocks of a polynomial are shared this way, and so are the N slot
/// columns, in groups of 8 (the engine's vector width), for the transpose.
///
/// ```
/// use he_mpi::Partition;
///
/// let p = Partition::new(3)?;
/// assert_eq!(p.range(10, 0), 0..3);
/// assert_eq!(p.range(10, 2), 6..10);
/// assert_eq!(p.owner(10, 5), 1);
/// assert_eq!(p.columns(4096, 1), 1360..2728);
/// # Ok::<(), he_mpi::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    ranks: usize,
}

/// Slot columns go to ranks in groups of this many.
pub const COLUMN_GROUP: usize = 8;

impl Partition {
    /// The partition among `ranks` ranks.
    ///
    /// # Errors
    /// [`Error::RankCount`] for 0 ranks.
    pub fn new(ranks: usize) -> Result<Self> {
        if ranks == 0 {
            return Err(Error::RankCount {
                ranks,
                reason: "at least one rank is needed".into(),
            });
        }
        Ok(Self { ranks })
    }

    /// The number of ranks.
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// The items of `count` that `rank` holds.
    pub fn range(&self, count: usize, rank: usize) -> Range<usize> {
        let at = |r: usize| (r as u128 * count as u128 / self.ranks as u128) as usize;
        at(rank)..at(rank + 1)
    }

    /// The rank holding item `index` of `count`.
    pub fn owner(&self, count: usize, index: usize) -> usize {
        // The last rank r with start(r) <= index.
        let mut rank = (index as u128 * self.ranks as u128 / count.max(1) as u128) as usize;
        rank = rank.min(self.ranks - 1);
        while rank + 1 < self.ranks && self.range(count, rank + 1).start <= index {
            rank += 1;
        }
        while rank > 0 && self.range(count, rank).start > index {
            rank -= 1;
        }
        rank
    }

    /// The slot columns of a ring of degree `ring_degree` that `rank` holds
    /// during a product.
    pub fn columns(&self, ring_degree: usize, rank: usize) -> Range<usize> {
        let groups = self.range(ring_degree / COLUMN_GROUP, rank);
        groups.start * COLUMN_GROUP..groups.end * COLUMN_GROUP
    }

    /// Checks that every rank holds at least one of `count` blocks of
    /// `what`, and a column group of a ring of degree `ring_degree`.
    ///
    /// # Errors
    /// [`Error::RankCount`] naming the shortfall.
    pub fn ensure_usable(&self, count: usize, ring_degree: usize, what: &str) -> Result<()> {
        if count < self.ranks {
            return Err(Error::RankCount {
                ranks: self.ranks,
                reason: format!(
                    "{what} has {count} blocks, fewer than the ranks (each rank holds at least one)"
                ),
            });
        }
        if ring_degree / COLUMN_GROUP < self.ranks {
            return Err(Error::RankCount {
                ranks: self.ranks,
                reason: format!(
                    "a ring of degree {ring_degree} has {} column groups of {COLUMN_GROUP}",
                    ring_degree / COLUMN_GROUP
                ),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_everything_once_and_owners_agree() {
        for ranks in 1..=9 {
            let p = Partition::new(ranks).unwrap();
            for count in [ranks, ranks + 1, 17, 64, 127] {
                let mut next = 0;
                for rank in 0..ranks {
                    let range = p.range(count, rank);
                    assert_eq!(range.start, next);
                    assert!(!range.is_empty(), "{count} over {ranks}");
                    for index in range.clone() {
                        assert_eq!(p.owner(count, index), rank);
                    }
                    next = range.end;
                }
                assert_eq!(next, count);
            }
            let columns: usize = (0..ranks).map(|r| p.columns(4096, r).len()).sum();
            assert_eq!(columns, 4096);
        }
        assert!(Partition::new(0).is_err());
        let p = Partition::new(4).unwrap();
        assert!(p.ensure_usable(3, 4096, "a").is_err());
        assert!(p.ensure_usable(4, 16, "a").is_err());
        assert!(p.ensure_usable(4, 4096, "a").is_ok());
    }
}
