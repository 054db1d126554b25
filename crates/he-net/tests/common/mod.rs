//! Sessions on 127.0.0.1 for the tests: fresh credentials, listeners bound
//! to port 0, one thread per role, and a bound on every wait.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use he_net::certs::{self, CertAuthority};
use he_net::{Credentials, NetConfig, Network, PeerId, SessionId};

/// How long a test waits for any role's thread before failing.
pub const WATCHDOG: Duration = Duration::from_secs(50);

/// `secs` seconds stretched by how loaded the machine is (the one-minute
/// load average per core, when above 1): a deadline a test sets for a
/// handshake to be refused must not pass before the handshake ran, and a
/// debug build's TLS handshakes on a busy machine take seconds.
pub fn patient(secs: u64) -> Duration {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    Duration::from_secs_f64(secs as f64 * (load / cores).clamp(1.0, 8.0))
}

/// A fresh directory under the system's temporary directory.
pub fn temp_dir(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("he-net-test-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The roles, credentials and bound listeners of one test session.
pub struct Session {
    pub dir: PathBuf,
    pub ca: CertAuthority,
    pub creds: BTreeMap<PeerId, Credentials>,
    pub listeners: BTreeMap<PeerId, TcpListener>,
    pub roles: BTreeMap<PeerId, String>,
    pub session: SessionId,
}

impl Session {
    /// The server and `parties` parties, each with credentials from one CA
    /// and a listener on 127.0.0.1 with a free port.
    pub fn new(name: &str, parties: u32) -> Session {
        let dir = temp_dir(name);
        let ca = CertAuthority::new(&dir, "test CA").expect("a CA");
        let mut creds = BTreeMap::new();
        let mut listeners = BTreeMap::new();
        let mut roles = BTreeMap::new();
        for role in certs::session_roles(parties) {
            creds.insert(role, ca.issue(role).expect("a role certificate"));
            let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
            let addr = listener.local_addr().expect("a bound address");
            roles.insert(role, addr.to_string());
            listeners.insert(role, listener);
        }
        Session {
            dir,
            ca,
            creds,
            listeners,
            roles,
            session: SessionId([0x42; 32]),
        }
    }

    /// `me`'s configuration, with timeouts short enough for tests.
    pub fn config(&self, me: PeerId) -> NetConfig {
        let mut c = NetConfig::new(
            me,
            self.roles[&me].parse().expect("a socket address"),
            self.roles.clone(),
            self.creds[&me].clone(),
            self.session,
        );
        c.connect_timeout = Duration::from_secs(15);
        c.handshake_timeout = Duration::from_secs(5);
        c.receive_timeout = Duration::from_secs(20);
        c.close_timeout = Duration::from_secs(10);
        c
    }

    /// Every role's configuration.
    pub fn configs(&self) -> BTreeMap<PeerId, NetConfig> {
        self.roles.keys().map(|r| (*r, self.config(*r))).collect()
    }

    /// Connects every role of `configs` in its own thread and runs `body`
    /// there with the outcome; returns each role's result. Fails the test
    /// when a thread does not finish within [`WATCHDOG`].
    pub fn run<R, F>(
        &mut self,
        configs: BTreeMap<PeerId, NetConfig>,
        body: F,
    ) -> BTreeMap<PeerId, R>
    where
        R: Send + 'static,
        F: Fn(PeerId, he_net::Result<Network>) -> R + Send + Sync + Clone + 'static,
    {
        self.run_delayed(configs, &BTreeMap::new(), body)
    }

    /// As [`Session::run`], starting each role in `delays` that much later.
    pub fn run_delayed<R, F>(
        &mut self,
        configs: BTreeMap<PeerId, NetConfig>,
        delays: &BTreeMap<PeerId, Duration>,
        body: F,
    ) -> BTreeMap<PeerId, R>
    where
        R: Send + 'static,
        F: Fn(PeerId, he_net::Result<Network>) -> R + Send + Sync + Clone + 'static,
    {
        let (tx, rx) = mpsc::channel();
        let count = configs.len();
        for (role, config) in configs {
            let listener = self.listeners.remove(&role).expect("a listener per role");
            let (tx, body) = (tx.clone(), body.clone());
            let delay = delays.get(&role).copied().unwrap_or_default();
            std::thread::Builder::new()
                .name(format!("test {}", role.slug()))
                .spawn(move || {
                    std::thread::sleep(delay);
                    let net = Network::connect_with_listener(config, listener);
                    let _ = tx.send((role, body(role, net)));
                })
                .expect("a thread");
        }
        let mut results = BTreeMap::new();
        for _ in 0..count {
            let (role, r) = rx.recv_timeout(WATCHDOG).unwrap_or_else(|_| {
                panic!(
                    "a role hung or panicked; finished: {:?}",
                    results.keys().collect::<Vec<_>>()
                )
            });
            results.insert(role, r);
        }
        results
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A message for `to` from `from` in `round`, `len` bytes, recognizable.
pub fn message(from: PeerId, to: PeerId, round: u8, len: usize) -> Vec<u8> {
    let seed = (from.rank() * 31 + to.rank() * 7 + u64::from(round)) as u8;
    // A 251-byte block repeated (fast to build even unoptimized).
    let block: Vec<u8> = (0..251u8).map(|i| seed.wrapping_add(i)).collect();
    let mut out = block.repeat(len / block.len() + 1);
    out.truncate(len);
    out
}
