//! Encrypted polynomial products, `mul_high` and the Groth16 quotient of
//! [`he_poly`], and the FFTs of [`he_fft`] over several ciphertexts, spread
//! over MPI processes (ranks). The FFT's design is in `DistributedFft`'s
//! module (feature `mpi`); the products' follows.
//!
//! # How a product is spread
//! he-poly multiplies two polynomials of c_a and c_b blocks by an exact NTT
//! of length L ≥ c_a + c_b − 1 *across* the blocks: in the engine's
//! evaluation form every (prime, slot) column of the blocks is an independent
//! length-L convolution over Z_q. So the layer here keeps a polynomial's
//! blocks spread over the ranks (rank r holds a contiguous run of blocks,
//! [`Partition`]) and multiplies in three steps per chain prime:
//!
//! 1. an all-to-all exchange of ciphertext residues turns "rank r holds
//!    blocks B_r, all columns" into "rank r holds every block, slot columns
//!    S_r" (the transpose of the block × column matrix);
//! 2. each rank runs the whole transform, pointwise tensor and inverse on its
//!    columns ([`helib_rs::Context::convolve_rows`]), with no communication;
//! 3. a second all-to-all brings the product blocks back, spread over the ranks.
//!
//! A rank's own blocks in its own columns never travel: the convolution
//! reads them in place ([`helib_rs::Ciphertext::residue_row`]) and writes
//! its own output blocks' columns straight into them
//! ([`helib_rs::OutputRows::Assembly`]: blocks not zeroed first, handed out
//! once every column is written), so on one rank the product moves no more
//! memory than the one-process product.
//!
//! The result is bit for bit the ciphertext the one-process product gives
//! (the convolution is exact mod Q); the noise estimate and correction factor
//! are the engine's ([`helib_rs::Context::block_product_noise`]). A
//! distributed NTT (local transforms of length L/R, twiddles, an all-to-all,
//! transforms of length R) would exchange the same volume, but needs as many
//! exchanges and its own twiddle code; splitting the columns reuses the
//! engine's vectorized convolution as it is and keeps per-rank work at 1/R of
//! the one-process work whatever L and R are. Working one prime at a time
//! bounds the exchange buffers by 1/(level + 1) of the operands.
//!
//! # Checked transport
//! Every exchange sends, next to each payload, a header binding it to the
//! context fingerprint, the sender and receiver, a sequence number, the
//! prime and the word count, with a checksum of the payload
//! ([`frame`]). A receiver checks all of them, and the engine checks every
//! residue against its prime. After each exchange the ranks agree on the
//! outcome, so a corrupted buffer makes *every* rank return
//! [`Error::Corrupted`] naming the sending and receiving ranks instead of one
//! rank failing while the others wait. MPI's error handler is set to return
//! errors, which become [`Error::Mpi`]; a watchdog ends a rank whose
//! collective has not finished within the `Cluster`'s timeout (a lost
//! peer), with a message naming the rank and the step, so a job never hangs.
//!
//! Payloads between ranks on one node do not travel at all by default: the
//! sender stages them in its segment of an MPI-3 shared-memory window, the
//! header says where, and the receiver reads them there ([`Transport`]).
//! Ranks on other nodes, or every rank with `Transport::Messages`, get them
//! in MPI messages. The headers, checksums and agreements are the same
//! either way.
//!
//! # Why a cargo feature
//! The MPI code (`Cluster`, `DistributedPolynomial`, `DistributedFft`) is behind the
//! feature `mpi` (off by default): rsmpi links the system's MPI and runs
//! bindgen (libclang) at build time, and the other crates and `cargo test
//! --workspace` must build without either. The partition, the frame format
//! and the [cost model](cost) need no MPI and are always built (and tested).
//!
//! Build and test with MPI: `cargo test -p he-mpi --features mpi`, and the
//! multi-rank runs with `mpirun -np R target/debug/deps/mpi_ranks-*`
//! (scripts/test-mpi.sh). The examples `mpi_quotient` and `mpi_fft` run the
//! quotient and the FFT on `mpirun -np R` and check them against the
//! one-process results.
#![deny(missing_docs)]

mod checksum;
#[cfg(feature = "mpi")]
mod cluster;
pub mod cost;
mod error;
#[cfg(feature = "mpi")]
mod fft;
pub mod frame;
mod partition;
#[cfg(feature = "mpi")]
mod polynomial;
#[cfg(feature = "mpi")]
mod scratch;
#[cfg(feature = "mpi")]
mod shared;
#[cfg(feature = "mpi")]
mod watchdog;

#[cfg(feature = "mpi")]
pub use cluster::{Cluster, Traffic, DEFAULT_TIMEOUT};
pub use error::{Error, Result};
#[cfg(feature = "mpi")]
pub use fft::DistributedFft;
/// The rsmpi crate this layer is built on (initialize MPI with `mpi::initialize()`).
#[cfg(feature = "mpi")]
pub use mpi;
pub use partition::Partition;
#[cfg(feature = "mpi")]
pub use polynomial::DistributedPolynomial;
#[cfg(feature = "mpi")]
pub use shared::Transport;
