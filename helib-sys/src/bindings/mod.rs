//! The declarations of the C interface, one module a part of
//! `cpp/include/helib_c.h`: `cpp/include/helib_c/<part>.h` is declared in
//! `<part>.rs`. The modules are bindgen's output, committed (the `bindgen`
//! feature regenerates them, formatted by bindgen itself; declared through
//! `parts!`, they are not reformatted by rustfmt); every item is re-exported
//! here and from the crate root, so `helib_sys::helib_*` paths do not name a
//! part.

/// Declares the module of each part and re-exports its items.
macro_rules! parts {
    ($($(#[$doc:meta])* $part:ident;)*) => {
        $(
            $(#[$doc])*
            mod $part;
            pub use $part::*;
        )*
    };
}

parts! {
    /// Status codes and the opaque handle types (`helib_c/types.h`).
    types;
    /// The message and the typed detail of the last failure (`helib_c/errors.h`).
    errors;
    /// Contexts and the security table (`helib_c/context.h`).
    context;
    /// Secret and public keys (`helib_c/keys.h`).
    keys;
    /// Encoded plaintexts and their raw residue form (`helib_c/plaintext.h`).
    plaintext;
    /// Ciphertexts, what the engine tracks about them, their residues
    /// (`helib_c/ciphertext.h`).
    ciphertext;
    /// Encryption, decryption and the noise model (`helib_c/encryption.h`).
    encryption;
    /// Evaluation without keys (`helib_c/evaluate.h`).
    evaluate;
    /// Key-switching keys and the operations that use them
    /// (`helib_c/key_switching.h`).
    key_switching;
    /// Block products (`helib_c/block_product.h`).
    block_product;
    /// Baby-step giant-step linear transforms (`helib_c/linear_transform.h`).
    linear_transform;
    /// The versioned binary format (`helib_c/serialization.h`).
    serialization;
    /// N-out-of-N threshold BGV (`helib_c/threshold.h`).
    threshold;
    /// t-out-of-N threshold by Shamir re-sharing (`helib_c/shamir.h`).
    shamir;
    /// CPU kernel paths and the engine's memory pool (`helib_c/runtime.h`).
    runtime;
    /// The NTT over the plaintext field (`helib_c/field_ntt.h`).
    field_ntt;
}
