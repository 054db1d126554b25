//! Failures after setup: a peer that leaves mid-round, receive timeouts,
//! and calls the transport refuses.

mod common;

use std::time::{Duration, Instant};

use common::Session;
use he_net::{Error, PeerId};

#[test]
fn a_peer_leaving_mid_round_fails_the_receives_from_it_at_once() {
    let mut session = Session::new("drop", 2);
    let results = session.run(session.configs(), |me, net| {
        let mut net = net.expect("the mesh connects");
        match me {
            PeerId::Party(1) => {
                net.send(PeerId::Server, 0, b"round 0".to_vec())
                    .expect("send");
                std::thread::sleep(Duration::from_millis(300));
                drop(net); // leaves while the server waits for round 1
                None
            }
            PeerId::Party(_) => {
                net.send(PeerId::Server, 0, b"round 0".to_vec())
                    .expect("send");
                assert_eq!(net.receive(PeerId::Server, 1).expect("receive"), b"done");
                net.close().expect("close");
                None
            }
            PeerId::Server => {
                for p in 0..2 {
                    assert_eq!(
                        net.receive(PeerId::Party(p), 0).expect("round 0"),
                        b"round 0"
                    );
                }
                // The receive timeout is 20 s; the departure must be known well before.
                let started = Instant::now();
                let err = net.receive(PeerId::Party(1), 1).expect_err("party 1 left");
                let waited = started.elapsed();
                let again = net.receive(PeerId::Party(1), 2).expect_err("still gone");
                let send = net
                    .send(PeerId::Party(1), 1, vec![1])
                    .expect_err("cannot send");
                net.send(PeerId::Party(0), 1, b"done".to_vec())
                    .expect("the others go on");
                net.close().expect("close");
                Some((err, waited, again, send))
            }
        }
    });
    let Some((err, waited, again, send)) = results[&PeerId::Server].as_ref() else {
        panic!("the server reports")
    };
    assert!(
        matches!(
            err,
            Error::Disconnected {
                peer: PeerId::Party(1),
                round: 1,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("party 1"), "{err}");
    assert!(*waited < Duration::from_secs(5), "took {waited:?}");
    assert!(
        matches!(
            again,
            Error::Disconnected {
                peer: PeerId::Party(1),
                round: 2,
                ..
            }
        ),
        "{again}"
    );
    assert_eq!(send.peer(), Some(PeerId::Party(1)), "{send}");
}

#[test]
fn a_receive_times_out_with_a_typed_error_within_its_bound() {
    let mut session = Session::new("timeout", 1);
    let mut configs = session.configs();
    if let Some(server) = configs.get_mut(&PeerId::Server) {
        server.receive_timeout = Duration::from_millis(400);
    }
    let results = session.run(configs, |me, net| {
        let mut net = net.expect("the mesh connects");
        let outcome = if me == PeerId::Server {
            let started = Instant::now();
            let configured = net
                .receive(PeerId::Party(0), 3)
                .expect_err("nothing is sent");
            let first = started.elapsed();
            let started = Instant::now();
            let explicit = net
                .receive_within(PeerId::Party(0), 4, Duration::from_millis(150))
                .expect_err("nothing is sent");
            let second = started.elapsed();
            net.send(PeerId::Party(0), 9, vec![])
                .expect("release the party");
            Some((configured, first, explicit, second))
        } else {
            net.receive(PeerId::Server, 9).expect("released");
            None
        };
        net.close().expect("close");
        outcome
    });
    let Some((configured, first, explicit, second)) = results[&PeerId::Server].as_ref() else {
        panic!("the server reports")
    };
    assert!(
        matches!(
            configured,
            Error::Timeout {
                peer: PeerId::Party(0),
                round: 3,
                ..
            }
        ),
        "{configured}"
    );
    assert!(configured.to_string().contains("party 0"), "{configured}");
    assert!(
        *first >= Duration::from_millis(400) && *first < Duration::from_secs(3),
        "{first:?}"
    );
    assert!(
        matches!(
            explicit,
            Error::Timeout {
                peer: PeerId::Party(0),
                round: 4,
                ..
            }
        ),
        "{explicit}"
    );
    assert!(
        *second >= Duration::from_millis(150) && *second < Duration::from_secs(3),
        "{second:?}"
    );
}

#[test]
fn bad_calls_are_refused_with_typed_errors() {
    let mut session = Session::new("calls", 1);
    let mut configs = session.configs();
    for c in configs.values_mut() {
        c.max_frame = 1024;
        c.rounds = 4;
    }
    let results = session.run(configs, |me, net| {
        let mut net = net.expect("the mesh connects");
        let peer = if me == PeerId::Server {
            PeerId::Party(0)
        } else {
            PeerId::Server
        };
        assert!(matches!(
            net.send(peer, 0, vec![0; 1025]),
            Err(Error::MessageTooLarge {
                len: 1025,
                max: 1024,
                ..
            })
        ));
        assert!(matches!(
            net.send(peer, 4, vec![]),
            Err(Error::UnknownRound { round: 4, count: 4 })
        ));
        assert!(matches!(
            net.receive(peer, 200),
            Err(Error::UnknownRound { round: 200, .. })
        ));
        assert!(matches!(
            net.send(PeerId::Party(7), 0, vec![]),
            Err(Error::UnknownPeer(PeerId::Party(7)))
        ));
        assert!(matches!(net.receive(me, 0), Err(Error::UnknownPeer(_))));
        // The largest allowed message goes through.
        net.send(peer, 3, vec![1; 1024]).expect("send");
        assert_eq!(net.receive(peer, 3).expect("receive").len(), 1024);
        net.close().expect("close");
    });
    assert_eq!(results.len(), 2);
}
