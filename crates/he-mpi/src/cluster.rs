//! The ranks of a job: checked collectives, the residue exchange, byte
//! counts and the watchdog.

use std::cell::Cell;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;
use std::time::Duration;

use helib_rs::Context;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{Communicator, SimpleCommunicator};

use crate::error::{Error, Result};
use crate::partition::Partition;
use crate::scratch::{Scratch, Staged, ALIGNMENT_SLACK};
use crate::shared::{NodeShare, Transport};
use crate::watchdog::Watchdog;

mod exchange;
mod root;
pub(crate) use exchange::{Checking, Incoming, PayloadCheck};

/// Bytes this rank has moved in residue exchanges (headers and payloads,
/// to and from *other* ranks), and the exchanges run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes sent to other ranks.
    pub bytes_sent: u64,
    /// Bytes received from other ranks.
    pub bytes_received: u64,
    /// Residue exchanges run (each two all-to-alls and an all-gather).
    pub exchanges: u64,
}

/// The ranks of a job sharing one context: rank and size, the checked
/// exchange of residues, byte counts, and a watchdog.
///
/// Made once per job on every rank with the same context
/// ([`Cluster::new`] checks the fingerprints). Every operation on
/// [`DistributedPolynomial`](crate::DistributedPolynomial)s is collective:
/// all ranks call it in the same order.
pub struct Cluster {
    comm: SimpleCommunicator,
    rank: usize,
    size: usize,
    context: Context,
    fingerprint: [u8; 32],
    traffic: Cell<Traffic>,
    sequence: Cell<u64>,
    /// The fault drill's countdown: exchanges to let pass before one is corrupted.
    corrupt_after: Cell<Option<u64>>,
    watchdog: Arc<Watchdog>,
    scratch: Scratch,
    share: Option<NodeShare>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .field("traffic", &self.traffic.get())
            .finish_non_exhaustive()
    }
}

/// The default time a collective may take before the watchdog ends the rank.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

impl Cluster {
    /// The ranks of `comm` computing with `context`: sets `comm`'s error
    /// handler to return errors, starts the watchdog ([`DEFAULT_TIMEOUT`],
    /// see [`set_timeout`](Self::set_timeout))
    /// and checks that every rank's context has rank 0's fingerprint.
    ///
    /// # Errors
    /// [`Error::ParameterMismatch`] naming the first rank whose parameters
    /// differ (on every rank); [`Error::Mpi`] for a failed call.
    pub fn new(comm: SimpleCommunicator, context: &Context) -> Result<Self> {
        Self::with_timeout(comm, context, DEFAULT_TIMEOUT)
    }

    /// As [`new`](Self::new) with the watchdog's `timeout` (see
    /// [`set_timeout`](Self::set_timeout)), which applies from the first
    /// collective on.
    ///
    /// # Errors
    /// As for [`new`](Self::new).
    pub fn with_timeout(
        comm: SimpleCommunicator,
        context: &Context,
        timeout: Duration,
    ) -> Result<Self> {
        Self::with_transport(comm, context, timeout, Transport::default())
    }

