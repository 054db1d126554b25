//! libFuzzer harness for `he_circom::Zkey::from_bytes` and
//! `he_circom::ZkeyWithoutQueries::from_bytes`.
//!
//! Any bytes must give `Ok` or `Err` from each, never a panic. What the
//! whole reader accepts, the reader without queries accepts too, with the
//! same header, verifying key, δ in G1 and matrices. The oracle for
//! accepted files: the proving key's queries have the lengths the header
//! implies (A, B: nVars; C: private wires; H: domainSize; IC: nPublic + 1),
//! the domain is snarkjs's for the matrices, and every point is on the
//! curve and in the subgroup. Seeds: the multiplier fixture (a 3 KB key),
//! its prefixes and tweaked copies. Built and run by
//! crates/he-circom/fuzz/run.sh.
#![no_main]

mod seeds;

use he_circom::reduction::domain_size;
use he_circom::{Zkey, ZkeyWithoutQueries};
use libfuzzer_sys::fuzz_target;

const FIXTURE: &[u8] = include_bytes!("../../tests/fixtures/multiplier.zkey");

fuzz_target!(
    init: {
        seeds::write_if_asked(&[FIXTURE]);
    },
    |data: &[u8]| {
        let light = ZkeyWithoutQueries::from_bytes(data);
        let Ok(zkey) = Zkey::from_bytes(data) else {
            return;
        };
        let light = light.expect("the reader without queries checks a subset");
        assert_eq!(light.header(), zkey.header());
        assert_eq!(light.verifying_key(), zkey.verifying_key());
        assert_eq!(light.delta_g1(), zkey.proving_key().delta_g1);
        assert_eq!(light.matrices(), zkey.matrices());
        let h = *zkey.header();
        let pk = zkey.proving_key();
        let m = zkey.matrices();
        let vars = h.n_vars as usize;
        assert_eq!(pk.a_query.len(), vars);
        assert_eq!(pk.b_g1_query.len(), vars);
        assert_eq!(pk.b_g2_query.len(), vars);
        assert_eq!(pk.l_query.len(), vars - h.n_public as usize - 1);
        assert_eq!(pk.h_query.len(), h.domain_size as usize);
        assert_eq!(pk.vk.gamma_abc_g1.len(), h.n_public as usize + 1);
        assert_eq!(m.num_variables(), vars);
        assert_eq!(
            domain_size(m.num_constraints(), m.num_instance_variables()),
            Some(h.domain_size as usize)
        );
        for p in pk.b_g2_query.iter().chain([&pk.vk.beta_g2, &pk.vk.gamma_g2, &pk.vk.delta_g2]) {
            assert!(p.is_on_curve() && p.is_in_correct_subgroup_assuming_on_curve());
        }
        for p in pk.a_query.iter().chain(&pk.h_query).chain(&pk.l_query) {
            assert!(p.is_on_curve());
        }
    }
);
