//! The committed circom/snarkjs fixtures: parsed, checked against each
//! other, proved with ark-groth16 and the circom reduction, verified with
//! ark's verifier and the snarkjs verification key, and written back in
//! snarkjs's formats.

mod common;

use std::sync::OnceLock;

use ark_bn254::{Bn254, Fr};
use ark_ff::Zero;
use ark_groth16::{prepare_verifying_key, Groth16};
use ark_std::rand::{rngs::StdRng, SeedableRng};
use common::{bytes, fixture, prove, scratch, text, CIRCUITS};
use he_circom::{snarkjs_json, Error, R1cs, Witness, Zkey, ZkeyWithoutQueries};

/// Each circuit's r1cs, witness and zkey, parsed once for all tests.
fn load(c: &str) -> &'static (R1cs, Witness, Zkey) {
    static LOADED: OnceLock<Vec<(R1cs, Witness, Zkey)>> = OnceLock::new();
    let all = LOADED.get_or_init(|| {
        CIRCUITS
            .iter()
            .map(|c| {
                (
                    R1cs::read(fixture(&format!("{c}.r1cs"))).expect("r1cs"),
                    Witness::read(fixture(&format!("{c}.wtns"))).expect("wtns"),
                    Zkey::read(fixture(&format!("{c}.zkey"))).expect("zkey"),
                )
            })
            .collect()
    });
    let i = CIRCUITS
        .iter()
        .position(|x| *x == c)
        .expect("a fixture circuit");
    &all[i]
}

#[test]
fn headers_are_the_circuits() {
    // (wires, outputs, public inputs, private inputs, constraints, domain)
    let expected = [
        ("multiplier", (4, 1, 0, 2, 1, 4)),
        ("poseidon2", (243, 1, 0, 2, 240, 256)),
        ("chain", (405, 1, 3, 200, 201, 256)),
    ];
    for (c, (wires, out, pub_in, prv, constraints, domain)) in expected {
        let (r1cs, witness, zkey) = load(c);
        let h = r1cs.header();
        assert_eq!(
            (
                h.n_wires,
                h.n_pub_out,
                h.n_pub_in,
                h.n_prv_in,
                h.n_constraints
            ),
            (wires, out, pub_in, prv, constraints),
            "{c}"
        );
        assert_eq!(witness.values().len(), wires as usize, "{c}");
        assert_eq!(zkey.domain_size(), domain, "{c}");
        assert_eq!(zkey.n_public(), (out + pub_in) as usize, "{c}");
        let m = zkey.matrices();
        assert_eq!(m.num_constraints(), constraints as usize);
        assert_eq!(m.num_variables(), wires as usize);
        let pk = zkey.proving_key();
        assert_eq!(pk.a_query.len(), wires as usize);
        assert_eq!(pk.l_query.len(), m.num_witness_variables());
        assert_eq!(pk.h_query.len(), domain);
        assert_eq!(pk.vk.gamma_abc_g1.len(), m.num_instance_variables());
        let labels = r1cs.wire_to_label().expect("circom writes the map");
        assert_eq!(labels.len(), wires as usize);
        assert_eq!(labels[0], 0);
    }
}

#[test]
fn witnesses_satisfy_and_zkeys_match_their_r1cs() {
    for c in CIRCUITS {
        let (r1cs, witness, zkey) = load(c);
        r1cs.check_witness(witness.values()).expect(c);
        zkey.check_matches(r1cs).expect(c);
        // A changed witness value breaks a constraint.
        let mut bad = witness.values().to_vec();
        let last = bad.len() - 1;
        bad[last] += Fr::from(1u64);
        assert!(matches!(
            r1cs.check_witness(&bad),
            Err(Error::Unsatisfied { .. })
        ));
    }
}

#[test]
fn a_zkey_for_another_circuit_is_refused() {
    for c in CIRCUITS {
        let zkey = &load(c).2;
        for other in CIRCUITS.iter().filter(|o| **o != c) {
            let r1cs = &load(other).0;
            let err = zkey.check_matches(r1cs).unwrap_err();
            assert!(
                matches!(err, Error::ZkeyMismatch { .. }),
                "{c} vs {other}: {err}"
            );
        }
    }
}

#[test]
fn a_zkey_with_one_coefficient_changed_is_refused() {
    // Re-encode one A coefficient of chain's zkey as another value: the
    // counts still agree, the coefficients do not.
    let mut z = bytes("chain.zkey");
    let at = common::body(&z, 4) + 4 + 12;
    let value = he_circom::field::fr_to_zkey_coefficient(&Fr::from(12345u64));
    z[at..at + 32].copy_from_slice(&value);
    let zkey = Zkey::from_bytes(&z).unwrap();
    let err = zkey.check_matches(&load("chain").0).unwrap_err();
    assert!(err.to_string().contains("constraint 0"), "{err}");
}

