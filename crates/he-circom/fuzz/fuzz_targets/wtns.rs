//! libFuzzer harness for `he_circom::Witness::from_bytes`.
//!
//! Any bytes must give `Ok` or `Err`, never a panic. The oracle for
//! accepted files: the first value is 1, and the canonical encoding
//! (`Witness::to_bytes`) parses back to the same witness. Seeds: the
//! multiplier fixture, its prefixes and tweaked copies. Built and run by
//! crates/he-circom/fuzz/run.sh.
#![no_main]

mod seeds;

use he_circom::Witness;
use libfuzzer_sys::fuzz_target;

const FIXTURE: &[u8] = include_bytes!("../../tests/fixtures/multiplier.wtns");

fuzz_target!(
    init: {
        seeds::write_if_asked(&[FIXTURE]);
    },
    |data: &[u8]| {
        let Ok(witness) = Witness::from_bytes(data) else {
            return;
        };
        assert!(Witness::new(witness.values().to_vec()).is_ok(), "starts with 1");
        let again = Witness::from_bytes(&witness.to_bytes()).expect("the canonical encoding parses");
        assert_eq!(again, witness);
    }
);
