//! snarkjs's Groth16 proving keys (`.zkey`, format version 1) over BN254.
//!
//! Sections:
//! 1. protocol: `u32`, 1 for Groth16 (PLONK and FFLONK keys are refused);
//! 2. Groth16 header: `n8q` (32), `q` (the BN254 base modulus), `n8r` (32),
//!    `r` (the scalar modulus), `nVars`, `nPublic`, `domainSize` (`u32`
//!    each; the domain a power of two), then α₁, β₁, β₂, γ₂, δ₁, δ₂;
//! 3. IC: `nPublic + 1` G1 points (the verifying key's `gamma_abc_g1`);
//! 4. the coefficients of A and B: a `u32` count, then per coefficient
//!    `u32` matrix (0 = A, 1 = B), `u32` constraint, `u32` signal and the
//!    value as the integer `v·R² mod r` (see [`crate::field`]). snarkjs
//!    appends a row `A = 1·w_s` for each wire `s ≤ nPublic` after the
//!    circuit's constraints (see [`crate::reduction`]); the reader checks
//!    and strips them;
//! 5. A: `nVars` G1 points; 6. B in G1: `nVars`; 7. B in G2: `nVars`;
//! 8. C: `nVars − nPublic − 1` G1 points (private wires only);
//! 9. H: `domainSize` G1 points, for the odd coset of the `2·domainSize`-th
//!    roots of unity (see [`crate::reduction`]);
//! 10. contributions (ignored).
//!
//! Points are affine, coordinates in Montgomery form, little-endian; all
//! zeros is the point at infinity. Every point must be on the curve and (G2)
//! in the prime-order subgroup. Every section's size must be exactly what
//! the header's counts imply, and is checked before anything is allocated
//! for it; the domain must be the smallest power of two (at least 2) that
//! holds the constraints and the public rows, as snarkjs chooses it.
//!
//! ```no_run
//! use ark_groth16::Groth16;
//! use ark_bn254::Bn254;
//! use he_circom::{CircomReduction, R1cs, Witness, Zkey};
//!
//! let zkey = Zkey::read("circuit.zkey")?;
//! let r1cs = R1cs::read("circuit.r1cs")?;
//! zkey.check_matches(&r1cs)?;
//! let witness = Witness::read("witness.wtns")?;
//! let m = zkey.matrices();
//! let (r, s) = (Default::default(), Default::default()); // use random values
//! let proof = Groth16::<Bn254, CircomReduction>::create_proof_with_reduction_and_matrices(
//!     zkey.proving_key(), r, s, m.as_slice(),
//!     m.num_instance_variables(), m.num_constraints(), witness.values(),
//! ).expect("prove");
//! # Ok::<(), he_circom::Error>(())
//! ```

use std::path::Path;

use ark_bn254::{Bn254, Fq, Fr, G1Affine, G2Affine};
use ark_ff::One;
use ark_groth16::{ProvingKey, VerifyingKey};

use crate::binfile::{BinFile, Reader};
use crate::error::{Error, FileKind, Location, Result};
use crate::field::{is_modulus, FIELD_BYTES, G1_BYTES, G2_BYTES};
use crate::matrices::{AbMatrices, Matrix};
use crate::r1cs::R1cs;
use crate::reduction::domain_size;

const KIND: FileKind = FileKind::Zkey;
/// The format version read.
pub const ZKEY_VERSION: u32 = 1;
/// The largest domain: the reduction needs the `2·domainSize`-th roots of
/// unity, and BN254's scalar field has 2-adicity 28.
pub const MAX_DOMAIN_SIZE: u32 = 1 << 27;

const PROTOCOL: u32 = 1;
const GROTH16_HEADER: u32 = 2;
const IC: u32 = 3;
const COEFFICIENTS: u32 = 4;
const POINTS_A: u32 = 5;
const POINTS_B1: u32 = 6;
const POINTS_B2: u32 = 7;
const POINTS_C: u32 = 8;
const POINTS_H: u32 = 9;

/// The counts of a zkey's Groth16 header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZkeyHeader {
    /// Wires, the constant one included.
    pub n_vars: u32,
    /// Public wires (outputs and inputs).
    pub n_public: u32,
    /// The size of the evaluation domain.
    pub domain_size: u32,
}