    /// As [`with_timeout`](Self::with_timeout), with payloads moving as
    /// `transport` says. Every rank must pass the same transport.
    ///
    /// # Errors
    /// As for [`new`](Self::new); [`Error::DistributionMismatch`] (on every
    /// rank) when the ranks chose different transports (or groups of 0
    /// ranks); [`Error::Mpi`] when the ranks of a node cannot be grouped.
    pub fn with_transport(
        comm: SimpleCommunicator,
        context: &Context,
        timeout: Duration,
        transport: Transport,
    ) -> Result<Self> {
        let rank = comm.rank() as usize;
        let size = comm.size() as usize;
        // SAFETY: the communicator is live; RSMPI_ERRORS_RETURN is a valid
        // predefined error handler.
        let code = unsafe { ffi::MPI_Comm_set_errhandler(comm.as_raw(), ffi::RSMPI_ERRORS_RETURN) };
        if code != ffi::MPI_SUCCESS as c_int {
            return Err(Error::Mpi {
                code,
                rank,
                call: "MPI_Comm_set_errhandler",
            });
        }
        let mut cluster = Self {
            comm,
            rank,
            size,
            context: context.clone(),
            fingerprint: context.fingerprint()?,
            traffic: Cell::new(Traffic::default()),
            sequence: Cell::new(0),
            corrupt_after: Cell::new(None),
            watchdog: Watchdog::start(rank, timeout),
            scratch: Scratch::default(),
            share: None,
        };
        let mut mine: Vec<u64> = fingerprint_words(&cluster.fingerprint).to_vec();
        mine.extend(transport.words());
        let all = cluster.all_gather(&mine)?;
        let first = all.chunks_exact(6).position(|f| f[..4] != all[..4]);
        if let Some(rank) = first {
            return Err(Error::ParameterMismatch { rank });
        }
        if let Some(rank) = all.chunks_exact(6).position(|f| f[4..] != all[4..6]) {
            return Err(Error::DistributionMismatch(format!(
                "rank {rank} chose another transport than rank 0"
            )));
        }
        // Every rank chose it: every rank refuses it.
        if transport == Transport::SharedMemoryInGroupsOf(0) {
            return Err(Error::DistributionMismatch(
                "shared memory in groups of 0 ranks".into(),
            ));
        }
        let share = NodeShare::new(&cluster.comm, transport, &cluster.watchdog);
        cluster.share = cluster.agree(share)?;
        Ok(cluster)
    }

    /// Broadcasts `bytes` from `root` over `comm` (other ranks pass anything,
    /// such as an empty vector): parameters and keys, once per job, before
    /// a [`Cluster`] exists.
    ///
    /// # Errors
    /// [`Error::Mpi`] for a failed call.
    pub fn broadcast_over(
        comm: &SimpleCommunicator,
        root: usize,
        bytes: Vec<u8>,
    ) -> Result<Vec<u8>> {
        let rank = comm.rank() as usize;
        let mut len = [bytes.len() as u64];
        // SAFETY: the buffer holds one u64, the type and count match it.
        check(rank, "MPI_Bcast", unsafe {
            ffi::MPI_Bcast(
                len.as_mut_ptr().cast::<c_void>(),
                1,
                ffi::RSMPI_UINT64_T,
                root as c_int,
                comm.as_raw(),
            )
        })?;
        let mut buffer = if rank == root {
            bytes
        } else {
            vec![0u8; len[0] as usize]
        };
        // Chunks within MPI's int counts.
        for chunk in buffer.chunks_mut(1 << 30) {
            // SAFETY: the chunk is a live, writable buffer of its length in bytes.
            check(rank, "MPI_Bcast", unsafe {
                ffi::MPI_Bcast(
                    chunk.as_mut_ptr().cast::<c_void>(),
                    chunk.len() as c_int,
                    ffi::RSMPI_UINT8_T,
                    root as c_int,
                    comm.as_raw(),
                )
            })?;
        }
        Ok(buffer)
    }

    /// [`broadcast_over`](Self::broadcast_over) on this cluster's ranks.
    ///
    /// # Errors
    /// As for [`broadcast_over`](Self::broadcast_over).
    pub fn broadcast(&self, root: usize, bytes: Vec<u8>) -> Result<Vec<u8>> {
        let _guard = self.watchdog.guard("a broadcast");
        Self::broadcast_over(&self.comm, root, bytes)
    }

