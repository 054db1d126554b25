//! circom's `.r1cs` constraint systems (format version 1) over BN254.
//!
//! Sections (in any order): 1 the header, 2 the constraints, 3 the
//! wire-to-label map (optional here); 4 and 5 (custom gates, PLONK only)
//! are refused.
//!
//! - Header: `n8` (`u32`, the bytes of a field element: 32), the prime
//!   (`n8` bytes, little-endian: must be the BN254 scalar modulus),
//!   `nWires`, `nPubOut`, `nPubIn`, `nPrvIn` (`u32`), `nLabels` (`u64`),
//!   `mConstraints` (`u32`).
//! - Constraints: per constraint, the linear combinations A, B and C, each
//!   a `u32` count then that many (`u32` wire, `n8`-byte coefficient in
//!   standard form, not Montgomery) pairs. Every wire is below `nWires`,
//!   every coefficient below the prime.
//! - Wire-to-label map: `nWires` `u64` label ids, each below `nLabels`.
//!
//! Nothing is allocated for a count before the bytes it implies are known
//! to be in the section.
//!
//! ```no_run
//! let r1cs = he_circom::R1cs::read("circuit.r1cs")?;
//! println!("{} constraints over {} wires",
//!     r1cs.header().n_constraints, r1cs.header().n_wires);
//! # Ok::<(), he_circom::Error>(())
//! ```

use std::path::Path;

use ark_bn254::Fr;

use crate::binfile::{BinFile, Reader};
use crate::error::{Error, FileKind, Location, Result};
use crate::field::{is_modulus, FIELD_BYTES};
use crate::matrices::{ConstraintMatrices, Matrix};

const KIND: FileKind = FileKind::R1cs;
/// The format version read.
pub const R1CS_VERSION: u32 = 1;
const HEADER: u32 = 1;
const CONSTRAINTS: u32 = 2;
const WIRE_MAP: u32 = 3;

/// The counts of an `.r1cs` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct R1csHeader {
    /// Wires, the constant one included.
    pub n_wires: u32,
    /// Public outputs (wires `1..=nPubOut`).
    pub n_pub_out: u32,
    /// Public inputs (the next `nPubIn` wires).
    pub n_pub_in: u32,
    /// Private inputs.
    pub n_prv_in: u32,
    /// Labels (signals before circom's simplification).
    pub n_labels: u64,
    /// Constraints.
    pub n_constraints: u32,
}

impl R1csHeader {
    /// The public wires: `nPubOut + nPubIn` (snarkjs's `nPublic`).
    pub fn n_public(&self) -> u64 {
        u64::from(self.n_pub_out) + u64::from(self.n_pub_in)
    }
}

/// A checked `.r1cs`: its header, its matrices and, if present, its
/// wire-to-label map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct R1cs {
    header: R1csHeader,
    matrices: ConstraintMatrices,
    wire_to_label: Option<Vec<u64>>,
}

impl R1cs {
    /// Reads and checks the `.r1cs` at `path`.
    ///
    /// # Errors
    /// [`Error::Io`], or as [`from_bytes`](Self::from_bytes).
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        Self::from_bytes(&crate::read_file(KIND, path.as_ref())?)
    }

    /// Parses and checks an `.r1cs`.
    ///
    /// # Errors
    /// Any [`Error`] of the container ([`BinFile::parse`]); a missing
    /// header or constraints section; custom-gate sections
    /// ([`Error::UnsupportedSection`]); [`Error::WrongPrime`]; counts that
    /// do not add up ([`Error::Invalid`]); [`Error::WireOutOfRange`];
    /// [`Error::NotCanonical`] coefficients; sections longer or shorter
    /// than their content.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let file = BinFile::parse(KIND, bytes, R1CS_VERSION)?;
        file.refuse(4, "circom custom gates (PLONK only) are not supported")?;
        file.refuse(5, "circom custom gates (PLONK only) are not supported")?;
        let header = read_header(&mut file.reader(HEADER)?)?;
        let abc = read_constraints(&mut file.reader(CONSTRAINTS)?, &header)?;
        let wire_to_label = match file.optional_section(WIRE_MAP) {
            Some(body) => Some(read_wire_map(
                &mut Reader::new(KIND, Some(WIRE_MAP), body),
                &header,
            )?),
            None => None,
        };
        let num_instance_variables = 1 + header.n_public() as usize;
        Ok(R1cs {
            header,
            matrices: ConstraintMatrices {
                num_instance_variables,
                num_witness_variables: header.n_wires as usize - num_instance_variables,
                matrices: abc,
            },
            wire_to_label,
        })
    }

    /// The header's counts.
    pub fn header(&self) -> &R1csHeader {
        &self.header
    }

    /// A, B and C.
    pub fn matrices(&self) -> &ConstraintMatrices {
        &self.matrices
    }

    /// The matrices, by value.
    pub fn into_matrices(self) -> ConstraintMatrices {
        self.matrices
    }

    /// The label of each wire, if the file has the map.
    pub fn wire_to_label(&self) -> Option<&[u64]> {
        self.wire_to_label.as_deref()
    }

    /// Checks that `witness` (a full assignment, as a `.wtns` holds it)
    /// satisfies every constraint.
    ///
    /// # Errors
    /// [`Error::Unsatisfied`].
    pub fn check_witness(&self, witness: &[Fr]) -> Result<()> {
        self.matrices.check_assignment(witness)
    }

    /// The public values of a full assignment: wires `1..=nPublic`, as
    /// `public.json` lists them.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `witness` is shorter than that.
    pub fn public_inputs<'w>(&self, witness: &'w [Fr]) -> Result<&'w [Fr]> {
        let end = 1 + self.header.n_public() as usize;
        witness.get(1..end).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the assignment has {} values, the r1cs has {end} instance wires",
                witness.len()
            ))
        })
    }
}

