//! `cosnark prove` refuses truncated or changed `.r1cs`, `.zkey` and
//! `.wtns` files, a witness of another circuit and a zkey of another r1cs
//! before it starts any role process: a non-zero status, a message naming
//! the file, no proof file, and nothing left in the temporary directory.

mod common;

use std::path::{Path, PathBuf};

use common::{arg, fixture, temp_dir, Proc, QUICK_LIMIT};

/// The three files of a proof.
#[derive(Clone)]
struct Inputs {
    r1cs: PathBuf,
    zkey: PathBuf,
    wtns: PathBuf,
}

impl Inputs {
    fn of(circuit: &str) -> Self {
        Inputs {
            r1cs: fixture(&format!("{circuit}.r1cs")),
            zkey: fixture(&format!("{circuit}.zkey")),
            wtns: fixture(&format!("{circuit}.wtns")),
        }
    }
}

/// Runs `cosnark prove` on `inputs` (its temporary directory under a
/// directory of the test's own) and checks that it fails naming `culprit`
/// without starting a role process or leaving a file behind.
fn assert_refused(inputs: &Inputs, culprit: &Path, what: &str) {
    let dir = temp_dir("refused");
    let (tmp, proof, public) = (
        dir.join("tmp"),
        dir.join("proof.json"),
        dir.join("public.json"),
    );
    std::fs::create_dir(&tmp).expect("a temporary directory");
    let args = vec![
        "prove".to_owned(),
        "--r1cs".into(),
        arg(&inputs.r1cs),
        "--zkey".into(),
        arg(&inputs.zkey),
        "--witness".into(),
        arg(&inputs.wtns),
        "--parties".into(),
        "2".into(),
        "--proof".into(),
        arg(&proof),
        "--public".into(),
        arg(&public),
    ];
    let proc = Proc::start_with_env(what, &args, &[("TMPDIR", &tmp)]);
    let outcome = proc.wait_until(std::time::Instant::now() + QUICK_LIMIT);
    outcome.assert_failed_naming(&[&culprit.display().to_string()]);
    assert!(
        !outcome.stderr.contains("[server]") && !outcome.stderr.contains("[party-"),
        "{what}: role processes were started:\n{}",
        outcome.stderr
    );
    assert!(!proof.exists(), "{what}: a proof file was written");
    assert!(!public.exists(), "{what}: a public.json was written");
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .expect("the temporary directory")
        .collect();
    assert!(left.is_empty(), "{what}: left behind {left:?}");
}

/// `inputs` with the file `pick` chooses replaced by `bytes`, written to
/// `dir`; and that file.
fn with_file(
    dir: &Path,
    inputs: &Inputs,
    pick: fn(&mut Inputs) -> &mut PathBuf,
    bytes: &[u8],
) -> (Inputs, PathBuf) {
    let mut changed = inputs.clone();
    let slot = pick(&mut changed);
    let path = dir.join(slot.file_name().expect("a file name"));
    std::fs::write(&path, bytes).expect("a changed copy");
    *slot = path.clone();
    (changed, path)
}

/// Truncations and single-byte changes of the file `pick` chooses: each
/// refused naming the file. `flips` are offsets (as fractions of the
/// length in 1/12ths, to stay valid when the fixtures are regenerated)
/// inside the parts of the file a proof depends on.
fn assert_damage_refused(pick: fn(&mut Inputs) -> &mut PathBuf, flips: &[usize]) {
    let inputs = Inputs::of("multiplier");
    let mut original = inputs.clone();
    let bytes = std::fs::read(pick(&mut original)).expect("the fixture");
    let n = bytes.len();
    let dir = temp_dir("hostile");
    for cut in [0, 3, n / 3, n / 2, n - 1] {
        let (changed, path) = with_file(&dir, &inputs, pick, &bytes[..cut]);
        assert_refused(&changed, &path, &format!("truncated to {cut} of {n} bytes"));
    }
    for twelfths in flips {
        let at = n * twelfths / 12;
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x01;
        let (changed, path) = with_file(&dir, &inputs, pick, &flipped);
        assert_refused(&changed, &path, &format!("byte {at} of {n} flipped"));
    }
}

#[test]
fn a_damaged_r1cs_is_refused_by_name() {
    // The magic, the header, the constraints (the end is the wire-to-label
    // map, which no proof reads).
    assert_damage_refused(|i| &mut i.r1cs, &[0, 1, 3, 5, 7]);
}

#[test]
fn a_damaged_zkey_is_refused_by_name() {
    // The magic, the headers, the points (the last sixth is the ceremony's
    // contributions, which no proof reads).
    assert_damage_refused(|i| &mut i.zkey, &[0, 1, 3, 5, 7, 9]);
}

#[test]
fn a_damaged_witness_is_refused_by_name() {
    assert_damage_refused(|i| &mut i.wtns, &[0, 2, 6, 11]);
}

#[test]
fn a_witness_of_another_circuit_is_refused_by_name() {
    let inputs = Inputs {
        wtns: fixture("poseidon2.wtns"),
        ..Inputs::of("chain")
    };
    assert_refused(&inputs, &inputs.wtns, "poseidon2's witness for chain");
    // Same length, other values: multiplier's witness with a changed
    // (canonical) private value does not satisfy the constraints.
    let inputs = Inputs::of("multiplier");
    let mut bytes = std::fs::read(&inputs.wtns).expect("the fixture");
    let last = bytes.len() - 32;
    bytes[last] ^= 0x01;
    let dir = temp_dir("hostile");
    let (changed, path) = with_file(&dir, &inputs, |i| &mut i.wtns, &bytes);
    assert_refused(&changed, &path, "a witness that satisfies nothing");
    assert_refused(&changed, &changed.r1cs.clone(), "naming the r1cs as well");
}

#[test]
fn a_zkey_of_another_r1cs_is_refused_by_name() {
    let inputs = Inputs {
        zkey: fixture("multiplier.zkey"),
        ..Inputs::of("poseidon2")
    };
    assert_refused(&inputs, &inputs.zkey, "multiplier's zkey for poseidon2");
    assert_refused(&inputs, &inputs.r1cs, "naming the r1cs as well");
    let inputs = Inputs {
        zkey: fixture("poseidon2.zkey"),
        ..Inputs::of("chain")
    };
    assert_refused(&inputs, &inputs.zkey, "poseidon2's zkey for chain");
}
