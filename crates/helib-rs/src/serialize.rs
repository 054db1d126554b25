//! Serialization: `to_bytes` / `from_bytes` in the engine's versioned binary format.
//!
//! Every object serializes to a self-describing byte string: a 48-byte
//! header (magic `HBGV`, format version 1, the object's kind, the 32-byte
//! [fingerprint](Context::fingerprint) of its context's parameters, the
//! payload length), the payload, and a SHA-256 checksum. Residues are stored
//! in canonical form, packed at their prime's bit width; the uniform halves of
//! public keys, relinearization and Galois keys and of fresh secret-key
//! encryptions are stored as 32-byte seeds, which halves their size. The
//! format is specified in `helib-sys/cpp/SERIALIZATION.md`. Secret keys
//! have no `to_bytes`: they leave the engine only through the explicit
//! [`SecretKey::export_secret`](crate::SecretKey::export_secret).
//!
//! Loading checks everything: bytes that are not a valid encoding of the
//! asked-for kind (truncated, corrupted, another kind or format version,
//! out-of-range fields) give [`Error::Malformed`], and an object made under
//! different parameters gives [`Error::ContextMismatch`]. Sizes are checked
//! against what the context implies before anything is allocated, so hostile
//! bytes cannot cause large allocations.
//!
//! The checksum detects accidents only; it is not a MAC (see the crate
//! docs, [Authenticity](crate#authenticity-of-serialized-objects)).
//!
//! ```
//! use helib_rs::{Ciphertext, Context, Parameters, Plaintext, PublicKey, SecretKey};
//!
//! // These test parameters are below 128-bit security, so loading them needs
//! // the caller's explicit opt-in (the bytes alone cannot give it).
//! let params = Parameters::for_tests();
//! assert!(matches!(
//!     Parameters::from_bytes(&params.to_bytes()?),
//!     Err(helib_rs::Error::InsecureParameters { .. })
//! ));
//! let context = Context::new(&Parameters::from_bytes_allow_insecure(&params.to_bytes()?)?)?;
//! let sk = SecretKey::generate(&context)?;
//! let pk = PublicKey::from_bytes(&context, &sk.public_key()?.to_bytes()?)?;
//!
//! let message = Plaintext::from_u64s(&context, &[1, 2, 3])?;
//! let bytes = pk.encrypt(&message)?.to_bytes()?;
//! let ct = Ciphertext::from_bytes(&context, &bytes)?;
//! assert_eq!(sk.decrypt(&ct)?, message);
//!
//! // Another context (here: other parameters) refuses it.
//! let other = Context::new(&Parameters::builder()
//!     .ring_degree(4096)
//!     .plaintext_modulus(65537u32.into())
//!     .chain_bits(&[50, 50])
//!     .allow_insecure()
//!     .build()?)?;
//! assert!(matches!(Ciphertext::from_bytes(&other, &bytes), Err(helib_rs::Error::ContextMismatch)));
//! # Ok::<(), helib_rs::Error>(())
//! ```

use helib_sys as sys;

use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::error::{Error, Result, Status};
use crate::ffi::{check, Owned};
use crate::galois_keys::GaloisKeys;
use crate::keys::PublicKey;
use crate::limbs;
use crate::params::{Parameters, MAX_PRIMES};
use crate::plaintext::Plaintext;
use crate::relin_key::RelinKey;

/// Bytes of a [context fingerprint](Context::fingerprint).
pub const FINGERPRINT_BYTES: usize = 32;

/// Runs an engine serializer with the two-call protocol.
fn two_call(call: impl FnMut(*mut u8, *mut usize) -> sys::helib_status) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    two_call_into(&mut out, call)?;
    Ok(out)
}

/// Runs an engine serializer with the two-call protocol, appending its bytes
/// to `out` (left as it was on error). The engine writes into `out`'s spare
/// capacity directly: nothing is zeroed first or copied after.
fn two_call_into(
    out: &mut Vec<u8>,
    mut call: impl FnMut(*mut u8, *mut usize) -> sys::helib_status,
) -> Result<()> {
    let mut announced = 0usize;
    check(call(std::ptr::null_mut(), &mut announced))?;
    out.reserve(announced);
    let mut len = announced;
    // `reserve` left at least `announced` bytes of spare capacity, where the
    // engine writes.
    check(call(out.spare_capacity_mut().as_mut_ptr().cast(), &mut len))?;
    if len != announced {
        return Err(Error::Engine {
            status: Status::Internal,
            message: format!("the engine announced {announced} bytes and wrote {len}"),
        });
    }
    // SAFETY: the engine wrote (initialized) exactly `announced` bytes from
    // the old end, within the capacity reserved above.
    unsafe { out.set_len(out.len() + announced) };
    Ok(())
}

