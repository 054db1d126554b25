//! `cosnark prove` end to end on the fixture circuits: every role its own
//! process over TLS on 127.0.0.1; the proof and public inputs it writes
//! verify with `cosnark verify` and (when installed) `snarkjs groth16
//! verify`; its `--json` report holds every process's costs.

mod common;

use std::path::PathBuf;

use common::{arg, fixture, run, temp_dir, Outcome, SESSION_LIMIT};

/// What one `cosnark prove` run left.
struct Proved {
    _dir: common::TempDir,
    outcome: Outcome,
    proof: PathBuf,
    public: PathBuf,
    report: PathBuf,
}

/// `cosnark prove` on fixture `circuit` with `parties`, `threshold` (all
/// when `None`) and `proofs` proofs in a row.
fn prove(circuit: &str, parties: u32, threshold: Option<u32>, proofs: u64) -> Proved {
    let dir = temp_dir(&format!("prove-{circuit}"));
    let (proof, public, report) = (
        dir.join("proof.json"),
        dir.join("public.json"),
        dir.join("report.json"),
    );
    let mut args = vec![
        "prove".to_owned(),
        "--r1cs".into(),
        arg(&fixture(&format!("{circuit}.r1cs"))),
        "--zkey".into(),
        arg(&fixture(&format!("{circuit}.zkey"))),
        "--witness".into(),
        arg(&fixture(&format!("{circuit}.wtns"))),
        "--parties".into(),
        parties.to_string(),
        "--proofs".into(),
        proofs.to_string(),
        "--proof".into(),
        arg(&proof),
        "--public".into(),
        arg(&public),
        "--json".into(),
        arg(&report),
    ];
    if let Some(t) = threshold {
        args.extend(["--threshold".into(), t.to_string()]);
    }
    let outcome = run(&format!("prove {circuit}"), &args, SESSION_LIMIT);
    Proved {
        _dir: dir,
        outcome,
        proof,
        public,
        report,
    }
}

/// Checks a successful run: exit 0, the files verify (cosnark and snarkjs),
/// and the report names every process with its costs.
fn check(proved: &Proved, circuit: &str, parties: u32, members: u32, proofs: usize) {
    proved.outcome.assert_success();
    let vk = fixture(&format!("{circuit}_verification_key.json"));
    common::assert_verifies(&vk, &proved.public, &proved.proof);
    common::assert_snarkjs_verifies(&vk, &proved.public, &proved.proof);

    // The public inputs are the witness's, as snarkjs wrote them.
    let ours: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&proved.public).expect("public.json"))
            .expect("public.json is JSON");
    let theirs: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(&format!("{circuit}_public.json"))).expect("fixture"),
    )
    .expect("the fixture is JSON");
    assert_eq!(ours, theirs);

    let text = std::fs::read_to_string(&proved.report).expect("the --json report");
    let report: serde_json::Value = serde_json::from_str(&text).expect("the report is JSON");
    assert_eq!(report["verified"], true);
    assert_eq!(report["parties"], parties);
    assert_eq!(report["threshold"], members);
    let key_session = report["key_session"].as_array().expect("key_session");
    assert_eq!(key_session.len(), parties as usize + 1, "{text}");
    for process in key_session {
        common::assert_report_has_costs(process, 1);
    }
    let proving = report["proving"].as_array().expect("proving");
    let mut roles: Vec<&str> = proving
        .iter()
        .map(|p| p["role"].as_str().expect("a role"))
        .collect();
    roles.sort_unstable();
    let mut expected: Vec<String> = (0..members).map(|i| format!("party-{i}")).collect();
    expected.push("server".into());
    assert_eq!(roles, expected, "{text}");
    for process in proving {
        common::assert_report_has_costs(process, proofs);
    }
}

#[test]
fn multiplier_with_two_parties_makes_two_proofs_that_verify() {
    let proved = prove("multiplier", 2, None, 2);
    check(&proved, "multiplier", 2, 2, 2);
}

#[test]
fn poseidon2_with_three_parties_verifies() {
    let proved = prove("poseidon2", 3, None, 1);
    check(&proved, "poseidon2", 3, 3, 1);
}

#[test]
fn chain_with_two_of_three_parties_verifies() {
    let proved = prove("chain", 3, Some(2), 1);
    check(&proved, "chain", 3, 2, 1);
}
