//! arkworks' `CanonicalSerialize` / `CanonicalDeserialize` (ark-serialize
//! 0.5) and, with the `serde` feature, serde's `Serialize` / `Deserialize`,
//! over the checked byte format of `to_bytes` / `from_bytes`.
//!
//! On the wire an object is its `to_bytes` output preceded by its length as
//! a little-endian `u64`: the same layout ark-serialize gives a `Vec<u8>`.
//! `Compress` changes nothing (the format already stores seeds instead of
//! uniform polynomials where it can), and `Validate::No` skips nothing: the
//! format's checks (magic, version, checksum, ranges, context fingerprint)
//! always run.
//!
//! Ciphertexts, plaintexts and keys belong to a [`Context`], which a
//! deserializer cannot be handed; they deserialize as [`Unbound<T>`] (checked
//! framing, bytes held) and become a `T` with [`Unbound::bind`], which runs
//! every check of `T::from_bytes` against the context. [`Parameters`] need no
//! context and deserialize directly (refusing insecure parameters, as
//! [`Parameters::from_bytes`] does).
//!
//! The secret key has none of these: only the explicit wrapper
//! [`SecretKeyExport`](crate::SecretKeyExport) serializes one.

use std::io::{Read, Write};
use std::marker::PhantomData;

use ark_serialize::{
    CanonicalDeserialize, CanonicalSerialize, Compress, SerializationError, Valid, Validate,
};

use crate::{
    Ciphertext, Context, Error, GaloisKeys, Parameters, Plaintext, PublicKey, RelinKey, Result,
};

/// Objects with a checked byte format that loads under a context.
pub trait ContextBytes: Sized {
    /// The object's checked bytes (`to_bytes`).
    fn context_bytes(&self) -> Result<Vec<u8>>;
    /// Loads the object under `context` (`from_bytes`).
    fn from_context_bytes(context: &Context, bytes: &[u8]) -> Result<Self>;
}

macro_rules! context_bytes {
    ($($t:ty),*) => {$(
        impl ContextBytes for $t {
            fn context_bytes(&self) -> Result<Vec<u8>> {
                self.to_bytes()
            }
            fn from_context_bytes(context: &Context, bytes: &[u8]) -> Result<Self> {
                <$t>::from_bytes(context, bytes)
            }
        }
    )*};
}
context_bytes!(Ciphertext, Plaintext, PublicKey, RelinKey, GaloisKeys);

/// A serialized object of type `T` that is not yet bound to a [`Context`]:
/// what `CanonicalDeserialize` (and serde's `Deserialize`) produce for
/// context-bound types. [`bind`](Self::bind) loads it.
///
/// ```
/// use helib_rs::ark_bn254::Fr;
/// use helib_rs::ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
/// use helib_rs::{BatchEncoder, Ciphertext, Context, Parameters, SecretKey, Unbound};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let encoder = BatchEncoder::<Fr>::new(&context)?;
/// let ct = sk.public_key()?.encrypt(&encoder.encode(&[Fr::from(42u64)])?)?;
///
/// let mut bytes = Vec::new();
/// ct.serialize_compressed(&mut bytes)?;
/// let loaded: Ciphertext = Unbound::deserialize_compressed(&bytes[..])?.bind(&context)?;
/// assert_eq!(encoder.decode(&sk.decrypt(&loaded)?)?[0], Fr::from(42u64));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Unbound<T> {
    bytes: Vec<u8>,
    kind: PhantomData<fn() -> T>,
}

