//! Cached encryption for BGV: Rache, Smuche and a secure online/offline encryptor.
//!
//! Public-key encryption is the expensive step of many HE workloads. This
//! crate implements three ways to make it cheaper on the engine of
//! `helib-rs`, behind one trait, [`Encryptor`], so callers and benches swap
//! them freely:
//!
//! | type | construction | security |
//! |---|---|---|
//! | [`FreshEncryptor`] | a fresh public-key encryption per message | secure (the baseline) |
//! | [`SecurePool`] | offline: a bounded pool of fresh encryptions of zero, filled by background threads; online: take one (used once) and add the message | secure |
//! | [`InsecureSmuche`] | a cached pivot times a scalar, plus the public-key mask (Zhao 2023) | **broken**: two outputs reveal their plaintext ratio |
//! | [`InsecureRache`] | radix pivots added digit by digit, plus cached encryptions of zero (Tawose et al. 2023) | **broken**: outputs span k + 1 dimensions; k + 1 known plaintexts decrypt the rest |
//!
//! The insecure constructions are kept for comparison; the
//! `he-cache-analysis` crate shows, in code, how they fail. [`params::cached_encryption`] gives 128-bit-secure
//! parameter sets for them.
//!
//! ```
//! use std::sync::Arc;
//! use he_cache::{Encryptor, FreshEncryptor, InsecureSmuche, Radix, Engine};
//! use helib_rs::{Context, Parameters, SecretKey};
//! use num_bigint::BigUint;
//!
//! let context = Context::new(&Parameters::for_tests())?;
//! let sk = SecretKey::generate(&context)?;
//! let pk = Arc::new(sk.public_key()?);
//! let encryptors: Vec<Box<dyn Encryptor>> = vec![
//!     Box::new(FreshEncryptor::new(pk.clone())),
//!     Box::new(InsecureSmuche::new(Engine::new(pk), Radix::new(10, 3)?)?),
//! ];
//! for encryptor in &encryptors {
//!     let ct = encryptor.encrypt_value(&BigUint::from(1200u32))?;
//!     assert_eq!(sk.decrypt(&ct)?.coefficient(0), Some(BigUint::from(1200u32)));
//! }
//! # Ok::<(), he_cache::Error>(())
//! ```
#![deny(missing_docs)]

mod algebra;
mod encryptor;
mod error;
mod fresh;
pub mod params;
mod pool;
mod rache;
mod radix;
mod smuche;

pub use algebra::{Algebra, Engine};
pub use encryptor::{Encryptor, PlaintextEncryptor, Security};
pub use error::{Error, Result};
pub use fresh::FreshEncryptor;
pub use pool::{PoolConfig, PoolStats, Prepared, SecurePool, WhenDry};
pub use rache::InsecureRache;
pub use radix::{Radix, MAX_PIVOTS};
pub use smuche::InsecureSmuche;
