//! snarkjs itself checks the powers-of-tau writer ([`he_circom::ptau`]):
//!
//! - its Lagrange sections 12–15 are byte for byte what `snarkjs
//!   powersoftau prepare phase2` computes (by FFTs over the points) from a
//!   file holding only its sections 1–7;
//! - `snarkjs groth16 setup` takes the file, and proofs from the resulting
//!   zkey (snarkjs's prover, and ark-groth16 with the circom reduction from
//!   the zkey read by this crate) make `snarkjs groth16 verify` print OK.
//!
//! Needs node and snarkjs: ignored by default; `scripts/test-circom-snarkjs.sh`
//! installs the pinned snarkjs and runs it (`SNARKJS` names the binary,
//! by default `target/circom-tools/node_modules/.bin/snarkjs`). Without
//! them the tests fail, saying so.

mod common;

use std::path::{Path, PathBuf};

use ark_bn254::{Bn254, Fr, G1Projective, G2Affine};
use ark_ec::pairing::Pairing;
use ark_ec::{CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};
use common::{fixture, prove, scratch, snarkjs};
use he_circom::binfile::{write_header, write_section_header, BinFile};
use he_circom::ptau::{self, Ptau};
use he_circom::{snarkjs_json, FileKind, R1cs, Witness, Zkey};

/// Runs `snarkjs <args>`, which must succeed.
fn snarkjs_ok(args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let (ok, text) = snarkjs(args);
    let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_string_lossy()).collect();
    assert!(ok, "snarkjs {} failed:\n{text}", shown.join(" "));
    text
}

/// The container with only the sections `keep` of `file`, in its order.
fn only_sections(file: &BinFile<'_>, keep: impl Fn(u32) -> bool) -> Vec<u8> {
    let kept: Vec<u32> = file
        .sections()
        .map(|(t, _)| t)
        .filter(|t| keep(*t))
        .collect();
    let mut out = Vec::new();
    write_header(&mut out, FileKind::Ptau, 1, kept.len() as u32).unwrap();
    for t in kept {
        let body = file.section(t).unwrap();
        write_section_header(&mut out, t, body.len() as u64).unwrap();
        out.extend_from_slice(body);
    }
    out
}

/// Random linear combinations of consecutive points in sections 2–6 agree
/// under the pairing: they are powers of one τ, times the same α and β.
fn check_powers_are_consistent(file: &Ptau<'_>) {
    let tau_g1 = file.g1_points(2).unwrap();
    let tau_g2 = file.g2_points(3).unwrap();
    let alpha_g1 = file.g1_points(4).unwrap();
    let beta_g1 = file.g1_points(5).unwrap();
    let beta_g2 = file.g2_points(6).unwrap()[0];
    let (g1, g2) = (
        G1Projective::generator(),
        ark_bn254::G2Projective::generator(),
    );
    assert_eq!(tau_g1[0], g1.into_affine());
    assert_eq!(tau_g2[0], g2.into_affine());
    let mut rng = StdRng::seed_from_u64(11);
    let n = tau_g2.len();
    let r: Vec<Fr> = (0..tau_g1.len() - 1).map(|_| Fr::rand(&mut rng)).collect();
    let msm = |points: &[ark_bn254::G1Affine], r: &[Fr]| {
        G1Projective::msm(&points[..r.len()], r)
            .unwrap()
            .into_affine()
    };
    let (g1, g2) = (g1.into_affine(), g2.into_affine());
    let pair = |a, b: G2Affine| Bn254::pairing(a, b);
    let tau_g2_combined = |r: &[Fr]| {
        ark_bn254::G2Projective::msm(&tau_g2[..r.len()], r)
            .unwrap()
            .into_affine()
    };
    // Σ r_i·τ^(i+1)·G1 with G2 = Σ r_i·τ^i·G1 with τ·G2.
    assert_eq!(
        pair(msm(&tau_g1[1..], &r), g2),
        pair(msm(&tau_g1, &r), tau_g2[1]),
        "section 2"
    );
    let r = &r[..n];
    // Σ r_i·τ^i·G1 with G2 = G1 with Σ r_i·τ^i·G2.
    assert_eq!(
        pair(msm(&tau_g1, r), g2),
        pair(g1, tau_g2_combined(r)),
        "section 3"
    );
    // Σ r_i·α·τ^i·G1 with G2 = α·G1 with Σ r_i·τ^i·G2.
    assert_eq!(
        pair(msm(&alpha_g1, r), g2),
        pair(alpha_g1[0], tau_g2_combined(r)),
        "section 4"
    );
    // Σ r_i·β·τ^i·G1 with G2 = Σ r_i·τ^i·G1 with β·G2.
    assert_eq!(
        pair(msm(&beta_g1, r), g2),
        pair(msm(&tau_g1, r), beta_g2),
        "sections 5 and 6"
    );
}

