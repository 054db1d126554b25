//! snarkjs's JSON files for BN254 Groth16: `proof.json`, `public.json`
//! and `verification_key.json`, written as snarkjs writes them (one-space
//! indentation, no final newline; points affine with a `"1"` coordinate,
//! infinity as `["0", "1", "0"]`) and read back with checks (protocol
//! `groth16`, curve `bn128`, decimal strings below their modulus, points on
//! the curve and in the subgroup, counts that agree).
//!
//! Files are written atomically ([`crate::atomic_file::write_atomic`]): a
//! proof file is either absent, the previous one, or complete.
//!
//! ```
//! use ark_bn254::{Bn254, Fr, G1Affine, G2Affine};
//! use ark_ec::AffineRepr;
//! use ark_groth16::Proof;
//! use he_circom::snarkjs_json::{proof_from_json, proof_to_json, public_from_json, public_to_json};
//!
//! let proof = Proof::<Bn254> { a: G1Affine::generator(), b: G2Affine::generator(), c: G1Affine::generator() };
//! assert_eq!(proof_from_json(&proof_to_json(&proof))?, proof);
//! let public = vec![Fr::from(5u64), -Fr::from(1u64)];
//! assert_eq!(public_from_json(&public_to_json(&public))?, public);
//! assert!(proof_from_json("{\"pi_a\": [\"1\"]}").is_err());
//! # Ok::<(), he_circom::Error>(())
//! ```

use std::path::Path;

use ark_bn254::{Bn254, Fq, Fq12, Fq2, Fq6, Fr};
use ark_ec::pairing::Pairing;
use ark_ff::AdditiveGroup;
use ark_groth16::{Proof, VerifyingKey};
use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, FileKind, Location, Result};
use crate::json_points::{g1_to_strings, g2_to_strings, parse_json, to_decimal, Cursor};

type G1Json = [String; 3];
type G2Json = [[String; 2]; 3];

#[derive(Serialize)]
struct ProofJson {
    pi_a: G1Json,
    pi_b: G2Json,
    pi_c: G1Json,
    protocol: &'static str,
    curve: &'static str,
}

#[derive(Serialize)]
struct VerifyingKeyJson {
    protocol: &'static str,
    curve: &'static str,
    #[serde(rename = "nPublic")]
    n_public: usize,
    vk_alpha_1: G1Json,
    vk_beta_2: G2Json,
    vk_gamma_2: G2Json,
    vk_delta_2: G2Json,
    vk_alphabeta_12: [[[String; 2]; 3]; 2],
    #[serde(rename = "IC")]
    ic: Vec<G1Json>,
}

/// snarkjs's layout: `JSON.stringify(value, null, 1)`.
fn to_snarkjs_json<T: Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    // Strings and arrays only: serializing cannot fail, and the output is
    // UTF-8.
    if value.serialize(&mut ser).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

fn write(kind: FileKind, path: &Path, text: &str) -> Result<()> {
    crate::atomic_file::write_atomic(path, text.as_bytes()).map_err(|source| Error::Io {
        kind,
        path: path.display().to_string(),
        source,
    })
}

fn read_text(kind: FileKind, path: &Path) -> Result<String> {
    let bytes = crate::read_file(kind, path)?;
    String::from_utf8(bytes)
        .map_err(|_| Error::invalid(Location::file(kind, "(document)"), "not UTF-8"))
}

/// Checks the optional `protocol` and `curve` members.
fn check_protocol(root: &Cursor<'_>, required: bool) -> Result<()> {
    for (key, expected) in [("protocol", "groth16"), ("curve", "bn128")] {
        match root.optional_str(key)? {
            Some(found) if found == expected => {}
            None if !required => {}
            found => {
                return Err(Error::invalid(
                    Location::file(root.loc().kind, key),
                    format!("expected {expected:?}, found {found:?}"),
                ))
            }
        }
    }
    Ok(())
}

