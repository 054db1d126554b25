//! Connections that must be refused at setup: another CA, a certificate
//! for another role, another session, bytes that are no TLS.

mod common;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use common::{patient, temp_dir, Session};
use he_net::certs::CertAuthority;
use he_net::{Error, NetConfig, Network, PeerId, SessionId};

/// Configurations whose honest roles give up after `secs` seconds (more on
/// a loaded machine, see [`patient`]).
fn quick(session: &Session, secs: u64) -> BTreeMap<PeerId, NetConfig> {
    let mut configs = session.configs();
    for c in configs.values_mut() {
        c.connect_timeout = patient(secs);
    }
    configs
}

/// Runs every role and returns the error of each (every role must fail).
fn errors(session: &mut Session, configs: BTreeMap<PeerId, NetConfig>) -> BTreeMap<PeerId, Error> {
    session.run(configs, |me, net| match net {
        Ok(_) => panic!("{me} connected"),
        Err(e) => e,
    })
}

/// Checks that every role in `acceptors` gave up waiting for party 1 and
/// that at least one of them refused party 1 for `what`.
///
/// Only one refusal is certain: party 1 dials all of them at once, gives
/// up at the first refusal it hears and drops its other attempts, so the
/// other acceptors may see no more than a reset connection.
fn assert_refused_at_setup(errs: &BTreeMap<PeerId, Error>, acceptors: &[PeerId], what: &str) {
    let mut reasons = Vec::new();
    for acceptor in acceptors {
        match &errs[acceptor] {
            Error::SetupTimeout {
                missing, refused, ..
            } => {
                assert_eq!(
                    missing,
                    &[PeerId::Party(1)],
                    "{acceptor}: {}",
                    errs[acceptor]
                );
                reasons.extend(refused.iter().cloned());
            }
            other => panic!("{acceptor}: expected SetupTimeout, got {other}"),
        }
    }
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("127.0.0.1:") && r.contains(what)),
        "expected a refusal mentioning {what:?}: {reasons:?}"
    );
}

/// The roles party 1 dials in a two-party session.
const PARTY_1_DIALS: [PeerId; 2] = [PeerId::Server, PeerId::Party(0)];

#[test]
fn a_certificate_from_another_ca_is_refused_both_ways() {
    let mut session = Session::new("rogue", 2);
    let rogue = CertAuthority::new(&session.dir.join("rogue"), "rogue CA").expect("a CA");
    let mut configs = quick(&session, 3);
    // Party 1 holds a rogue certificate and trusts only the rogue CA.
    configs
        .get_mut(&PeerId::Party(1))
        .expect("party 1")
        .credentials = rogue.issue(PeerId::Party(1)).expect("a rogue certificate");
    let errs = errors(&mut session, configs);
    match &errs[&PeerId::Party(1)] {
        Error::Connect { peer, addr, reason } => {
            assert!(addr.starts_with("127.0.0.1:"), "{addr}");
            assert!(matches!(peer, PeerId::Server | PeerId::Party(0)));
            assert!(reason.contains("UnknownIssuer"), "{reason}");
        }
        other => panic!("expected Connect, got {other}"),
    }
    assert_refused_at_setup(&errs, &PARTY_1_DIALS, "TLS handshake");
}

#[test]
fn a_rogue_certificate_is_refused_even_when_its_holder_trusts_the_ca() {
    let mut session = Session::new("rogue2", 2);
    let rogue = CertAuthority::new(&session.dir.join("rogue"), "rogue CA").expect("a CA");
    let mut configs = quick(&session, 3);
    let mut creds = rogue.issue(PeerId::Party(1)).expect("a rogue certificate");
    creds.ca = session.ca.ca_path();
    configs
        .get_mut(&PeerId::Party(1))
        .expect("party 1")
        .credentials = creds;
    let errs = errors(&mut session, configs);
    let party = errs[&PeerId::Party(1)].to_string();
    assert!(party.contains("alert"), "{party}");
    assert_refused_at_setup(&errs, &PARTY_1_DIALS, "UnknownIssuer");
}

#[test]
fn a_certificate_naming_another_role_is_refused() {
    let mut session = Session::new("otherrole", 2);
    let mut configs = quick(&session, 3);
    // Party 1 presents party 0's certificate and claims to be party 1.
    configs
        .get_mut(&PeerId::Party(1))
        .expect("party 1")
        .credentials = session.creds[&PeerId::Party(0)].clone();
    let errs = errors(&mut session, configs);
    let party = errs[&PeerId::Party(1)].to_string();
    assert!(
        party.contains("refused by the peer") && party.contains("party-0.cosnark"),
        "{party}"
    );
    assert_refused_at_setup(
        &errs,
        &PARTY_1_DIALS,
        "names [\"party-0.cosnark\"], not party-1.cosnark",
    );
}

