//! Small NTT-friendly prime fields for batching: t = 65537 and t = 12289.
//!
//! [`BatchEncoder`](helib_rs::BatchEncoder) needs an arkworks field whose
//! modulus is the plaintext modulus t, with 2N | t − 1. BN254's scalar field
//! is `ark_bn254::Fr`; these two cover the small moduli HESC is usually run
//! with: 65537 = 2^16 + 1 (N ≤ 2^15) and 12289 = 3·2^12 + 1, the paper's
//! modulus (N ≤ 2^11).
#![allow(missing_docs)] // the derive generates undocumented items

use ark_ff::{Fp64, MontBackend, MontConfig};

/// Montgomery configuration of F_65537 (3 generates the multiplicative group).
#[derive(MontConfig)]
#[modulus = "65537"]
#[generator = "3"]
pub struct F65537Config;

/// The prime field F_65537.
pub type Fp65537 = Fp64<MontBackend<F65537Config, 1>>;

/// Montgomery configuration of F_12289 (11 generates the multiplicative group).
#[derive(MontConfig)]
#[modulus = "12289"]
#[generator = "11"]
pub struct F12289Config;

/// The prime field F_12289.
pub type Fp12289 = Fp64<MontBackend<F12289Config, 1>>;

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{FftField, Field, PrimeField};

    #[test]
    fn fields_have_the_expected_moduli_and_roots() {
        assert_eq!(Fp65537::MODULUS.0[0], 65537);
        assert_eq!(Fp12289::MODULUS.0[0], 12289);
        assert_eq!(Fp65537::TWO_ADICITY, 16);
        assert_eq!(Fp12289::TWO_ADICITY, 12);
        let w = Fp65537::get_root_of_unity(1 << 15).unwrap();
        assert_eq!(w.pow([1u64 << 15]), Fp65537::from(1u64));
        assert_ne!(w.pow([1u64 << 14]), Fp65537::from(1u64));
        assert_eq!(Fp12289::from(12290u64), Fp12289::from(1u64));
    }
}
