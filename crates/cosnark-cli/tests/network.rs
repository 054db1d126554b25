//! The role commands as separate processes (`server`, `party`), in a
//! session made with `setup`, `split-witness` and `keygen`: two proofs by
//! long-lived processes, and every failure of a peer — killed mid-proof,
//! garbage, an upload for another proof, silence, another role's
//! certificate, another CA's, another party's share, a share of another
//! split of the witness — ends every process with a non-zero status, a
//! message naming the peer or file, within a bound, and no proof file.
//! Where the server knows the party at fault, every other party's message
//! names it too (the server's outcome message).

mod common;
mod session;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{arg, args, fixture, run, wait_all, Outcome, QUICK_LIMIT, SESSION_LIMIT};
use he_cosnark::Round;
use he_net::{Credentials, NetConfig, Network, PeerId, SessionId};
use session::{copy_session, role_flags, start, start_with, PROMPT};

/// The wire tag of `round` (its place in the protocol's order).
fn tag(round: Round) -> u8 {
    Round::ALL
        .iter()
        .position(|r| *r == round)
        .expect("a round of the protocol") as u8
}

/// Asserts that every party of `outcomes` failed naming the server (the
/// peer they lost).
fn assert_parties_lost_the_server(outcomes: &[Outcome]) {
    for outcome in outcomes.iter().filter(|o| o.name.starts_with("party-")) {
        outcome.assert_failed_naming(&["the server"]);
    }
}

/// Asserts that every party but `culprit` failed with the server's word
/// that it made no proof, naming `culprit` as the server did.
fn assert_parties_learned_of(outcomes: &[Outcome], culprit: &str) {
    let named = culprit.replace('-', " ");
    for outcome in outcomes.iter().filter(|o| o.name.starts_with("party-")) {
        if outcome.name != culprit {
            outcome.assert_failed_naming(&["the server made no proof 0", &named]);
        }
    }
}

/// The outcome of role `role`.
fn outcome_of<'a>(outcomes: &'a [Outcome], role: &str) -> &'a Outcome {
    outcomes
        .iter()
        .find(|o| o.name == role)
        .unwrap_or_else(|| panic!("no outcome of {role}"))
}

/// Starts every proving role but `except`, with `extra` flags.
fn start_all_but(dir: &Path, except: &[&str], extra: &[String]) -> Vec<common::Proc> {
    session::roles()
        .filter(|r| !except.contains(&r.as_str()))
        .map(|role| start(dir, &role, extra))
        .collect()
}

/// The he-net configuration of party `party` of the session in `dir`,
/// with its own certificate: for an impostor that speaks the transport
/// but not the protocol.
fn impostor_config(dir: &Path, party: u32) -> NetConfig {
    let text = std::fs::read_to_string(dir.join("session.json")).expect("session.json");
    let file: serde_json::Value = serde_json::from_str(&text).expect("session.json is JSON");
    let hex = file["id"].as_str().expect("an id");
    let mut id = [0u8; 32];
    for (i, byte) in id.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex");
    }
    let roles: BTreeMap<PeerId, String> = session::roles()
        .map(|r| {
            let address = file["addresses"][&r].as_str().expect("an address");
            (r.parse().expect("a role"), address.to_owned())
        })
        .collect();
    let me = PeerId::Party(party);
    let certs = dir.join("certs");
    let credentials = Credentials {
        cert_chain: certs.join(format!("{}.pem", me.slug())),
        private_key: certs.join(format!("{}-key.pem", me.slug())),
        ca: certs.join("ca.pem"),
    };
    let listen = roles[&me].parse().expect("a socket address");
    let mut config = NetConfig::new(me, listen, roles, credentials, SessionId(id));
    // Every tag: the protocol's rounds and whatever else the server sends.
    config.rounds = 256;
    config.connect_timeout = SESSION_LIMIT;
    config.receive_timeout = PROMPT;
    config
}

