//! Field elements and BN254 points in snarkjs's JSON: decimal strings,
//! points as projective triples (`[x, y, "1"]` for affine points,
//! `["0", "1", "0"]` for infinity; G2 coordinates as `[c0, c1]` pairs), and
//! a cursor over parsed JSON whose errors carry the path of the value.

use ark_bn254::{Fq, Fq2, G1Affine, G1Projective, G2Affine, G2Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{AdditiveGroup, One, PrimeField, Zero};
use num_bigint::BigUint;
use serde_json::Value;

use crate::error::{Error, FileKind, Location, Result};

/// The decimal string of a field element (standard form).
pub fn to_decimal<F: PrimeField>(value: &F) -> String {
    let n: BigUint = (*value).into();
    n.to_string()
}

/// A G1 point as snarkjs writes it.
pub fn g1_to_strings(point: &G1Affine) -> [String; 3] {
    match point.xy() {
        Some((x, y)) => [to_decimal(&x), to_decimal(&y), "1".into()],
        None => ["0".into(), "1".into(), "0".into()],
    }
}

/// A G2 point as snarkjs writes it.
pub fn g2_to_strings(point: &G2Affine) -> [[String; 2]; 3] {
    let pair = |v: &Fq2| [to_decimal(&v.c0), to_decimal(&v.c1)];
    match point.xy() {
        Some((x, y)) => [pair(&x), pair(&y), ["1".into(), "0".into()]],
        None => [
            ["0".into(), "0".into()],
            ["1".into(), "0".into()],
            ["0".into(), "0".into()],
        ],
    }
}

/// The longest decimal string accepted (BN254's moduli have 77 digits;
/// some slack for leading zeros).
const MAX_DIGITS: usize = 100;

/// Parses `text` as JSON, refusing it with an error naming `kind`.
pub(crate) fn parse_json(kind: FileKind, text: &str) -> Result<Value> {
    serde_json::from_str(text)
        .map_err(|e| Error::invalid(Location::file(kind, "(document)"), format!("not JSON: {e}")))
}

/// A position in a parsed JSON document; errors carry its path.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    kind: FileKind,
    path: String,
    value: &'a Value,
}

impl<'a> Cursor<'a> {
    /// The root of `value`.
    pub(crate) fn root(kind: FileKind, value: &'a Value) -> Self {
        Cursor {
            kind,
            path: String::new(),
            value,
        }
    }

    pub(crate) fn loc(&self) -> Location {
        let field = if self.path.is_empty() {
            "(document)"
        } else {
            &self.path
        };
        Location::file(self.kind, field)
    }

    fn fail<T>(&self, reason: impl Into<String>) -> Result<T> {
        Err(Error::invalid(self.loc(), reason))
    }

    /// The value itself.
    pub(crate) fn value(&self) -> &'a Value {
        self.value
    }

    /// Member `key` of an object, which must exist.
    pub(crate) fn get(&self, key: &str) -> Result<Cursor<'a>> {
        let Value::Object(map) = self.value else {
            return self.fail("expected an object");
        };
        let path = if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        };
        match map.get(key) {
            Some(value) => Ok(Cursor {
                kind: self.kind,
                path,
                value,
            }),
            None => Err(Error::invalid(Location::file(self.kind, path), "missing")),
        }
    }

    /// Member `key` as a string, if present.
    pub(crate) fn optional_str(&self, key: &str) -> Result<Option<&'a str>> {
        let Value::Object(map) = self.value else {
            return self.fail("expected an object");
        };
        match map.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(Error::invalid(
                Location::file(self.kind, key),
                "expected a string",
            )),
        }
    }

    /// The elements of an array, which must have `len` of them if given.
    pub(crate) fn items(&self, len: Option<usize>) -> Result<Vec<Cursor<'a>>> {
        let Value::Array(items) = self.value else {
            return self.fail("expected an array");
        };
        if let Some(len) = len {
            if items.len() != len {
                return self.fail(format!("expected {len} elements, found {}", items.len()));
            }
        }
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, value)| Cursor {
                kind: self.kind,
                path: format!("{}[{i}]", self.path),
                value,
            })
            .collect())
    }

    /// A field element from a decimal string, below the modulus.
    pub(crate) fn element<F: PrimeField>(&self) -> Result<F> {
        let Value::String(s) = self.value else {
            return self.fail("expected a decimal string");
        };
        parse_decimal(s).ok_or_else(|| {
            Error::invalid(
                self.loc(),
                format!(
                    "{:?} is not a decimal integer below the field modulus",
                    truncate(s)
                ),
            )
        })
    }

    /// The elements of an array of decimal strings.
    pub(crate) fn elements<F: PrimeField>(&self, len: Option<usize>) -> Result<Vec<F>> {
        self.items(len)?.iter().map(Cursor::element).collect()
    }

    /// A G1 point `[x, y, z]` (Jacobian; `z = 1` for affine points, `z = 0`
    /// for infinity), checked on the curve.
    pub(crate) fn g1(&self) -> Result<G1Affine> {
        let c: Vec<Fq> = self.elements(Some(3))?;
        let (x, y, z) = (c[0], c[1], c[2]);
        let point = if z.is_zero() {
            G1Affine::zero()
        } else if z.is_one() {
            G1Affine::new_unchecked(x, y)
        } else {
            G1Projective::new_unchecked(x, y, z).into_affine()
        };
        if !point.is_on_curve() {
            return Err(Error::NotOnCurve { at: self.loc() });
        }
        Ok(point)
    }

    /// A G2 point `[[x0, x1], [y0, y1], [z0, z1]]`, checked on the curve
    /// and in the subgroup.
    pub(crate) fn g2(&self) -> Result<G2Affine> {
        let mut c = [Fq2::ZERO; 3];
        for (item, out) in self.items(Some(3))?.iter().zip(&mut c) {
            let pair: Vec<Fq> = item.elements(Some(2))?;
            *out = Fq2::new(pair[0], pair[1]);
        }
        let [x, y, z] = c;
        let point = if z.is_zero() {
            G2Affine::zero()
        } else if z.is_one() {
            G2Affine::new_unchecked(x, y)
        } else {
            G2Projective::new_unchecked(x, y, z).into_affine()
        };
        crate::field::check_g2(point, || self.loc())
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(90).collect()
}

