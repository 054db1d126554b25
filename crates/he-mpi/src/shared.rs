//! Staging memory that the ranks of one node share: an MPI-3 shared-memory
//! window, one segment per rank, which the other ranks of the node read in
//! place.
//!
//! Between processes on one machine a message costs a copy by the kernel
//! into the receiver's buffer and the pinning of the sender's pages (Open
//! MPI's single-copy path). A payload staged in a shared segment costs
//! neither: the receiver's convolution reads it where the sender wrote it.
//! The exchange's headers, checksums and agreement stay as they are; only
//! where a payload lies changes (the header says where, see
//! [`frame`](crate::frame)).
//!
//! Protocol: a rank writes its segment only between two collectives in
//! which no other rank reads it. Every exchange's header all-to-all follows
//! the staging, and every payload is read before the agreement that ends
//! the step using it, so the product's sequence of collectives (stage,
//! headers, read, agree) orders all accesses; [`NodeShare::sync`] makes
//! the stores visible across processes at those points (MPI's "unified"
//! memory model).

use std::cell::RefCell;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{Communicator, SimpleCommunicator};

use crate::cluster::{check, complete};
use crate::error::{Error, Result};
use crate::watchdog::Watchdog;

/// How payloads travel between the ranks of a job.
///
/// With shared memory, each rank stages its payloads in its own segment of
/// an MPI-3 shared-memory window over the ranks of its node
/// (`MPI_Win_allocate_shared`), and the receivers read them there: no copy
/// by the kernel into a receive buffer, no pinning of the sender's pages.
/// A rank writes its segment only between two collectives in which no
/// other rank reads it (the staging precedes the exchange's header
/// all-to-all; every step that reads a peer's payloads ends with the
/// agreement on its outcome), and `MPI_Win_sync` orders the stores around
/// those collectives. The segments hold only residues of ciphertexts
/// (public), grow for every rank of the node at once when a product needs
/// more, and live as long as the [`Cluster`](crate::Cluster). A node whose
/// shared memory (`/dev/shm`) cannot hold them fails the product with an
/// error that names [`Messages`](Self::Messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// Ranks on one node read each other's payloads from MPI shared memory;
    /// ranks on other nodes get messages (the default).
    #[default]
    SharedMemoryOnNode,
    /// As [`SharedMemoryOnNode`](Self::SharedMemoryOnNode), but memory is
    /// shared only within groups of this many consecutive ranks of a node
    /// (for ranks pinned to sockets, and to exercise both paths on one
    /// machine).
    SharedMemoryInGroupsOf(usize),
    /// Every payload travels in an MPI message.
    Messages,
}

impl Transport {
    /// The transport as two words (kind, group size), for checking that
    /// every rank chose the same.
    pub(crate) fn words(self) -> [u64; 2] {
        match self {
            Transport::SharedMemoryOnNode => [0, 0],
            Transport::SharedMemoryInGroupsOf(k) => [1, k as u64],
            Transport::Messages => [2, 0],
        }
    }
}

/// The ranks this rank shares memory with and their segments.
pub(crate) struct NodeShare {
    group: Group,
    /// This rank's rank in `group`.
    own: usize,
    /// Each job rank's rank in `group`, or `None` for a rank outside it.
    group_rank_of: Vec<Option<usize>>,
    window: RefCell<Option<Window>>,
    rank: usize,
}

/// A shared-memory window: the raw handle and every group rank's segment.
struct Window {
    raw: ffi::MPI_Win,
    segments: Vec<Segment>,
}

#[derive(Clone, Copy)]
struct Segment {
    base: *mut u64,
    words: usize,
}

impl NodeShare {
    /// The group of `comm`'s ranks this rank shares memory with under
    /// `transport` (collective over `comm`); `None` when it shares with no
    /// other rank.
    pub(crate) fn new(
        comm: &SimpleCommunicator,
        transport: Transport,
        watchdog: &Arc<Watchdog>,
    ) -> Result<Option<Self>> {
        let rank = comm.rank() as usize;
        if transport == Transport::Messages || comm.size() == 1 {
            return Ok(None);
        }
        let _guard = watchdog.guard("finding the ranks that share memory");
        let mut node = comm_null();
        // SAFETY: `comm` is live; the type and info are the library's
        // constants; `node` receives the new communicator.
        check(rank, "MPI_Comm_split_type", unsafe {
            ffi::MPI_Comm_split_type(
                comm.as_raw(),
                ffi::RSMPI_COMM_TYPE_SHARED,
                rank as c_int,
                ffi::RSMPI_INFO_NULL,
                &mut node,
            )
        })?;
        let node = Group::adopt(node, rank)?;
        let group = match transport {
            Transport::SharedMemoryInGroupsOf(k) => {
                let color = node.rank(rank)? / k;
                let mut raw = comm_null();
                // SAFETY: the node communicator is live; `raw` receives the
                // communicator of this rank's color.
                check(rank, "MPI_Comm_split", unsafe {
                    ffi::MPI_Comm_split(node.raw, color as c_int, rank as c_int, &mut raw)
                })?;
                Group::adopt(raw, rank)?
            }
            _ => node,
        };
        // Every member's job rank.
        let members = group.all_gather(rank as u64, rank)?;
        if members.len() == 1 {
            return Ok(None);
        }
        let mut group_rank_of = vec![None; comm.size() as usize];
        for (g, &member) in members.iter().enumerate() {
            if let Some(slot) = group_rank_of.get_mut(member as usize) {
                *slot = Some(g);
            }
        }
        let own = group.rank(rank)?;
        Ok(Some(Self {
            group,
            own,
            group_rank_of,
            window: RefCell::new(None),
            rank,
        }))
    }

