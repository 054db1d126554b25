//! Security analysis of he-cache's cached constructions, in code.
//!
//! An application of `he-cache` and `helib-rs`, kept out of both libraries:
//! it uses only their public API — engine ciphertexts are read through the
//! documented accessor `Ciphertext::residues`, never by byte offsets.
//!
//! The attacks use only what an adversary holds: the public key and
//! ciphertexts. They run twice:
//!
//! * on **engine ciphertexts**, as they travel ([`WireCiphertext`]: the
//!   residues of a ciphertext, or of its `Ciphertext::to_bytes`), with a public-key mask
//!   made by public operations standing in for the key ([`public_mask`]) —
//!   see `tests/engine_attack.rs`;
//! * on [`ToyBgv`], the engine's public-key BGV written out on one NTT prime
//!   (e.g. the engine's own q_0) with the same key, error and mask
//!   structure, where the secret key is in sight too and every step can be
//!   checked in the coefficient domain — see `tests/security.rs`.
//!
//! Rache and Smuche are generic over [`Algebra`](he_cache::Algebra), so both
//! runs attack *the same construction code*.
//!
//! # Findings
//!
//! Let (b, a) = (−a·s + t·e, a) be the public key and
//! P(c0, c1) = c0·a − c1·b ([`projection`]). P is R_q-linear and
//! P(b·ξ, a·ξ) = b·ξ·a − a·ξ·b = 0: it annihilates Smuche's mask exactly,
//! because the mask carries no fresh error terms.
//!
//! * **Smuche**: c_j = z_j·c + (b·ξ_j, a·ξ_j) ⇒ P(c_j) = z_j·P(c). Two
//!   ciphertexts built from one cached c have proportional projections, and
//!   the ratio z1/z2 mod q falls out of any coefficient ([`smuche_ratio`]);
//!   rational reconstruction turns it into the plaintext ratio when both are
//!   below √(q/2). A single encryption of 0 is recognized outright: P = 0
//!   ([`is_masked_zero`]). One known plaintext per pivot decrypts everything
//!   ([`span_decrypt`]). The paper's IND-CPA proof fails because it reduces
//!   to one fresh encryption, while all outputs share the cached c.
//! * **Rache**: outputs are base + Σ κ_i·c_i with small integers κ_i (digits
//!   plus the random bits of the "randomization"), so their projections lie
//!   in a space of dimension ≤ k + 1 ([`projection_rank`]): k + 2 outputs
//!   are linearly dependent, which never happens to fresh encryptions.
//!   The pairwise ratio attack does not apply (two outputs are not
//!   proportional), but k + 1 known plaintexts spanning the cache decrypt
//!   every further output ([`span_decrypt`]). Its randomization adds
//!   cached encryptions of zero; it brings no new randomness, only a choice
//!   among 2^(k−1) fixed combinations.
//! * **Fresh** and the **pool** (a fresh encryption of zero per message,
//!   used once): P(c) = a·(t·e0 + m) − t·e1·b carries fresh errors; no two
//!   are proportional, any set of them is linearly independent, and the
//!   attacks above all return `None`.

#![deny(missing_docs)]

mod attack;
mod engine;
mod linalg;
mod model;
mod ring;

pub use attack::{
    is_masked_zero, projection, projection_rank, ratio_of_projections, smuche_ratio, span_decrypt,
    span_decrypt_projections, Ratio,
};
pub use engine::{public_mask, wire_projection, WireCiphertext};
pub use linalg::{rank, rational_reconstruction, solve_in_span};
pub use model::{ToyBgv, ToyCiphertext, ToyPublicKey};
pub use ring::{Poly, ToyRing};
