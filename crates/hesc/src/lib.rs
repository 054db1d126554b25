//! Homomorphic encryption for stochastic computing (HESC).
//!
//! Stochastic computing (SC) represents a number by the fraction of ones in
//! a random bit stream; products become bit-wise XOR (inverted bipolar) or
//! AND (unipolar) and sums become random multiplexing or concatenation.
//! Encrypting the bits with an additively homomorphic scheme gives both
//! operations over ciphertexts without ciphertext × ciphertext
//! multiplication and without bootstrapping, at the price of SC's sampling
//! noise (error ∝ 1/√L).
#![deny(missing_docs)]

pub mod backend;
mod basic;
mod bits;
mod error;
pub mod fields;
pub mod model;
mod number;
mod packed;
pub mod params;
mod selection;

pub use basic::{BasicHesc, EncryptedStream};
pub use bits::BitStream;
pub use error::{Error, Result};
pub use number::{B2s, Encoding, StochasticNumber};
pub use packed::{FusedCiphertext, FusedStreams, FusionCapacity, PackedHesc, PackedStream};
pub use selection::Selection;