/// A decimal integer below `F`'s modulus (ASCII digits only, at most
/// [`MAX_DIGITS`] of them).
pub(crate) fn parse_decimal<F: PrimeField>(s: &str) -> Option<F> {
    if s.is_empty() || s.len() > MAX_DIGITS || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = BigUint::parse_bytes(s.as_bytes(), 10)?;
    let modulus: BigUint = F::MODULUS.into();
    if n >= modulus {
        return None;
    }
    Some(F::from_le_bytes_mod_order(&n.to_bytes_le()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::{Fr, G2Affine};
    use ark_ec::AffineRepr;
    use ark_ff::Field;

    #[test]
    fn decimals() {
        assert_eq!(parse_decimal::<Fr>("0"), Some(Fr::zero()));
        assert_eq!(parse_decimal::<Fr>("007"), Some(Fr::from(7u64)));
        let r = BigUint::from(Fr::MODULUS).to_string();
        assert_eq!(parse_decimal::<Fr>(&r), None);
        let r_minus_1 = (BigUint::from(Fr::MODULUS) - 1u32).to_string();
        assert_eq!(parse_decimal::<Fr>(&r_minus_1), Some(-Fr::one()));
        for bad in ["", "-1", "+1", "1e3", " 1", "0x10", "١"] {
            assert_eq!(parse_decimal::<Fr>(bad), None, "{bad:?}");
        }
        assert_eq!(parse_decimal::<Fr>(&"9".repeat(1000)), None);
        assert_eq!(to_decimal(&-Fr::one()), r_minus_1);
    }

    #[test]
    fn points_round_trip() {
        struct Node(Value);
        impl Node {
            fn cursor(&self) -> Cursor<'_> {
                let mut c = Cursor::root(FileKind::ProofJson, &self.0);
                c.path = "p".into();
                c
            }
        }
        let node = Node;
        let g1 = G1Affine::generator();
        let n = node(serde_json::to_value(g1_to_strings(&g1)).unwrap());
        assert_eq!(n.cursor().g1().unwrap(), g1);
        let zero = node(serde_json::to_value(g1_to_strings(&G1Affine::zero())).unwrap());
        assert!(zero.cursor().g1().unwrap().is_zero());
        let g2 = G2Affine::generator();
        let n = node(serde_json::to_value(g2_to_strings(&g2)).unwrap());
        assert_eq!(n.cursor().g2().unwrap(), g2);
        let zero = node(serde_json::to_value(g2_to_strings(&G2Affine::zero())).unwrap());
        assert!(zero.cursor().g2().unwrap().is_zero());
        // Jacobian coordinates with z = 2: (x·4, y·8, 2).
        let (x, y) = g1.xy().unwrap();
        let two = Fq::from(2u64);
        let jac = node(serde_json::json!([
            to_decimal(&(x * two.square())),
            to_decimal(&(y * two.square() * two)),
            "2"
        ]));
        assert_eq!(jac.cursor().g1().unwrap(), g1);
        let off = node(serde_json::json!(["1", "1", "1"]));
        assert!(matches!(off.cursor().g1(), Err(Error::NotOnCurve { .. })));
        let short = node(serde_json::json!(["1", "2"]));
        let err = short.cursor().g1().unwrap_err();
        assert!(err.to_string().contains("field p"), "{err}");
    }
}
