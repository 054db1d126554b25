//! Safe Rust API for BGV homomorphic encryption with big plaintext moduli.
//!
//! The engine (C++17, behind the C interface of `helib-sys`) implements BGV
//! over the ring Z\[X\]/(X^N + 1) for plaintext moduli t up to hundreds of
//! bits — such as the 254-bit scalar field of BN254 — as well as small primes
//! like 65537. This crate wraps it without `unsafe` in its public API: every
//! fallible operation returns [`Result`], objects of different contexts or
//! levels never mix silently, and secret keys never leave the engine's memory.
//!
//! # Overview
//!
//! 1. Choose [`Parameters`] (a preset such as [`Parameters::bn254_n16`],
//!    [`Parameters::builder`], or the [`Advisor`]'s pick for a [`Workload`])
//!    and build a [`Context`].
//! 2. Generate a [`SecretKey`] and its [`PublicKey`].
//! 3. Make [`Plaintext`]s directly from coefficients, with a
//!    [`CoefficientEncoder`], or — when t is a prime with 2N | t − 1 — pack N
//!    field elements into slots with a [`BatchEncoder`].
//! 4. Encrypt, compute on [`Ciphertext`]s (additions, ciphertext × plaintext
//!    products through [`EncodedPlaintext`], scalar products, modulus
//!    switching), and decrypt. A public plaintext that is a polynomial in
//!    X^s (as are slot vectors repeating along the rows) is kept compact,
//!    s times smaller ([`EncodedPlaintext::stride`]).
//! 5. For linear maps of the slot vector (rotations, permutations, FFT
//!    stages), describe the map by its diagonals and evaluate it with the
//!    baby-step giant-step objects of [`lintrans`], which also name the
//!    Galois keys it needs.
//!
//! ```
//! use ark_bn254::Fr;
//! use helib_rs::{BatchEncoder, Context, Parameters, SecretKey};
//!
//! // Small insecure parameters (N = 4096) keep the example fast.
//! let context = Context::new(&Parameters::for_tests())?;
//! let sk = SecretKey::generate(&context)?;
//! let pk = sk.public_key()?;
//! let encoder = BatchEncoder::<Fr>::new(&context)?;
//!
//! let a = [Fr::from(3u64), Fr::from(5u64), -Fr::from(1u64)];
//! let b = [Fr::from(7u64), Fr::from(11u64), Fr::from(2u64)];
//! let ct_a = pk.encrypt(&encoder.encode(&a)?)?;
//! let ct_b = pk.encrypt(&encoder.encode(&b)?)?;
//!
//! // (a + b) · b, slot by slot.
//! let sum = (&ct_a + &ct_b)?;
//! let b_plain = encoder.encode_for_multiplication(&b, sum.level())?;
//! let product = (&sum * &b_plain)?.mod_switch_reduce_noise()?;
//!
//! let slots = encoder.decode(&sk.decrypt(&product)?)?;
//! assert_eq!(slots[..3], [Fr::from(70u64), Fr::from(176u64), Fr::from(2u64)]);
//! # Ok::<(), helib_rs::Error>(())
//! ```
//!
//! # Choosing parameters
//!
//! Describe a computation as a [`Workload`] (t, the noise it adds in the
//! terms of the [`noise`] model, key switching, smudging room, smallest
//! ring, slots) and the [`Advisor`] returns the smallest parameters of at
//! least 128-bit security that hold it; [`Advisor::profile`] measures, on
//! this machine, the client's and the server's latencies of a few candidate
//! rings (see [`advice`]). The crates of this workspace pick their
//! parameters this way.
//!
//! ```
//! use helib_rs::advice::{Circuit, Demand, KeySwitching};
//! use helib_rs::{Advisor, Context, Workload};
//!
//! // One product of fresh BN254-sized ciphertexts, no key switching.
//! let t = helib_rs::num_bigint::BigUint::from(1u32) << 254u32;
//! let demand = Demand::new(Circuit::CiphertextProducts { products: 1, terms: 1 });
//! let workload = Workload::new(t, demand).key_switching(&[KeySwitching::None]);
//! let advice = Advisor::new(workload).advise()?;
//! assert_eq!(advice.ring_degree(), 1 << 15);
//! assert!(advice.log_qp() <= advice.max_log_qp());
//! let _context = Context::new(advice.parameters())?;
//! # Ok::<(), helib_rs::Error>(())
//! ```
//!
//! # Noise
//!
//! Every ciphertext carries noise that grows with each operation; decryption
//! fails with [`Error::NoiseBudgetExhausted`] (instead of returning garbage)
//! once it is too large, and every operation refuses with the same error
//! rather than produce a ciphertext that might not decrypt.
//! [`Ciphertext::estimated_budget_bits`] tracks it without the key and
//! [`SecretKey::noise_budget`] measures it exactly.
//! The [`noise`] module is the noise and parameter model: what each
//! operation adds, the chains that hold a computation, and the search for the
//! smallest ring; [`ParametersBuilder::multiplicative_depth`] sizes its chain
//! with it.
//!
//! # Authenticity of serialized objects
//!
//! `to_bytes` / `from_bytes` use a versioned binary format with a SHA-256
//! checksum. The checksum detects accidents (corruption, truncation); it is
//! **not a MAC** and gives no authenticity: anyone who edits the bytes can
//! recompute it. A loaded ciphertext's noise estimate is taken on trust,
//! except that NaN and infinities are refused and an estimate below the noise
//! floor every ciphertext carries (about log2 t + 4.7 bits, that of a fresh
//! secret-key encryption) is raised to the floor. So bytes from an untrusted
//! source can understate a ciphertext's noise, and a ciphertext crafted with
//! structured noise can even pass decryption's exact check and decrypt to a
//! wrong plaintext. Load objects only from sources you trust, or authenticate
//! the bytes (a MAC or signature) before loading them.
//!
//! # Batches and threads
//!
//! [`PublicKey::encrypt_many`], [`SecretKey::decrypt_many`],
//! [`BatchEncoder::encode_many`] and [`BatchEncoder::decode_many`] run many
//! independent operations on rayon's pool. The engine's own workers
//! ([`Parameters::threads`]) split single operations, and the two pools do
//! not coordinate: give the engine one thread when batching on all cores, or
//! cap rayon (`RAYON_NUM_THREADS`) when the engine uses them.
//!
//! Long phases (context creation, key generation) are `tracing` spans
//! (`helib.context_new`, `helib.relin_key_generate`,
//! `helib.galois_keys_generate`, ...); the library prints nothing.
//!
//! # Serialization
//!
//! Besides `to_bytes` / `from_bytes`, [`Parameters`], [`Plaintext`],
//! [`Ciphertext`], [`PublicKey`], [`RelinKey`] and [`GaloisKeys`] implement
//! arkworks' `CanonicalSerialize` (ark-serialize 0.6, re-exported as
//! [`ark_serialize`]), and with the `serde` feature serde's `Serialize`, over
//! the same checked format. Objects that belong to a context deserialize as
//! [`Unbound<T>`] and load with [`Unbound::bind`]; [`Parameters`] implement
//! `CanonicalDeserialize` (and serde's `Deserialize`) directly.
//!
//! A [`SecretKey`] is serialized only on purpose: [`SecretKey::export_secret`]
//! takes a consent token ([`ExportSecret`]) and returns a buffer wiped on
//! drop, and only the wrapper [`SecretKeyExport`] implements the ark-serialize
//! and serde traits (see [`secret_export`]).
#![deny(missing_docs)]