    /// Whether job rank `other` reads this rank's payloads in place (and
    /// this rank its).
    pub(crate) fn shares_with(&self, other: usize) -> bool {
        other != self.rank && self.group_rank_of.get(other).is_some_and(Option::is_some)
    }

    /// Gives this rank's segment room for `words` words (collective over
    /// the group: every member calls it at the same point, each with its
    /// own need) and returns it. The window is made again, for every member
    /// at once, when a member's need passes its segment; slices from
    /// [`segment`](Self::segment) must not be held across this call.
    pub(crate) fn reserve(
        &self,
        words: usize,
        watchdog: &Arc<Watchdog>,
    ) -> Result<(*mut u64, usize)> {
        let _guard = watchdog.guard("reserving shared memory");
        let needs = self.group.all_gather(words as u64, self.rank)?;
        let mut window = self.window.borrow_mut();
        let fits = window.as_ref().is_some_and(|w| {
            w.segments
                .iter()
                .zip(&needs)
                .all(|(segment, &need)| segment.words as u64 >= need)
        });
        if !fits {
            let kept = window.as_ref().map_or(0, |w| w.segments[self.own].words);
            if let Some(old) = window.take() {
                old.free(self.rank)?;
            }
            *window = Some(Window::allocate(&self.group, words.max(kept), self.rank)?);
        }
        let own = window.as_ref().map(|w| w.segments[self.own]);
        Ok(own.map_or((std::ptr::null_mut(), 0), |s| (s.base, s.words)))
    }

    /// Job rank `other`'s segment, read-only (empty before any reservation,
    /// for this rank itself and for a rank outside the group).
    ///
    /// `other` writes these words again after the collective that ends the
    /// step reading them; callers drop the slice before it.
    pub(crate) fn segment(&self, other: usize) -> &[u64] {
        if !self.shares_with(other) {
            return &[];
        }
        let window = self.window.borrow();
        let found = self.group_rank_of[other].and_then(|g| window.as_ref().map(|w| w.segments[g]));
        match found {
            // SAFETY: another rank's segment lies in the window's mapping,
            // which lives until the window is freed (by `reserve`, which
            // callers do not call while holding a slice, or on release);
            // this rank never writes it.
            Some(segment) if !segment.base.is_null() => unsafe {
                std::slice::from_raw_parts(segment.base, segment.words)
            },
            _ => &[],
        }
    }

    /// Makes this rank's stores to its segment visible to the group and
    /// theirs to it (MPI_Win_sync), around the collectives that order them.
    pub(crate) fn sync(&self) -> Result<()> {
        if let Some(window) = self.window.borrow().as_ref() {
            // SAFETY: the window is live and in a lock_all epoch.
            check(self.rank, "MPI_Win_sync", unsafe {
                ffi::MPI_Win_sync(window.raw)
            })?;
        }
        Ok(())
    }

    /// Frees the window (collective over the group).
    pub(crate) fn release(&self) -> Result<()> {
        match self.window.borrow_mut().take() {
            Some(window) => window.free(self.rank),
            None => Ok(()),
        }
    }
}