#[test]
fn role_processes_make_two_proofs_and_report_their_costs() {
    let dir = copy_session("two-proofs");
    let procs = session::roles()
        .map(|role| {
            let json = arg(&dir.join(format!("{role}-proofs.json")));
            start(
                &dir,
                &role,
                &["--proofs".into(), "2".into(), "--json".into(), json],
            )
        })
        .collect();
    for outcome in wait_all(procs, Instant::now() + SESSION_LIMIT) {
        outcome.assert_success();
    }
    let vk = fixture(&format!("{}_verification_key.json", session::CIRCUIT));
    common::assert_verifies(&vk, &dir.join("public.json"), &dir.join("proof.json"));
    common::assert_snarkjs_verifies(&vk, &dir.join("public.json"), &dir.join("proof.json"));
    let keyed = session::keyed_session();
    for role in session::roles() {
        for (file, steps) in [
            (dir.join(format!("{role}-proofs.json")), 2),
            (keyed.join(format!("{role}-keys.json")), 1),
        ] {
            let text = std::fs::read_to_string(&file).expect("a --json report");
            let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            assert_eq!(report["role"], role.as_str());
            common::assert_report_has_costs(&report, steps);
        }
    }
}

#[test]
fn a_party_killed_mid_proof_ends_every_process_promptly() {
    let dir = copy_session("killed");
    let others = start_all_but(&dir, &["party-1"], &[]);
    let mut victim = start(&dir, "party-1", &[]);
    // Connected: the server is in the upload round, waiting for uploads.
    victim.wait_for_output("[party-1] connected", SESSION_LIMIT);
    std::thread::sleep(Duration::from_millis(100));
    victim.kill();
    let killed = Instant::now();
    let outcomes = wait_all(others, killed + PROMPT);
    for outcome in &outcomes {
        // Default timeouts (a 120 s receive timeout): only noticing the
        // disconnect ends them this soon.
        let after = outcome.ended - killed;
        println!(
            "{} ended {:.1} s after the kill",
            outcome.name,
            after.as_secs_f64()
        );
        assert!(after < PROMPT, "{outcome:?}");
    }
    let server = outcome_of(&outcomes, "server");
    server.assert_failed_naming(&["party 1"]);
    assert_parties_lost_the_server(&outcomes);
    session::assert_no_proof(&dir);
}

#[test]
fn a_party_sending_garbage_is_named_by_the_server() {
    let dir = copy_session("garbage");
    let procs = start_all_but(&dir, &["party-1"], &[]);
    let network = Network::connect(impostor_config(&dir, 1)).expect("the impostor connects");
    let mut garbage = vec![0u8; 4096];
    rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut garbage);
    network
        .send(PeerId::Server, tag(Round::Upload), garbage)
        .expect("the garbage is sent");
    // The server refuses it and ends: the impostor loses it.
    let answer = network.receive(PeerId::Server, tag(Round::Upload));
    assert!(answer.is_err(), "the server answered garbage");
    let outcomes = wait_all(procs, Instant::now() + PROMPT);
    let server = outcome_of(&outcomes, "server");
    server.assert_failed_naming(&["party 1", "malformed"]);
    assert_parties_learned_of(&outcomes, "party-1");
    session::assert_no_proof(&dir);
}

#[test]
fn an_upload_for_another_proof_is_named_by_the_server() {
    let dir = copy_session("other-proof");
    let mut procs = start_all_but(&dir, &["party-1"], &[]);
    procs.push(start(&dir, "party-1", &args(["--first-proof", "5"])));
    let outcomes = wait_all(procs, Instant::now() + SESSION_LIMIT);
    let server = outcome_of(&outcomes, "server");
    server.assert_failed_naming(&["party 1", "proof 5"]);
    assert_parties_learned_of(&outcomes, "party-1");
    outcome_of(&outcomes, "party-1").assert_failed_naming(&["the server"]);
    session::assert_no_proof(&dir);
}

