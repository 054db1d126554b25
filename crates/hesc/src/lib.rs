//! Homomorphic encryption for stochastic computing (HESC).
//!
//! Stochastic computing (SC) represents a number by the fraction of ones in
//! a random bit stream of length L: unipolar HW/L in \[0, 1\] or inverted
//! bipolar 1 − 2·HW/L in \[−1, 1\]. Products become bit-wise AND (unipolar)
//! or XOR (inverted bipolar) and sums become random multiplexing or the
//! concatenation of streams. Encrypting the bits with an additively
//! homomorphic scheme evaluates both without ciphertext × ciphertext
//! multiplication and without bootstrapping — XOR is an addition whose
//! parity is read after decryption — at the price of SC's sampling noise,
//! which shrinks as 1/√L.
//!
//! # Layers
//!
//! * SC in the clear, the reference model: [`BitStream`], [`StochasticNumber`]
//!   with [`Encoding`] and B2S ([`B2s`]) / S2B, [`Selection`] streams, and
//!   [`model`] (multiplication, multiplexed and concatenated addition,
//!   Proposition 1).
//! * Basic HESC, one ciphertext per bit: [`BasicHesc`] over the
//!   [`backend::AdditiveHe`] trait, with lifted EC-ElGamal on BN254 G1,
//!   Goldwasser–Micali and BGV in bit mode.
//! * Packed HESC over BGV: [`PackedHesc`] puts L bits (of one or several
//!   streams, "lanes") into the slots of a ciphertext; fusion and separation
//!   ([`PackedHesc::fuse`], [`FusionCapacity`]) cut the ciphertexts to decrypt.
//! * [`params`]: secure BGV parameter sets; [`fields`]: small batching fields.
//!
//! The paper's applications (Σ xⁱ and oblivious Iris inference) are in the
//! `hesc-apps` crate, built on this crate's public API.
//!
//! ```
//! use hesc::fields::Fp65537;
//! use hesc::{model, params, B2s, Encoding, PackedHesc, StochasticNumber};
//! use helib_rs::{Context, SecretKey};
//! use rand::SeedableRng;
//!
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! let ibp = Encoding::InvertedBipolar;
//! let x = StochasticNumber::encode(0.5, 2048, ibp, B2s::Bernoulli, &mut rng)?;
//! let y = StochasticNumber::encode(-0.8, 2048, ibp, B2s::Bernoulli, &mut rng)?;
//!
//! // Insecure test parameters (N = 4096) keep the doctest fast; use
//! // `params::t65537(14, 2)` or `params::t12289_n11()` for 128-bit security.
//! let hesc = PackedHesc::<Fp65537>::new(&Context::new(&params::t65537_for_tests()?)?)?;
//! let sk = SecretKey::generate(hesc.context())?;
//! let pk = sk.public_key()?;
//! let (cx, cy) = (hesc.encrypt(&pk, &[x.clone()])?, hesc.encrypt(&pk, &[y.clone()])?);
//!
//! // x·y by XOR (a ciphertext addition), and (x + x·y)/2 by concatenation.
//! let product = hesc.xor(&cx, &cy)?;
//! let sum = hesc.concat(&[&cx, &product])?;
//! let decrypted = hesc.decrypt(&sk, &sum)?.remove(0);
//! let xy = model::multiply(&x, &y)?;
//! assert_eq!(decrypted, model::concat_add(&[&x, &xy])?); // the same bits as in the clear
//! assert!((decrypted.value() - (0.5 + 0.5 * -0.8) / 2.0).abs() < 0.05);
//! # Ok::<(), hesc::Error>(())
//! ```
//!
//! # Side channels
//!
//! What our code guarantees for secret values, and each exception:
//!
//! * **EC-ElGamal, constant flow.** Every product with a secret scalar (the
//!   key x in key generation and decryption, the randomness r and the message
//!   m in encryption) runs the same instructions on the same addresses whatever
//!   the scalar: fixed-base tables (of G and H, 64 four-bit windows; of G for
//!   the u64 message, 16) are read by masked scans over all 16 entries of every
//!   window, with offset entries so that a zero digit costs a full addition
//!   too; x·C1 is a Montgomery ladder of 254 steps (the scalar field's size,
//!   not the scalar's) over k + r or k + 2r, with masked swaps. Copies of
//!   secret scalars are wiped.
//! * **Exception: arkworks' arithmetic.** Underneath, arkworks' field
//!   operations (e.g. the conditional final subtraction of a Montgomery
//!   product, the conversion out of Montgomery form) and its group law (the
//!   branches on the identity and on equal or opposite inputs) are not written
//!   to be constant time, so our code fixes the control flow and the memory
//!   access pattern, not the timing of each field operation. The group law's
//!   exceptional branches are kept out of reach: the tables are summed from
//!   the top window down and the offsets of encryption come off in one final
//!   addition, so only a few dozen specific large scalars (or a random r with
//!   probability about 2^-250) reach one there; the ladder reaches one only
//!   for x ∈ {0, 1, −2, −1} (or C1 the identity, whatever x), and key
//!   generation never picks 0 (the others have
//!   probability 3/r). The tests check these claims for edge-case scalars.
//! * **Exception: EC-ElGamal's discrete logarithm.** After x·C1, decryption
//!   searches m·G baby-step/giant-step in a hash table: its time depends on
//!   the decrypted message (not on the key).
//! * **Exception: Goldwasser–Micali.** Its arithmetic is num-bigint's, which
//!   is variable time: key generation and the Jacobi symbol modulo p in
//!   decryption take time that depends on the secret factors. The factors p and
//!   q are wiped after key generation, the key's copy of p on drop, and the
//!   values derived from p while decrypting as they are replaced; num-bigint's
//!   internal temporaries cannot be (it has no zeroization).
//! * **BGV** runs in the engine (`helib-sys`): its Gaussian sampler scans its
//!   whole table for every sample, and t·e in encryption is masked arithmetic,
//!   not a table lookup.
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