/// A checked Groth16 zkey: the proving key (with its verifying key), the
/// A and B matrices and the counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Zkey {
    header: ZkeyHeader,
    proving_key: ProvingKey<Bn254>,
    matrices: AbMatrices,
}

impl Zkey {
    /// Reads and checks the `.zkey` at `path`.
    ///
    /// # Errors
    /// [`Error::Io`], or as [`from_bytes`](Self::from_bytes).
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_bytes(&crate::read_file(KIND, path.as_ref())?)
    }

    /// Parses and checks a `.zkey`.
    ///
    /// # Errors
    /// Any [`Error`] of the container ([`BinFile::parse`]); missing
    /// sections; a protocol other than Groth16
    /// ([`Error::UnsupportedSection`]); [`Error::WrongPrime`]; counts,
    /// section sizes, domain sizes or public-input rows that do not fit
    /// ([`Error::Invalid`]); out-of-range matrix, constraint or signal
    /// indices; [`Error::NotCanonical`] values; points off the curve or
    /// outside the subgroup.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let Public {
            file,
            header,
            keys,
            matrices,
            gamma_abc_g1,
        } = read_public(bytes)?;
        let a_query = read_g1s(&file, POINTS_A, "A point")?;
        let b_g1_query = read_g1s(&file, POINTS_B1, "B1 point")?;
        let b_g2_query = {
            let mut r = file.reader(POINTS_B2)?;
            let mut points = Vec::with_capacity(r.remaining() / G2_BYTES);
            for i in 0..(r.remaining() / G2_BYTES) as u64 {
                r.index = Some(i);
                points.push(r.g2("B2 point")?);
            }
            points
        };
        let l_query = read_g1s(&file, POINTS_C, "C point")?;
        let h_query = read_g1s(&file, POINTS_H, "H point")?;
        let proving_key = ProvingKey {
            vk: keys.verifying_key(gamma_abc_g1),
            beta_g1: keys.beta_g1,
            delta_g1: keys.delta_g1,
            a_query,
            b_g1_query,
            b_g2_query,
            h_query,
            l_query,
        };
        Ok(Zkey {
            header,
            proving_key,
            matrices,
        })
    }

    /// The header's counts.
    pub fn header(&self) -> &ZkeyHeader {
        &self.header
    }

    /// Public wires (snarkjs's `nPublic`): outputs, then inputs.
    pub fn n_public(&self) -> usize {
        self.header.n_public as usize
    }

    /// The size of the evaluation domain.
    pub fn domain_size(&self) -> usize {
        self.header.domain_size as usize
    }

    /// The proving key (`h_query` holds the `domainSize` H points for
    /// [`crate::CircomReduction`]).
    pub fn proving_key(&self) -> &ProvingKey<Bn254> {
        &self.proving_key
    }

    /// The verifying key.
    pub fn verifying_key(&self) -> &VerifyingKey<Bn254> {
        &self.proving_key.vk
    }

    /// A and B, without snarkjs's public-input rows.
    pub fn matrices(&self) -> &AbMatrices {
        &self.matrices
    }

    /// The proving key and the matrices, by value.
    pub fn into_parts(self) -> (ProvingKey<Bn254>, AbMatrices) {
        (self.proving_key, self.matrices)
    }

    /// Refuses this zkey unless it was made for `r1cs`: the same wires,
    /// public wires and constraints, and the same A and B coefficients
    /// (row by row, as sets of `(wire, coefficient)`).
    ///
    /// # Errors
    /// [`Error::ZkeyMismatch`] naming the first difference.
    pub fn check_matches(&self, r1cs: &R1cs) -> Result<()> {
        matches_r1cs(&self.header, &self.matrices, r1cs)
    }
}

/// Refuses `zkey` unless it was made for `r1cs`: [`Zkey::check_matches`].
///
/// # Errors
/// [`Error::ZkeyMismatch`] naming the first difference.
pub fn check_matches(zkey: &Zkey, r1cs: &R1cs) -> Result<()> {
    zkey.check_matches(r1cs)
}

/// A row's entries ordered by wire, for comparison.
fn sorted(row: &[(Fr, usize)]) -> Vec<(usize, Fr)> {
    let mut out: Vec<(usize, Fr)> = row.iter().map(|(c, w)| (*w, *c)).collect();
    out.sort_unstable_by_key(|(w, c)| (*w, ark_ff::PrimeField::into_bigint(*c)));
    out
}

