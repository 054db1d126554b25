//! libFuzzer harness for `he_circom::snarkjs_json::verifying_key_from_json`
//! (and, on the same input, `proof_from_json` and `public_from_json`).
//!
//! Any bytes must give `Ok` or `Err`, never a panic. The oracle for an
//! accepted key: written again with `verifying_key_to_json`, it reads back
//! to the same key. Seeds: the multiplier fixture's verification_key.json,
//! proof.json and public.json, prefixes and tweaked copies. Built and run
//! by crates/he-circom/fuzz/run.sh.
#![no_main]

mod seeds;

use he_circom::snarkjs_json::{
    proof_from_json, proof_to_json, public_from_json, verifying_key_from_json,
    verifying_key_to_json,
};
use libfuzzer_sys::fuzz_target;

const VK: &[u8] = include_bytes!("../../tests/fixtures/multiplier_verification_key.json");
const PROOF: &[u8] = include_bytes!("../../tests/fixtures/multiplier_proof.json");
const PUBLIC: &[u8] = include_bytes!("../../tests/fixtures/multiplier_public.json");

fuzz_target!(
    init: {
        seeds::write_if_asked(&[VK, PROOF, PUBLIC]);
    },
    |data: &[u8]| {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        if let Ok(vk) = verifying_key_from_json(text) {
            let again = verifying_key_from_json(&verifying_key_to_json(&vk)).expect("our output reads");
            assert_eq!(again, vk);
        }
        if let Ok(proof) = proof_from_json(text) {
            assert_eq!(proof_from_json(&proof_to_json(&proof)).expect("our output reads"), proof);
        }
        let _ = public_from_json(text);
    }
);
