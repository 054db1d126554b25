//! BN254 field elements and curve points as circom and snarkjs encode them.
//!
//! Three encodings of 32-byte little-endian integers occur:
//! - **standard form** (`.r1cs` coefficients, `.wtns` values): the integer
//!   is the value;
//! - **Montgomery form** (zkey point coordinates): the integer is `v·R mod
//!   p` with `R = 2^256`;
//! - **zkey coefficient form** (zkey section 4): the integer is `v·R² mod
//!   r`, the Montgomery form of `v·R`, as snarkjs writes them (checked
//!   against snarkjs 0.7 files, where every coefficient equals the r1cs
//!   coefficient times `R² mod r`).
//!
//! Every decoder refuses integers not below the modulus; the point decoders
//! also refuse points off the curve or outside the prime-order subgroup.

use ark_bn254::{Fq, Fq2, Fr, G1Affine, G2Affine};
use ark_ec::AffineRepr;
use ark_ff::{BigInt, PrimeField, Zero};

use crate::binfile::Reader;
use crate::error::{Error, Result};
use crate::g2_subgroup;

/// Bytes of an encoded BN254 field element (both fields).
pub const FIELD_BYTES: usize = 32;
/// Bytes of an encoded G1 point (two coordinates).
pub const G1_BYTES: usize = 2 * FIELD_BYTES;
/// Bytes of an encoded G2 point (two coordinates in Fq2).
pub const G2_BYTES: usize = 4 * FIELD_BYTES;

/// The integer of 32 little-endian bytes.
pub(crate) fn bigint_le(bytes: &[u8; FIELD_BYTES]) -> BigInt<4> {
    let mut limbs = [0u64; 4];
    for (limb, chunk) in limbs.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        *limb = u64::from_le_bytes(word);
    }
    BigInt::new(limbs)
}

/// The 32 little-endian bytes of an integer.
pub(crate) fn bigint_to_le(value: &BigInt<4>) -> [u8; FIELD_BYTES] {
    let mut out = [0u8; FIELD_BYTES];
    for (chunk, limb) in out.chunks_exact_mut(8).zip(value.0.iter()) {
        chunk.copy_from_slice(&limb.to_le_bytes());
    }
    out
}

/// The standard-form encoding of a scalar (as in `.r1cs` and `.wtns`).
pub fn fr_to_le(value: &Fr) -> [u8; FIELD_BYTES] {
    bigint_to_le(&value.into_bigint())
}

/// The zkey section-4 encoding of a coefficient: the integer `v·R² mod r`.
pub fn fr_to_zkey_coefficient(value: &Fr) -> [u8; FIELD_BYTES] {
    // The element of representation R² is R; the representation of v·R
    // is v·R².
    let r = Fr::new_unchecked(Fr::R2);
    bigint_to_le(&(*value * r).0)
}

/// The Montgomery-form encoding of a base-field element (zkey points).
pub fn fq_to_montgomery_le(value: &Fq) -> [u8; FIELD_BYTES] {
    bigint_to_le(&value.0)
}

/// Whether `bytes` is the modulus of `F`, little-endian in `n8` bytes.
pub(crate) fn is_modulus<F: PrimeField<BigInt = BigInt<4>>>(bytes: &[u8]) -> bool {
    let Ok(array) = <[u8; FIELD_BYTES]>::try_from(bytes) else {
        return false;
    };
    bigint_le(&array) == F::MODULUS
}

impl<'a> Reader<'a> {
    /// The next standard-form scalar.
    pub(crate) fn fr(&mut self, field: &str) -> Result<Fr> {
        let bytes = self.array::<FIELD_BYTES>(field)?;
        Fr::from_bigint(bigint_le(&bytes)).ok_or_else(|| Error::NotCanonical {
            at: self.loc(field),
        })
    }

    /// The next zkey coefficient (`v·R² mod r`), as `v`.
    pub(crate) fn fr_zkey_coefficient(&mut self, field: &str) -> Result<Fr> {
        let bytes = self.array::<FIELD_BYTES>(field)?;
        let int = bigint_le(&bytes);
        if int >= Fr::MODULUS {
            return Err(Error::NotCanonical {
                at: self.loc(field),
            });
        }
        // Read as a Montgomery representation the integer gives v·R; the
        // element whose representation is 1 is R⁻¹.
        Ok(Fr::new_unchecked(int) * Fr::new_unchecked(BigInt::one()))
    }

    /// The next Montgomery-form base-field element.
    pub(crate) fn fq_montgomery(&mut self, field: &str) -> Result<Fq> {
        let bytes = self.array::<FIELD_BYTES>(field)?;
        let int = bigint_le(&bytes);
        if int >= Fq::MODULUS {
            return Err(Error::NotCanonical {
                at: self.loc(field),
            });
        }
        Ok(Fq::new_unchecked(int))
    }

    /// The next G1 point (Montgomery-form x, y; all zeros for infinity),
    /// checked on the curve (G1 has cofactor 1).
    pub(crate) fn g1(&mut self, field: &str) -> Result<G1Affine> {
        let x = self.fq_montgomery(field)?;
        let y = self.fq_montgomery(field)?;
        if x.is_zero() && y.is_zero() {
            return Ok(G1Affine::zero());
        }
        let point = G1Affine::new_unchecked(x, y);
        if !point.is_on_curve() {
            return Err(Error::NotOnCurve {
                at: self.loc(field),
            });
        }
        Ok(point)
    }

