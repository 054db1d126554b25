//! A stream of little-endian 64-bit words with checkpoints of a running
//! checksum: the byte format saved transforms are written in
//! ([`lintrans::io`](crate::lintrans::io)).
//!
//! [`WordWriter`] writes words and checkpoints, buffered for the small
//! fields; large slices go out piece by piece with no copy. [`WordReader`]
//! reads them back, range-checks fields as asked, and compares each
//! checkpoint with the running checksum of what it read.
//!
//! A checkpoint is the running checksum of every word before it: sixteen
//! lanes of `(lane ^ word) · K` rotated (lane i takes the words at positions
//! ≡ i mod 16, so the lanes run as independent vector lanes), folded with the
//! word count at the checkpoint. Each step is a
//! bijection of the lane, so a change to any single word is always detected,
//! and other corruptions are missed with probability about 2^-64. It guards
//! against accidents (truncated copies, flipped bits), not against an
//! adversary: it is not a MAC, and a file from an untrusted source can be
//! forged.

mod checksum;
mod reader;
mod writer;

pub use reader::WordReader;
pub use writer::WordWriter;
pub(crate) use writer::PIECE_WORDS;
