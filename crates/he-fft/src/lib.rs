//! Encrypted FFT/NTT over FFT-friendly prime fields (BN254's scalar field first)
//! on BGV ciphertexts, in the vocabulary of arkworks' `EvaluationDomain`.
//!
//! A [`FftPlan`] is built once for a context, a size n, a direction
//! ([`Direction::Forward`] = `fft`, [`Direction::Inverse`] = `ifft`), an
//! optional coset offset (`coset_fft` / `coset_ifft`) and a [`Strategy`]; it
//! factors the transform into slot transforms, encodes their diagonals and
//! names the Galois keys it needs ([`FftPlan::required_galois_elements`]).
//!
//! # Strategies
//! - [`Strategy::Dense`]: the n×n matrix by the diagonal method with
//!   baby-step giant-step — n plaintext products, one level (the reference
//!   system's method; its n diagonals are built and encoded at every execution
//!   instead of being stored in the plan).
//! - [`Strategy::Factored`]: the log2(n) radix-2 butterfly stages grouped into
//!   k levels; a level of s stages has at most 2^(s+1) − 1 diagonals, evaluated
//!   by baby-step giant-step. With [`KeyMode::Fast`] a level is one
//!   double-hoisted [`Ciphertext::linear_transform`](helib_rs::Ciphertext::linear_transform):
//!   one decomposition of the input, baby steps summed in the key-switching
//!   basis, and Horner giant steps with one division by P each.
//!   [`KeyMode::MinimalKeys`] iterates unit rotations instead (O(1) keys per level).
//! - n > N (several ciphertexts): a four-step split whose cross-ciphertext
//!   stage uses additions (C = 2) or scalar products, never rotations.
//!
//! # Layouts and orders
//! - n ≤ N/2: the vector repeats along both slot rows.
//! - n = N: entries 0..N/2 in row 0, the rest in row 1.
//! - n = C·N: forward takes natural chunks (ciphertext c holds entries
//!   cN..(c+1)N) and returns ciphertext k, slot q = entry `k + C·bitrev(q)`;
//!   the inverse takes that layout and returns natural chunks.
//!
//! For one ciphertext, the factored strategy maps natural input order to
//! bit-reversed output order and bit-reversed input to natural output, both
//! for free ([`FftPlanBuilder::input_order`]); chaining `ifft` (natural →
//! bit-reversed) into `coset_fft` (bit-reversed → natural) needs no
//! permutation. The dense strategy is natural → natural. A natural →
//! natural factored transform ([`FftPlanBuilder::natural_output`]) costs one
//! more level: a bit-reversal permutation with up to n diagonals.
//!
//! [`FftPlan::encrypt`] / [`FftPlan::decrypt`] pack and unpack vectors in the
//! plan's orders so callers can compare with `Radix2EvaluationDomain` directly.
//!
//! # Memory
//! [`FftPlanBuilder::memory_estimate`] computes, from the plan's shape alone,
//! the bytes of its encoded diagonals, of the Galois keys it needs and of one
//! execution ([`MemoryEstimate`]); [`FftPlanBuilder::build`] refuses a plan
//! whose estimated peak exceeds [`FftPlanBuilder::memory_limit`] (by default
//! the memory the system reports available) before encoding anything.
//!
//! # Errors
//! Every bad setting or input is a typed [`Error`], checked before any work:
//! sizes, zero coset offsets, level counts, levels, ciphertext counts (to
//! [`FftPlan::execute`] and [`FftPlan::decrypt`] alike), contexts, unrelinearized
//! inputs, missing keys, noise budget and memory.

mod bsgs;
mod conversion;
mod error;
mod layout;
mod memory;
mod params;
mod plan;
mod special;
mod stages;
mod transform;

pub use bsgs::{KeyMode, Schedule};
pub use conversion::{ConversionPlan, ConversionPlanBuilder};
pub use error::{Error, Result};
pub use layout::Packing;
pub use memory::{available_memory_bytes, MemoryEstimate};
pub use params::{chain_bits_for_levels, suggest_parameters};
pub use plan::{affordable_levels, Direction, FftPlan, FftPlanBuilder, PlanCost, Strategy};
pub use special::{Conversion, SlotForm};
pub use stages::{bit_reverse, bit_reverse_permute, Order};
pub use transform::{Shift, SlotTransform};