/// A proof as snarkjs's `proof.json`.
pub fn proof_to_json(proof: &Proof<Bn254>) -> String {
    to_snarkjs_json(&ProofJson {
        pi_a: g1_to_strings(&proof.a),
        pi_b: g2_to_strings(&proof.b),
        pi_c: g1_to_strings(&proof.c),
        protocol: "groth16",
        curve: "bn128",
    })
}

/// Writes `proof.json` atomically.
///
/// # Errors
/// [`Error::Io`].
pub fn write_proof(path: impl AsRef<Path>, proof: &Proof<Bn254>) -> Result<()> {
    write(FileKind::ProofJson, path.as_ref(), &proof_to_json(proof))
}

/// Parses a `proof.json`: `pi_a`, `pi_b`, `pi_c` (points on the curve and
/// in the subgroup), `protocol` `"groth16"` and `curve` `"bn128"` if
/// present (other provers omit `curve`).
///
/// # Errors
/// [`Error::Invalid`] naming the member, [`Error::NotOnCurve`],
/// [`Error::NotInSubgroup`].
pub fn proof_from_json(text: &str) -> Result<Proof<Bn254>> {
    let value = parse_json(FileKind::ProofJson, text)?;
    let root = Cursor::root(FileKind::ProofJson, &value);
    check_protocol(&root, false)?;
    Ok(Proof {
        a: root.get("pi_a")?.g1()?,
        b: root.get("pi_b")?.g2()?,
        c: root.get("pi_c")?.g1()?,
    })
}

/// Reads a `proof.json`.
///
/// # Errors
/// [`Error::Io`], or as [`proof_from_json`].
pub fn read_proof(path: impl AsRef<Path>) -> Result<Proof<Bn254>> {
    proof_from_json(&read_text(FileKind::ProofJson, path.as_ref())?)
}

/// Public values as snarkjs's `public.json` (decimal strings).
pub fn public_to_json(values: &[Fr]) -> String {
    to_snarkjs_json(&values.iter().map(to_decimal).collect::<Vec<_>>())
}

/// Writes `public.json` atomically.
///
/// # Errors
/// [`Error::Io`].
pub fn write_public(path: impl AsRef<Path>, values: &[Fr]) -> Result<()> {
    write(FileKind::PublicJson, path.as_ref(), &public_to_json(values))
}

/// Parses a `public.json`: an array of decimal strings below the scalar
/// modulus.
///
/// # Errors
/// [`Error::Invalid`] naming the element.
pub fn public_from_json(text: &str) -> Result<Vec<Fr>> {
    let value = parse_json(FileKind::PublicJson, text)?;
    Cursor::root(FileKind::PublicJson, &value).elements(None)
}

/// Reads a `public.json`.
///
/// # Errors
/// [`Error::Io`], or as [`public_from_json`].
pub fn read_public(path: impl AsRef<Path>) -> Result<Vec<Fr>> {
    public_from_json(&read_text(FileKind::PublicJson, path.as_ref())?)
}

/// `e(α, β)` in snarkjs's layout: `[c0, c1]` of Fq12, each `[c0, c1, c2]`
/// of Fq6, each `[c0, c1]` of Fq2.
fn alphabeta(vk: &VerifyingKey<Bn254>) -> [[[String; 2]; 3]; 2] {
    let gt = Bn254::pairing(vk.alpha_g1, vk.beta_g2).0;
    let fq2 = |v: &Fq2| [to_decimal(&v.c0), to_decimal(&v.c1)];
    let fq6 = |v: &Fq6| [fq2(&v.c0), fq2(&v.c1), fq2(&v.c2)];
    [fq6(&gt.c0), fq6(&gt.c1)]
}

/// An Fq12 element in snarkjs's layout (as [`alphabeta`] writes it).
fn fq12(c: &Cursor<'_>) -> Result<Fq12> {
    let mut fq6 = [Fq6::ZERO; 2];
    for (item, out) in c.items(Some(2))?.iter().zip(&mut fq6) {
        let mut fq2 = [Fq2::ZERO; 3];
        for (pair, out) in item.items(Some(3))?.iter().zip(&mut fq2) {
            let v: Vec<Fq> = pair.elements(Some(2))?;
            *out = Fq2::new(v[0], v[1]);
        }
        let [c0, c1, c2] = fq2;
        *out = Fq6::new(c0, c1, c2);
    }
    let [c0, c1] = fq6;
    Ok(Fq12::new(c0, c1))
}

