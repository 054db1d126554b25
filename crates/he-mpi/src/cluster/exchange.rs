//! The checked all-to-all of residues: headers, payloads in messages or
//! read in place from a peer's shared segment, and the agreement on the
//! outcome.

use std::os::raw::{c_int, c_void};

use mpi::ffi;
use mpi::raw::AsRaw;

use super::{prefix_sums, Cluster};
use crate::checksum::PayloadSum;
use crate::error::{Error, Result};
use crate::frame::{Header, HEADER_BYTES, HEADER_WORDS};
use crate::scratch::Outgoing;

impl Cluster {
    /// The checked all-to-all of step `step` of an operation (the chain
    /// prime of a product's residues, the round of an FFT's sums):
    /// `send` (a region from [`staging`](Self::staging)) holds the payload
    /// for rank d at `send_counts[..d].sum()` (`send_counts[d]` words); the
    /// payload from rank s (`recv_counts[s]` words) is
    /// [`Incoming::from`]`(s)`. Each payload travels with a sealed
    /// [`Header`]; every rank agrees on the outcome before returning.
    ///
    /// A payload for a rank that shares memory with this one is not moved:
    /// the receiver reads it in this rank's segment, where the header says
    /// it lies, until the next collective that ends its use (the caller's
    /// agreement on the step that reads it). The rest travel in messages
    /// into `received` (resized, reusing its memory).
    ///
    /// This rank's own part is not moved either: the `send_counts[rank]`
    /// words are skipped and `from(rank)` is empty. A caller places its own
    /// part itself, straight where it is needed; with nothing to place,
    /// both counts are 0.
    ///
    /// # Errors
    /// [`Error::Corrupted`] (on every rank) when a payload or header arrived
    /// damaged or points outside its sender's segment; [`Error::Mpi`] for a
    /// failed call.
    pub(crate) fn exchange<'a>(
        &'a self,
        step: usize,
        send: Outgoing<'_>,
        send_counts: &[usize],
        recv_counts: &[usize],
        received: &'a mut Vec<u64>,
        checking: Checking,
    ) -> Result<Incoming<'a>> {
        let (size, rank) = (self.size, self.rank);
        let shared = |r: usize| self.share.as_ref().is_some_and(|s| s.shares_with(r));
        if send_counts.len() != size
            || recv_counts.len() != size
            || send_counts.iter().sum::<usize>() != send.words.len()
            || (send.segment_offset.is_none() && (0..size).any(shared))
        {
            return Err(Error::RankFailed {
                rank,
                reason: "an exchange's counts or staging do not match its buffer".into(),
            });
        }
        let sequence = self.sequence.get();
        self.sequence.set(sequence + 1);
        let header = |sender: usize, receiver: usize, segment_offset: Option<usize>| Header {
            fingerprint: self.fingerprint,
            sender,
            receiver,
            sequence,
            step,
            segment_offset,
        };
        let send_at = prefix_sums(send_counts);
        // This rank's own part is not moved (see above): it is neither
        // sealed nor verified (its header covers no payload).
        let mut headers = Vec::with_capacity(size * HEADER_WORDS);
        for d in 0..size {
            let (payload, at) = if d == rank {
                (&[][..], None)
            } else {
                let at = send
                    .segment_offset
                    .filter(|_| shared(d))
                    .map(|o| o + send_at[d]);
                (&send.words[send_at[d]..send_at[d] + send_counts[d]], at)
            };
            let summed = send.sums.as_ref().map(|sums| sums[d]);
            let words = match summed {
                Some(sum) if sum.len() == payload.len() => header(rank, d, at).seal_summed(&sum),
                _ => header(rank, d, at).seal(payload),
            };
            headers.extend_from_slice(&words);
        }
        match self.corrupt_after.get() {
            Some(0) => {
                let target = (rank + 1) % size;
                if target != rank && send_counts[target] > 0 {
                    send.words[send_at[target]] ^= 1;
                    self.corrupt_after.set(None);
                }
            }
            Some(skip) => self.corrupt_after.set(Some(skip - 1)),
            None => {}
        }
        let _guard = self.watchdog.guard("a residue exchange");
        if let Some(share) = &self.share {
            share.sync()?;
        }
        let mut their_headers = vec![0u64; size * HEADER_WORDS];
        // SAFETY: both buffers hold HEADER_WORDS u64 per rank and live
        // until the call completes; the communicator is live.
        self.complete("MPI_Ialltoall", |request| unsafe {
            ffi::MPI_Ialltoall(
                headers.as_ptr().cast::<c_void>(),
                HEADER_WORDS as c_int,
                ffi::RSMPI_UINT64_T,
                their_headers.as_mut_ptr().cast::<c_void>(),
                HEADER_WORDS as c_int,
                ffi::RSMPI_UINT64_T,
                self.comm.as_raw(),
                request,
            )
        })?;
        if let Some(share) = &self.share {
            share.sync()?;
        }
        // Messages only to and from the ranks that do not share memory.
        let by_message = |counts: &[usize]| -> Vec<usize> {
            (0..size)
                .map(|r| if r == rank || shared(r) { 0 } else { counts[r] })
                .collect()
        };
        let (message_sends, message_receives) = (by_message(send_counts), by_message(recv_counts));
        let recv_at = prefix_sums(&message_receives);
        received.resize(message_receives.iter().sum(), 0);
        let ints = |values: &[usize]| -> Result<Vec<c_int>> {
            values
                .iter()
                .map(|&v| {
                    c_int::try_from(v).map_err(|_| Error::RankFailed {
                        rank,
                        reason: format!("{v} words exceed one MPI message"),
                    })
                })
                .collect()
        };
        let (sc, sd, rc, rd) = (
            ints(&message_sends)?,
            ints(&send_at)?,
            ints(&message_receives)?,
            ints(&recv_at)?,
        );
        // Distinct addresses even for empty buffers: Open MPI takes a send
        // buffer equal to the receive buffer for an in-place call, and two
        // empty vectors share one dangling address.
        let mut spare = [0u64; 2];
        let (spare_send, spare_receive) = spare.split_at_mut(1);
        let send_at_all = if send.words.is_empty() {
            spare_send.as_ptr()
        } else {
            send.words.as_ptr()
        };
        let receive_at_all = if received.is_empty() {
            spare_receive.as_mut_ptr()
        } else {
            received.as_mut_ptr()
        };
        // SAFETY: the counts and displacements describe ranges inside the
        // two buffers (their lengths are at least the counts' sums; nothing
        // is read or written for an empty one); buffers, counts and
        // displacements live until the call completes; the communicator is
        // live.
        self.complete("MPI_Ialltoallv", |request| unsafe {
            ffi::MPI_Ialltoallv(
                send_at_all.cast::<c_void>(),
                sc.as_ptr(),
                sd.as_ptr(),
                ffi::RSMPI_UINT64_T,
                receive_at_all.cast::<c_void>(),
                rc.as_ptr(),
                rd.as_ptr(),
                ffi::RSMPI_UINT64_T,
                self.comm.as_raw(),
                request,
            )
        })?;
        let received: &'a [u64] = received;
        let mut payloads = vec![&[][..]; size];
        let mut pending = vec![None; size];
        let mut outcome = Ok(());
        for s in (0..size).filter(|&s| s != rank) {
            let words = &their_headers[s * HEADER_WORDS..(s + 1) * HEADER_WORDS];
            let count = recv_counts[s];
            let located = if shared(s) {
                self.in_segment(s, words, count)
            } else {
                Ok((&received[recv_at[s]..recv_at[s] + count], None))
            };
            let checked = located.and_then(|(payload, at)| {
                let expected = header(s, rank, at);
                match checking {
                    Checking::OnArrival => expected.verify(words, payload)?,
                    Checking::ByReader => {
                        expected.verify_fields(words, payload.len())?;
                        let mut sealed = [0u64; HEADER_WORDS];
                        sealed.copy_from_slice(words);
                        pending[s] = Some((expected, sealed));
                    }
                }
                Ok(payload)
            });
            match checked {
                Ok(payload) => payloads[s] = payload,
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
        }
        let mut traffic = self.traffic.get();
        for other in (0..size).filter(|&o| o != rank) {
            traffic.bytes_sent += (HEADER_BYTES + 8 * send_counts[other]) as u64;
            traffic.bytes_received += (HEADER_BYTES + 8 * recv_counts[other]) as u64;
        }
        traffic.exchanges += 1;
        self.traffic.set(traffic);
        drop(_guard);
        self.agree(outcome)?;
        Ok(Incoming { payloads, pending })
    }

    /// The `count` words rank `sender`'s header `words` place in its shared
    /// segment, with that offset.
    ///
    /// # Errors
    /// [`Error::Corrupted`] when the header places none or lies outside the segment.
    fn in_segment(
        &self,
        sender: usize,
        words: &[u64],
        count: usize,
    ) -> Result<(&[u64], Option<usize>)> {
        let segment = self.share.as_ref().map_or(&[][..], |s| s.segment(sender));
        let corrupted = |reason: String| Error::Corrupted {
            sender,
            receiver: self.rank,
            reason,
        };
        let at = Header::announced_offset(words).ok_or_else(|| {
            corrupted("the header does not place the payload in the sender's shared segment".into())
        })?;
        match at.checked_add(count).filter(|&end| end <= segment.len()) {
            Some(end) => Ok((&segment[at..end], Some(at))),
            None => Err(corrupted(format!(
                "the header places {count} words at {at}, outside the sender's shared segment of {} words",
                segment.len()
            ))),
        }
    }
}