/// Checks `n8` and the prime of a header: 32 bytes, the BN254 scalar
/// modulus (shared with `.wtns`).
pub(crate) fn read_scalar_prime(r: &mut Reader<'_>) -> Result<()> {
    let n8 = r.u32("n8")?;
    if n8 as usize != FIELD_BYTES {
        return Err(Error::invalid(
            r.loc("n8"),
            format!("field elements of {n8} bytes; BN254 needs {FIELD_BYTES}"),
        ));
    }
    let prime = r.take(u64::from(n8), "prime")?;
    if !is_modulus::<Fr>(prime) {
        return Err(Error::WrongPrime {
            at: r.loc("prime"),
            expected: "scalar field",
        });
    }
    Ok(())
}

fn read_header(r: &mut Reader<'_>) -> Result<R1csHeader> {
    read_scalar_prime(r)?;
    let header = R1csHeader {
        n_wires: r.u32("nWires")?,
        n_pub_out: r.u32("nPubOut")?,
        n_pub_in: r.u32("nPubIn")?,
        n_prv_in: r.u32("nPrvIn")?,
        n_labels: r.u64("nLabels")?,
        n_constraints: r.u32("mConstraints")?,
    };
    r.finish("mConstraints")?;
    let inputs = 1 + u64::from(header.n_pub_out) + u64::from(header.n_pub_in);
    if inputs + u64::from(header.n_prv_in) > u64::from(header.n_wires) {
        return Err(Error::invalid(
            Location::section(KIND, HEADER, "nWires"),
            format!(
                "{} wires cannot hold the constant, {} public outputs, {} public inputs and {} private inputs",
                header.n_wires, header.n_pub_out, header.n_pub_in, header.n_prv_in
            ),
        ));
    }
    Ok(header)
}

/// Bytes of the smallest constraint: three empty linear combinations.
const MIN_CONSTRAINT_BYTES: u64 = 12;
/// Bytes of one (wire, coefficient) term.
const TERM_BYTES: u64 = 4 + FIELD_BYTES as u64;

fn read_constraints(r: &mut Reader<'_>, header: &R1csHeader) -> Result<[Matrix<Fr>; 3]> {
    let m = u64::from(header.n_constraints);
    r.ensure(m, MIN_CONSTRAINT_BYTES, "mConstraints")?;
    let mut abc: [Matrix<Fr>; 3] = std::array::from_fn(|_| Vec::with_capacity(m as usize));
    const FIELDS: [[&str; 3]; 3] = [
        ["A term count", "A wire", "A coefficient"],
        ["B term count", "B wire", "B coefficient"],
        ["C term count", "C wire", "C coefficient"],
    ];
    for i in 0..m {
        r.index = Some(i);
        for (matrix, [count_field, wire_field, coefficient_field]) in abc.iter_mut().zip(FIELDS) {
            let count = r.u32(count_field)?;
            r.ensure(u64::from(count), TERM_BYTES, count_field)?;
            let mut row = Vec::with_capacity(count as usize);
            for _ in 0..count {
                let wire = r.u32(wire_field)?;
                if wire >= header.n_wires {
                    return Err(Error::WireOutOfRange {
                        at: r.loc(wire_field),
                        wire: u64::from(wire),
                        wires: u64::from(header.n_wires),
                    });
                }
                let coefficient = r.fr(coefficient_field)?;
                row.push((coefficient, wire as usize));
            }
            matrix.push(row);
        }
    }
    r.index = None;
    r.finish("constraints")?;
    Ok(abc)
}

fn read_wire_map(r: &mut Reader<'_>, header: &R1csHeader) -> Result<Vec<u64>> {
    let n = u64::from(header.n_wires);
    r.ensure(n, 8, "label ids")?;
    let mut labels = Vec::with_capacity(n as usize);
    for i in 0..n {
        r.index = Some(i);
        let label = r.u64("label id")?;
        if label >= header.n_labels {
            return Err(Error::invalid(
                r.loc("label id"),
                format!("label {label} is not below nLabels = {}", header.n_labels),
            ));
        }
        labels.push(label);
    }
    r.index = None;
    r.finish("label ids")?;
    Ok(labels)
}
