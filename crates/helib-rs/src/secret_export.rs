//! Export and import of secret keys: an explicit opt-in, never implicit.
//!
//! A [`SecretKey`] has no `to_bytes`, no `CanonicalSerialize` and no serde
//! `Serialize`: no generic code (a `Vec<T: CanonicalSerialize>`, a logging
//! or caching layer, a `#[derive(Serialize)]` on a struct holding a key) can
//! write one by accident. Writing it takes a call that names the risk:
//! [`SecretKey::export_secret`] with the token
//! [`ExportSecret::IUnderstandTheBytesAreTheKey`], or the wrapper
//! [`SecretKeyExport`] built with the same token, which alone carries the
//! ark-serialize and serde implementations.
//!
//! Why a token argument rather than a cargo feature: features are unified
//! across a dependency graph, so one crate anywhere in a build enabling an
//! "export secret keys" feature would turn it on for every other crate,
//! silently; a feature also says nothing at the place the key leaves. The
//! token is visible (and greppable) at every call site and costs nothing at
//! run time.
//!
//! The exported bytes are the key itself: anyone who reads them decrypts
//! everything encrypted under it. They come in a [`Zeroizing`] buffer that
//! wipes them when dropped; the engine writes them straight into that buffer
//! and wipes its own temporaries (the checksum's message schedule, the
//! coefficients it unpacks while loading). The format is the engine's checked
//! one (kind 7 in `helib-sys/cpp/SERIALIZATION.md`): loading checks the frame,
//! the checksum, the [fingerprint](crate::Context::fingerprint) of the
//! context and that every coefficient is −1, 0 or 1. It gives no
//! confidentiality: encrypt the bytes (e.g. with a key-wrapping scheme) before
//! they leave the process.
//!
//! ```
//! use helib_rs::{Context, ExportSecret, Parameters, Plaintext, SecretKey};
//!
//! let context = Context::new(&Parameters::for_tests())?;
//! let sk = SecretKey::generate(&context)?;
//! let ct = sk.public_key()?.encrypt(&Plaintext::from_u64s(&context, &[7, 8])?)?;
//!
//! let bytes = sk.export_secret(ExportSecret::IUnderstandTheBytesAreTheKey)?;
//! let loaded = SecretKey::import_secret(&context, &bytes)?;
//! assert_eq!(loaded.decrypt(&ct)?, Plaintext::from_u64s(&context, &[7, 8])?);
//! # Ok::<(), helib_rs::Error>(())
//! ```
//!
//! There is no implicit path: a `SecretKey` is not `CanonicalSerialize`
//! ```compile_fail
//! fn serializable<T: helib_rs::ark_serialize::CanonicalSerialize>() {}
//! serializable::<helib_rs::SecretKey>();
//! ```
//! nor `CanonicalDeserialize`
//! ```compile_fail
//! fn loadable<T: helib_rs::ark_serialize::CanonicalDeserialize>() {}
//! loadable::<helib_rs::SecretKey>();
//! ```
//! nor a context-bound [`Unbound`](crate::Unbound) object
//! ```compile_fail
//! fn bindable<T: helib_rs::ContextBytes>() {}
//! bindable::<helib_rs::SecretKey>();
//! ```
//! while the same check passes for the explicit wrapper:
//! ```
//! fn serializable<T: helib_rs::ark_serialize::CanonicalSerialize>() {}
//! serializable::<helib_rs::SecretKeyExport>();
//! ```

use std::fmt;
use std::io::{Read, Write};

use ark_serialize::{
    CanonicalDeserialize, CanonicalSerialize, Compress, SerializationError, Valid, Validate,
};
use helib_sys as sys;
use zeroize::Zeroizing;

use crate::context::Context;
use crate::error::{Error, Result, Status};
use crate::ffi::{check, Owned};
use crate::keys::SecretKey;

/// The consent token of a secret-key export. Its one variant spells out what
/// the caller accepts: the exported bytes are the key, and whoever reads them
/// can decrypt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportSecret {
    /// The caller keeps the exported bytes secret (encrypts them before
    /// they leave the process) and lets them be wiped after use.
    IUnderstandTheBytesAreTheKey,
}

