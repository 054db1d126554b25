//! Throughput of one large message over TLS on 127.0.0.1: the server and
//! party 0 in two threads of this process, fresh credentials in a
//! temporary directory.
//!
//! `cargo run --release -p he-net --example throughput -- --mib 256`

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::time::{Duration, Instant};

use clap::Parser;
use example_support::{cli::positive, outln};
use he_net::{certs, NetConfig, Network, PeerId, SessionId};

/// Measures one message each way, one after the other, then both at once.
#[derive(Parser, Debug)]
struct Args {
    /// Message size in MiB.
    #[arg(long, default_value_t = 256, value_parser = positive)]
    mib: usize,
    /// Repetitions of each measurement (the best is reported).
    #[arg(long, default_value_t = 3, value_parser = positive)]
    reps: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let len = args.mib << 20;
    let dir = std::env::temp_dir().join(format!("he-net-throughput-{}", std::process::id()));
    let creds = certs::generate(&dir, certs::session_roles(1))?;
    let mut listeners = BTreeMap::new();
    let mut roles = BTreeMap::new();
    for role in certs::session_roles(1) {
        let l = TcpListener::bind("127.0.0.1:0")?;
        roles.insert(role, l.local_addr()?.to_string());
        listeners.insert(role, l);
    }
    let config = |me: PeerId| {
        let mut c = NetConfig::new(
            me,
            roles[&me].parse().expect("a bound address"),
            roles.clone(),
            creds[&me].clone(),
            SessionId([1; 32]),
        );
        c.receive_timeout = Duration::from_secs(600);
        c
    };
    let (server_config, party_config) = (config(PeerId::Server), config(PeerId::Party(0)));
    let server_listener = listeners.remove(&PeerId::Server).ok_or("no listener")?;
    let party_listener = listeners.remove(&PeerId::Party(0)).ok_or("no listener")?;

    let reps = args.reps;
    // Per repetition: party → server alone, then both ways at once; the
    // receiving side times from its send (or from a start message).
    let party = std::thread::spawn(move || -> he_net::Result<()> {
        let mut net = Network::connect_with_listener(party_config, party_listener)?;
        for _ in 0..reps {
            let payload = vec![1; len];
            net.receive(PeerId::Server, 0)?; // go
            net.send(PeerId::Server, 1, payload)?;
            let payload = vec![2; len];
            net.receive(PeerId::Server, 0)?; // go
            net.send(PeerId::Server, 2, payload)?;
            net.receive(PeerId::Server, 2)?;
        }
        net.close()
    });
    let mut net = Network::connect_with_listener(server_config, server_listener)?;
    let (mut one_way, mut both_ways) = (Duration::MAX, Duration::MAX);
    for _ in 0..reps {
        let t = Instant::now();
        net.send(PeerId::Party(0), 0, vec![])?;
        net.receive(PeerId::Party(0), 1)?;
        one_way = one_way.min(t.elapsed());
        let payload = vec![3; len];
        let t = Instant::now();
        net.send(PeerId::Party(0), 0, vec![])?;
        net.send(PeerId::Party(0), 2, payload)?;
        net.receive(PeerId::Party(0), 2)?;
        both_ways = both_ways.min(t.elapsed());
    }
    net.close()?;
    let wire = net.wire_traffic();
    party.join().map_err(|_| "the party thread panicked")??;
    let _ = std::fs::remove_dir_all(&dir);

    let mb = len as f64 / 1e6;
    outln!(
        "one way:   {} MiB in {one_way:.2?}: {:.0} MB/s",
        args.mib,
        mb / one_way.as_secs_f64()
    );
    outln!(
        "both ways: {} MiB each in {both_ways:.2?}: {:.0} MB/s per direction",
        args.mib,
        mb / both_ways.as_secs_f64()
    );
    outln!(
        "server socket bytes: {} sent, {} received",
        wire.sent,
        wire.received
    );
    Ok(())
}