impl Window {
    /// A window of `words` words for this rank (collective over `group`),
    /// in a passive-target epoch for the loads and stores of its life.
    fn allocate(group: &Group, words: usize, rank: usize) -> Result<Self> {
        let bytes =
            ffi::MPI_Aint::try_from(words.saturating_mul(8)).map_err(|_| Error::RankFailed {
                rank,
                reason: format!("{words} words of shared memory exceed what MPI can allocate"),
            })?;
        // SAFETY: RSMPI_WIN_NULL is the library's constant.
        let mut raw = unsafe { ffi::RSMPI_WIN_NULL };
        let mut base: *mut u64 = std::ptr::null_mut();
        // SAFETY: `base` and `raw` receive the segment's address and the
        // window; the group communicator is live; 8-byte displacement units.
        let code = unsafe {
            ffi::MPI_Win_allocate_shared(
                bytes,
                8,
                ffi::RSMPI_INFO_NULL,
                group.raw,
                (&mut base as *mut *mut u64).cast::<c_void>(),
                &mut raw,
            )
        };
        if code != ffi::MPI_SUCCESS as c_int {
            return Err(Error::RankFailed {
                rank,
                reason: format!(
                    "MPI could not allocate {bytes} bytes of shared memory for staging (MPI error \
                     {code}): give the node more shared memory (/dev/shm) or run with \
                     Transport::Messages"
                ),
            });
        }
        let members = group.size(rank)?;
        let mut segments = Vec::with_capacity(members);
        for g in 0..members as c_int {
            let (mut size, mut unit, mut at): (ffi::MPI_Aint, c_int, *mut u64) =
                (0, 0, std::ptr::null_mut());
            // SAFETY: the window is live; the outputs are valid locations.
            check(rank, "MPI_Win_shared_query", unsafe {
                ffi::MPI_Win_shared_query(
                    raw,
                    g,
                    &mut size,
                    &mut unit,
                    (&mut at as *mut *mut u64).cast::<c_void>(),
                )
            })?;
            segments.push(Segment {
                base: at,
                words: usize::try_from(size).unwrap_or(0) / 8,
            });
        }
        // SAFETY: the window is live; assertion 0 asks nothing of it.
        check(rank, "MPI_Win_lock_all", unsafe {
            ffi::MPI_Win_lock_all(0, raw)
        })?;
        Ok(Self { raw, segments })
    }

    /// Ends the epoch and frees the window (collective over its group).
    fn free(mut self, rank: usize) -> Result<()> {
        // SAFETY: the window is live and in the epoch `allocate` opened.
        check(rank, "MPI_Win_unlock_all", unsafe {
            ffi::MPI_Win_unlock_all(self.raw)
        })?;
        // SAFETY: as above; MPI sets the handle to MPI_WIN_NULL.
        check(rank, "MPI_Win_free", unsafe {
            ffi::MPI_Win_free(&mut self.raw)
        })
    }
}

/// A communicator made here, freed on drop, with the calls this module needs.
struct Group {
    raw: ffi::MPI_Comm,
}

impl Group {
    /// Takes ownership of `raw` (a communicator MPI just made) and sets its
    /// error handler to return errors.
    fn adopt(raw: ffi::MPI_Comm, rank: usize) -> Result<Self> {
        let group = Self { raw };
        // SAFETY: the communicator is live; RSMPI_ERRORS_RETURN is predefined.
        check(rank, "MPI_Comm_set_errhandler", unsafe {
            ffi::MPI_Comm_set_errhandler(group.raw, ffi::RSMPI_ERRORS_RETURN)
        })?;
        Ok(group)
    }

    /// This process's rank in the group (`rank`: its job rank, for errors).
    fn rank(&self, rank: usize) -> Result<usize> {
        self.query(rank, "MPI_Comm_rank", ffi::MPI_Comm_rank)
    }

    /// The number of ranks in the group.
    fn size(&self, rank: usize) -> Result<usize> {
        self.query(rank, "MPI_Comm_size", ffi::MPI_Comm_size)
    }

    /// One integer MPI reports about the group through `call`.
    fn query(
        &self,
        rank: usize,
        name: &'static str,
        call: unsafe extern "C" fn(ffi::MPI_Comm, *mut c_int) -> c_int,
    ) -> Result<usize> {
        let mut value: c_int = 0;
        // SAFETY: the communicator is live; `value` is a valid location for
        // the one integer `call` (MPI_Comm_rank or MPI_Comm_size) writes.
        check(rank, name, unsafe { call(self.raw, &mut value) })?;
        Ok(value as usize)
    }

    /// Every member's `value`, in group rank order.
    fn all_gather(&self, value: u64, rank: usize) -> Result<Vec<u64>> {
        let mine = [value];
        let mut all = vec![0u64; self.size(rank)?];
        // SAFETY: one u64 sent and one per member received; both buffers
        // live until the call completes; the communicator is live.
        complete(rank, "MPI_Iallgather", |request| unsafe {
            ffi::MPI_Iallgather(
                mine.as_ptr().cast::<c_void>(),
                1,
                ffi::RSMPI_UINT64_T,
                all.as_mut_ptr().cast::<c_void>(),
                1,
                ffi::RSMPI_UINT64_T,
                self.raw,
                request,
            )
        })?;
        Ok(all)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        // SAFETY: the communicator is live and owned here. A failure leaves
        // nothing to do (MPI_Finalize reclaims it).
        unsafe { ffi::MPI_Comm_free(&mut self.raw) };
    }
}

/// MPI_COMM_NULL.
fn comm_null() -> ffi::MPI_Comm {
    // SAFETY: RSMPI_COMM_NULL is the library's constant.
    unsafe { ffi::RSMPI_COMM_NULL }
}
