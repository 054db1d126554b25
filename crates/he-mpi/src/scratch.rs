//! Word buffers a cluster keeps between distributed computations, and the
//! regions an exchange's payloads are staged in.

use std::cell::RefCell;
use std::ops::Range;

/// Buffers of words lent to one distributed computation at a time and kept
/// between computations. A product's exchanges stage tens of MB a prime;
/// buffers allocated afresh for every product had their pages faulted in
/// again each time (about a twentieth of a rank's processor time for the
/// quotient at n = 2^20 on 2 ranks). What is kept is the largest staging
/// one computation needed, and only residues of ciphertexts (public) pass
/// through it.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    spare: RefCell<Vec<Vec<u64>>>,
}

impl Scratch {
    /// `K` empty buffers, each with the capacity it had when last given
    /// back; they return when the guard drops, in an order that hands the
    /// same buffer to the same place of the next `lend::<K>`.
    pub(crate) fn lend<const K: usize>(&self) -> Lent<'_, K> {
        let mut spare = self.spare.borrow_mut();
        Lent {
            scratch: self,
            buffers: std::array::from_fn(|_| {
                let mut buffer = spare.pop().unwrap_or_default();
                buffer.clear();
                buffer
            }),
        }
    }
}

/// Buffers lent by [`Scratch::lend`], given back on drop.
pub(crate) struct Lent<'a, const K: usize> {
    scratch: &'a Scratch,
    pub(crate) buffers: [Vec<u64>; K],
}

impl<const K: usize> Drop for Lent<'_, K> {
    fn drop(&mut self) {
        let returned = self.buffers.iter_mut().rev().map(std::mem::take);
        self.scratch.spare.borrow_mut().extend(returned);
    }
}

/// Where one exchange's payloads are staged: the words, and their offset
/// in this rank's shared segment when they lie in it (the ranks sharing
/// memory with this one read them there).
pub(crate) struct Outgoing<'s> {
    pub(crate) words: &'s mut [u64],
    pub(crate) segment_offset: Option<usize>,
}

impl Outgoing<'_> {
    /// The same region, borrowed again.
    pub(crate) fn reborrow(&mut self) -> Outgoing<'_> {
        Outgoing {
            words: self.words,
            segment_offset: self.segment_offset,
        }
    }
}

/// `K` staging regions for one computation, from
/// [`Cluster::staging`](crate::Cluster): carved from this rank's shared
/// segment, or private buffers lent by the [`Scratch`].
pub(crate) struct Staged<'a, const K: usize> {
    place: Place<'a, K>,
}

enum Place<'a, const K: usize> {
    Shared {
        base: *mut u64,
        ranges: [Range<usize>; K],
    },
    Private(Lent<'a, K>),
}

impl<'a, const K: usize> Staged<'a, K> {
    /// Regions of `sizes` words, one after the other, in the `words` words
    /// of this rank's shared segment at `base`.
    pub(crate) fn shared(base: *mut u64, words: usize, sizes: [usize; K]) -> crate::Result<Self> {
        let mut at = 0;
        let ranges = sizes.map(|size| {
            let range = at..at + size;
            at += size;
            range
        });
        if at > words || (base.is_null() && at > 0) {
            return Err(crate::Error::DistributionMismatch(format!(
                "{at} staging words do not fit a shared segment of {words}"
            )));
        }
        Ok(Self {
            place: Place::Shared { base, ranges },
        })
    }

    /// Private buffers of `sizes` words from `lent`.
    pub(crate) fn private(mut lent: Lent<'a, K>, sizes: [usize; K]) -> Self {
        for (buffer, size) in lent.buffers.iter_mut().zip(sizes) {
            buffer.resize(size, 0);
        }
        Self {
            place: Place::Private(lent),
        }
    }

    /// The `K` regions.
    pub(crate) fn regions(&mut self) -> [Outgoing<'_>; K] {
        match &mut self.place {
            Place::Shared { base, ranges } => {
                let base = *base;
                ranges.clone().map(|range| {
                    let words: &mut [u64] = if range.is_empty() {
                        &mut []
                    } else {
                        // SAFETY: the ranges are disjoint and inside this
                        // rank's segment (checked in `shared`), which
                        // outlives the borrow of `self`; no other slice of
                        // this rank writes it.
                        unsafe {
                            std::slice::from_raw_parts_mut(base.add(range.start), range.len())
                        }
                    };
                    Outgoing {
                        words,
                        segment_offset: Some(range.start),
                    }
                })
            }
            Place::Private(lent) => {
                let mut buffers = lent.buffers.iter_mut();
                std::array::from_fn(|_| Outgoing {
                    words: buffers.next().map_or(&mut [][..], |b| b.as_mut_slice()),
                    segment_offset: None,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_to_the_same_places_with_their_capacity() {
        let scratch = Scratch::default();
        {
            let mut lent = scratch.lend::<3>();
            for (k, buffer) in lent.buffers.iter_mut().enumerate() {
                buffer.resize(100 * (k + 1), 7);
            }
        }
        let lent = scratch.lend::<3>();
        for (k, buffer) in lent.buffers.iter().enumerate() {
            assert!(buffer.is_empty());
            assert!(buffer.capacity() >= 100 * (k + 1), "buffer {k}");
        }
        drop(lent);
        // More than were kept: the rest are new.
        let lent = scratch.lend::<4>();
        assert_eq!(lent.buffers.iter().filter(|b| b.capacity() == 0).count(), 1);
    }
}