/// A zkey read without its query points, for a role that makes no
/// multi-scalar multiplication (a collaborative proof's server, a
/// verifier): the header's counts, the verifying key, δ in G1 and the A and
/// B matrices. Everything [`Zkey::from_bytes`] checks is checked, except
/// that the points of the A, B (G1 and G2), C and H sections are not read:
/// their sections' sizes still are, but a point there that is off the curve
/// or outside the subgroup goes unnoticed. Reading them is most of a
/// zkey's load (the G2 subgroup checks above all).
#[derive(Clone, Debug, PartialEq)]
pub struct ZkeyWithoutQueries {
    header: ZkeyHeader,
    verifying_key: VerifyingKey<Bn254>,
    delta_g1: G1Affine,
    matrices: AbMatrices,
}

impl ZkeyWithoutQueries {
    /// Reads and checks the `.zkey` at `path`, skipping its query points.
    ///
    /// # Errors
    /// [`Error::Io`], or as [`from_bytes`](Self::from_bytes).
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_bytes(&crate::read_file(KIND, path.as_ref())?)
    }

    /// Parses and checks a `.zkey`, skipping its query points.
    ///
    /// # Errors
    /// As [`Zkey::from_bytes`], except for the query points.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let Public {
            header,
            keys,
            matrices,
            gamma_abc_g1,
            ..
        } = read_public(bytes)?;
        Ok(Self {
            header,
            verifying_key: keys.verifying_key(gamma_abc_g1),
            delta_g1: keys.delta_g1,
            matrices,
        })
    }

    /// The header's counts.
    pub fn header(&self) -> &ZkeyHeader {
        &self.header
    }

    /// The verifying key.
    pub fn verifying_key(&self) -> &VerifyingKey<Bn254> {
        &self.verifying_key
    }

    /// δ in G1 (the proving key's `delta_g1`).
    pub fn delta_g1(&self) -> G1Affine {
        self.delta_g1
    }

    /// A and B, without snarkjs's public-input rows.
    pub fn matrices(&self) -> &AbMatrices {
        &self.matrices
    }

    /// Refuses this zkey unless it was made for `r1cs`, as
    /// [`Zkey::check_matches`].
    ///
    /// # Errors
    /// [`Error::ZkeyMismatch`] naming the first difference.
    pub fn check_matches(&self, r1cs: &R1cs) -> Result<()> {
        matches_r1cs(&self.header, &self.matrices, r1cs)
    }
}

/// What every reader of a zkey checks and keeps: the container, the
/// protocol, the header and its points, every section's size, the
/// coefficients and the IC points.
struct Public<'a> {
    file: BinFile<'a>,
    header: ZkeyHeader,
    keys: HeaderKeys,
    matrices: AbMatrices,
    gamma_abc_g1: Vec<G1Affine>,
}

fn read_public(bytes: &[u8]) -> Result<Public<'_>> {
    let file = BinFile::parse(KIND, bytes, ZKEY_VERSION)?;
    let mut p = file.reader(PROTOCOL)?;
    let protocol = p.u32("protocol")?;
    p.finish("protocol")?;
    if protocol != 1 {
        return Err(Error::UnsupportedSection {
            kind: KIND,
            section: PROTOCOL,
            reason: match protocol {
                2 => "PLONK keys are not supported (protocol 2; only Groth16, 1)",
                10 => "FFLONK keys are not supported (protocol 10; only Groth16, 1)",
                _ => "unknown protocol (only Groth16, 1, is supported)",
            },
        });
    }
    let mut h = file.reader(GROTH16_HEADER)?;
    let (header, keys) = read_header(&mut h)?;
    let n_vars = u64::from(header.n_vars);
    let n_public = u64::from(header.n_public);
    // Every section's size first: from here on the counts are bounded by
    // the file's real length.
    let sizes = [
        (IC, n_public + 1, G1_BYTES),
        (POINTS_A, n_vars, G1_BYTES),
        (POINTS_B1, n_vars, G1_BYTES),
        (POINTS_B2, n_vars, G2_BYTES),
        (POINTS_C, n_vars - n_public - 1, G1_BYTES),
        (POINTS_H, u64::from(header.domain_size), G1_BYTES),
    ];
    for (section, count, size) in sizes {
        let body = file.section(section)?;
        let expected = count * size as u64;
        if body.len() as u64 != expected {
            return Err(Error::invalid(
                Location::section(KIND, section, "section size"),
                format!(
                    "{} bytes; the header's counts give {count} points of {size} bytes",
                    body.len()
                ),
            ));
        }
    }
    let matrices = read_coefficients(&mut file.reader(COEFFICIENTS)?, &header)?;
    let gamma_abc_g1 = read_g1s(&file, IC, "IC point")?;
    Ok(Public {
        file,
        header,
        keys,
        matrices,
        gamma_abc_g1,
    })
}