/// A verifying key as snarkjs's `verification_key.json`, with
/// `vk_alphabeta_12 = e(α, β)` (which snarkjs's verifier does not read, but
/// other tools do).
pub fn verifying_key_to_json(vk: &VerifyingKey<Bn254>) -> String {
    to_snarkjs_json(&VerifyingKeyJson {
        protocol: "groth16",
        curve: "bn128",
        n_public: vk.gamma_abc_g1.len().saturating_sub(1),
        vk_alpha_1: g1_to_strings(&vk.alpha_g1),
        vk_beta_2: g2_to_strings(&vk.beta_g2),
        vk_gamma_2: g2_to_strings(&vk.gamma_g2),
        vk_delta_2: g2_to_strings(&vk.delta_g2),
        vk_alphabeta_12: alphabeta(vk),
        ic: vk.gamma_abc_g1.iter().map(g1_to_strings).collect(),
    })
}

/// Writes `verification_key.json` atomically.
///
/// # Errors
/// [`Error::Io`].
pub fn write_verifying_key(path: impl AsRef<Path>, vk: &VerifyingKey<Bn254>) -> Result<()> {
    write(
        FileKind::VerificationKeyJson,
        path.as_ref(),
        &verifying_key_to_json(vk),
    )
}

/// Parses a `verification_key.json`: `protocol` `"groth16"` and `curve`
/// `"bn128"` (both required), `nPublic`, the points `vk_alpha_1`,
/// `vk_beta_2`, `vk_gamma_2`, `vk_delta_2` and `IC` (`nPublic + 1` of
/// them); `vk_alphabeta_12`, if present, must be `e(α, β)`.
///
/// # Errors
/// [`Error::Invalid`] naming the member, [`Error::NotOnCurve`],
/// [`Error::NotInSubgroup`].
pub fn verifying_key_from_json(text: &str) -> Result<VerifyingKey<Bn254>> {
    const KIND: FileKind = FileKind::VerificationKeyJson;
    let value = parse_json(KIND, text)?;
    let root = Cursor::root(KIND, &value);
    check_protocol(&root, true)?;
    let n = root.get("nPublic")?;
    let n_public = match n.value() {
        Value::Number(v) => v.as_u64(),
        _ => None,
    }
    .ok_or_else(|| Error::invalid(n.loc(), "expected a non-negative integer"))?;
    let ic = root.get("IC")?;
    let items = ic.items(None)?;
    if items.len() as u64 != n_public.saturating_add(1) {
        return Err(Error::invalid(
            ic.loc(),
            format!("{} points for nPublic = {n_public}", items.len()),
        ));
    }
    let vk = VerifyingKey {
        alpha_g1: root.get("vk_alpha_1")?.g1()?,
        beta_g2: root.get("vk_beta_2")?.g2()?,
        gamma_g2: root.get("vk_gamma_2")?.g2()?,
        delta_g2: root.get("vk_delta_2")?.g2()?,
        gamma_abc_g1: items.iter().map(Cursor::g1).collect::<Result<_>>()?,
    };
    if let Ok(found) = root.get("vk_alphabeta_12") {
        let found = fq12(&found)?;
        if found != Bn254::pairing(vk.alpha_g1, vk.beta_g2).0 {
            return Err(Error::invalid(
                Location::file(KIND, "vk_alphabeta_12"),
                "is not e(vk_alpha_1, vk_beta_2)",
            ));
        }
    }
    Ok(vk)
}

/// Reads a `verification_key.json`.
///
/// # Errors
/// [`Error::Io`], or as [`verifying_key_from_json`].
pub fn read_verifying_key(path: impl AsRef<Path>) -> Result<VerifyingKey<Bn254>> {
    verifying_key_from_json(&read_text(FileKind::VerificationKeyJson, path.as_ref())?)
}
