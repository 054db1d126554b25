//! Circuits from circom and snarkjs: an `.r1cs` with the Groth16 `.zkey`
//! made for it.

use ark_bn254::Bn254;
use he_circom::{R1cs, Zkey};

use crate::circuit::Circuit;
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
    /// another circuit; as [`Circuit::new`].
    pub fn from_circom(r1cs: &R1cs, zkey: Zkey) -> Result<Self> {
        zkey.check_matches(r1cs)?;
        let m = r1cs.matrices();
        let matrices = R1csMatrices {
            num_instance_variables: m.num_instance_variables(),
            num_witness_variables: m.num_witness_variables(),
            a: m.a().clone(),
            b: m.b().clone(),
            c: m.c().clone(),
        };
        let (proving_key, _) = zkey.into_parts();
        Self::new(proving_key, matrices)
    }
}
