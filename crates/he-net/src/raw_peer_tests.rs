//! A [`Network`] facing a peer that authenticates properly and then sends
//! what no honest peer sends: a hello that is none, an oversize frame
//! header, an unknown round tag, bytes below TLS, an abrupt end.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;

use crate::certs::CertAuthority;
use crate::config::{Credentials, NetConfig, SessionId};
use crate::counters::WireCounters;
use crate::error::{Error, Violation};
use crate::frame::encode_header;
use crate::handshake::{Established, Setup};
use crate::hello::Hello;
use crate::network::Network;
use crate::peer::PeerId;
use crate::tls::TlsContext;

const SESSION: SessionId = SessionId([3; 32]);

struct Fixture {
    dir: PathBuf,
    server: Credentials,
    party: Credentials,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = std::env::temp_dir().join(format!("he-net-raw-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let ca = CertAuthority::new(&dir, "raw test CA").expect("a CA");
        Fixture {
            server: ca.issue(PeerId::Server).expect("a certificate"),
            party: ca.issue(PeerId::Party(0)).expect("a certificate"),
            dir,
        }
    }

    /// The server's configuration for a session with party 0 alone.
    fn server_config(&self, addr: &str) -> NetConfig {
        let roles = BTreeMap::from([
            (PeerId::Server, addr.to_owned()),
            (PeerId::Party(0), "127.0.0.1:9".to_owned()),
        ]);
        let mut c = NetConfig::new(
            PeerId::Server,
            addr.parse().expect("an address"),
            roles,
            self.server.clone(),
            SESSION,
        );
        c.connect_timeout = Duration::from_secs(4);
        c.handshake_timeout = Duration::from_secs(3);
        c.receive_timeout = Duration::from_secs(20);
        c.max_frame = 1 << 20;
        c.rounds = 4;
        c
    }

    /// Starts the server in a thread, connects party 0 by hand and runs
    /// `raw` on the connection; returns what the server saw.
    fn run<F, Fut>(&self, raw: F) -> (Result<Vec<u8>, Error>, Duration)
    where
        F: FnOnce(Established) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = listener.local_addr().expect("an address").to_string();
        let config = self.server_config(&addr);
        let server = std::thread::spawn(move || {
            let net = Network::connect_with_listener(config, listener)?;
            let started = Instant::now();
            let got = net.receive(PeerId::Party(0), 1);
            Ok::<_, Error>((got, started.elapsed()))
        });
        let setup = self.party_setup(Duration::from_secs(3));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(4);
            let conn = setup
                .dial(PeerId::Server, addr, deadline)
                .await
                .expect("the raw party connects");
            raw(conn).await;
        });
        let outcome = server.join().expect("the server thread");
        let (got, waited) = outcome.expect("the server connects");
        (got, waited)
    }
}

