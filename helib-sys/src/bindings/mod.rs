//! The declarations of the C interface, one module a part of
//! `cpp/include/helib_c.h`: `cpp/include/helib_c/<part>.h` is declared in
//! `<part>.rs`. The modules are bindgen's output, committed (the `bindgen`
//! feature regenerates them, formatted by bindgen itself, hence the
//! `rustfmt::skip`); every item is re-exported here and from the crate root,
//! so `helib_sys::helib_*` paths do not name a part.

/// Status codes and the opaque handle types (`helib_c/types.h`).
#[rustfmt::skip]
mod types;
/// The message and the typed detail of the last failure (`helib_c/errors.h`).
#[rustfmt::skip]
mod errors;
/// Contexts and the security table (`helib_c/context.h`).
#[rustfmt::skip]
mod context;
/// Secret and public keys (`helib_c/keys.h`).
#[rustfmt::skip]
mod keys;
/// Encoded plaintexts and their raw residue form (`helib_c/plaintext.h`).
#[rustfmt::skip]
mod plaintext;
/// Ciphertexts, what the engine tracks about them, their residues
/// (`helib_c/ciphertext.h`).
#[rustfmt::skip]
mod ciphertext;
/// Encryption, decryption and the noise model (`helib_c/encryption.h`).
#[rustfmt::skip]
mod encryption;
/// Evaluation without keys (`helib_c/evaluate.h`).
#[rustfmt::skip]
mod evaluate;
/// Key-switching keys and the operations that use them
/// (`helib_c/key_switching.h`).
#[rustfmt::skip]
mod key_switching;
/// Block products (`helib_c/block_product.h`).
#[rustfmt::skip]
mod block_product;
/// Baby-step giant-step linear transforms (`helib_c/linear_transform.h`).
#[rustfmt::skip]
mod linear_transform;
/// The versioned binary format (`helib_c/serialization.h`).
#[rustfmt::skip]
mod serialization;
/// N-out-of-N threshold BGV (`helib_c/threshold.h`).
#[rustfmt::skip]
mod threshold;
/// t-out-of-N threshold by Shamir re-sharing (`helib_c/shamir.h`).
#[rustfmt::skip]
mod shamir;
/// CPU kernel paths and the engine's memory pool (`helib_c/runtime.h`).
#[rustfmt::skip]
mod runtime;
/// The NTT over the plaintext field (`helib_c/field_ntt.h`).
#[rustfmt::skip]
mod field_ntt;

pub use block_product::*;
pub use ciphertext::*;
pub use context::*;
pub use encryption::*;
pub use errors::*;
pub use evaluate::*;
pub use field_ntt::*;
pub use key_switching::*;
pub use keys::*;
pub use linear_transform::*;
pub use plaintext::*;
pub use runtime::*;
pub use serialization::*;
pub use shamir::*;
pub use threshold::*;
pub use types::*;
