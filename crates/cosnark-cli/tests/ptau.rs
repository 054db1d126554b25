//! `cosnark ptau`: refuses powers out of range before writing anything,
//! writes a prepared powers-of-tau file that he-circom reads back, and
//! (when snarkjs is installed) `snarkjs groth16 setup` makes from it a key
//! with which `cosnark prove` makes a proof that `snarkjs groth16 verify`
//! accepts.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{arg, fixture, run, temp_dir, QUICK_LIMIT, SESSION_LIMIT};
use he_circom::ptau::Ptau;

/// `cosnark ptau --power <power> --out <out>`.
fn ptau(power: &str, out: &Path) -> common::Outcome {
    run(
        &format!("ptau {power}"),
        &[
            "ptau".into(),
            "--power".into(),
            power.into(),
            "--out".into(),
            arg(out),
        ],
        QUICK_LIMIT,
    )
}

#[test]
fn powers_out_of_range_are_refused() {
    let dir = temp_dir("ptau-refused");
    let out = dir.join("pot.ptau");
    for power in ["0", "28", "4294967296", "x"] {
        let outcome = ptau(power, &out);
        outcome.assert_failed_naming(&["--power"]);
        if matches!(power, "0" | "28") {
            outcome.assert_failed_naming(&["is not in 1..=27"]);
        }
        assert!(!out.exists(), "power {power}: a file was written");
    }
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0);
}

#[test]
fn writes_a_prepared_file() {
    let dir = temp_dir("ptau-written");
    let out = dir.join("pot3.ptau");
    let outcome = ptau("3", &out);
    outcome.assert_success();
    assert!(
        outcome.stderr.contains("not a ceremony"),
        "{}",
        outcome.stderr
    );
    let bytes = std::fs::read(&out).expect("the ptau file");
    assert_eq!(bytes.len() as u64, he_circom::ptau::file_size(3).unwrap());
    let file = Ptau::parse(&bytes).expect("a ptau he-circom reads");
    assert_eq!(file.header().power, 3);
    assert!(file.is_prepared());
    // Nothing but the file: no temporary file left behind.
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 1);
    // A directory that does not exist: an error naming the path.
    let missing = dir.join("no-such-dir/pot.ptau");
    ptau("3", &missing).assert_failed_naming(&["no-such-dir/pot.ptau"]);
}

/// Runs `snarkjs <args>`, which must succeed.
fn snarkjs(snarkjs: &Path, args: &[&str]) {
    let out = Command::new(snarkjs)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", snarkjs.display()));
    assert!(
        out.status.success(),
        "snarkjs {}: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn snarkjs_setup_from_our_ptau_then_cosnark_prove_verifies() {
    let Some(snarkjs_bin) = common::snarkjs() else {
        println!(
            "note: snarkjs is not installed (scripts/circom-fixtures.sh --tools-only): \
             the snarkjs setup from a cosnark ptau is skipped"
        );
        return;
    };
    let dir = temp_dir("ptau-setup");
    let pot = dir.join("pot4.ptau");
    ptau("4", &pot).assert_success();
    let (zkey, vk) = (dir.join("multiplier.zkey"), dir.join("vk.json"));
    let r1cs = fixture("multiplier.r1cs");
    snarkjs(
        &snarkjs_bin,
        &["groth16", "setup", &arg(&r1cs), &arg(&pot), &arg(&zkey)],
    );
    snarkjs(
        &snarkjs_bin,
        &["zkey", "export", "verificationkey", &arg(&zkey), &arg(&vk)],
    );
    let (proof, public) = (dir.join("proof.json"), dir.join("public.json"));
    let outcome = run(
        "prove with a key from our ptau",
        &[
            "prove".into(),
            "--r1cs".into(),
            arg(&r1cs),
            "--zkey".into(),
            arg(&zkey),
            "--witness".into(),
            arg(&fixture("multiplier.wtns")),
            "--parties".into(),
            "2".into(),
            "--proof".into(),
            arg(&proof),
            "--public".into(),
            arg(&public),
        ],
        SESSION_LIMIT,
    );
    outcome.assert_success();
    common::assert_verifies(&vk, &public, &proof);
    common::assert_snarkjs_verifies(&vk, &public, &proof);
}