#[test]
#[ignore = "needs node and snarkjs: scripts/test-circom-snarkjs.sh"]
fn lagrange_sections_equal_snarkjs_prepare_phase2() {
    let dir = scratch("ptau-prepare");
    for power in [4, 6] {
        let ours = dir.join(format!("ours{power}.ptau"));
        ptau::write_prepared(&ours, power).unwrap();
        let bytes = std::fs::read(&ours).unwrap();
        let file = BinFile::parse(FileKind::Ptau, &bytes, 1).unwrap();
        let parsed = Ptau::parse(&bytes).unwrap();
        assert!(parsed.is_prepared());
        check_powers_are_consistent(&parsed);

        let phase1 = dir.join(format!("phase1_{power}.ptau"));
        std::fs::write(&phase1, only_sections(&file, |t| t <= 7)).unwrap();
        let theirs = dir.join(format!("theirs{power}.ptau"));
        snarkjs_ok(&[&"powersoftau", &"prepare", &"phase2", &phase1, &theirs]);
        let their_bytes = std::fs::read(&theirs).unwrap();
        let their_file = BinFile::parse(FileKind::Ptau, &their_bytes, 1).unwrap();
        assert_eq!(
            their_file.sections().collect::<Vec<_>>(),
            file.sections().collect::<Vec<_>>(),
            "power {power}: the same sections and sizes"
        );
        for section in [1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15] {
            assert!(
                their_file.section(section).unwrap() == file.section(section).unwrap(),
                "power {power}: section {section} differs from snarkjs's"
            );
        }
        assert_eq!(their_bytes, bytes, "power {power}: the whole file");
        println!("power {power}: sections 12-15 equal snarkjs's prepare phase2, byte for byte");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A zkey for fixture `circuit` from `ptau` (`snarkjs groth16 setup`),
/// and its verification key.
fn setup(dir: &Path, circuit: &str, ptau: &Path) -> (PathBuf, PathBuf) {
    let zkey = dir.join(format!("{circuit}.zkey"));
    let vk = dir.join(format!("{circuit}_verification_key.json"));
    snarkjs_ok(&[
        &"groth16",
        &"setup",
        &fixture(&format!("{circuit}.r1cs")),
        &ptau,
        &zkey,
    ]);
    snarkjs_ok(&[&"zkey", &"export", &"verificationkey", &zkey, &vk]);
    (zkey, vk)
}

#[test]
#[ignore = "needs node and snarkjs: scripts/test-circom-snarkjs.sh"]
fn snarkjs_keys_from_our_ptau_make_proofs_that_verify() {
    let dir = scratch("ptau-setup");
    let small = dir.join("pot4.ptau");
    ptau::write_prepared(&small, 4).unwrap();
    // chain's 201 constraints and 4 public rows need a domain of 2^8.
    let (ok, text) = snarkjs(&[
        &"groth16",
        &"setup",
        &fixture("chain.r1cs"),
        &small,
        &dir.join("refused.zkey"),
    ]);
    assert!(
        !ok || text.contains("circuit too big"),
        "chain with a 2^4 ptau: {text}"
    );
    let large = dir.join("pot8.ptau");
    ptau::write_prepared(&large, 8).unwrap();
    for (circuit, ptau_path) in [("multiplier", &small), ("chain", &large)] {
        let (zkey_path, vk) = setup(&dir, circuit, ptau_path);
        let wtns = fixture(&format!("{circuit}.wtns"));

        // snarkjs's own prover.
        let (proof, public) = (dir.join("proof.json"), dir.join("public.json"));
        snarkjs_ok(&[&"groth16", &"prove", &zkey_path, &wtns, &proof, &public]);
        let text = snarkjs_ok(&[&"groth16", &"verify", &vk, &public, &proof]);
        assert!(text.contains("OK!"), "{circuit}: snarkjs says\n{text}");
        println!("{circuit}: snarkjs prove, snarkjs groth16 verify: OK");

        // ark-groth16 from the zkey as this crate reads it.
        let r1cs = R1cs::read(fixture(&format!("{circuit}.r1cs"))).unwrap();
        let witness = Witness::read(&wtns).unwrap();
        let zkey = Zkey::read(&zkey_path).unwrap();
        zkey.check_matches(&r1cs).unwrap();
        let mut rng = StdRng::seed_from_u64(3);
        let proof_ark = prove(&zkey, &witness, &mut rng, circuit);
        snarkjs_json::write_proof(&proof, &proof_ark).unwrap();
        snarkjs_json::write_public(&public, r1cs.public_inputs(witness.values()).unwrap()).unwrap();
        let text = snarkjs_ok(&[&"groth16", &"verify", &vk, &public, &proof]);
        assert!(text.contains("OK!"), "{circuit}: snarkjs says\n{text}");
        println!("{circuit}: ark-groth16 prove, snarkjs groth16 verify: OK");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