impl<T> Clone for Unbound<T> {
    fn clone(&self) -> Self {
        Unbound {
            bytes: self.bytes.clone(),
            kind: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Unbound<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unbound")
            .field("type", &std::any::type_name::<T>())
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

impl<T: ContextBytes> Unbound<T> {
    /// Holds the bytes of `object`.
    ///
    /// # Errors
    /// Only if the engine fails to serialize it.
    pub fn new(object: &T) -> Result<Self> {
        Ok(Self::from_checked_bytes(object.context_bytes()?))
    }

    /// Holds bytes from `to_bytes` (checked when bound).
    pub fn from_checked_bytes(bytes: Vec<u8>) -> Self {
        Unbound {
            bytes,
            kind: PhantomData,
        }
    }

    /// The held bytes, in the format of `to_bytes`.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Loads the object under `context`, with every check of its
    /// `from_bytes`.
    ///
    /// # Errors
    /// [`Error::Malformed`] when the bytes are not a serialized `T`;
    /// [`Error::ContextMismatch`] when it was made under other parameters.
    pub fn bind(&self, context: &Context) -> Result<T> {
        T::from_context_bytes(context, &self.bytes)
    }
}

fn engine_error(e: Error) -> SerializationError {
    match e {
        Error::Malformed(_) | Error::ContextMismatch | Error::InvalidParameters(_) => {
            SerializationError::InvalidData
        }
        Error::InsecureParameters { .. } => SerializationError::InvalidData,
        other => SerializationError::IoError(std::io::Error::other(other)),
    }
}

fn write_framed<W: Write>(
    bytes: &[u8],
    mut writer: W,
) -> std::result::Result<(), SerializationError> {
    writer.write_all(&(bytes.len() as u64).to_le_bytes())?;
    writer.write_all(bytes)?;
    Ok(())
}

/// Reads a length-prefixed byte string without trusting the length for an
/// allocation: memory grows only with the bytes actually read.
fn read_framed<R: Read>(mut reader: R) -> std::result::Result<Vec<u8>, SerializationError> {
    let mut prefix = [0u8; 8];
    reader.read_exact(&mut prefix)?;
    let len = u64::from_le_bytes(prefix);
    let mut bytes = Vec::new();
    reader.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(SerializationError::IoError(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the serialized object is shorter than its length prefix",
        )));
    }
    Ok(bytes)
}

macro_rules! canonical_serialize {
    ($($t:ty),*) => {$(
        impl CanonicalSerialize for $t {
            fn serialize_with_mode<W: Write>(
                &self,
                writer: W,
                _compress: Compress,
            ) -> std::result::Result<(), SerializationError> {
                write_framed(&self.to_bytes().map_err(engine_error)?, writer)
            }

            /// The exact size; it serializes the object to count it.
            fn serialized_size(&self, _compress: Compress) -> usize {
                8 + self.to_bytes().map_or(0, |b| b.len())
            }
        }
    )*};
}
canonical_serialize!(Ciphertext, Plaintext, PublicKey, RelinKey, GaloisKeys, Parameters);

impl<T> CanonicalSerialize for Unbound<T> {
    fn serialize_with_mode<W: Write>(
        &self,
        writer: W,
        _compress: Compress,
    ) -> std::result::Result<(), SerializationError> {
        write_framed(&self.bytes, writer)
    }

    fn serialized_size(&self, _compress: Compress) -> usize {
        8 + self.bytes.len()
    }
}

impl<T> Valid for Unbound<T> {
    /// The bytes are checked when bound (they need the context).
    fn check(&self) -> std::result::Result<(), SerializationError> {
        Ok(())
    }
}

impl<T> CanonicalDeserialize for Unbound<T> {
    fn deserialize_with_mode<R: Read>(
        reader: R,
        _compress: Compress,
        _validate: Validate,
    ) -> std::result::Result<Self, SerializationError> {
        Ok(Unbound {
            bytes: read_framed(reader)?,
            kind: PhantomData,
        })
    }
}

impl Valid for Parameters {
    /// Deserialized parameters were checked while loading.
    fn check(&self) -> std::result::Result<(), SerializationError> {
        Ok(())
    }
}

impl CanonicalDeserialize for Parameters {
    /// Loads with [`Parameters::from_bytes`]: checked, insecure parameters
    /// refused (whatever `validate` says).
    fn deserialize_with_mode<R: Read>(
        reader: R,
        _compress: Compress,
        _validate: Validate,
    ) -> std::result::Result<Self, SerializationError> {
        Parameters::from_bytes(&read_framed(reader)?).map_err(engine_error)
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::*;
    use serde::de::{Error as _, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    macro_rules! serde_serialize {
        ($($t:ty),*) => {$(
            impl Serialize for $t {
                /// The checked bytes of `to_bytes`, as a byte string.
                fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                    let bytes = self.to_bytes().map_err(serde::ser::Error::custom)?;
                    s.serialize_bytes(&bytes)
                }
            }
        )*};
    }
    serde_serialize!(Ciphertext, Plaintext, PublicKey, RelinKey, GaloisKeys, Parameters);

    impl<T> Serialize for Unbound<T> {
        fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            s.serialize_bytes(&self.bytes)
        }
    }

    /// Accepts a byte string or a sequence of bytes (what text formats
    /// such as JSON make of `serialize_bytes`).
    struct BytesVisitor;

    impl<'de> Visitor<'de> for BytesVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("the bytes of a serialized BGV object")
        }

        fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> std::result::Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }

        fn visit_byte_buf<E: serde::de::Error>(
            self,
            v: Vec<u8>,
        ) -> std::result::Result<Vec<u8>, E> {
            Ok(v)
        }

        fn visit_seq<A: SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Vec<u8>, A::Error> {
            // No capacity from the size hint: it comes from the input.
            let mut bytes = Vec::new();
            while let Some(b) = seq.next_element::<u8>()? {
                bytes.push(b);
            }
            Ok(bytes)
        }
    }

    impl<'de, T> Deserialize<'de> for Unbound<T> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            Ok(Unbound {
                bytes: d.deserialize_byte_buf(BytesVisitor)?,
                kind: PhantomData,
            })
        }
    }

    impl<'de> Deserialize<'de> for Parameters {
        /// Loads with [`Parameters::from_bytes`] (checked; insecure
        /// parameters refused).
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            let bytes = d.deserialize_byte_buf(BytesVisitor)?;
            Parameters::from_bytes(&bytes).map_err(D::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BatchEncoder, SecretKey};
    use ark_bn254::Fr;

    #[test]
    fn a_length_prefix_longer_than_the_input_is_an_error_not_an_allocation() {
        let mut bytes = u64::MAX.to_le_bytes().to_vec();
        bytes.extend_from_slice(&[1, 2, 3]);
        let result = Unbound::<Ciphertext>::deserialize_compressed(&bytes[..]);
        assert!(matches!(result, Err(SerializationError::IoError(_))));
        assert!(Unbound::<Ciphertext>::deserialize_compressed(&[1u8, 2][..]).is_err());
    }

    #[test]
    fn parameters_round_trip_and_insecure_ones_are_refused() {
        let params = Parameters::bn254_n15();
        let mut bytes = Vec::new();
        params.serialize_compressed(&mut bytes).unwrap();
        assert_eq!(bytes.len(), params.compressed_size());
        assert_eq!(
            Parameters::deserialize_compressed(&bytes[..]).unwrap(),
            params
        );

        let mut insecure = Vec::new();
        Parameters::for_tests()
            .serialize_uncompressed(&mut insecure)
            .unwrap();
        assert!(matches!(
            Parameters::deserialize_uncompressed(&insecure[..]),
            Err(SerializationError::InvalidData)
        ));
    }

    #[test]
    fn ciphertexts_and_keys_bind_to_their_context_only() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let sk = SecretKey::generate(&context).unwrap();
        let pk = sk.public_key().unwrap();
        let encoder = BatchEncoder::<Fr>::new(&context).unwrap();
        let values = [Fr::from(5u64), Fr::from(9u64)];
        let plain = encoder.encode(&values).unwrap();
        let ct = pk.encrypt(&plain).unwrap();

        let mut wire = Vec::new();
        ct.serialize_compressed(&mut wire).unwrap();
        pk.serialize_compressed(&mut wire).unwrap();
        plain.serialize_uncompressed(&mut wire).unwrap();
        assert_eq!(
            wire.len(),
            ct.compressed_size() + pk.compressed_size() + plain.uncompressed_size()
        );

        let mut reader = &wire[..];
        let ct2 = Unbound::<Ciphertext>::deserialize_compressed(&mut reader)
            .unwrap()
            .bind(&context)
            .unwrap();
        let pk2 = Unbound::<PublicKey>::deserialize_compressed(&mut reader)
            .unwrap()
            .bind(&context)
            .unwrap();
        let plain2 = Unbound::<Plaintext>::deserialize_uncompressed(&mut reader)
            .unwrap()
            .bind(&context)
            .unwrap();
        assert!(reader.is_empty());
        assert_eq!(plain2, plain);
        let decoded = encoder.decode(&sk.decrypt(&ct2).unwrap()).unwrap();
        assert_eq!(decoded[..2], values);
        let again = encoder
            .decode(&sk.decrypt(&pk2.encrypt(&plain).unwrap()).unwrap())
            .unwrap();
        assert_eq!(again[..2], values);

        // A context of other parameters is refused, and a
        // flipped byte is caught by the format's checks.
        let other = Context::new(
            &Parameters::builder()
                .ring_degree(4096)
                .plaintext_modulus(65537u32.into())
                .chain_bits(&[50; 3])
                .allow_insecure()
                .build()
                .unwrap(),
        )
        .unwrap();
        let unbound = Unbound::new(&ct).unwrap();
        assert!(matches!(unbound.bind(&other), Err(Error::ContextMismatch)));
        let mut corrupt = unbound.as_bytes().to_vec();
        let middle = corrupt.len() / 2;
        corrupt[middle] ^= 1;
        assert!(Unbound::<Ciphertext>::from_checked_bytes(corrupt)
            .bind(&context)
            .is_err());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_round_trips_through_json() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let sk = SecretKey::generate(&context).unwrap();
        let encoder = BatchEncoder::<Fr>::new(&context).unwrap();
        let ct = sk
            .public_key()
            .unwrap()
            .encrypt(&encoder.encode(&[Fr::from(77u64)]).unwrap())
            .unwrap();
        let json = serde_json::to_string(&ct).unwrap();
        let back: Unbound<Ciphertext> = serde_json::from_str(&json).unwrap();
        let ct2 = back.bind(&context).unwrap();
        assert_eq!(
            encoder.decode(&sk.decrypt(&ct2).unwrap()).unwrap()[0],
            Fr::from(77u64)
        );
        let params = Parameters::bn254_n15();
        let json = serde_json::to_string(&params).unwrap();
        assert_eq!(serde_json::from_str::<Parameters>(&json).unwrap(), params);
        assert!(serde_json::from_str::<Parameters>("[1,2,3]").is_err());
    }
}