/// The G1 points of `section` (its size checked already), each checked on
/// the curve; `field` names one in an error.
fn read_g1s(file: &BinFile<'_>, section: u32, field: &str) -> Result<Vec<G1Affine>> {
    let mut r = file.reader(section)?;
    let mut points = Vec::with_capacity(r.remaining() / G1_BYTES);
    for i in 0..(r.remaining() / G1_BYTES) as u64 {
        r.index = Some(i);
        points.push(r.g1(field)?);
    }
    Ok(points)
}

/// Refuses a zkey with `header` and `matrices` unless it was made for
/// `r1cs`: the same wires, public wires and constraints, and the same A and
/// B coefficients (row by row, as sets of `(wire, coefficient)`).
fn matches_r1cs(header: &ZkeyHeader, matrices: &AbMatrices, r1cs: &R1cs) -> Result<()> {
    let h = r1cs.header();
    let counts = [
        ("wires", u64::from(header.n_vars), u64::from(h.n_wires)),
        ("public wires", u64::from(header.n_public), h.n_public()),
        (
            "constraints",
            matrices.num_constraints() as u64,
            u64::from(h.n_constraints),
        ),
    ];
    for (what, zkey, r1cs) in counts {
        if zkey != r1cs {
            return Err(Error::ZkeyMismatch {
                what: format!("the zkey has {zkey} {what}, the r1cs {r1cs}"),
            });
        }
    }
    let theirs = r1cs.matrices();
    for (name, ours, theirs) in [
        ("A", matrices.a(), theirs.a()),
        ("B", matrices.b(), theirs.b()),
    ] {
        for (i, (x, y)) in ours.iter().zip(theirs).enumerate() {
            if sorted(x) != sorted(y) {
                return Err(Error::ZkeyMismatch {
                    what: format!("constraint {i}: the {name} coefficients differ"),
                });
            }
        }
    }
    Ok(())
}

/// The six points of the Groth16 header.
struct HeaderKeys {
    alpha_g1: G1Affine,
    beta_g1: G1Affine,
    beta_g2: G2Affine,
    gamma_g2: G2Affine,
    delta_g1: G1Affine,
    delta_g2: G2Affine,
}

impl HeaderKeys {
    /// The verifying key of these points and the IC points.
    fn verifying_key(&self, gamma_abc_g1: Vec<G1Affine>) -> VerifyingKey<Bn254> {
        VerifyingKey {
            alpha_g1: self.alpha_g1,
            beta_g2: self.beta_g2,
            gamma_g2: self.gamma_g2,
            delta_g2: self.delta_g2,
            gamma_abc_g1,
        }
    }
}

fn read_prime<F: ark_ff::PrimeField<BigInt = ark_ff::BigInt<4>>>(
    r: &mut Reader<'_>,
    n8_field: &str,
    prime_field: &str,
    expected: &'static str,
) -> Result<()> {
    let n8 = r.u32(n8_field)?;
    if n8 as usize != FIELD_BYTES {
        return Err(Error::invalid(
            r.loc(n8_field),
            format!("field elements of {n8} bytes; BN254 needs {FIELD_BYTES}"),
        ));
    }
    if !is_modulus::<F>(r.take(u64::from(n8), prime_field)?) {
        return Err(Error::WrongPrime {
            at: r.loc(prime_field),
            expected,
        });
    }
    Ok(())
}

