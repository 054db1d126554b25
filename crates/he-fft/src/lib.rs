//! Encrypted FFT/NTT over FFT-friendly prime fields (BN254's scalar field first)
//! on BGV ciphertexts, in the vocabulary of arkworks' `EvaluationDomain`.
//!
//! A [`FftPlan`] is built once for a context, a size n, a direction
//! ([`Direction::Forward`] = `fft`, [`Direction::Inverse`] = `ifft`), an
//! optional coset offset (`coset_fft` / `coset_ifft`) and a [`Strategy`]; it
//! factors the transform into slot transforms, encodes their diagonals and
//! names the Galois keys it needs ([`FftPlan::required_galois_elements`]).
//! A [`ConversionPlan`] moves a ciphertext between slot form and coefficient
//! form (see "Slots and coefficients" below).
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
//!   Each level's baby count minimizes its rotation cost, plus, with
//!   [`FftPlanBuilder::executions`], the generation of its keys spread over
//!   the expected runs per set of keys: a run-once plan takes fewer baby
//!   steps (at n = 2^15: 27 keys and 17 full key switches instead of 50 and 7).
//! - n > N (several ciphertexts): a four-step split whose cross-ciphertext
//!   stage uses additions (C = 2) or scalar products, never rotations, and
//!   costs at most one level. Each ciphertext's size-N transform has its
//!   twiddles folded into one level (the first going forward, the last
//!   going back, made the shortest); that level is encoded once per
//!   ciphertext and the others once for all, so the plan grows with C by
//!   one level's diagonals. The ciphertexts run in parallel.
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
//! # Slots and coefficients
//! A plaintext polynomial and its slots are two views of one ring element:
//! slot j holds the polynomial's value at the evaluation point ψ^(±3^j)
//! ([`helib_rs::SlotLayout`]). A [`ConversionPlan`] moves a ciphertext from
//! one view to the other:
//! - [`Conversion::SlotsToCoefficients`]: slots holding the values a of a
//!   polynomial on H = ⟨ω⟩, |H| = n ≤ N/2, in the `Row` packing the plans
//!   above use ([`SlotForm::Evaluations`]; or holding its coefficients,
//!   [`SlotForm::Coefficients`]) become a ciphertext whose plaintext
//!   polynomial is the interpolant A (n coefficients, the rest zero). Its
//!   slots then hold A at all N points, so the product of two converted
//!   ciphertexts ([`Ciphertext::multiply`](helib_rs::Ciphertext::multiply))
//!   decrypts to the coefficients of A·B (of degree < 2n − 1 ≤ N − 1: no
//!   wrap-around), with no further rotation or key.
//! - [`Conversion::CoefficientsToSlots`]: a plaintext polynomial of degree
//!   < n back to its values on H (or its coefficients) in the slots.
//!
//! **When it is free.** Whoever encrypts chooses the view: a client that
//! holds its values interpolates them in the clear (one `ifft`, 18 ms at
//! n = 2^16 with ark-poly) and encrypts the coefficients directly
//! (`Plaintext::from_biguints`, or [`ConversionPlan::encrypt`] of a
//! coefficients-to-slots plan). The server then gets coefficient form with
//! no work, no keys and no noise; likewise a client reading a result
//! decrypts once and reads whichever view it needs (coefficients, or
//! [`BatchEncoder::decode`](helib_rs::BatchEncoder::decode)). Choose this
//! whenever the data's owner encrypts it.
//!
//! **When the server needs it.** Data that is already encrypted in slots:
//! the output of slot-wise computation (the FFT plans above, products and
//! sums of batched ciphertexts, `hesc`), or evaluations that other parties
//! encrypted and cannot re-encode (e.g. several parties each contributing
//! evaluations of their share, or a protocol fixing the batched encoding).
//! Then the conversion is a linear map of the slots like the FFT: the
//! log2(n) steps of the inverse FFT on H fused with log2(n) butterflies of
//! the special FFT of CKKS bootstrapping (three diagonals each, rotations
//! by ±2^i inside the rows), merged into [`ConversionPlan::depth`] levels;
//! one level is the dense map with n diagonals. Each level is a plaintext
//! product of about log2 t + log2 N bits of budget (≈ 270 bits for BN254),
//! so [`conversion_levels`] chooses the fewest levels with at most 256
//! diagonals each (1 for n ≤ 256, 3 for n = 1,024, 5 for n = 2^16) and
//! [`suggest_conversion_parameters`] the smallest ≥128-bit ring N ≥ 2n whose
//! chain holds them plus the products that follow
//! ([`helib_rs::noise::transformed_product_bits`] each).
//! Measured on 1 thread: n = 256 at N = 2^16, one level (256 products, 7
//! full key switches): 2.6–2.8 s; n = 2^16 at N = 2^17, five levels with
//! [`KeyMode::MinimalKeys`] and
//! [`encode_per_execution`](ConversionPlanBuilder::encode_per_execution)
//! (the default fast keys would need about 32 GiB there): 59 s in 5.9 GiB.
//!
//! The input must be in the `Row` packing (every copy along both rows, as
//! [`ConversionPlan::encrypt`] and the FFT plans with n ≤ N/2 produce it):
//! a vector in the first n slots with zeros elsewhere is a different
//! plaintext. A factored `ifft` plan leaves bit-reversed coefficients, which
//! a plan with [`SlotForm::Coefficients`] and
//! [`Order::BitReversed`](ConversionPlanBuilder::order) takes as they are
//! (though the fused [`SlotForm::Evaluations`] plan on the `ifft`'s input is
//! cheaper). The coefficients-to-slots direction assumes degree < n.
//!
//! # Parameters
//! [`suggest_plan_parameters`] picks, for any n from 2 to 2^22 and any
//! [`PlanOptions`], the smallest ring (2^12..=2^17) and chain that hold the
//! plan's whole depth ([`plan_depth`]: the per-ciphertext levels, the level
//! across ciphertexts, the bit-reversal level) at ≥128-bit security, and the
//! strategy with its level count made explicit to build the plan with.
//!
//! # What a plan depends on
//! A plan depends on the context (ring, chain, plaintext modulus — so on
//! the parameters, not on any key), the field, n, the direction, the coset
//! offset, the strategy and level count, the input order and level, the
//! natural-output and encode-per-execution options, the key mode and the
//! baby-step cap ([`FftPlan::spec`] returns the transform's part of it, a
//! [`PlanSpec`]). It holds no key: one plan serves any number of executions
//! and any number of clients of the same context, each bringing its own
//! Galois keys to [`FftPlan::execute`], and it may be shared between threads
//! (`FftPlan` is `Send + Sync`). Build it once per (context, options) and
//! keep it.
//!
//! Keep it across processes too: [`FftPlan::write_to`] saves it, one
//! diagonal at a time, and [`FftPlanBuilder::load_from`] loads it back for
//! the builder of the same plan, which costs reading the file and verifying
//! it instead of encoding every diagonal again (the encoded n = 2^15 plan is
//! 0.48 GiB and takes about 1.4 s to build on one thread). The file's header
//! records everything above; loading refuses a file of other parameters
//! ([`Error::PlanContextMismatch`]), of another field
//! ([`Error::PlanFieldMismatch`]) or format version, and truncated or
//! corrupted bytes ([`Error::PlanFormat`]: a per-diagonal checksum and range
//! checks on every field and residue).
//!
//! **Plan files cannot lie.** The checksum is integrity, not
//! authentication: it has no key, so whoever can write a file can recompute
//! it, and a file with a negated or swapped diagonal, another plan's
//! diagonals, or a changed direction or coset label passes it. So a load
//! trusts nothing the file claims. There is no way to load a plan without
//! saying which: [`FftPlanBuilder::load_from`] takes the builder of the plan
//! wanted, and a file whose header names another plan (an inverse plan
//! stored under the forward plan's file name, another coset, size,
//! strategy, option, key policy or input level) is refused with
//! [`Error::PlanMismatch`] naming the field. The levels read are then
//! verified against the slot transforms the builder's plan is made of
//! before the plan is returned ([`Error::PlanVerification`] otherwise):
//! schedules, places, forms, strides, correction factors and norms exactly,
//! and every encoded diagonal's residues by a random test drawn from the
//! operating system's CSPRNG at each load (one random linear function of
//! all the residues per prime, [`helib_rs::lintrans::verify`]), which a file
//! with any residue of any diagonal changed passes with probability at most
//! 2^-40, whether it changes a diagonal modulo t or inflates its lift by
//! a multiple of t. The verification recomputes the builder's slot
//! transforms and takes each diagonal from slots to coefficients over F, as
//! a build does, but skips the build's lift to the primes and NTT per
//! prime: a load with its verification takes about three quarters of a
//! build (0.97 s against 1.33 s at n = 2^15 on one thread of a 2-core VM,
//! 2026-11-28; 43–57% in two runs of 2026-11-29 with the VM loaded by other
//! builds; the table, the profile and why no sound check gets near 5% of a
//! build are in `src/plan/verify.rs`).
//!
//! **Plans a user saved load without the verification.** A [`PlanKey`]
//! (32 secret bytes per user, in a key file only the user can read,
//! [`PlanKey::user`]) tags the files [`FftPlan::write_to_with_key`] saves
//! with GMAC-AES-256 (NIST SP 800-38D, under a key derived from the plan
//! key with HKDF-SHA256 and a fresh nonce per file) over all their bytes,
//! and [`FftPlanBuilder::load_with_key`] accepts a file carrying its key's
//! valid tag after the header check alone ([`PlanCheck::Authenticated`]);
//! any other file (untagged, another key's, changed after it was saved, or
//! of format version 6) is verified as above ([`PlanCheck::Recomputed`]).
//! Whoever can write the plan store but not read the key file cannot make a
//! changed plan pass as authenticated (a forgery succeeds with probability
//! at most about 2^-101 per try for files up to 2 GiB). The MAC runs on the
//! processor's carry-less multiplication as the file streams into the
//! engine's buffers, so an authenticated load costs 2–3% of a build at
//! n = 2^12 and 2^15 on one thread (5–6% at 2^18, where the engine zeroes
//! fresh pages for the plan; under 4% on the loading thread); trust model in
//! `src/plan/io/mod.rs`, the MAC and its bound in `src/plan/gmac.rs`, figures
//! in `src/plan/verify.rs`.
//!
//! The diagonals are stored in the engine's internal form (residues in NTT
//! and Montgomery form), so a file also depends on that form: a build whose
//! engine changes it, or the file's layout or checksum, changes
//! `PLAN_FORMAT_VERSION` (and with it the file names), and older files are
//! refused with [`Error::PlanVersion`], except version 6 files, which
//! differ only in their tags and load by verification alone.
//! [`FftPlanBuilder::plan_file_name`]
//! names a plan file after its parameters, for a cache directory
//! (`encrypted_fft --plan-cache DIR` uses one).
//!
//! # Building and threads
//! Building computes the radix-2 stages, composes them into levels and
//! encodes each diagonal (slots to coefficients over F, then lifting to the
//! engine's primes). All of it runs in parallel on a pool with as many
//! threads as the context's engine (the lifting also uses the engine's own
//! pool when it is free), so a context with `threads(1)` builds on one
//! thread. A four-step plan composes the shared levels once and only the
//! twiddle-absorbing level per ciphertext.
//!
//! Most levels are cheap to build and small to keep. A butterfly of span h
//! has coefficients that depend on the index mod 2h alone, so a level whose
//! widest span is h has diagonals repeating with period 2h along the slot
//! rows (with `Row` packing, every level repeats with period n). Such a
//! diagonal is a polynomial in X^(N/4h) (slots invariant under the rotation
//! by 2h are the ring fixed by X ↦ X^(3^2h)), so the stages are composed on
//! 2h slots a row, the slots go to coefficients by a transform of size 4h,
//! and the engine lifts and keeps 4h words a prime instead of N
//! ([`helib_rs::EncodedPlaintext::stride`]). Only a level whose period
//! reaches the row length N/2 (the one holding the widest spans, for
//! n ≥ N/2), a coset-scaled level in the `Full` packing and the
//! twiddle-absorbing levels beyond N are full: at n = 2^15, 32 of the 158
//! diagonals, and the plan is 0.48 GiB instead of 1.87.
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