impl Fixture {
    /// Party 0's side of the handshake, by hand.
    fn party_setup(&self, handshake_timeout: Duration) -> Setup {
        Setup {
            tls: TlsContext::load(&self.party).expect("credentials"),
            hello: Hello {
                session: SESSION,
                role: PeerId::Party(0),
            },
            handshake_timeout,
            wire: Arc::new(WireCounters::default()),
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Keeps the connection open a while after `bytes` so that only the bytes
/// (not the end of the connection) can explain the server's error.
async fn send_and_linger(mut conn: Established, bytes: &[u8]) {
    conn.stream.write_all(bytes).await.expect("write");
    conn.stream.flush().await.expect("flush");
    tokio::time::sleep(Duration::from_millis(1500)).await;
}

#[test]
fn an_oversize_declared_frame_is_refused_without_allocating() {
    let fixture = Fixture::new("oversize");
    // 2^62 bytes: an attempt to allocate them would abort the process.
    let (got, waited) = fixture.run(|conn| async move {
        send_and_linger(conn, &encode_header(1, 1 << 62)).await;
    });
    match got {
        Err(Error::Protocol {
            peer: PeerId::Party(0),
            violation: Violation::FrameTooLarge { declared, max },
        }) => assert_eq!((declared, max), (1 << 62, 1 << 20)),
        other => panic!("expected FrameTooLarge, got {other:?}"),
    }
    assert!(waited < Duration::from_millis(1500), "{waited:?}");
}

#[test]
fn an_unknown_round_tag_is_a_violation() {
    let fixture = Fixture::new("tag");
    let (got, _) = fixture.run(|conn| async move {
        let mut bytes = encode_header(1, 2).to_vec();
        bytes.extend_from_slice(b"ok");
        bytes.extend_from_slice(&encode_header(9, 0));
        send_and_linger(conn, &bytes).await;
    });
    // The good frame before the bad one is still delivered.
    assert_eq!(got.expect("the first frame"), b"ok");
    let fixture = Fixture::new("tag2");
    let (got, _) = fixture.run(|conn| async move {
        send_and_linger(conn, &encode_header(4, 0)).await;
    });
    assert!(
        matches!(
            got,
            Err(Error::Protocol {
                peer: PeerId::Party(0),
                violation: Violation::UnknownRound { tag: 4, count: 4 }
            })
        ),
        "{got:?}"
    );
}

#[test]
fn bytes_below_tls_after_the_handshake_are_a_violation() {
    let fixture = Fixture::new("belowtls");
    let (got, waited) = fixture.run(|mut conn| async move {
        // Once the server is past setup (garbage right behind the hello's
        // last message fails the setup instead), straight into the TCP
        // stream, around the TLS session.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let tcp = conn.stream.get_mut().0.get_mut();
        tcp.write_all(b"\x17\x03\x03\x00\x10garbage garbage!")
            .await
            .expect("write");
        tcp.flush().await.expect("flush");
        tokio::time::sleep(Duration::from_millis(1500)).await;
    });
    match got {
        Err(Error::Protocol {
            peer: PeerId::Party(0),
            violation: Violation::Tls(reason),
        }) => assert!(!reason.is_empty()),
        other => panic!("expected a TLS violation, got {other:?}"),
    }
    assert!(waited < Duration::from_millis(1500), "{waited:?}");
}

#[test]
fn an_abrupt_end_mid_frame_is_a_disconnection() {
    let fixture = Fixture::new("abrupt");
    let (got, waited) = fixture.run(|mut conn| async move {
        let mut bytes = encode_header(1, 100).to_vec();
        bytes.extend_from_slice(&[0; 10]);
        conn.stream.write_all(&bytes).await.expect("write");
        conn.stream.flush().await.expect("flush");
        // No close_notify: the TCP stream just ends.
        let tcp = conn.stream.get_mut().0.get_mut();
        let _ = tcp.shutdown().await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
    });
    match got {
        Err(Error::Disconnected {
            peer: PeerId::Party(0),
            round: 1,
            reason,
        }) => assert!(reason.contains("connection lost"), "{reason}"),
        other => panic!("expected Disconnected, got {other:?}"),
    }
    assert!(waited < Duration::from_millis(1500), "{waited:?}");
}

#[test]
fn junk_in_place_of_the_hello_is_refused_with_its_reason() {
    let fixture = Fixture::new("nohello");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = listener.local_addr().expect("an address").to_string();
    let mut config = fixture.server_config(&addr);
    config.connect_timeout = Duration::from_secs(2);
    let server = std::thread::spawn(move || Network::connect_with_listener(config, listener));
    let tls = TlsContext::load(&fixture.party).expect("credentials");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let reply = runtime.block_on(async {
        let tcp = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        let name = crate::tls::server_name(PeerId::Server).expect("a name");
        let mut s = tokio_rustls::TlsConnector::from(tls.client)
            .connect(name, tcp)
            .await
            .expect("the TLS handshake itself succeeds");
        s.write_all(&[0x55; crate::hello::HELLO_LEN])
            .await
            .expect("write");
        s.flush().await.expect("flush");
        let mut reply = Vec::new();
        let _ = tokio::time::timeout(
            Duration::from_secs(3),
            tokio::io::AsyncReadExt::read_to_end(&mut s, &mut reply),
        )
        .await;
        reply
    });
    // The server told the peer why, then waited in vain for party 0.
    assert!(reply.starts_with(b"HNNO"), "{reply:?}");
    assert!(String::from_utf8_lossy(&reply).contains("not a hello"));
    match server.join().expect("the server thread") {
        Err(Error::SetupTimeout {
            missing, refused, ..
        }) => {
            assert_eq!(missing, [PeerId::Party(0)]);
            assert!(
                refused.iter().any(|r| r.contains("not a hello")),
                "{refused:?}"
            );
        }
        other => panic!("expected SetupTimeout, got {other:?}"),
    }
}

/// A peer too busy to answer the first connection within the handshake
/// timeout is dialed again: the first connection to a relay in front of the
/// server is held silent, the second is passed through, and the dial
/// succeeds before its deadline.
#[test]
fn a_peer_silent_past_the_handshake_timeout_is_dialed_again() {
    let fixture = Fixture::new("silentfirst");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let server_addr = listener.local_addr().expect("an address").to_string();
    let config = fixture.server_config(&server_addr);
    let server =
        std::thread::spawn(move || Network::connect_with_listener(config, listener).map(drop));
    let relay = TcpListener::bind("127.0.0.1:0").expect("a port");
    let relay_addr = relay.local_addr().expect("an address").to_string();
    let relaying = std::thread::spawn(move || {
        let (silent, _) = relay.accept().expect("the first connection");
        let (passed, _) = relay.accept().expect("the second connection");
        drop(silent);
        let upstream = std::net::TcpStream::connect(server_addr).expect("the server");
        let pipe = |mut from: std::net::TcpStream, mut to: std::net::TcpStream| {
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut from, &mut to);
                let _ = to.shutdown(std::net::Shutdown::Write);
            })
        };
        let down = pipe(
            upstream.try_clone().expect("a clone"),
            passed.try_clone().expect("a clone"),
        );
        let up = pipe(passed, upstream);
        let _ = (down.join(), up.join());
    });
    let setup = fixture.party_setup(Duration::from_millis(700));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let dialed = runtime.block_on(async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(4);
        setup
            .dial(PeerId::Server, relay_addr, deadline)
            .await
            .map(drop)
    });
    dialed.expect("the second dial gets through");
    server
        .join()
        .expect("the server thread")
        .expect("the server connects");
    relaying.join().expect("the relay");
}

/// A peer that never answers makes the dial fail at its deadline, dialed
/// again after each handshake timeout until then.
#[test]
fn a_peer_that_never_answers_fails_the_dial_at_the_deadline() {
    let fixture = Fixture::new("silent");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = listener.local_addr().expect("an address").to_string();
    let holding = std::thread::spawn(move || {
        let mut held = Vec::new();
        listener.set_nonblocking(true).expect("nonblocking");
        let until = Instant::now() + Duration::from_secs(3);
        while Instant::now() < until {
            if let Ok((conn, _)) = listener.accept() {
                held.push(conn);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        held.len()
    });
    let setup = fixture.party_setup(Duration::from_millis(500));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let started = Instant::now();
    let outcome = runtime.block_on(async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        setup.dial(PeerId::Server, addr, deadline).await.map(drop)
    });
    match outcome {
        Err(Error::Connect { reason, .. }) => {
            assert!(reason.contains("until the deadline"), "{reason}")
        }
        other => panic!("expected a Connect error, got {other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(holding.join().expect("the holder") >= 2, "dialed once only");
}
