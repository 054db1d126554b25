//! snarkjs's `.wtns` witnesses (format version 2) over BN254.
//!
//! Section 1, the header: `n8` (`u32`: 32), the prime (`n8` bytes: the
//! BN254 scalar modulus), `nWitness` (`u32`). Section 2: `nWitness` values
//! of `n8` bytes, little-endian, standard form, each below the prime; the
//! first (the constant wire) must be 1.
//!
//! ```no_run
//! let r1cs = he_circom::R1cs::read("circuit.r1cs")?;
//! let witness = he_circom::Witness::read("witness.wtns")?;
//! r1cs.check_witness(witness.values())?;
//! # Ok::<(), he_circom::Error>(())
//! ```

use std::path::Path;

use ark_bn254::Fr;
use ark_ff::One;

use crate::binfile::BinFile;
use crate::error::{Error, FileKind, Result};
use crate::field::{fr_to_le, FIELD_BYTES};
use crate::r1cs::read_scalar_prime;

const KIND: FileKind = FileKind::Wtns;
/// The format version read.
pub const WTNS_VERSION: u32 = 2;
const HEADER: u32 = 1;
const VALUES: u32 = 2;

/// A checked witness: the full assignment, the constant one first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    values: Vec<Fr>,
}

impl Witness {
    /// Reads and checks the `.wtns` at `path`.
    ///
    /// # Errors
    /// [`Error::Io`], or as [`from_bytes`](Self::from_bytes).
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_bytes(&crate::read_file(KIND, path.as_ref())?)
    }

    /// Parses and checks a `.wtns`.
    ///
    /// # Errors
    /// Any [`Error`] of the container ([`BinFile::parse`]); missing
    /// sections; [`Error::WrongPrime`]; a values section whose size is not
    /// `nWitness·n8`; [`Error::NotCanonical`] values; a first value other
    /// than 1 ([`Error::Invalid`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let file = BinFile::parse(KIND, bytes, WTNS_VERSION)?;
        let mut h = file.reader(HEADER)?;
        read_scalar_prime(&mut h)?;
        let n = h.u32("nWitness")?;
        h.finish("nWitness")?;
        let mut r = file.reader(VALUES)?;
        r.ensure(u64::from(n), FIELD_BYTES as u64, "values")?;
        let mut values = Vec::with_capacity(n as usize);
        for i in 0..u64::from(n) {
            r.index = Some(i);
            values.push(r.fr("value")?);
        }
        r.index = None;
        r.finish("values")?;
        match values.first() {
            Some(v) if v.is_one() => Ok(Witness { values }),
            _ => Err(Error::invalid(
                crate::Location::section(KIND, VALUES, "value").at(0),
                "the first value (the constant wire) is not 1",
            )),
        }
    }

    /// A witness of `values` (the constant one first), as a `.wtns` would
    /// hold it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `values` is empty, does not start
    /// with 1, or has more than `u32::MAX` values.
    pub fn new(values: Vec<Fr>) -> Result<Self> {
        if values.len() > u32::MAX as usize || !values.first().is_some_and(One::is_one) {
            return Err(Error::InvalidArgument(
                "a witness starts with 1 and has at most 2^32 - 1 values".into(),
            ));
        }
        Ok(Witness { values })
    }

    /// The values, the constant one first.
    pub fn values(&self) -> &[Fr] {
        &self.values
    }

    /// The values, by value.
    pub fn into_values(self) -> Vec<Fr> {
        self.values
    }

    /// The `.wtns` encoding (version 2, the two sections).
    pub fn to_bytes(&self) -> Vec<u8> {
        let header_len = 4 + FIELD_BYTES + 4;
        let values_len = self.values.len() * FIELD_BYTES;
        let mut out = Vec::with_capacity(12 + 2 * 12 + header_len + values_len);
        out.extend_from_slice(b"wtns");
        out.extend_from_slice(&WTNS_VERSION.to_le_bytes());
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&HEADER.to_le_bytes());
        out.extend_from_slice(&(header_len as u64).to_le_bytes());
        out.extend_from_slice(&(FIELD_BYTES as u32).to_le_bytes());
        out.extend_from_slice(&crate::field::bigint_to_le(
            &<Fr as ark_ff::PrimeField>::MODULUS,
        ));
        // `new` and the parser keep the length within u32.
        out.extend_from_slice(&(self.values.len() as u32).to_le_bytes());
        out.extend_from_slice(&VALUES.to_le_bytes());
        out.extend_from_slice(&(values_len as u64).to_le_bytes());
        for v in &self.values {
            out.extend_from_slice(&fr_to_le(v));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_refusals() {
        let w = Witness::new(vec![Fr::one(), Fr::from(5u64), -Fr::one()]).unwrap();
        let bytes = w.to_bytes();
        assert_eq!(Witness::from_bytes(&bytes).unwrap(), w);
        for len in 0..bytes.len() {
            assert!(Witness::from_bytes(&bytes[..len]).is_err(), "{len}");
        }
        // The first value must be 1.
        let mut bad = bytes.clone();
        let first = bytes.len() - 3 * FIELD_BYTES;
        bad[first] = 2;
        let err = Witness::from_bytes(&bad).unwrap_err();
        assert!(err.to_string().contains("constant wire"), "{err}");
        // nWitness = 2^32 - 1 in a short file: no big allocation.
        let mut huge = bytes.clone();
        let n_at = 12 + 12 + 4 + FIELD_BYTES;
        huge[n_at..n_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let err = Witness::from_bytes(&huge).unwrap_err();
        assert!(matches!(err, Error::Truncated { .. }), "{err}");
        assert!(Witness::new(vec![]).is_err());
        assert!(Witness::new(vec![Fr::from(2u64)]).is_err());
    }
}
