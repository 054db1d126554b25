//! Building the full mesh: dial every earlier role, accept every later one,
//! until each peer has one authenticated connection or the deadline
//! passes.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::{sleep, sleep_until, Instant};

use crate::config::NetConfig;
use crate::error::{Error, Result};
use crate::handshake::{Established, Setup};
use crate::peer::PeerId;

/// What an accept task reports: a connection, or a refusal with the
/// address and reason.
type Accepted = std::result::Result<Established, (SocketAddr, String)>;

/// Accepts connections on `listener` and authenticates each in its own
/// task, reporting to `out`, until dropped (aborting the task drops the
/// listener and every handshake in flight).
async fn accept_loop(
    listener: TcpListener,
    setup: Setup,
    allowed: Arc<BTreeSet<PeerId>>,
    out: mpsc::UnboundedSender<Accepted>,
) {
    let claimed = Arc::new(Mutex::new(BTreeSet::new()));
    let mut handshakes = JoinSet::new();
    loop {
        let (tcp, addr) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of descriptors and the like: wait and go on.
                tracing::warn!(error = %e, "accept failed");
                sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let (setup, allowed, claimed, out) =
            (setup.clone(), allowed.clone(), claimed.clone(), out.clone());
        handshakes.spawn(async move {
            let result = setup.accept(tcp, &allowed, &claimed).await;
            // The receiver is gone once setup is over; nothing to tell then.
            let _ = out.send(result.map_err(|reason| (addr, reason)));
        });
        // Reap finished handshakes so the set does not grow.
        while handshakes.try_join_next().is_some() {}
    }
}

/// Connects to every peer of `config`: returns one authenticated
/// connection per peer.
///
/// # Errors
/// [`Error::Connect`] as soon as a dial fails (unreachable until the
/// deadline, or refused); [`Error::SetupTimeout`] naming the peers that
/// never connected and every incoming connection refused meanwhile.
pub(crate) async fn establish(
    config: &NetConfig,
    setup: Setup,
    listener: Option<TcpListener>,
) -> Result<Vec<Established>> {
    let started = Instant::now();
    let deadline = started + config.connect_timeout;
    let me = config.me;
    let allowed: BTreeSet<PeerId> = config
        .peers()
        .map(|(peer, _)| peer)
        .filter(|peer| peer.dials(me))
        .collect();
    let expected = config.peers().count();

    let mut dials = JoinSet::new();
    for (peer, addr) in config.peers().filter(|(peer, _)| me.dials(*peer)) {
        let (setup, addr) = (setup.clone(), addr.to_owned());
        dials.spawn(async move { setup.dial(peer, addr, deadline).await });
    }

    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut acceptor = JoinSet::new();
    if !allowed.is_empty() {
        let listener = listener.ok_or_else(|| {
            Error::InvalidConfig(format!("{me} accepts connections but has no listener"))
        })?;
        acceptor.spawn(accept_loop(listener, setup, Arc::new(allowed), tx));
    } else {
        drop(tx);
    }

    let mut connected: BTreeMap<PeerId, Established> = BTreeMap::new();
    let mut refused = Vec::new();
    while connected.len() < expected {
        tokio::select! {
            Some(joined) = dials.join_next() => {
                let established = joined
                    .map_err(|e| Error::io("a dial task failed", std::io::Error::other(e)))??;
                tracing::debug!(peer = %established.peer, addr = %established.addr, "connected");
                connected.insert(established.peer, established);
            }
            Some(accepted) = rx.recv() => match accepted {
                Ok(established) => {
                    tracing::debug!(peer = %established.peer, addr = %established.addr, "accepted");
                    connected.insert(established.peer, established);
                }
                Err((addr, reason)) => {
                    tracing::warn!(%addr, %reason, "refused a connection");
                    refused.push(format!("{addr}: {reason}"));
                }
            },
            () = sleep_until(deadline) => {
                let missing = config
                    .peers()
                    .map(|(peer, _)| peer)
                    .filter(|peer| !connected.contains_key(peer))
                    .collect();
                return Err(Error::SetupTimeout {
                    waited: started.elapsed(),
                    missing,
                    refused,
                });
            }
        }
    }
    Ok(connected.into_values().collect())
}