fn read_header(r: &mut Reader<'_>) -> Result<(ZkeyHeader, HeaderKeys)> {
    read_prime::<Fq>(r, "n8q", "q", "base field")?;
    read_prime::<Fr>(r, "n8r", "r", "scalar field")?;
    let header = ZkeyHeader {
        n_vars: r.u32("nVars")?,
        n_public: r.u32("nPublic")?,
        domain_size: r.u32("domainSize")?,
    };
    if u64::from(header.n_public) + 1 > u64::from(header.n_vars) {
        return Err(Error::invalid(
            r.loc("nPublic"),
            format!(
                "{} public wires and the constant do not fit in nVars = {}",
                header.n_public, header.n_vars
            ),
        ));
    }
    let d = header.domain_size;
    if !d.is_power_of_two() || !(2..=MAX_DOMAIN_SIZE).contains(&d) {
        return Err(Error::invalid(
            r.loc("domainSize"),
            format!("{d} is not a power of two between 2 and 2^27"),
        ));
    }
    let keys = HeaderKeys {
        alpha_g1: r.g1("alpha1")?,
        beta_g1: r.g1("beta1")?,
        beta_g2: r.g2("beta2")?,
        gamma_g2: r.g2("gamma2")?,
        delta_g1: r.g1("delta1")?,
        delta_g2: r.g2("delta2")?,
    };
    r.finish("delta2")?;
    Ok((header, keys))
}

/// Bytes of one coefficient entry: matrix, constraint, signal, value.
const COEFFICIENT_BYTES: u64 = 12 + FIELD_BYTES as u64;

fn read_coefficients(r: &mut Reader<'_>, header: &ZkeyHeader) -> Result<AbMatrices> {
    let count = r.u32("nCoefs")?;
    r.ensure(u64::from(count), COEFFICIENT_BYTES, "coefficients")?;
    // domainSize rows at most (checked against section 9's real size).
    let rows = header.domain_size as usize;
    let mut ab: [Matrix<Fr>; 2] = [vec![Vec::new(); rows], vec![Vec::new(); rows]];
    let mut used_rows = 0usize;
    for i in 0..u64::from(count) {
        r.index = Some(i);
        let matrix = r.u32("matrix")?;
        if matrix > 1 {
            return Err(Error::invalid(
                r.loc("matrix"),
                format!("matrix {matrix}: only 0 (A) and 1 (B) exist"),
            ));
        }
        let constraint = r.u32("constraint")?;
        if constraint >= header.domain_size {
            return Err(Error::invalid(
                r.loc("constraint"),
                format!(
                    "constraint {constraint} is outside the domain of {}",
                    header.domain_size
                ),
            ));
        }
        let signal = r.u32("signal")?;
        if signal >= header.n_vars {
            return Err(Error::WireOutOfRange {
                at: r.loc("signal"),
                wire: u64::from(signal),
                wires: u64::from(header.n_vars),
            });
        }
        let value = r.fr_zkey_coefficient("value")?;
        ab[matrix as usize][constraint as usize].push((value, signal as usize));
        used_rows = used_rows.max(constraint as usize + 1);
    }
    r.index = None;
    r.finish("coefficients")?;

    // snarkjs's public-input rows: A = 1·w_s at row nConstraints + s.
    let instance = header.n_public as usize + 1;
    let at = |row: usize| Location::section(KIND, COEFFICIENTS, "constraint").at(row as u64);
    let Some(n_constraints) = used_rows.checked_sub(instance) else {
        return Err(Error::invalid(
            at(used_rows),
            format!("the coefficients use {used_rows} rows; the {instance} public-input rows alone need more"),
        ));
    };
    for s in 0..instance {
        let row = n_constraints + s;
        if ab[0][row] != [(Fr::one(), s)] || !ab[1][row].is_empty() {
            return Err(Error::invalid(
                at(row),
                format!("row {row} should be snarkjs's public-input row A = 1·w_{s}, B = 0"),
            ));
        }
    }
    let expected = domain_size(n_constraints, instance);
    if Some(header.domain_size as usize) != expected {
        return Err(Error::invalid(
            Location::section(KIND, GROTH16_HEADER, "domainSize"),
            format!(
                "{} for {n_constraints} constraints and {instance} public rows; snarkjs uses {}",
                header.domain_size,
                expected.map_or("none".into(), |d| d.to_string())
            ),
        ));
    }
    for m in &mut ab {
        m.truncate(n_constraints);
    }
    Ok(AbMatrices {
        num_instance_variables: instance,
        num_witness_variables: header.n_vars as usize - instance,
        matrices: ab,
    })
}
