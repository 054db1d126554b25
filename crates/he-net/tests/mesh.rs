//! A whole session on 127.0.0.1: rounds of messages between the server and
//! three parties (party to party too), large messages both ways at once,
//! one buffer sent to every party, byte counts, start order and closing.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::{message, Session};
use he_net::{Error, PeerId, Traffic, HEADER_LEN};

const PARTIES: u32 = 3;

fn roles() -> Vec<PeerId> {
    he_net::certs::session_roles(PARTIES).collect()
}

/// The messages of `round`, in sending order: `(from, to, length)`.
/// Round 0: parties to the server; 1: the server to the parties; 2: every
/// party to every other; 3: three messages from every role to every other
/// (order within a pair and round must hold).
fn plan(round: u8) -> Vec<(PeerId, PeerId, usize)> {
    let mut out = Vec::new();
    let len = |from: PeerId, to: PeerId, k: usize| {
        100 + 10 * from.rank() as usize + to.rank() as usize + 1000 * usize::from(round) + k
    };
    for from in roles() {
        for to in roles() {
            let wanted = match round {
                0 => to == PeerId::Server && from != to,
                1 => from == PeerId::Server && from != to,
                2 => from != PeerId::Server && to != PeerId::Server && from != to,
                _ => from != to,
            };
            let copies = if round == 3 { 3 } else { 1 };
            if wanted {
                for k in 0..copies {
                    out.push((from, to, len(from, to, k)));
                }
            }
        }
    }
    out
}

#[test]
fn server_and_three_parties_exchange_messages_in_rounds() {
    let mut session = Session::new("rounds", PARTIES);
    let results = session.run(session.configs(), |me, net| {
        let mut net = net.expect("the mesh connects");
        assert_eq!(net.peers().count(), PARTIES as usize);
        for round in 0..4u8 {
            let plan = plan(round);
            for (from, to, len) in &plan {
                if *from == me {
                    net.send(*to, round, message(me, *to, round, *len))
                        .expect("send");
                }
            }
            for (from, to, len) in &plan {
                if *to == me {
                    let got = net.receive(*from, round).expect("receive");
                    assert_eq!(
                        got,
                        message(*from, me, round, *len),
                        "{from} → {me} in {round}"
                    );
                }
            }
        }
        assert_eq!(net.pending(), 0);
        net.close().expect("close");
        // After close every queued frame has left: the counts are final.
        (net.traffic_by_round(), net.wire_traffic())
    });

    for (me, (by_round, wire)) in &results {
        for round in 0..4u8 {
            let mut expected = Traffic::default();
            for (from, to, len) in plan(round) {
                let framed = (HEADER_LEN + len) as u64;
                if from == *me {
                    expected.sent += framed;
                }
                if to == *me {
                    expected.received += framed;
                }
            }
            assert_eq!(
                by_round.get(&round).copied().unwrap_or_default(),
                expected,
                "{me} round {round}"
            );
        }
        // TLS adds records, handshakes and hellos on top of the frames.
        let mut frames = Traffic::default();
        by_round.values().for_each(|t| frames.add(*t));
        assert!(
            wire.sent > frames.sent && wire.received > frames.received,
            "{me}: wire {wire:?}, frames {frames:?}"
        );
    }
}

#[test]
fn large_messages_cross_both_ways_at_once() {
    const LEN: usize = 50 << 20;
    let mut session = Session::new("large", PARTIES);
    // Pairs that send each other LEN bytes in round 0, at the same time.
    let pairs = [
        (PeerId::Server, PeerId::Party(0)),
        (PeerId::Party(1), PeerId::Party(2)),
    ];
    let results = session.run(session.configs(), move |me, net| {
        let mut net = net.expect("the mesh connects");
        let other = pairs.iter().find_map(|&(a, b)| match me {
            m if m == a => Some(b),
            m if m == b => Some(a),
            _ => None,
        });
        let other = other.expect("every role is in a pair");
        let outgoing = message(me, other, 0, LEN);
        let expected = message(other, me, 0, LEN);
        let started = Instant::now();
        net.send(other, 0, outgoing).expect("send");
        let got = net.receive(other, 0).expect("receive");
        let elapsed = started.elapsed();
        assert!(
            got == expected,
            "{me}: the large message from {other} differs"
        );
        let traffic = net.traffic(0);
        net.close().expect("close");
        (traffic, elapsed)
    });
    for (me, (traffic, elapsed)) in &results {
        let framed = (HEADER_LEN + LEN) as u64;
        assert_eq!(
            *traffic,
            Traffic {
                sent: framed,
                received: framed
            },
            "{me}"
        );
        let mb_s = (2 * LEN) as f64 / elapsed.as_secs_f64() / 1e6;
        eprintln!("{me}: 50 MiB each way in {elapsed:?} ({mb_s:.0} MB/s both directions together)");
    }
}

#[test]
fn start_order_does_not_matter() {
    let mut session = Session::new("order", 2);
    // The server, which everyone dials, starts last.
    let delays = BTreeMap::from([
        (PeerId::Server, Duration::from_millis(800)),
        (PeerId::Party(0), Duration::from_millis(300)),
    ]);
    let results = session.run_delayed(session.configs(), &delays, |me, net| {
        let mut net = net.expect("the mesh connects");
        for peer in net.peers().collect::<Vec<_>>() {
            net.send(peer, 1, me.slug().into_bytes()).expect("send");
        }
        for peer in net.peers().collect::<Vec<_>>() {
            assert_eq!(
                net.receive(peer, 1).expect("receive"),
                peer.slug().into_bytes()
            );
        }
        net.close().expect("close");
    });
    assert_eq!(results.len(), 3);
}