/// The payloads one exchange brought to this rank, by sender.
pub(crate) struct Incoming<'a> {
    payloads: Vec<&'a [u64]>,
    /// Under [`Checking::ByReader`], each sender's header, its checksum not
    /// yet checked.
    pending: Vec<Option<(Header, [u64; HEADER_WORDS])>>,
}

impl<'a> Incoming<'a> {
    /// The payload from rank `sender` (empty from this rank itself).
    pub(crate) fn from(&self, sender: usize) -> &'a [u64] {
        self.payloads[sender]
    }

    /// The check of `sender`'s payload that a reader under
    /// [`Checking::ByReader`] feeds as it reads (none for this rank itself
    /// or a payload checked on arrival).
    pub(crate) fn check(&self, sender: usize) -> Option<PayloadCheck> {
        self.pending[sender].map(|(header, words)| PayloadCheck {
            header,
            words,
            sum: PayloadSum::default(),
        })
    }
}

/// When an exchange checks the payloads' checksums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checking {
    /// Before the exchange returns (and agrees on the outcome).
    OnArrival,
    /// As the reader goes through each payload once, in order
    /// ([`Incoming::check`]): the words are read from memory once instead
    /// of twice. The reader must agree on the outcome itself, and must not
    /// let anything computed from a payload out before its check passed.
    ByReader,
}

/// A payload's checksum, checked as its reader goes through it.
pub(crate) struct PayloadCheck {
    header: Header,
    words: [u64; HEADER_WORDS],
    sum: PayloadSum,
}

impl PayloadCheck {
    /// The payload's next words, as they are read.
    pub(crate) fn absorb(&mut self, words: &[u64]) {
        self.sum.absorb(words);
    }

    /// Whether the words absorbed are the payload the header sealed.
    ///
    /// # Errors
    /// [`Error::Corrupted`] naming the sender and this rank when they are not.
    pub(crate) fn finish(self) -> Result<()> {
        self.header.verify_sum(&self.words, &self.sum)
    }
}