    /// Sets the time any one collective may take; past it the watchdog
    /// prints which rank waited in which step and ends the process with
    /// status 3 (so `mpirun` ends the job).
    pub fn set_timeout(&self, timeout: Duration) {
        self.watchdog.set_timeout(timeout);
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The partition of blocks and columns among the ranks.
    pub fn partition(&self) -> Partition {
        Partition::new(self.size).unwrap_or_else(|_| unreachable!("a communicator has a rank"))
    }

    /// The context every rank shares.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The bytes moved so far.
    pub fn traffic(&self) -> Traffic {
        self.traffic.get()
    }

    /// The staging buffers this rank keeps between computations.
    pub(crate) fn scratch(&self) -> &Scratch {
        &self.scratch
    }

    /// The other ranks that read this rank's payloads in place from shared
    /// memory (and whose it reads); payloads to and from the rest travel in
    /// messages.
    pub fn shared_memory_peers(&self) -> Vec<usize> {
        (0..self.size)
            .filter(|&r| self.share.as_ref().is_some_and(|s| s.shares_with(r)))
            .collect()
    }

    /// `K` regions of `sizes[k]` words to stage payloads in for
    /// [`exchange`](Self::exchange): in this rank's shared segment when it
    /// shares memory with other ranks (collective over those ranks, which
    /// must call it at the same point), otherwise kept private buffers.
    ///
    /// # Errors
    /// [`Error::Mpi`] when the shared segment cannot grow.
    pub(crate) fn staging<const K: usize>(&self, sizes: [usize; K]) -> Result<Staged<'_, K>> {
        match &self.share {
            Some(share) => {
                let total = sizes.iter().sum::<usize>() + K * ALIGNMENT_SLACK;
                let (base, words) = share.reserve(total, &self.watchdog)?;
                Staged::shared(base, words, sizes)
            }
            None => Ok(Staged::private(self.scratch.lend::<K>(), sizes)),
        }
    }

    /// The communicator.
    pub fn communicator(&self) -> &SimpleCommunicator {
        &self.comm
    }

    /// A fault drill: flips one bit of the next payload this rank sends to
    /// another rank, after its checksum is sealed, so that the receiver
    /// finds it and every rank fails with [`Error::Corrupted`].
    pub fn corrupt_next_exchange(&self) {
        self.corrupt_exchange(0);
    }

    /// As [`corrupt_next_exchange`](Self::corrupt_next_exchange), after
    /// letting `skip` exchanges pass (a product runs three per prime: its
    /// operands a and b, then its result rows).
    pub fn corrupt_exchange(&self, skip: u64) {
        self.corrupt_after.set(Some(skip));
    }

    /// Ends the whole job with exit status `code` (MPI_Abort): for a rank
    /// that failed, so that no other rank waits for it.
    pub fn abort(&self, code: i32) -> ! {
        self.comm.abort(code)
    }

    /// Waits for every rank (checked, under the watchdog).
    ///
    /// # Errors
    /// [`Error::Mpi`] for a failed call.
    pub fn barrier(&self) -> Result<()> {
        let _guard = self.watchdog.guard("a barrier");
        // SAFETY: the communicator is live.
        self.complete("MPI_Ibarrier", |request| unsafe {
            ffi::MPI_Ibarrier(self.comm.as_raw(), request)
        })
    }

    /// Every rank's `values`, rank by rank.
    ///
    /// # Errors
    /// [`Error::Mpi`] for a failed call.
    pub fn all_gather(&self, values: &[u64]) -> Result<Vec<u64>> {
        let _guard = self.watchdog.guard("an all-gather");
        let mut out = vec![0u64; values.len() * self.size];
        // SAFETY: the send buffer holds `values.len()` u64 and the receive
        // buffer that many for every rank, both alive until the call
        // completes; the communicator is live.
        self.complete("MPI_Iallgather", |request| unsafe {
            ffi::MPI_Iallgather(
                values.as_ptr().cast::<c_void>(),
                values.len() as c_int,
                ffi::RSMPI_UINT64_T,
                out.as_mut_ptr().cast::<c_void>(),
                values.len() as c_int,
                ffi::RSMPI_UINT64_T,
                self.comm.as_raw(),
                request,
            )
        })?;
        Ok(out)
    }

    /// The largest of every rank's `value`.
    ///
    /// # Errors
    /// [`Error::Mpi`] for a failed call.
    pub fn max_f64(&self, value: f64) -> Result<f64> {
        let all = self.all_gather(&[value.to_bits()])?;
        Ok(all
            .into_iter()
            .map(f64::from_bits)
            .fold(f64::NEG_INFINITY, f64::max))
    }

