//! Byte counts: frame bytes per (peer, round) and the TLS-level totals
//! that crossed the sockets.

use std::collections::BTreeMap;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::peer::PeerId;

/// Bytes sent and received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes sent.
    pub sent: u64,
    /// Bytes received.
    pub received: u64,
}

impl Traffic {
    /// Sent plus received.
    pub fn total(&self) -> u64 {
        self.sent.saturating_add(self.received)
    }

    /// Adds `other` to `self`.
    pub fn add(&mut self, other: Traffic) {
        self.sent = self.sent.saturating_add(other.sent);
        self.received = self.received.saturating_add(other.received);
    }
}

/// Frame bytes (header and payload) per (peer, round).
#[derive(Debug, Default)]
pub(crate) struct RoundCounters {
    map: Mutex<BTreeMap<(PeerId, u8), Traffic>>,
}

impl RoundCounters {
    fn update(&self, peer: PeerId, round: u8, f: impl FnOnce(&mut Traffic)) {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        f(map.entry((peer, round)).or_default());
    }

    /// Counts `n` bytes sent to `peer` in `round`.
    pub fn add_sent(&self, peer: PeerId, round: u8, n: u64) {
        self.update(peer, round, |t| t.sent = t.sent.saturating_add(n));
    }

    /// Counts `n` bytes received from `peer` in `round`.
    pub fn add_received(&self, peer: PeerId, round: u8, n: u64) {
        self.update(peer, round, |t| t.received = t.received.saturating_add(n));
    }

    /// Every count so far.
    pub fn snapshot(&self) -> BTreeMap<(PeerId, u8), Traffic> {
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Forgets every count.
    pub fn reset(&self) {
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

/// Bytes that crossed the sockets (TLS records, handshakes and alerts
/// included), over all connections.
#[derive(Debug, Default)]
pub(crate) struct WireCounters {
    sent: AtomicU64,
    received: AtomicU64,
}

impl WireCounters {
    /// The totals so far.
    pub fn get(&self) -> Traffic {
        Traffic {
            sent: self.sent.load(Ordering::Relaxed),
            received: self.received.load(Ordering::Relaxed),
        }
    }
}

/// A stream that adds the bytes it moves to shared [`WireCounters`].
#[derive(Debug)]
pub(crate) struct Counting<S> {
    inner: S,
    counters: Arc<WireCounters>,
}

impl<S> Counting<S> {
    /// Wraps `inner`.
    pub fn new(inner: S, counters: Arc<WireCounters>) -> Self {
        Counting { inner, counters }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Counting<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        let n = buf.filled().len().saturating_sub(before) as u64;
        self.counters.received.fetch_add(n, Ordering::Relaxed);
        poll
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counting<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &poll {
            self.counters.sent.fetch_add(*n as u64, Ordering::Relaxed);
        }
        poll
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = &poll {
            self.counters.sent.fetch_add(*n as u64, Ordering::Relaxed);
        }
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_per_peer_and_round() {
        let c = RoundCounters::default();
        c.add_sent(PeerId::Server, 1, 10);
        c.add_sent(PeerId::Server, 1, 5);
        c.add_received(PeerId::Party(2), 1, 7);
        let snap = c.snapshot();
        assert_eq!(
            snap[&(PeerId::Server, 1)],
            Traffic {
                sent: 15,
                received: 0
            }
        );
        assert_eq!(snap[&(PeerId::Party(2), 1)].total(), 7);
        c.reset();
        assert!(c.snapshot().is_empty());
    }
}