/// Read without its query points, a zkey gives the same header, verifying
/// key, δ in G1 and matrices as read whole, and is checked against an
/// r1cs the same way.
#[test]
fn a_zkey_without_queries_is_the_zkey_less_its_points() {
    for c in CIRCUITS {
        let (r1cs, _, zkey) = load(c);
        let light = ZkeyWithoutQueries::read(fixture(&format!("{c}.zkey"))).unwrap();
        assert_eq!(light.header(), zkey.header(), "{c}");
        assert_eq!(light.verifying_key(), zkey.verifying_key(), "{c}");
        assert_eq!(light.delta_g1(), zkey.proving_key().delta_g1, "{c}");
        assert_eq!(light.matrices(), zkey.matrices(), "{c}");
        light.check_matches(r1cs).unwrap();
        for other in CIRCUITS.iter().filter(|o| **o != c) {
            let err = light.check_matches(&load(other).0).unwrap_err();
            assert!(
                matches!(err, Error::ZkeyMismatch { .. }),
                "{c} vs {other}: {err}"
            );
        }
    }
}

#[test]
fn verifying_keys_agree_and_are_written_as_snarkjs_writes_them() {
    for c in CIRCUITS {
        let zkey = &load(c).2;
        let path = fixture(&format!("{c}_verification_key.json"));
        let vk = snarkjs_json::read_verifying_key(&path).expect(c);
        assert_eq!(&vk, zkey.verifying_key(), "{c}");
        assert_eq!(
            snarkjs_json::verifying_key_to_json(&vk),
            text(&format!("{c}_verification_key.json")),
            "{c}: byte for byte"
        );
    }
}

#[test]
fn plain_proofs_verify_with_ark_and_the_json_key_and_round_trip() {
    let mut rng = StdRng::seed_from_u64(7);
    let dir = scratch("plain-proofs");
    for c in CIRCUITS {
        let (r1cs, witness, zkey) = load(c);
        let proof = prove(zkey, witness, &mut rng, c);
        let public = r1cs.public_inputs(witness.values()).unwrap();
        assert_eq!(
            public,
            snarkjs_json::read_public(fixture(&format!("{c}_public.json"))).unwrap(),
            "{c}: the public values are snarkjs's"
        );
        let pvk = prepare_verifying_key(zkey.verifying_key());
        assert!(
            Groth16::<Bn254>::verify_proof(&pvk, &proof, public).unwrap(),
            "{c}"
        );
        let json_vk =
            snarkjs_json::read_verifying_key(fixture(&format!("{c}_verification_key.json")))
                .unwrap();
        let pvk_json = prepare_verifying_key(&json_vk);
        assert!(Groth16::<Bn254>::verify_proof(&pvk_json, &proof, public).unwrap());
        // A wrong public value is refused.
        let mut wrong = public.to_vec();
        wrong[0] += Fr::from(1u64);
        assert!(!Groth16::<Bn254>::verify_proof(&pvk, &proof, &wrong).unwrap());

        let proof_path = dir.join(format!("{c}_proof.json"));
        let public_path = dir.join(format!("{c}_public.json"));
        snarkjs_json::write_proof(&proof_path, &proof).unwrap();
        snarkjs_json::write_public(&public_path, public).unwrap();
        assert_eq!(snarkjs_json::read_proof(&proof_path).unwrap(), proof);
        assert_eq!(snarkjs_json::read_public(&public_path).unwrap(), public);
        // public.json as snarkjs writes it.
        assert_eq!(
            std::fs::read_to_string(&public_path).unwrap(),
            text(&format!("{c}_public.json"))
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn snarkjs_proofs_verify_with_ark() {
    for c in CIRCUITS {
        let zkey = &load(c).2;
        let proof = snarkjs_json::read_proof(fixture(&format!("{c}_proof.json"))).unwrap();
        let public = snarkjs_json::read_public(fixture(&format!("{c}_public.json"))).unwrap();
        let pvk = prepare_verifying_key(zkey.verifying_key());
        assert!(
            Groth16::<Bn254>::verify_proof(&pvk, &proof, &public).unwrap(),
            "{c}"
        );
        // And our writer gives snarkjs's text back.
        assert_eq!(
            snarkjs_json::proof_to_json(&proof),
            text(&format!("{c}_proof.json")),
            "{c}"
        );
    }
}

#[test]
fn the_r1cs_c_matrix_agrees_with_the_product_snarkjs_uses() {
    // snarkjs never reads C: it interpolates a ∘ b. For a satisfying
    // witness that is C·z on every row.
    let (r1cs, witness, zkey) = load("chain");
    let z = witness.values();
    let m = zkey.matrices();
    let [a, b] =
        he_circom::reduction::constraint_evaluations(m.a(), m.b(), m.num_instance_variables(), z)
            .unwrap();
    let c = he_circom::matrices::evaluate_rows(r1cs.matrices().c(), z).unwrap();
    for i in 0..m.num_constraints() {
        assert_eq!(a[i] * b[i], c[i], "row {i}");
    }
    // The public-input rows: a = z_s, b = 0.
    for s in 0..m.num_instance_variables() {
        assert_eq!(a[m.num_constraints() + s], z[s]);
        assert!(b[m.num_constraints() + s].is_zero());
    }
}