impl SecretKey {
    /// Exports the key: its ternary coefficients in the engine's checked
    /// format, in a buffer wiped on drop. **The bytes are the key.** See the
    /// [module docs](crate::secret_export) for why this takes a token.
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn export_secret(&self, consent: ExportSecret) -> Result<Zeroizing<Vec<u8>>> {
        let ExportSecret::IUnderstandTheBytesAreTheKey = consent;
        let _span = tracing::debug_span!("helib.secret_key_export").entered();
        let key = self.as_ptr();
        let mut len = 0usize;
        // SAFETY: the key handle is live; a NULL buffer asks for the size.
        check(unsafe { sys::helib_secret_key_export(key, std::ptr::null_mut(), &mut len) })?;
        let mut buf = Zeroizing::new(vec![0u8; len]);
        let capacity = buf.len();
        // SAFETY: the key handle is live and `buf` holds `len` writable bytes.
        check(unsafe { sys::helib_secret_key_export(key, buf.as_mut_ptr(), &mut len) })?;
        if len != capacity {
            return Err(Error::Engine {
                status: Status::Internal,
                message: format!("the engine announced {capacity} bytes and wrote {len}"),
            });
        }
        Ok(buf)
    }

    /// Loads a key exported by [`export_secret`](Self::export_secret) under
    /// `context`. Wipe `bytes` afterwards (a [`Zeroizing`] buffer does so
    /// when dropped); the engine copies the coefficients only into memory it
    /// wipes.
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not an exported secret key
    /// (truncated, corrupted, another kind, a coefficient that is not −1, 0
    /// or 1); [`Error::ContextMismatch`] when the key was made under other
    /// parameters.
    pub fn import_secret(context: &Context, bytes: &[u8]) -> Result<SecretKey> {
        let _span = tracing::debug_span!("helib.secret_key_import").entered();
        // SAFETY: the context handle is live, `bytes` is a live slice and
        // `out` is a valid out-pointer.
        let raw = Owned::create(|out| unsafe {
            sys::helib_secret_key_import(context.as_ptr(), bytes.as_ptr(), bytes.len(), out)
        })?;
        Ok(SecretKey::from_raw(raw, context))
    }
}

/// An exported secret key: the only secret-key type with ark-serialize's
/// `CanonicalSerialize` / `CanonicalDeserialize` and (with the `serde`
/// feature) serde's `Serialize` / `Deserialize`. It holds the exported bytes
/// in a buffer wiped on drop, and [`bind`](Self::bind) loads them under a
/// context. On the wire it is the bytes preceded by their length as a
/// little-endian `u64`, as for the other objects.
///
/// ```
/// use helib_rs::ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
/// use helib_rs::{Context, ExportSecret, Parameters, Plaintext, SecretKey, SecretKeyExport};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let export = SecretKeyExport::new(&sk, ExportSecret::IUnderstandTheBytesAreTheKey)?;
///
/// let mut wire = helib_rs::zeroize::Zeroizing::new(Vec::new());
/// export.serialize_compressed(&mut *wire)?;
/// let loaded = SecretKeyExport::deserialize_compressed(&wire[..])?.bind(&context)?;
///
/// let message = Plaintext::from_u64s(&context, &[5])?;
/// assert_eq!(loaded.decrypt(&sk.encrypt(&message)?)?, message);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SecretKeyExport {
    bytes: Zeroizing<Vec<u8>>,
}

impl SecretKeyExport {
    /// Exports `key` ([`SecretKey::export_secret`]).
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn new(key: &SecretKey, consent: ExportSecret) -> Result<Self> {
        Ok(SecretKeyExport {
            bytes: key.export_secret(consent)?,
        })
    }

    /// Holds bytes from [`SecretKey::export_secret`] (checked when bound).
    pub fn from_exported_bytes(bytes: Zeroizing<Vec<u8>>) -> Self {
        SecretKeyExport { bytes }
    }