#[test]
fn an_acceptor_with_another_roles_certificate_is_refused_by_the_dialer() {
    let mut session = Session::new("otheracceptor", 2);
    let mut configs = quick(&session, 3);
    // Party 0, which party 1 dials, presents the server's certificate.
    configs
        .get_mut(&PeerId::Party(0))
        .expect("party 0")
        .credentials = session.creds[&PeerId::Server].clone();
    let errs = errors(&mut session, configs);
    // Party 1 dials both the server and party 0; both refusals name a peer.
    let failures: Vec<String> = match &errs[&PeerId::Party(1)] {
        Error::Connect {
            peer: PeerId::Party(0),
            reason,
            ..
        } => vec![reason.clone()],
        Error::Connect {
            peer: PeerId::Server,
            ..
        } => vec![],
        other => panic!("expected Connect, got {other}"),
    };
    for reason in failures {
        assert!(
            reason.contains("not valid for name \"party-0.cosnark\""),
            "{reason}"
        );
    }
    match &errs[&PeerId::Party(0)] {
        Error::Connect {
            peer: PeerId::Server,
            reason,
            ..
        } => {
            assert!(reason.contains("not party-0.cosnark"), "{reason}")
        }
        other => panic!("expected Connect to the server, got {other}"),
    }
}

#[test]
fn another_session_is_refused() {
    let mut session = Session::new("session", 2);
    let mut configs = quick(&session, 3);
    configs.get_mut(&PeerId::Party(1)).expect("party 1").session = SessionId([9; 32]);
    let errs = errors(&mut session, configs);
    let party = errs[&PeerId::Party(1)].to_string();
    assert!(
        party.contains("refused by the peer") && party.contains("session"),
        "{party}"
    );
    assert_refused_at_setup(&errs, &PARTY_1_DIALS, "states session 0909");
}

#[test]
fn bytes_that_are_no_tls_are_refused_and_the_mesh_still_forms() {
    let mut session = Session::new("garbage", 1);
    let server_addr = session.roles[&PeerId::Server].clone();
    // Queued in the server's backlog before it even starts.
    let mut junk = TcpStream::connect(&server_addr).expect("connect");
    junk.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .expect("write");
    let results = session.run(session.configs(), |me, net| {
        let mut net = net.expect("the mesh connects despite the junk");
        let peer = if me == PeerId::Server {
            PeerId::Party(0)
        } else {
            PeerId::Server
        };
        net.send(peer, 0, vec![1, 2, 3]).expect("send");
        assert_eq!(net.receive(peer, 0).expect("receive"), vec![1, 2, 3]);
        net.close().expect("close");
    });
    assert_eq!(results.len(), 2);
    // The server answered the junk with a TLS alert or closed it.
    junk.set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let mut buf = [0u8; 64];
    let _ = junk.read(&mut buf);
}

#[test]
fn junk_is_named_in_the_setup_error_when_the_peer_never_comes() {
    let mut session = Session::new("garbage2", 1);
    let server_addr = session.roles[&PeerId::Server].clone();
    let mut junk = TcpStream::connect(&server_addr).expect("connect");
    let junk_addr = junk.local_addr().expect("an address").to_string();
    junk.write_all(&[0x16, 0x03, 0x01, 0xff, 0xff, 0, 0, 0])
        .expect("write");
    let mut configs = quick(&session, 2);
    configs.remove(&PeerId::Party(0));
    let errs = errors(&mut session, configs);
    match &errs[&PeerId::Server] {
        Error::SetupTimeout {
            missing, refused, ..
        } => {
            assert_eq!(missing, &[PeerId::Party(0)]);
            assert!(
                refused
                    .iter()
                    .any(|r| r.starts_with(&junk_addr) && r.contains("TLS handshake")),
                "{refused:?}"
            );
        }
        other => panic!("expected SetupTimeout, got {other}"),
    }
}

#[test]
fn a_dialer_meeting_no_tls_names_the_peer_and_address() {
    let dir = temp_dir("fakeserver");
    let creds = he_net::certs::generate(&dir, he_net::certs::session_roles(1)).expect("certs");
    let fake = TcpListener::bind("127.0.0.1:0").expect("a port");
    let fake_addr = fake.local_addr().expect("an address").to_string();
    // Answers the first connection within 10 s with a banner that is no TLS.
    fake.set_nonblocking(true).expect("non-blocking");
    let responder = std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if let Ok((mut s, _)) = fake.accept() {
                let _ = s.set_nonblocking(false);
                let _ = s.write_all(b"SSH-2.0-OpenSSH_9.6\r\n");
                let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
                let _ = s.read(&mut [0u8; 1024]);
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    let roles = BTreeMap::from([
        (PeerId::Server, fake_addr.clone()),
        (PeerId::Party(0), "127.0.0.1:0".to_owned()),
    ]);
    let mut config = NetConfig::new(
        PeerId::Party(0),
        "127.0.0.1:0".parse().expect("an address"),
        roles,
        creds[&PeerId::Party(0)].clone(),
        SessionId([1; 32]),
    );
    config.connect_timeout = patient(5);
    config.handshake_timeout = patient(3);
    match Network::connect(config) {
        Err(Error::Connect {
            peer: PeerId::Server,
            addr,
            reason,
        }) => {
            assert_eq!(addr, fake_addr);
            assert!(reason.contains("TLS handshake"), "{reason}");
        }
        other => panic!("expected Connect, got {other:?}"),
    }
    responder.join().expect("the fake server");
    let _ = std::fs::remove_dir_all(&dir);
}