#[test]
fn queued_messages_leave_before_close_and_later_calls_fail() {
    const LEN: usize = 8 << 20;
    let mut session = Session::new("close", 1);
    let results = session.run(session.configs(), |me, net| {
        let mut net = net.expect("the mesh connects");
        if me == PeerId::Party(0) {
            net.send(PeerId::Server, 2, vec![7; LEN]).expect("send");
            net.send(PeerId::Server, 2, vec![8; 10]).expect("send");
            net.close().expect("close flushes");
            assert!(matches!(
                net.send(PeerId::Server, 2, vec![]),
                Err(Error::Closed)
            ));
            assert!(matches!(net.receive(PeerId::Server, 2), Err(Error::Closed)));
            net.close().expect("closing twice is a no-op");
        } else {
            assert_eq!(net.receive(PeerId::Party(0), 2).expect("first").len(), LEN);
            assert_eq!(
                net.receive(PeerId::Party(0), 2).expect("second"),
                vec![8; 10]
            );
            // The party closed: nothing more comes, and that is known at once.
            let started = Instant::now();
            let err = net
                .receive(PeerId::Party(0), 2)
                .expect_err("the party is gone");
            assert!(
                matches!(
                    err,
                    Error::Disconnected {
                        peer: PeerId::Party(0),
                        round: 2,
                        ..
                    }
                ),
                "{err}"
            );
            assert!(started.elapsed() < Duration::from_secs(5));
            assert!(matches!(
                net.send(PeerId::Party(0), 2, vec![1]),
                Err(Error::Disconnected {
                    peer: PeerId::Party(0),
                    ..
                })
            ));
            net.close().expect("close");
        }
    });
    assert_eq!(results.len(), 2);
}

#[test]
fn secret_messages_arrive_like_public_ones_in_order() {
    let mut session = Session::new("secret", 1);
    // Party 0 sends the server a public, a small secret (below the size at
    // which frames are coalesced with their header), a secret beyond the
    // reader's first reserve (8 MiB) and a public message, in one round.
    let lengths = [100, 7_000, (8 << 20) + 3, 50];
    let results = session.run(session.configs(), move |me, net| {
        let mut net = net.expect("the mesh connects");
        if me == PeerId::Party(0) {
            for (k, &len) in lengths.iter().enumerate() {
                let bytes = message(me, PeerId::Server, k as u8, len);
                if k == 0 || k == 3 {
                    net.send(PeerId::Server, 1, bytes).expect("send");
                } else {
                    let secret = zeroize::Zeroizing::new(bytes);
                    net.send_secret(PeerId::Server, 1, secret).expect("send");
                }
            }
        } else {
            for (k, &len) in lengths.iter().enumerate() {
                let got =
                    zeroize::Zeroizing::new(net.receive(PeerId::Party(0), 1).expect("receive"));
                assert!(
                    *got == message(PeerId::Party(0), me, k as u8, len),
                    "message {k} differs"
                );
            }
        }
        let traffic = net.traffic(1);
        net.close().expect("close");
        traffic
    });
    let framed: u64 = lengths.iter().map(|&len| (HEADER_LEN + len) as u64).sum();
    assert_eq!(results[&PeerId::Party(0)].sent, framed);
    assert_eq!(results[&PeerId::Server].received, framed);
}

#[test]
fn one_buffer_sent_to_each_party_arrives_whole_at_each() {
    let mut session = Session::new("to-each", PARTIES);
    // Beyond the reader's first reserve (8 MiB), so that every writer sends
    // from the shared buffer in many records.
    const LEN: usize = (8 << 20) + 5;
    let parties: Vec<PeerId> = (0..PARTIES).map(PeerId::Party).collect();
    let results = session.run(session.configs(), move |me, net| {
        let mut net = net.expect("the mesh connects");
        if me == PeerId::Server {
            let bytes = message(me, me, 4, LEN);
            // An unknown peer is refused after the ones before it are queued.
            let with_stranger = [PeerId::Party(0), PeerId::Party(PARTIES)];
            assert!(matches!(
                net.send_to_each(&with_stranger, 1, bytes.clone()),
                Err(Error::UnknownPeer(PeerId::Party(p))) if p == PARTIES
            ));
            net.send_to_each(&parties, 1, bytes).expect("send to each");
        } else {
            let expected = message(PeerId::Server, PeerId::Server, 4, LEN);
            // Party 0 got the copy queued before the stranger was refused.
            let copies = if me == PeerId::Party(0) { 2 } else { 1 };
            for _ in 0..copies {
                let got = net.receive(PeerId::Server, 1).expect("receive");
                assert!(got == expected, "{me} got other bytes");
            }
        }
        let traffic = net.traffic(1);
        net.close().expect("close");
        traffic
    });
    let framed = (HEADER_LEN + LEN) as u64;
    assert_eq!(results[&PeerId::Server].sent, (PARTIES as u64 + 1) * framed);
    assert_eq!(results[&PeerId::Party(0)].received, 2 * framed);
    assert_eq!(results[&PeerId::Party(1)].received, framed);
}
