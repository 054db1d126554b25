//! A session made with the role commands, for the network tests: `setup`
//! (session.json, a CA and a certificate per role), `split-witness` and
//! one `keygen` process per role, once per test binary; each test proves
//! in its own copy of it, with fresh ports, so that tests run side by side.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::{
    arg, fixture, run, temp_dir, wait_all, Proc, TempDir, QUICK_LIMIT, SESSION_LIMIT,
};

/// The session's circuit (the smallest domain: the cheapest proofs).
pub const CIRCUIT: &str = "multiplier";

/// The session's parties (N-out-of-N).
pub const PARTIES: u32 = 3;

/// The session directory with every role's keys, made once.
pub fn keyed_session() -> &'static Path {
    static KEYED: OnceLock<TempDir> = OnceLock::new();
    KEYED.get_or_init(|| {
        let dir = temp_dir("keyed");
        setup(&dir);
        split_witness(&dir);
        let keygen: Vec<Proc> = roles()
            .map(|role| {
                let mut args = vec!["keygen".to_owned(), "--role".into(), role.clone()];
                args.extend(["--dir".into(), arg(&dir)]);
                args.extend(role_flags(&dir, &role));
                args.extend(["--json".into(), arg(&dir.join(format!("{role}-keys.json")))]);
                Proc::start(&format!("keygen {role}"), &args)
            })
            .collect();
        for outcome in wait_all(keygen, Instant::now() + SESSION_LIMIT) {
            outcome.assert_success();
        }
        dir
    })
}

/// Runs `cosnark setup` for the session's circuit and parties into `dir`
/// (session.json, a CA and a certificate per role); it must succeed.
pub fn setup(dir: &Path) {
    let (zkey, _, _) = circuit_files();
    run(
        "setup",
        &[
            "setup".into(),
            "--zkey".into(),
            arg(&zkey),
            "--parties".into(),
            PARTIES.to_string(),
            "--dir".into(),
            arg(dir),
        ],
        QUICK_LIMIT,
    )
    .assert_success();
}

/// Runs `cosnark split-witness` for the session's circuit and parties,
/// writing a share per party into `out`; it must succeed.
pub fn split_witness(out: &Path) {
    let (zkey, r1cs, wtns) = circuit_files();
    run(
        "split-witness",
        &[
            "split-witness".into(),
            "--r1cs".into(),
            arg(&r1cs),
            "--zkey".into(),
            arg(&zkey),
            "--witness".into(),
            arg(&wtns),
            "--parties".into(),
            PARTIES.to_string(),
            "--out".into(),
            arg(out),
        ],
        QUICK_LIMIT,
    )
    .assert_success();
}

/// The arguments of party `party`'s process in the session `dir` (its own
/// credentials), proving with the witness share `share` instead of its own.
pub fn party_args_with_share(dir: &Path, party: &str, share: &Path) -> Vec<String> {
    let mut args = proving_args(dir, party, role_flags(dir, party), &[]);
    let at = args
        .iter()
        .position(|a| a == "--share")
        .expect("a --share flag");
    args[at + 1] = arg(share);
    args
}

/// The circuit's zkey, r1cs and witness.
pub fn circuit_files() -> (PathBuf, PathBuf, PathBuf) {
    (
        fixture(&format!("{CIRCUIT}.zkey")),
        fixture(&format!("{CIRCUIT}.r1cs")),
        fixture(&format!("{CIRCUIT}.wtns")),
    )
}

/// Every role's name: `server`, `party-0`, ….
pub fn roles() -> impl Iterator<Item = String> {
    std::iter::once("server".to_owned()).chain((0..PARTIES).map(|i| format!("party-{i}")))
}

/// The credential flags of role `cert_of` in the session `dir` (the
/// certificate and key of the role itself, or of another role to
/// impersonate it, and the CA).
pub fn role_flags(dir: &Path, cert_of: &str) -> Vec<String> {
    let certs = dir.join("certs");
    vec![
        "--cert".into(),
        arg(&certs.join(format!("{cert_of}.pem"))),
        "--key".into(),
        arg(&certs.join(format!("{cert_of}-key.pem"))),
        "--ca".into(),
        arg(&certs.join("ca.pem")),
    ]
}

/// A copy of the keyed session for one test, every role on a fresh port
/// (removed when dropped).
pub fn copy_session(name: &str) -> TempDir {
    let from = keyed_session();
    let to = temp_dir(name);
    copy_dir(from, &to);
    let path = to.join("session.json");
    let mut session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("session.json"))
            .expect("session.json is JSON");
    for role in roles() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("an address").port();
        session["addresses"][&role] = format!("127.0.0.1:{port}").into();
    }
    std::fs::write(&path, session.to_string()).expect("session.json");
    // Outputs of the key session's run are not the test's.
    for role in roles() {
        let _ = std::fs::remove_file(to.join(format!("{role}-keys.json")));
    }
    to
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for entry in std::fs::read_dir(from).expect("the keyed session") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            // Copies the mode too: secret files stay 0600.
            std::fs::copy(entry.path(), &target).expect("a copy");
        }
    }
}

/// The arguments of the proving role `role` in `dir` with the
/// credential flags `credentials` and `extra` flags.
pub fn proving_args(
    dir: &Path,
    role: &str,
    credentials: Vec<String>,
    extra: &[String],
) -> Vec<String> {
    let (zkey, r1cs, _) = circuit_files();
    let mut args = match role {
        "server" => vec![
            "server".to_owned(),
            "--proof".into(),
            arg(&dir.join("proof.json")),
        ],
        party => {
            let index = party.strip_prefix("party-").expect("a party");
            vec![
                "party".to_owned(),
                "--index".into(),
                index.into(),
                "--share".into(),
                arg(&dir.join(format!("share-{index}.bin"))),
            ]
        }
    };
    args.extend([
        "--dir".into(),
        arg(dir),
        "--r1cs".into(),
        arg(&r1cs),
        "--zkey".into(),
        arg(&zkey),
        "--public".into(),
        arg(&dir.join("public.json")),
    ]);
    args.extend(credentials);
    args.extend(extra.iter().cloned());
    args
}

/// Starts the proving role `role` in `dir` with its own credentials.
pub fn start(dir: &Path, role: &str, extra: &[String]) -> Proc {
    start_with(dir, role, role_flags(dir, role), extra)
}

/// Starts the proving role `role` in `dir` with the credential flags
/// `credentials`.
pub fn start_with(dir: &Path, role: &str, credentials: Vec<String>, extra: &[String]) -> Proc {
    Proc::start(role, &proving_args(dir, role, credentials, extra))
}

/// The bound on the end of every process after a failure: far below the
/// default receive timeout (120 s), so a process that only stops at its
/// timeout fails the test.
pub const PROMPT: Duration = Duration::from_secs(45);

/// Asserts that no proof was written in `dir`.
pub fn assert_no_proof(dir: &Path) {
    let proof = dir.join("proof.json");
    assert!(
        !proof.exists(),
        "a proof file was left at {}",
        proof.display()
    );
}