    /// The next G2 point (x.c0, x.c1, y.c0, y.c1 in Montgomery form; all
    /// zeros for infinity), checked on the curve and in the subgroup.
    pub(crate) fn g2(&mut self, field: &str) -> Result<G2Affine> {
        let x = Fq2::new(self.fq_montgomery(field)?, self.fq_montgomery(field)?);
        let y = Fq2::new(self.fq_montgomery(field)?, self.fq_montgomery(field)?);
        if x.is_zero() && y.is_zero() {
            return Ok(G2Affine::zero());
        }
        let point = G2Affine::new_unchecked(x, y);
        check_g2(point, || self.loc(field))
    }
}

/// Refuses G2 points off the curve or outside the prime-order subgroup.
pub(crate) fn check_g2(
    point: G2Affine,
    at: impl FnOnce() -> crate::error::Location,
) -> Result<G2Affine> {
    if !point.is_on_curve() {
        return Err(Error::NotOnCurve { at: at() });
    }
    if !g2_subgroup::contains(&point) {
        return Err(Error::NotInSubgroup { at: at() });
    }
    Ok(point)
}

/// The encoding of a G1 point in a zkey.
pub fn g1_to_zkey(point: &G1Affine) -> [u8; G1_BYTES] {
    let mut out = [0u8; G1_BYTES];
    if let Some((x, y)) = point.xy() {
        out[..32].copy_from_slice(&fq_to_montgomery_le(&x));
        out[32..].copy_from_slice(&fq_to_montgomery_le(&y));
    }
    out
}

/// The encoding of a G2 point in a zkey.
pub fn g2_to_zkey(point: &G2Affine) -> [u8; G2_BYTES] {
    let mut out = [0u8; G2_BYTES];
    if let Some((x, y)) = point.xy() {
        for (chunk, c) in out.chunks_exact_mut(32).zip([x.c0, x.c1, y.c0, y.c1]) {
            chunk.copy_from_slice(&fq_to_montgomery_le(&c));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::FileKind;
    use ark_ec::{AffineRepr, CurveGroup};
    use ark_ff::{Field, One};

    fn reader(bytes: &[u8]) -> Reader<'_> {
        Reader::new(FileKind::Zkey, Some(3), bytes)
    }

    #[test]
    fn encodings_round_trip() {
        let v = Fr::from(123456789u64).inverse().unwrap();
        assert_eq!(reader(&fr_to_le(&v)).fr("v").unwrap(), v);
        let c = fr_to_zkey_coefficient(&v);
        assert_eq!(reader(&c).fr_zkey_coefficient("c").unwrap(), v);
        // One is stored as R² mod r.
        assert_eq!(
            bigint_le(&fr_to_zkey_coefficient(&Fr::one())),
            Fr::R2,
            "coefficient form of 1"
        );
        let p = (G1Affine::generator() * Fr::from(5u64)).into_affine();
        assert_eq!(reader(&g1_to_zkey(&p)).g1("p").unwrap(), p);
        let q = (G2Affine::generator() * Fr::from(7u64)).into_affine();
        assert_eq!(reader(&g2_to_zkey(&q)).g2("q").unwrap(), q);
        assert!(reader(&[0; 64]).g1("p").unwrap().is_zero());
        assert!(reader(&[0; 128]).g2("q").unwrap().is_zero());
    }

    #[test]
    fn refusals() {
        let modulus = bigint_to_le(&Fr::MODULUS);
        assert!(matches!(
            reader(&modulus).fr("v"),
            Err(Error::NotCanonical { .. })
        ));
        assert!(matches!(
            reader(&modulus).fr_zkey_coefficient("v"),
            Err(Error::NotCanonical { .. })
        ));
        let mut off_curve = g1_to_zkey(&G1Affine::generator());
        off_curve[0] ^= 1;
        assert!(matches!(
            reader(&off_curve).g1("p"),
            Err(Error::NotOnCurve { .. })
        ));
        assert!(matches!(
            reader(&[0xff; 64]).g1("p"),
            Err(Error::NotCanonical { .. })
        ));
        assert!(is_modulus::<Fr>(&modulus));
        assert!(!is_modulus::<Fq>(&modulus));
        assert!(!is_modulus::<Fr>(&modulus[..31]));
    }

    #[test]
    fn g2_outside_the_subgroup_is_refused() {
        // Points on the twist with x = 0, 1, 2, …: the first whose y² is a
        // square is on the curve, and (cofactor ≠ 1) almost surely not in
        // the subgroup.
        let b = <ark_bn254::g2::Config as ark_ec::short_weierstrass::SWCurveConfig>::COEFF_B;
        let mut x = Fq2::zero();
        let point = loop {
            if let Some(y) = (x * x * x + b).sqrt() {
                break G2Affine::new_unchecked(x, y);
            }
            x += Fq2::one();
        };
        assert!(point.is_on_curve());
        assert!(!point.is_in_correct_subgroup_assuming_on_curve());
        assert!(matches!(
            reader(&g2_to_zkey(&point)).g2("q"),
            Err(Error::NotInSubgroup { .. })
        ));
    }
}
