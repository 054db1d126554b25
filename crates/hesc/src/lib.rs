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
//! * [`apps`]: the paper's applications, Σ xⁱ and oblivious Iris inference.
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
#![deny(missing_docs)]

pub mod apps;
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