pub mod advice;
mod align;
mod assembly;
mod batch;
mod block_product;
mod ciphertext;
mod components;
mod context;
mod encoded;
mod encoding;
mod error;
mod ffi;
mod galois_keys;
mod interop;
pub mod io;
mod keys;
mod limbs;
mod linear_transform;
pub mod lintrans;
mod multiply;
pub mod noise;
mod ops;
mod params;
mod plaintext;
mod relin_key;
mod residue_import;
mod residue_rows;
mod rotation;
pub mod secret_export;
mod security;
mod serialize;
pub mod threshold;

pub use advice::{Advice, Advisor, Workload};
pub use assembly::CiphertextAssembly;
pub use ciphertext::Ciphertext;
pub use context::{buffer_pool_limit_bytes, Context};
pub use encoded::EncodedPlaintext;
pub use encoding::{
    BatchEncoder, CoefficientEncoder, FieldCoefficientEncoder, FieldNtt, FieldNttKernel, SlotLayout,
};
pub use error::{Error, Result, Status};
pub use galois_keys::GaloisKeys;
pub use interop::{ContextBytes, Unbound};
pub use keys::{PublicKey, SecretKey};
pub use multiply::ModSwitchPolicy;
pub use params::{
    Parameters, ParametersBuilder, DEFAULT_KEY_SWITCHING_DIGITS, MAX_PRIMES, MAX_RING_DEGREE,
    MIN_RING_DEGREE,
};
pub use plaintext::Plaintext;
pub use relin_key::RelinKey;
pub use residue_rows::{OutputRows, RowOperand};
pub use rotation::RotationPolicy;
pub use secret_export::{ExportSecret, SecretKeyExport};
pub use security::{max_log_qp, SecurityLevel};
pub use serialize::FINGERPRINT_BYTES;

/// The arkworks field crate this API is built on (ark-ff 0.6): use it, or
/// pin `ark-ff = "0.6"`, so that your field types are the ones taken here.
pub use ark_ff;

/// The BN254 curve crate this API is built on (ark-bn254 0.6, feature
/// `curve`): `helib_rs::ark_bn254::Fr` is the scalar field the presets use.
pub use ark_bn254;

/// The arkworks serialization crate whose traits this API implements
/// (ark-serialize 0.6; see [`Unbound`]).
pub use ark_serialize;

/// The crate of [`Zeroizing`](zeroize::Zeroizing), the wiped buffer that
/// [`SecretKey::export_secret`] returns (zeroize 1).
pub use zeroize;

/// The big-integer crate of the public API (plaintext moduli, coefficients).
pub use num_bigint;

/// The crate README's Rust examples, compiled and run as doctests (the file
/// is inside the package, so this also runs from a packaged crate).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
