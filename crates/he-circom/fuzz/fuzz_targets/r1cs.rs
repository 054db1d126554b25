//! libFuzzer harness for `he_circom::R1cs::from_bytes`.
//!
//! Any bytes must give `Ok` or `Err`, never a panic (overflow checks are
//! on). The oracle for accepted files: every matrix has `mConstraints`
//! rows, every wire is below `nWires`, the wire-to-label map (if any) has
//! `nWires` labels below `nLabels`, and the instance and witness wires add
//! up to `nWires`. Seeds: the multiplier fixture (one constraint), its
//! prefixes and tweaked copies. Built and run by crates/he-circom/fuzz/run.sh.
#![no_main]

mod seeds;

use he_circom::R1cs;
use libfuzzer_sys::fuzz_target;

const FIXTURE: &[u8] = include_bytes!("../../tests/fixtures/multiplier.r1cs");

fuzz_target!(
    init: {
        seeds::write_if_asked(&[FIXTURE]);
    },
    |data: &[u8]| {
        let Ok(r1cs) = R1cs::from_bytes(data) else {
            return;
        };
        let h = *r1cs.header();
        let m = r1cs.matrices();
        assert_eq!(m.num_variables(), h.n_wires as usize);
        assert_eq!(m.num_instance_variables(), 1 + h.n_public() as usize);
        for matrix in m.as_slice() {
            assert_eq!(matrix.len(), h.n_constraints as usize);
            assert!(matrix.iter().flatten().all(|(_, w)| *w < h.n_wires as usize));
        }
        if let Some(labels) = r1cs.wire_to_label() {
            assert_eq!(labels.len(), h.n_wires as usize);
            assert!(labels.iter().all(|l| *l < h.n_labels));
        }
    }
);