impl Context {
    /// The fingerprint of this context's parameters: SHA-256 over N, t, the
    /// chain primes and the special primes. Every serialized object carries
    /// it, and loading checks it.
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn fingerprint(&self) -> Result<[u8; FINGERPRINT_BYTES]> {
        let mut out = [0u8; FINGERPRINT_BYTES];
        // SAFETY: the context handle is live and `out` holds the bytes passed.
        check(unsafe {
            sys::helib_context_fingerprint(self.as_ptr(), out.as_mut_ptr(), out.len())
        })?;
        Ok(out)
    }
}

impl Parameters {
    /// Serializes the parameters: ring degree, plaintext modulus, chain and
    /// special prime sizes, and whether insecure parameters were allowed. The
    /// thread count is not stored (it is a property of the machine).
    ///
    /// # Errors
    /// Only if the engine fails internally (the parameters were validated when built).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let t = limbs::from_biguint(self.plaintext_modulus());
        let flags = if self.insecure_allowed() {
            sys::HELIB_PARAMETERS_INSECURE
        } else {
            0
        };
        let (chain, special) = (self.chain_bits(), self.special_bits());
        // SAFETY: every pointer/length pair describes a live slice; `buf` and
        // `len` come from `two_call` and describe a live buffer (or NULL).
        two_call(|buf, len| unsafe {
            sys::helib_parameters_serialize(
                self.ring_degree() as u64,
                t.as_ptr(),
                t.len(),
                chain.as_ptr(),
                chain.len(),
                special.as_ptr(),
                special.len(),
                flags,
                buf,
                len,
            )
        })
    }

    /// Loads parameters serialized by [`to_bytes`](Self::to_bytes) and
    /// validates them as [`ParametersBuilder::build`](crate::ParametersBuilder::build)
    /// does, 128-bit floor included. The thread count is 0 (one per hardware
    /// thread). The checksum only detects accidents: it is not a MAC (see
    /// [Authenticity](crate#authenticity-of-serialized-objects)).
    ///
    /// The bytes record whether their writer allowed insecure parameters, but
    /// that record is not consent: bytes can come from anyone, so parameters
    /// below 128-bit security are refused here whatever the bytes say. Use
    /// [`from_bytes_allow_insecure`](Self::from_bytes_allow_insecure) to load
    /// them on purpose.
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not serialized parameters;
    /// [`Error::InvalidParameters`] when the stored parameters do not validate;
    /// [`Error::InsecureParameters`] when they are below 128-bit security.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::load(bytes, false)
    }

    /// As [`from_bytes`](Self::from_bytes), but accepts parameters below
    /// 128-bit security, as [`ParametersBuilder::allow_insecure`](crate::ParametersBuilder::allow_insecure)
    /// does: the caller's explicit opt-in, for tests and benchmarks only. The
    /// result reports [`insecure_allowed`](Self::insecure_allowed).
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not serialized parameters;
    /// [`Error::InvalidParameters`] when the stored parameters do not validate.
    pub fn from_bytes_allow_insecure(bytes: &[u8]) -> Result<Self> {
        Self::load(bytes, true)
    }

    /// Reads and validates serialized parameters; only `allow_insecure`, never
    /// the stored flag, lifts the security floor.
    fn load(bytes: &[u8], allow_insecure: bool) -> Result<Self> {
        let (mut ring_degree, mut stored_flags) = (0u64, 0u32);
        let mut t = [0u64; 64];
        let mut chain = [0u32; MAX_PRIMES];
        let mut special = [0u32; MAX_PRIMES];
        let (mut t_len, mut chain_len, mut special_len) = (t.len(), chain.len(), special.len());
        // SAFETY: `bytes` is a live slice; every output array holds the
        // capacity passed with it, and the scalars are valid places.
        check(unsafe {
            sys::helib_parameters_deserialize(
                bytes.as_ptr(),
                bytes.len(),
                &mut ring_degree,
                t.as_mut_ptr(),
                &mut t_len,
                chain.as_mut_ptr(),
                &mut chain_len,
                special.as_mut_ptr(),
                &mut special_len,
                &mut stored_flags,
            )
        })?;
        let ring_degree = usize::try_from(ring_degree)
            .map_err(|_| Error::Malformed(format!("ring degree {ring_degree} does not fit")))?;
        let builder = Parameters::builder()
            .ring_degree(ring_degree)
            .plaintext_modulus(limbs::to_biguint(&t[..t_len]))
            .chain_bits(&chain[..chain_len])
            .special_bits(&special[..special_len]);
        if allow_insecure {
            builder.allow_insecure().build()
        } else {
            builder.build()
        }
    }
}