#[test]
fn a_silent_party_is_ended_by_the_receive_timeout() {
    let dir = copy_session("silent");
    let mut procs = vec![start(&dir, "server", &args(["--receive-timeout", "3"]))];
    procs.extend(start_all_but(&dir, &["server", "party-0"], &[]));
    // Connected, then silent until the server gives up. Party 0: the
    // server waits for the parties in order, so no honest party's upload
    // (which may take longer than this short timeout to compute) is
    // waited for with it.
    let network = Network::connect(impostor_config(&dir, 0)).expect("the impostor connects");
    let started = Instant::now();
    let outcomes = wait_all(procs, started + PROMPT);
    drop(network);
    let server = outcome_of(&outcomes, "server");
    server.assert_failed_naming(&["party 0", "upload"]);
    assert_parties_learned_of(&outcomes, "party-0");
    session::assert_no_proof(&dir);
}

/// Runs the session with party 1 given `credentials`, every role with a
/// short connect timeout: every process fails, party 1 naming the peer
/// that refused it or that it refused, the server naming party 1.
fn assert_credentials_refused(
    name: &str,
    credentials: impl FnOnce(&Path) -> Vec<String>,
    party_says: &str,
) {
    let dir = copy_session(name);
    // Long enough for every honest role to start and listen on a loaded
    // machine (a debug build), short enough to keep the test quick.
    let short = args(["--connect-timeout", "15"]);
    let mut procs = start_all_but(&dir, &["party-1"], &short);
    procs.push(start_with(&dir, "party-1", credentials(&dir), &short));
    let outcomes = wait_all(procs, Instant::now() + Duration::from_secs(15) + PROMPT);
    for outcome in &outcomes {
        assert!(!outcome.success(), "{outcome:?}");
    }
    let party = outcome_of(&outcomes, "party-1");
    // It dials the server and party 0 at once: the first refusal names
    // either.
    party.assert_failed_naming_one_of(party_says, &["the server", "party 0"]);
    let server = outcome_of(&outcomes, "server");
    server.assert_failed_naming(&["party 1"]);
    session::assert_no_proof(&dir);
}

#[test]
fn a_party_with_another_partys_certificate_is_refused() {
    // Party 1's process presents party 2's certificate: every peer refuses
    // a certificate that names another role than the hello.
    assert_credentials_refused(
        "cert-of-party-2",
        |dir| role_flags(dir, "party-2"),
        "its certificate names",
    );
}

#[test]
fn a_certificate_of_another_ca_is_refused() {
    // Another session's CA and certificates.
    let other = common::temp_dir("other-ca");
    session::setup(&other);
    assert_credentials_refused("other-ca", |_| role_flags(&other, "party-1"), "certificate");
}

#[test]
fn a_share_of_another_party_is_refused_by_name() {
    let dir = copy_session("other-share");
    let share = dir.join("share-0.bin");
    let args = session::party_args_with_share(&dir, "party-1", &share);
    let outcome = run("party-1", &args, QUICK_LIMIT);
    outcome.assert_failed_naming(&[&share.display().to_string()]);
}

#[test]
fn a_share_of_another_split_fails_every_process() {
    // Party 0 proves with its share of another split of the same witness:
    // the shares no longer add up to the witness, every message is well
    // formed, and only the server's check of the combined proof can tell.
    // Every party must learn it (none may end well without a proof).
    let dir = copy_session("other-split");
    let other = common::temp_dir("other-split");
    session::split_witness(&other);
    let mut procs = start_all_but(&dir, &["party-0"], &[]);
    let args = session::party_args_with_share(&dir, "party-0", &other.join("share-0.bin"));
    procs.push(common::Proc::start("party-0", &args));
    let outcomes = wait_all(procs, Instant::now() + SESSION_LIMIT);
    outcome_of(&outcomes, "server").assert_failed_naming(&["does not verify"]);
    for party in outcomes.iter().filter(|o| o.name.starts_with("party-")) {
        party.assert_failed_naming(&["the server made no proof 0", "does not verify"]);
    }
    session::assert_no_proof(&dir);
}
