//! [`Network`]: one role's end of the mesh, with the blocking API the
//! (synchronous) protocol code calls.

use std::collections::BTreeMap;
use std::net::TcpListener as StdListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime};
use zeroize::Zeroizing;

use crate::config::NetConfig;
use crate::counters::{RoundCounters, Traffic, WireCounters};
use crate::error::{Error, Result};
use crate::frame::{Payload, HEADER_LEN};
use crate::handshake::Setup;
use crate::hello::Hello;
use crate::inbox::{Ending, TakeError};
use crate::link::{self, Limits, Link, Outgoing};
use crate::mesh;
use crate::peer::PeerId;
use crate::tls::TlsContext;

/// One role's authenticated connections to every other role of a session.
///
/// Built by [`Network::connect`], which returns once every peer is
/// connected. Messages are opaque byte strings tagged with a round; the
/// messages of one sender to one receiver in one round arrive in the order
/// sent. Sends queue the message and return at once; background tasks
/// write and read, so neither direction waits for the caller. Every receive
/// has a timeout.
///
/// Byte counts ([`Network::traffic`]) are frame bytes: the 9-byte header
/// plus the payload, counted per (peer, round) when a frame is queued for
/// sending and when it has arrived whole. [`Network::wire_traffic`] counts
/// what crossed the sockets (TLS records, handshakes and the hello
/// included).
///
/// The API blocks: call it from ordinary threads, not from async code.
/// `Network` is `Send + Sync`; sends and receives can come from several
/// threads.
#[derive(Debug)]
pub struct Network {
    me: PeerId,
    limits: Limits,
    receive_timeout: Duration,
    close_timeout: Duration,
    links: BTreeMap<PeerId, Link>,
    counters: Arc<RoundCounters>,
    wire: Arc<WireCounters>,
    runtime: Option<Runtime>,
}

impl Network {
    /// Binds [`NetConfig::listen`] (when some peer dials this role) and
    /// connects to every peer, waiting up to [`NetConfig::connect_timeout`].
    ///
    /// # Errors
    /// [`Error::InvalidConfig`], [`Error::Credentials`], [`Error::Listen`],
    /// [`Error::Connect`] (a dial failed or was refused, naming the peer
    /// and address), [`Error::SetupTimeout`] (naming the peers missing and
    /// the connections refused), [`Error::InsideRuntime`].
    pub fn connect(config: NetConfig) -> Result<Network> {
        Self::start(config, None)
    }

    /// As [`Network::connect`], accepting on `listener` (already bound, e.g.
    /// to port 0 so that the port is known before the peers are configured)
    /// instead of binding [`NetConfig::listen`].
    ///
    /// # Errors
    /// As [`Network::connect`].
    pub fn connect_with_listener(config: NetConfig, listener: StdListener) -> Result<Network> {
        Self::start(config, Some(listener))
    }

    fn start(config: NetConfig, listener: Option<StdListener>) -> Result<Network> {
        if Handle::try_current().is_ok() {
            return Err(Error::InsideRuntime);
        }
        config.validate()?;
        let tls = TlsContext::load(&config.credentials)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(config.io_threads)
            .thread_name(format!("he-net {}", config.me.slug()))
            .enable_all()
            .build()
            .map_err(|e| Error::io("starting the network runtime", e))?;
        let listener = if config.accepts_any() {
            let std = match listener {
                Some(l) => l,
                None => StdListener::bind(config.listen).map_err(|source| Error::Listen {
                    addr: config.listen,
                    source,
                })?,
            };
            let addr = std.local_addr().unwrap_or(config.listen);
            let listen_error = |source| Error::Listen { addr, source };
            std.set_nonblocking(true).map_err(listen_error)?;
            let _entered = runtime.enter();
            Some(tokio::net::TcpListener::from_std(std).map_err(listen_error)?)
        } else {
            None
        };
        let wire = Arc::new(WireCounters::default());
        let setup = Setup {
            tls,
            hello: Hello {
                session: config.session,
                role: config.me,
            },
            handshake_timeout: config.handshake_timeout,
            wire: wire.clone(),
        };
        let established = runtime.block_on(mesh::establish(&config, setup, listener))?;
        tracing::info!(me = %config.me, peers = established.len(), "mesh connected");

        let limits = Limits {
            max_frame: config.max_frame,
            rounds: config.rounds,
        };
        let counters = Arc::new(RoundCounters::default());
        let links = established
            .into_iter()
            .map(|conn| {
                let peer = conn.peer;
                (
                    peer,
                    link::start(runtime.handle(), conn, limits, counters.clone()),
                )
            })
            .collect();
        Ok(Network {
            me: config.me,
            limits,
            receive_timeout: config.receive_timeout,
            close_timeout: config.close_timeout,
            links,
            counters,
            wire,
            runtime: Some(runtime),
        })
    }