    /// Makes a local outcome common: when any rank failed, every rank
    /// returns an error naming the first failing rank (that rank keeps its
    /// own error), so no rank goes on to wait for a failed one.
    ///
    /// # Errors
    /// The first failing rank's error, or [`Error::RankFailed`] naming it.
    pub fn agree<T>(&self, outcome: Result<T>) -> Result<T> {
        // 0: fine; 1 + s: corrupted residues from rank s; u64::MAX: another failure.
        let code = match &outcome {
            Ok(_) => 0,
            Err(Error::Corrupted { sender, .. }) => 1 + *sender as u64,
            Err(_) => u64::MAX,
        };
        let codes = self.all_gather(&[code])?;
        match codes.iter().position(|&c| c != 0) {
            None => outcome,
            Some(rank) if rank == self.rank => outcome,
            Some(rank) if codes[rank] == u64::MAX => Err(Error::RankFailed {
                rank,
                reason: "see that rank's output".into(),
            }),
            Some(rank) => Err(Error::Corrupted {
                sender: (codes[rank] - 1) as usize,
                receiver: rank,
                reason: "see that rank's output".into(),
            }),
        }
    }
}

impl Cluster {
    /// [`complete`] on this rank.
    fn complete(
        &self,
        call: &'static str,
        start: impl FnOnce(*mut ffi::MPI_Request) -> c_int,
    ) -> Result<()> {
        complete(self.rank, call, start)
    }
}

/// Starts a nonblocking collective with `start` and waits for it without
/// holding a core: the request is tested back to back for a few
/// microseconds, then between sleeps that grow to [`QUIET_WAIT_MAX`]. MPI's
/// blocking calls poll without pause instead, so a rank that waits for a
/// slower one would spend the wait as processor time (and, with more ranks
/// than cores, take it from the rank it waits for).
///
/// # Errors
/// [`Error::Mpi`] naming `call` and `rank` when starting or testing fails.
pub(crate) fn complete(
    rank: usize,
    call: &'static str,
    start: impl FnOnce(*mut ffi::MPI_Request) -> c_int,
) -> Result<()> {
    // SAFETY: RSMPI_REQUEST_NULL is a constant the MPI library defines.
    let mut request = unsafe { ffi::RSMPI_REQUEST_NULL };
    check(rank, call, start(&mut request))?;
    let mut pause = Duration::ZERO;
    for tests in 0u32.. {
        let mut done: c_int = 0;
        // SAFETY: `request` is the live request `start` made; the status
        // is ignored (MPI's constant says so).
        check(rank, call, unsafe {
            ffi::MPI_Test(&mut request, &mut done, ffi::RSMPI_STATUS_IGNORE)
        })?;
        if done != 0 {
            break;
        }
        if tests >= QUIET_WAIT_SPINS {
            std::thread::sleep(pause);
            pause = (pause * 2).clamp(QUIET_WAIT_MIN, QUIET_WAIT_MAX);
        }
    }
    Ok(())
}

/// Tests of a request before a waiting rank starts to sleep between them.
const QUIET_WAIT_SPINS: u32 = 64;
/// The first and the longest sleep between tests of a request.
const QUIET_WAIT_MIN: Duration = Duration::from_micros(10);
const QUIET_WAIT_MAX: Duration = Duration::from_micros(500);

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(share) = &self.share {
            // Collective over the ranks sharing memory, which drop their
            // clusters at the same point; the watchdog ends a rank whose
            // peers never come.
            let _guard = self.watchdog.guard("freeing shared memory");
            // A failure leaves the window to MPI_Finalize.
            let _ = share.release();
        }
        self.watchdog.stop();
    }
}

fn fingerprint_words(fingerprint: &[u8; 32]) -> [u64; 4] {
    let mut words = [0u64; 4];
    for (word, chunk) in words.iter_mut().zip(fingerprint.chunks_exact(8)) {
        *word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
    }
    words
}

/// An MPI return code as a result.
pub(crate) fn check(rank: usize, call: &'static str, code: c_int) -> Result<()> {
    if code == ffi::MPI_SUCCESS as c_int {
        Ok(())
    } else {
        Err(Error::Mpi { code, rank, call })
    }
}

/// The offset of each count's range when the ranges are laid end to end.
pub(crate) fn prefix_sums(counts: &[usize]) -> Vec<usize> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect()
}