impl Plaintext {
    /// Serializes the plaintext: its coefficients packed at the bit size of
    /// t, trailing zero coefficients omitted.
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let context = self.context();
        let coeffs = self.limbs();
        // SAFETY: the context handle is live; `coeffs` holds N coefficients of
        // `plain_limbs` limbs; `buf`/`len` come from `two_call`.
        two_call(|buf, len| unsafe {
            sys::helib_plaintext_serialize(
                context.as_ptr(),
                coeffs.as_ptr(),
                context.ring_degree(),
                context.plain_limbs(),
                buf,
                len,
            )
        })
    }

    /// Loads a plaintext of `context` serialized by [`to_bytes`](Self::to_bytes).
    /// The checksum only detects accidents: it is not a MAC (see
    /// [Authenticity](crate#authenticity-of-serialized-objects)).
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not a serialized plaintext;
    /// [`Error::ContextMismatch`] when it was made under other parameters.
    pub fn from_bytes(context: &Context, bytes: &[u8]) -> Result<Self> {
        let width = context.plain_limbs();
        let mut out = vec![0u64; context.ring_degree() * width];
        // SAFETY: the context handle is live; `bytes` and `out` are live
        // slices of the lengths passed.
        check(unsafe {
            sys::helib_plaintext_deserialize(
                context.as_ptr(),
                bytes.as_ptr(),
                bytes.len(),
                out.as_mut_ptr(),
                out.len(),
                width,
            )
        })?;
        Ok(Plaintext::from_engine_limbs(context, out))
    }
}

impl Ciphertext {
    /// Serializes the ciphertext: level, size, correction factor, noise
    /// estimate and polynomials. A fresh secret-key encryption stores c_1 as
    /// a seed, about half the size; any operation that changes c_1 drops it.
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_bytes(&mut out)?;
        Ok(out)
    }

    /// The length of [`to_bytes`](Self::to_bytes)'s encoding, without
    /// making it.
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn serialized_len(&self) -> Result<usize> {
        let mut len = 0usize;
        // SAFETY: the ciphertext handle is live; a NULL buffer asks only for
        // the length, written to `len`.
        check(unsafe {
            sys::helib_ciphertext_serialize(self.as_ptr(), std::ptr::null_mut(), &mut len)
        })?;
        Ok(len)
    }

    /// Appends [`to_bytes`](Self::to_bytes)'s encoding to `out`, for a
    /// ciphertext carried inside a larger message without a copy of it.
    ///
    /// ```
    /// # use helib_rs::{Ciphertext, Context, Parameters, Plaintext, SecretKey};
    /// # let context = Context::new(&Parameters::for_tests())?;
    /// # let sk = SecretKey::generate(&context)?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[7])?)?;
    /// let mut message = b"header".to_vec();
    /// ct.write_bytes(&mut message)?;
    /// assert_eq!(&message[6..], &ct.to_bytes()?[..]);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// Only if the engine fails internally (`out` is then unchanged).
    pub fn write_bytes(&self, out: &mut Vec<u8>) -> Result<()> {
        let ct = self.as_ptr();
        // SAFETY: the ciphertext handle is live; `buf`/`len` come from
        // `two_call_into` and describe its spare capacity (or NULL).
        two_call_into(out, |buf, len| unsafe {
            sys::helib_ciphertext_serialize(ct, buf, len)
        })
    }

    /// Loads a ciphertext of `context` serialized by [`to_bytes`](Self::to_bytes).
    ///
    /// The stored noise estimate is validated but cannot be verified: NaN and
    /// infinities are refused, an estimate below the noise floor (the
    /// estimate of a fresh secret-key encryption) is raised to it, and any
    /// other is kept. The checksum only detects accidents: it is not a MAC, so
    /// bytes from an untrusted source may understate the noise (see
    /// [Authenticity](crate#authenticity-of-serialized-objects)).
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not a serialized ciphertext;
    /// [`Error::ContextMismatch`] when it was made under other parameters.
    pub fn from_bytes(context: &Context, bytes: &[u8]) -> Result<Self> {
        let ctx = context.as_ptr();
        // SAFETY: the context handle is live, `bytes` is a live slice and
        // `dst` is a new ciphertext handle of the same context.
        Ciphertext::produce(context, |dst| unsafe {
            sys::helib_ciphertext_deserialize(ctx, bytes.as_ptr(), bytes.len(), dst)
        })
    }
}