    /// The own role.
    pub fn me(&self) -> PeerId {
        self.me
    }

    /// The peers, in mesh order.
    pub fn peers(&self) -> impl Iterator<Item = PeerId> + '_ {
        self.links.keys().copied()
    }

    fn link(&self, peer: PeerId, round: u8) -> Result<&Link> {
        if self.runtime.is_none() {
            return Err(Error::Closed);
        }
        if u16::from(round) >= self.limits.rounds {
            return Err(Error::UnknownRound {
                round,
                count: self.limits.rounds,
            });
        }
        self.links.get(&peer).ok_or(Error::UnknownPeer(peer))
    }

    /// Queues `bytes` for `to` in `round` and returns; a background task
    /// writes it. The queue is not bounded: a caller that sends faster
    /// than the connection carries keeps the difference in memory.
    ///
    /// # Errors
    /// [`Error::UnknownPeer`], [`Error::UnknownRound`],
    /// [`Error::MessageTooLarge`]; [`Error::Disconnected`] or
    /// [`Error::Protocol`] when the connection to `to` has ended;
    /// [`Error::Closed`] after [`Network::close`].
    pub fn send(&self, to: PeerId, round: u8, bytes: Vec<u8>) -> Result<()> {
        self.queue(to, round, Payload::Public(Arc::new(bytes)))
    }

    /// As [`Network::send`] to each peer of `to` in turn, from one buffer:
    /// no copy is made, and the bytes are freed once the last peer's
    /// writer has sent them. Stops at the first peer refused, after
    /// queueing to those before it.
    ///
    /// # Errors
    /// As [`Network::send`], for the first peer refused.
    pub fn send_to_each(&self, to: &[PeerId], round: u8, bytes: Vec<u8>) -> Result<()> {
        let bytes = Arc::new(bytes);
        to.iter()
            .try_for_each(|&peer| self.queue(peer, round, Payload::Public(Arc::clone(&bytes))))
    }

    /// As [`Network::send`], for bytes only `to` may see (a Shamir
    /// dealing): they are written without another copy and wiped once
    /// written, or when the connection ends before. The receiver should
    /// wrap what [`Network::receive`] returns in [`Zeroizing`]; its frame
    /// reader wipes any buffer a payload outgrows. The TLS library's own
    /// record buffers are beyond this crate's reach: rustls encrypts a
    /// sent record in place, and overwrites a received one's plaintext
    /// only as further records arrive.
    ///
    /// # Errors
    /// As [`Network::send`].
    pub fn send_secret(&self, to: PeerId, round: u8, bytes: Zeroizing<Vec<u8>>) -> Result<()> {
        self.queue(to, round, Payload::Secret(bytes))
    }

    fn queue(&self, to: PeerId, round: u8, payload: Payload) -> Result<()> {
        let link = self.link(to, round)?;
        let len = payload.bytes().len() as u64;
        if len > self.limits.max_frame {
            return Err(Error::MessageTooLarge {
                peer: to,
                len,
                max: self.limits.max_frame,
            });
        }
        if let Some(ending) = link.inbox.ending() {
            return Err(ending_error(to, round, ending));
        }
        let queue = link.outgoing.as_ref().ok_or(Error::Closed)?;
        queue.send(Outgoing { round, payload }).map_err(|_| {
            let ending = link
                .inbox
                .ending()
                .unwrap_or_else(|| Ending::Disconnected("its writer stopped".to_owned()));
            ending_error(to, round, ending)
        })?;
        self.counters.add_sent(to, round, HEADER_LEN as u64 + len);
        Ok(())
    }

    /// The next message from `from` in `round`, waiting up to the
    /// configured [`NetConfig::receive_timeout`].
    ///
    /// # Errors
    /// [`Error::Timeout`] naming the peer and round;
    /// [`Error::Disconnected`] or [`Error::Protocol`] as soon as the
    /// connection to `from` ends with nothing queued in the round;
    /// [`Error::UnknownPeer`], [`Error::UnknownRound`], [`Error::Closed`].
    pub fn receive(&self, from: PeerId, round: u8) -> Result<Vec<u8>> {
        self.receive_within(from, round, self.receive_timeout)
    }

    /// As [`Network::receive`], waiting up to `timeout`.
    ///
    /// # Errors
    /// As [`Network::receive`].
    pub fn receive_within(&self, from: PeerId, round: u8, timeout: Duration) -> Result<Vec<u8>> {
        let link = self.link(from, round)?;
        let deadline = Instant::now()
            .checked_add(timeout)
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400 * 365));
        link.inbox.take(round, deadline).map_err(|e| match e {
            TakeError::TimedOut => Error::Timeout {
                peer: from,
                round,
                waited: timeout,
            },
            TakeError::Ended(ending) => ending_error(from, round, ending),
        })
    }

    /// Messages that arrived and were not taken yet, over all peers and
    /// rounds.
    pub fn pending(&self) -> usize {
        self.links.values().map(|link| link.inbox.pending()).sum()
    }

    /// Frame bytes sent and received in `round`, over all peers.
    pub fn traffic(&self, round: u8) -> Traffic {
        let mut total = Traffic::default();
        for ((_, r), t) in self.counters.snapshot() {
            if r == round {
                total.add(t);
            }
        }
        total
    }

    /// Frame bytes exchanged with `peer` in `round`.
    pub fn traffic_with(&self, peer: PeerId, round: u8) -> Traffic {
        self.counters
            .snapshot()
            .get(&(peer, round))
            .copied()
            .unwrap_or_default()
    }

    /// Frame bytes per round (the rounds with traffic), over all peers.
    pub fn traffic_by_round(&self) -> BTreeMap<u8, Traffic> {
        let mut rounds: BTreeMap<u8, Traffic> = BTreeMap::new();
        for ((_, round), t) in self.counters.snapshot() {
            rounds.entry(round).or_default().add(t);
        }
        rounds
    }

    /// Bytes that crossed this role's sockets so far, over all
    /// connections: TLS records, handshakes and hellos included.
    pub fn wire_traffic(&self) -> Traffic {
        self.wire.get()
    }

    /// Forgets the frame counts (the socket totals stay).
    pub fn reset_counts(&self) {
        self.counters.reset();
    }

    /// Sends what is queued (waiting up to [`NetConfig::close_timeout`]),
    /// closes every connection and stops the background tasks. Later calls
    /// fail with [`Error::Closed`]; closing twice is a no-op.
    ///
    /// # Errors
    /// [`Error::Undelivered`] when messages queued for a peer may not have
    /// left (its connection failed, or the timeout passed);
    /// [`Error::InsideRuntime`] when called from async code (the
    /// connections are then dropped without waiting).
    pub fn close(&mut self) -> Result<()> {
        let Some(runtime) = self.runtime.take() else {
            return Ok(());
        };
        let mut writers = Vec::new();
        for (peer, link) in &mut self.links {
            link.outgoing = None;
            writers.push((*peer, &mut link.writer));
        }
        if Handle::try_current().is_ok() {
            runtime.shutdown_background();
            self.end_all();
            return Err(Error::InsideRuntime);
        }
        let deadline = tokio::time::Instant::now() + self.close_timeout;
        let failures = runtime.block_on(async {
            let mut failures = Vec::new();
            for (peer, writer) in writers {
                match tokio::time::timeout_at(deadline, &mut *writer).await {
                    Ok(Ok(Ok(()))) => {}
                    Ok(Ok(Err(reason))) => failures.push((peer, reason)),
                    Ok(Err(e)) => failures.push((peer, format!("its writer task failed: {e}"))),
                    Err(_) => {
                        writer.abort();
                        failures.push((peer, "queued messages did not leave in time".to_owned()));
                    }
                }
            }
            failures
        });
        for link in self.links.values() {
            link.reader.abort();
        }
        runtime.shutdown_timeout(Duration::from_secs(1));
        self.end_all();
        match failures.into_iter().next() {
            None => Ok(()),
            Some((peer, reason)) => Err(Error::Undelivered { peer, reason }),
        }
    }

    fn end_all(&self) {
        for link in self.links.values() {
            link.inbox.end(Ending::Local);
        }
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        if let Err(e) = self.close() {
            tracing::warn!(me = %self.me, error = %e, "closing on drop");
        }
    }
}

/// The error for a send or receive on a connection that ended.
fn ending_error(peer: PeerId, round: u8, ending: Ending) -> Error {
    match ending {
        Ending::Disconnected(reason) => Error::Disconnected {
            peer,
            round,
            reason,
        },
        Ending::Violation(violation) => Error::Protocol { peer, violation },
        Ending::Local => Error::Closed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Network>();
    }
}
