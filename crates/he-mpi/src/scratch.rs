//! Word buffers a cluster keeps between distributed computations.

use std::cell::RefCell;

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