impl PublicKey {
    /// Serializes the public key (b and the seed of a).
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let key = self.as_ptr();
        // SAFETY: the key handle is live; `buf`/`len` come from `two_call`.
        two_call(|buf, len| unsafe { sys::helib_public_key_serialize(key, buf, len) })
    }

    /// Loads a public key of `context` serialized by [`to_bytes`](Self::to_bytes).
    /// The checksum only detects accidents: it is not a MAC (see
    /// [Authenticity](crate#authenticity-of-serialized-objects)).
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not a serialized public key;
    /// [`Error::ContextMismatch`] when it was made under other parameters.
    pub fn from_bytes(context: &Context, bytes: &[u8]) -> Result<Self> {
        let ctx = context.as_ptr();
        // SAFETY: the context handle is live, `bytes` is a live slice and
        // `out` is a valid out-pointer.
        let raw = Owned::create(|out| unsafe {
            sys::helib_public_key_deserialize(ctx, bytes.as_ptr(), bytes.len(), out)
        })?;
        Ok(PublicKey::from_raw(raw, context))
    }
}

impl RelinKey {
    /// Serializes the key: per key-switching digit, b_j and the seed of a_j
    /// (less than half of [`size_bytes`](Self::size_bytes)).
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let key = self.as_ptr();
        // SAFETY: the key handle is live; `buf`/`len` come from `two_call`.
        two_call(|buf, len| unsafe { sys::helib_relin_key_serialize(key, buf, len) })
    }

    /// Loads a relinearization key of `context` serialized by [`to_bytes`](Self::to_bytes).
    /// The checksum only detects accidents: it is not a MAC (see
    /// [Authenticity](crate#authenticity-of-serialized-objects)).
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not a serialized
    /// relinearization key (or the context has no special primes);
    /// [`Error::ContextMismatch`] when it was made under other parameters.
    pub fn from_bytes(context: &Context, bytes: &[u8]) -> Result<Self> {
        let ctx = context.as_ptr();
        // SAFETY: the context handle is live, `bytes` is a live slice and
        // `out` is a valid out-pointer.
        let raw = Owned::create(|out| unsafe {
            sys::helib_relin_key_deserialize(ctx, bytes.as_ptr(), bytes.len(), out)
        })?;
        RelinKey::from_raw(raw, context)
    }
}

impl GaloisKeys {
    /// Serializes the key set: its elements in ascending order, each with its
    /// key as for [`RelinKey::to_bytes`].
    ///
    /// # Errors
    /// Only if the engine fails internally.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let keys = self.as_ptr();
        // SAFETY: the key set handle is live; `buf`/`len` come from `two_call`.
        two_call(|buf, len| unsafe { sys::helib_galois_keys_serialize(keys, buf, len) })
    }

    /// Loads a Galois key set of `context` serialized by [`to_bytes`](Self::to_bytes).
    /// The checksum only detects accidents: it is not a MAC (see
    /// [Authenticity](crate#authenticity-of-serialized-objects)).
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not serialized Galois keys;
    /// [`Error::ContextMismatch`] when they were made under other parameters.
    pub fn from_bytes(context: &Context, bytes: &[u8]) -> Result<Self> {
        let ctx = context.as_ptr();
        // SAFETY: the context handle is live, `bytes` is a live slice and
        // `out` is a valid out-pointer.
        let raw = Owned::create(|out| unsafe {
            sys::helib_galois_keys_deserialize(ctx, bytes.as_ptr(), bytes.len(), out)
        })?;
        GaloisKeys::from_raw(raw, context)
    }
}