    /// The exported bytes. They are the key: keep them secret.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Loads the key under `context` ([`SecretKey::import_secret`]).
    ///
    /// # Errors
    /// As for [`SecretKey::import_secret`].
    pub fn bind(&self, context: &Context) -> Result<SecretKey> {
        SecretKey::import_secret(context, &self.bytes)
    }
}

impl fmt::Debug for SecretKeyExport {
    /// Redacted: only the length.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKeyExport")
            .field(
                "bytes",
                &format_args!("<{} secret bytes>", self.bytes.len()),
            )
            .finish()
    }
}

impl CanonicalSerialize for SecretKeyExport {
    fn serialize_with_mode<W: Write>(
        &self,
        mut writer: W,
        _compress: Compress,
    ) -> std::result::Result<(), SerializationError> {
        writer.write_all(&(self.bytes.len() as u64).to_le_bytes())?;
        writer.write_all(&self.bytes)?;
        Ok(())
    }

    fn serialized_size(&self, _compress: Compress) -> usize {
        8 + self.bytes.len()
    }
}

impl Valid for SecretKeyExport {
    /// The bytes are checked when bound (they need the context).
    fn check(&self) -> std::result::Result<(), SerializationError> {
        Ok(())
    }
}

impl CanonicalDeserialize for SecretKeyExport {
    /// Reads the length-prefixed bytes into a wiped buffer; memory grows only
    /// with the bytes actually read, whatever the prefix claims.
    fn deserialize_with_mode<R: Read>(
        mut reader: R,
        _compress: Compress,
        _validate: Validate,
    ) -> std::result::Result<Self, SerializationError> {
        let mut prefix = [0u8; 8];
        reader.read_exact(&mut prefix)?;
        let len = u64::from_le_bytes(prefix);
        let mut bytes = Zeroizing::new(Vec::new());
        let mut chunk = Zeroizing::new([0u8; 4096]);
        let mut limited = reader.take(len);
        loop {
            let n = limited.read(&mut chunk[..])?;
            if n == 0 {
                break;
            }
            // Grow by copying into a new wiped buffer, never by a reallocation
            // that would free the old one unwiped.
            if bytes.len() + n > bytes.capacity() {
                let mut grown = Zeroizing::new(Vec::with_capacity(2 * (bytes.len() + n)));
                grown.extend_from_slice(&bytes);
                bytes = grown;
            }
            bytes.extend_from_slice(&chunk[..n]);
        }
        if bytes.len() as u64 != len {
            return Err(SerializationError::IoError(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the exported key is shorter than its length prefix",
            )));
        }
        Ok(SecretKeyExport { bytes })
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::*;
    use serde::de::{SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    impl Serialize for SecretKeyExport {
        /// The exported bytes, as a byte string.
        fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            s.serialize_bytes(&self.bytes)
        }
    }

    struct ExportVisitor;

    impl<'de> Visitor<'de> for ExportVisitor {
        type Value = SecretKeyExport;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the bytes of an exported secret key")
        }

        fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> std::result::Result<Self::Value, E> {
            Ok(SecretKeyExport::from_exported_bytes(Zeroizing::new(
                v.to_vec(),
            )))
        }

        fn visit_byte_buf<E: serde::de::Error>(
            self,
            v: Vec<u8>,
        ) -> std::result::Result<Self::Value, E> {
            Ok(SecretKeyExport::from_exported_bytes(Zeroizing::new(v)))
        }

        fn visit_seq<A: SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            // Grown by copying into new wiped buffers, as in the
            // ark-serialize reader (no capacity from the input's size hint).
            let mut bytes = Zeroizing::new(Vec::new());
            while let Some(b) = seq.next_element::<u8>()? {
                if bytes.len() == bytes.capacity() {
                    let mut grown = Zeroizing::new(Vec::with_capacity(2 * bytes.len() + 64));
                    grown.extend_from_slice(&bytes);
                    bytes = grown;
                }
                bytes.push(b);
            }
            Ok(SecretKeyExport::from_exported_bytes(bytes))
        }
    }

    impl<'de> Deserialize<'de> for SecretKeyExport {
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            d.deserialize_byte_buf(ExportVisitor)
        }
    }
}
