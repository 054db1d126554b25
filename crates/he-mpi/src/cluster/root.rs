//! Collectives around one root rank: every item visited there, and items
//! scattered from there. Items travel one at a time as checked engine bytes
//! (point-to-point messages): a visiting root holds one at a time, and a
//! rank of a scatter receives only its own.

use helib_rs::Ciphertext;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;

use super::Cluster;
use crate::error::{Error, Result};

impl Cluster {
    /// Sends every rank's `local` ciphertexts (items
    /// [`partition`](Self::partition)`().range(count, rank)` of `count`) to
    /// `root`, one at a time in item order, where `visit` gets each with its
    /// index (other ranks visit nothing): for gathering or decrypting
    /// without holding all of them at once.
    ///
    /// # Errors
    /// [`Error::Corrupted`] naming the sender when a ciphertext does not
    /// load (it arrives as checked engine bytes); `visit`'s errors (agreed
    /// over the ranks).
    pub fn visit_at_root(
        &self,
        root: usize,
        count: usize,
        local: &[Ciphertext],
        mut visit: impl FnMut(usize, Ciphertext) -> Result<()>,
    ) -> Result<()> {
        let partition = self.partition();
        let mut outcome = Ok(());
        if self.rank == root {
            for source in 0..self.size {
                for (k, index) in partition.range(count, source).enumerate() {
                    let item = if source == root {
                        local[k].clone()
                    } else {
                        let (bytes, _) =
                            self.comm.process_at_rank(source as i32).receive_vec::<u8>();
                        match Ciphertext::from_bytes(&self.context, &bytes) {
                            Ok(item) => item,
                            Err(e) => {
                                outcome = Err(Error::Corrupted {
                                    sender: source,
                                    receiver: root,
                                    reason: format!("ciphertext {index}: {e}"),
                                });
                                continue;
                            }
                        }
                    };
                    if outcome.is_ok() {
                        outcome = visit(index, item);
                    }
                }
            }
        } else {
            for item in local {
                let bytes = item.to_bytes()?;
                self.comm.process_at_rank(root as i32).send(&bytes[..]);
            }
        }
        self.agree(outcome)
    }

    /// The `count` items `root` holds (`items`, there only) sent to the
    /// ranks that hold them (`Partition::range(count, r)`), one at a time as
    /// checked engine bytes: this rank's run, in order.
    ///
    /// # Errors
    /// [`Error::Corrupted`] naming `root` for an item that does not load on
    /// its rank; engine errors serializing at `root`; both agreed over the
    /// ranks.
    pub fn scatter_from_root(
        &self,
        root: usize,
        count: usize,
        items: &[Ciphertext],
    ) -> Result<Vec<Ciphertext>> {
        let _guard = self.watchdog.guard("a scatter");
        let partition = self.partition();
        let mut outcome = Ok(());
        let mut mine = Vec::new();
        if self.rank == root {
            for rank in 0..self.size {
                for index in partition.range(count, rank) {
                    let Some(item) = items.get(index) else {
                        outcome = Err(Error::DistributionMismatch(format!(
                            "the root holds {} items of {count}",
                            items.len()
                        )));
                        // An empty message keeps the receiver in step.
                        if rank != root {
                            self.comm.process_at_rank(rank as i32).send(&[0u8; 0][..]);
                        }
                        continue;
                    };
                    if rank == root {
                        mine.push(item.clone());
                        continue;
                    }
                    let bytes = item.to_bytes().unwrap_or_else(|e| {
                        outcome = Err(e.into());
                        Vec::new()
                    });
                    self.comm.process_at_rank(rank as i32).send(&bytes[..]);
                }
            }
        } else {
            for index in partition.range(count, self.rank) {
                let (bytes, _) = self.comm.process_at_rank(root as i32).receive_vec::<u8>();
                match Ciphertext::from_bytes(&self.context, &bytes) {
                    Ok(item) => mine.push(item),
                    Err(e) if outcome.is_ok() => {
                        outcome = Err(Error::Corrupted {
                            sender: root,
                            receiver: self.rank,
                            reason: format!("ciphertext {index}: {e}"),
                        })
                    }
                    Err(_) => {}
                }
            }
        }
        self.agree(outcome.map(|()| mine))
    }
}
