//! One established connection at work: a reader task that moves every
//! incoming frame into the peer's [`Inbox`], and a writer task that sends
//! the queued outgoing frames in order.
//!
//! Both run on the transport's runtime, so frames keep moving in both
//! directions while the caller computes or blocks in a send or receive:
//! two peers sending each other large messages cannot deadlock.

use std::io;
use std::sync::Arc;

use tokio::io::{AsyncWriteExt, ReadHalf, WriteHalf};
use tokio::runtime::Handle;
use tokio::sync::mpsc::{self, error::TryRecvError};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::counters::RoundCounters;
use crate::error::Violation;
use crate::frame::{read_frame, write_frame, Payload, ReadError, HEADER_LEN};
use crate::handshake::{Conn, Established};
use crate::inbox::{Ending, Inbox};
use crate::peer::PeerId;

/// A message queued for a peer.
#[derive(Debug)]
pub(crate) struct Outgoing {
    /// Its round tag.
    pub round: u8,
    /// Its payload.
    pub payload: Payload,
}

/// What the caller keeps of a running connection.
#[derive(Debug)]
pub(crate) struct Link {
    /// Where incoming messages wait.
    pub inbox: Arc<Inbox>,
    /// The writer's queue; `None` once closing began.
    pub outgoing: Option<mpsc::UnboundedSender<Outgoing>>,
    /// The reader task.
    pub reader: JoinHandle<()>,
    /// The writer task: `Err` when queued frames may not have left.
    pub writer: JoinHandle<Result<(), String>>,
}

/// Limits the reader enforces.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// The largest payload accepted.
    pub max_frame: u64,
    /// Round tags are `0..rounds`.
    pub rounds: u16,
}

/// Starts the reader and writer of `conn` on `runtime`.
pub(crate) fn start(
    runtime: &Handle,
    conn: Established,
    limits: Limits,
    counters: Arc<RoundCounters>,
) -> Link {
    let inbox = Arc::new(Inbox::default());
    let stop = Arc::new(Notify::new());
    let (read, write) = tokio::io::split(conn.stream);
    let (tx, rx) = mpsc::unbounded_channel();
    let reader = runtime.spawn(read_loop(
        read,
        conn.peer,
        limits,
        inbox.clone(),
        counters,
        stop.clone(),
    ));
    let writer = runtime.spawn(write_loop(write, rx, inbox.clone(), stop));
    Link {
        inbox,
        outgoing: Some(tx),
        reader,
        writer,
    }
}

/// Reads frames into `inbox` until the connection ends; on a violation or
/// a failure tells the writer to stop.
async fn read_loop(
    mut read: ReadHalf<Conn>,
    peer: PeerId,
    limits: Limits,
    inbox: Arc<Inbox>,
    counters: Arc<RoundCounters>,
    stop: Arc<Notify>,
) {
    let ending = loop {
        match read_frame(&mut read, limits.max_frame, limits.rounds).await {
            Ok((round, payload)) => {
                counters.add_received(peer, round, (HEADER_LEN + payload.len()) as u64);
                inbox.push(round, payload);
            }
            // A clean close: the writer may still owe the peer frames it
            // waits for while closing its own side.
            Err(ReadError::Closed) => {
                inbox.end(Ending::Disconnected("it closed the connection".to_owned()));
                return;
            }
            Err(ReadError::Violation(v)) => break Ending::Violation(v),
            Err(ReadError::Io(e)) if e.kind() == io::ErrorKind::InvalidData => {
                break Ending::Violation(Violation::Tls(e.to_string()))
            }
            Err(ReadError::Io(e)) => break Ending::Disconnected(format!("connection lost: {e}")),
        }
    };
    tracing::warn!(%peer, ending = ?ending, "connection ended");
    inbox.end(ending);
    stop.notify_one();
}

/// Writes queued frames in order, flushing whenever the queue runs dry;
/// when the queue closes, flushes and closes the TLS session.
///
/// # Errors
/// Why frames that were queued may not have reached the peer.
async fn write_loop(
    mut write: WriteHalf<Conn>,
    mut queue: mpsc::UnboundedReceiver<Outgoing>,
    inbox: Arc<Inbox>,
    stop: Arc<Notify>,
) -> Result<(), String> {
    let result = write_frames(&mut write, &mut queue, &stop).await;
    match &result {
        Ok(()) => {
            // The close_notify; a peer that is gone already cannot miss it.
            let _ = write.shutdown().await;
        }
        Err(reason) => inbox.end(Ending::Disconnected(reason.clone())),
    }
    result
}

async fn write_frames(
    write: &mut WriteHalf<Conn>,
    queue: &mut mpsc::UnboundedReceiver<Outgoing>,
    stop: &Notify,
) -> Result<(), String> {
    let stopped = || "the connection ended with frames queued to it".to_owned();
    let failed = |e: io::Error| format!("sending failed: {e}");
    let mut unflushed = false;
    loop {
        let next = match queue.try_recv() {
            Ok(message) => Some(message),
            Err(TryRecvError::Disconnected) => None,
            Err(TryRecvError::Empty) => {
                if unflushed {
                    write.flush().await.map_err(failed)?;
                    unflushed = false;
                }
                tokio::select! {
                    message = queue.recv() => message,
                    () = stop.notified() => return if queue.is_empty() { Ok(()) } else { Err(stopped()) },
                }
            }
        };
        let Some(message) = next else { break };
        tokio::select! {
            written = write_frame(write, message.round, &message.payload) => written.map_err(failed)?,
            () = stop.notified() => return Err(stopped()),
        }
        unflushed = true;
    }
    if unflushed {
        write.flush().await.map_err(failed)?;
    }
    Ok(())
}
