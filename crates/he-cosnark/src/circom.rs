//! Circuits from circom and snarkjs: an `.r1cs` with the Groth16 `.zkey`
//! made for it.

use ark_bn254::Bn254;
use he_circom::{R1cs, Zkey, ZkeyWithoutQueries};

use crate::circuit::{Circuit, QueryLengths};
use crate::error::Result;
use crate::matrices::R1csMatrices;
use crate::reduction::Circom;

impl Circuit<Bn254, Circom> {
    /// The circuit of a circom `.r1cs` with the snarkjs `.zkey` made for it
    /// (checked against each other: wires, public wires, constraints, the
    /// A and B coefficients).
    ///
    /// # Errors
    /// [`Error::Circom`](crate::Error::Circom) when the zkey was made for
    /// another circuit (the only circom error these constructors return);
    /// as [`Circuit::new`].
    pub fn from_circom(r1cs: &R1cs, zkey: Zkey) -> Result<Self> {
        zkey.check_matches(r1cs)?;
        let (proving_key, _) = zkey.into_parts();
        Self::new(proving_key, matrices_of(r1cs))
    }

    /// The circuit of a circom `.r1cs` with the snarkjs `.zkey` made for
    /// it, read without the zkey's query points: what a server needs (see
    /// [`Circuit::without_queries`]), at a fraction of the load.
    ///
    /// # Errors
    /// As [`from_circom`](Self::from_circom).
    pub fn from_circom_without_queries(r1cs: &R1cs, zkey: &ZkeyWithoutQueries) -> Result<Self> {
        zkey.check_matches(r1cs)?;
        let header = zkey.header();
        let (vars, public) = (header.n_vars as usize, header.n_public as usize);
        let lengths = QueryLengths {
            a: vars,
            b_g1: vars,
            b_g2: vars,
            h: header.domain_size as usize,
            // The private wires: all but the constant one and the public ones.
            l: vars.saturating_sub(public + 1),
        };
        Self::without_queries(
            zkey.verifying_key().clone(),
            zkey.delta_g1(),
            lengths,
            matrices_of(r1cs),
        )
    }
}

/// The A, B and C matrices of `r1cs`.
fn matrices_of(r1cs: &R1cs) -> R1csMatrices<ark_bn254::Fr> {
    let m = r1cs.matrices();
    R1csMatrices {
        num_instance_variables: m.num_instance_variables(),
        num_witness_variables: m.num_witness_variables(),
        a: m.a().clone(),
        b: m.b().clone(),
        c: m.c().clone(),
    }
}
