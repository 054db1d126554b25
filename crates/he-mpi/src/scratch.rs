//! Word buffers a cluster keeps between distributed computations, and the
//! regions an exchange's payloads are staged in.

use std::cell::RefCell;
use std::ops::Range;

use crate::checksum::PayloadSum;

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

/// Words in a cache line.
const LINE_WORDS: usize = 8;

/// The most words [`Staged::shared`] needs beyond its regions' sizes, per
/// region, to start each on a cache line.
pub(crate) const ALIGNMENT_SLACK: usize = LINE_WORDS;

/// Where one exchange's payloads are staged: the words, and their offset
/// in this rank's shared segment when they lie in it (the ranks sharing
/// memory with this one read them there).
pub(crate) struct Outgoing<'s> {
    pub(crate) words: &'s mut [u64],
    pub(crate) segment_offset: Option<usize>,
    /// Each destination's payload sum, when the stager summed the payloads
    /// as it wrote them ([`PayloadSum::copy_absorb`]); otherwise the
    /// exchange sums them.
    pub(crate) sums: Option<Vec<PayloadSum>>,
}

impl Outgoing<'_> {
    /// The same region, borrowed again.
    pub(crate) fn reborrow(&mut self) -> Outgoing<'_> {
        Outgoing {
            words: self.words,
            segment_offset: self.segment_offset,
            sums: self.sums.take(),
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
    /// of this rank's shared segment at `base`, each starting on a cache
    /// line (64 bytes: the staging copy streams whole lines) — so they need
    /// up to [`ALIGNMENT_SLACK`] words more than their sizes.
    pub(crate) fn shared(base: *mut u64, words: usize, sizes: [usize; K]) -> crate::Result<Self> {
        // The first word on a line, and the next such word from `at` on.
        let skew = base.align_offset(LINE_WORDS * 8).min(LINE_WORDS);
        let line = |at: usize| skew + (at - skew).next_multiple_of(LINE_WORDS);
        let mut at = skew;
        let ranges = sizes.map(|size| {
            let range = at..at + size;
            at = line(at + size);
            range
        });
        let end = ranges.last().map_or(0, |r| r.end);
        if end > words || (base.is_null() && end > 0) {
            return Err(crate::Error::DistributionMismatch(format!(
                "{end} staging words do not fit a shared segment of {words}"
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
                        sums: None,
                    }
                })
            }
            Place::Private(lent) => {
                let mut buffers = lent.buffers.iter_mut();
                std::array::from_fn(|_| Outgoing {
                    words: buffers.next().map_or(&mut [][..], |b| b.as_mut_slice()),
                    segment_offset: None,
                    sums: None,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_regions_start_on_cache_lines_and_fit_with_the_slack() {
        let mut segment = vec![0u64; 200];
        for skew in 0..8 {
            let sizes = [5, 0, 24];
            let words = sizes.iter().sum::<usize>() + sizes.len() * ALIGNMENT_SLACK;
            let base = segment[skew..].as_mut_ptr();
            let mut staged = Staged::shared(base, words, sizes).unwrap();
            let mut end = 0;
            for (region, size) in staged.regions().iter().zip(sizes) {
                assert_eq!(region.words.len(), size);
                if size > 0 {
                    assert_eq!(region.words.as_ptr().align_offset(64), 0, "skew {skew}");
                }
                let at = region.segment_offset.unwrap();
                assert!(at >= end && at + size <= words, "skew {skew}");
                end = at + size;
            }
        }
        assert!(Staged::shared(segment.as_mut_ptr(), 10, [8, 8]).is_err());
    }

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