mod admission;
mod conversion;
mod domain;
mod error;
mod layout;
mod memory;
mod options;
mod parallel;
mod params;
mod plan;
mod special;
mod stages;

/// The arkworks polynomial crate this API mirrors (ark-poly 0.6): use it,
/// or pin `ark-poly = "0.6"`, so that domains and fields match.
pub use ark_poly;

pub use conversion::{ConversionPlan, ConversionPlanBuilder};
pub use error::{Error, Result};
pub use layout::Packing;
pub use memory::{available_memory_bytes, MemoryEstimate};
pub use params::{
    conversion_levels, default_levels, plan_depth, suggest_conversion_parameters,
    suggest_parameters, suggest_parameters_at_least, suggest_plan_parameters, PlanOptions,
    PlanParameters,
};
pub use plan::{
    affordable_levels, Direction, FftPlan, FftPlanBuilder, FourStep, PlanCheck, PlanCost, PlanKey,
    PlanSpec, Strategy, Unauthenticated, PLAN_KEY_BYTES,
};
pub use special::{Conversion, SlotForm};
pub use stages::{bit_reverse, bit_reverse_permute, Order};

/// The slot-transform types of the API above ([`FftPlan`] levels are
/// [`SlotTransform`]s evaluated by [`Schedule`]s under a [`KeyMode`]), from
/// [`helib_rs::lintrans`].
pub use helib_rs::lintrans::{KeyMode, KeyPolicy, Schedule, Shift, SlotTransform};

/// The crate README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
