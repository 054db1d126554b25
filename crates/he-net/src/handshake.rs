//! One authenticated connection: dialing a peer (with retries until a
//! deadline) or accepting one, the TLS handshake and the hello exchange.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::BufReader;
use tokio::net::TcpStream;
use tokio::time::{sleep, timeout, timeout_at, Instant};
use tokio_rustls::{TlsAcceptor, TlsConnector, TlsStream};

use crate::counters::{Counting, WireCounters};
use crate::error::Error;
use crate::hello::{acceptor_exchange, dialer_exchange, Hello};
use crate::peer::PeerId;
use crate::tls::{check_names, server_name, TlsContext};

/// A TLS connection over a buffered, counted TCP stream. rustls reads
/// the socket 4 KiB at a time; the buffer turns that into one read call
/// per [`SOCKET_BUFFER`] bytes.
pub(crate) type Conn = TlsStream<Socket>;

/// The stream below TLS.
pub(crate) type Socket = BufReader<Counting<TcpStream>>;

/// The read buffer below TLS.
const SOCKET_BUFFER: usize = 256 << 10;

fn socket(tcp: TcpStream, wire: Arc<WireCounters>) -> Socket {
    BufReader::with_capacity(SOCKET_BUFFER, Counting::new(tcp, wire))
}

/// A connection whose peer is authenticated and in this session.
pub(crate) struct Established {
    /// The peer's role (named by its certificate and its hello).
    pub peer: PeerId,
    /// The peer's address.
    pub addr: SocketAddr,
    /// The connection, right after the hello exchange.
    pub stream: Conn,
}

/// What connection setup shares between its tasks.
#[derive(Clone)]
pub(crate) struct Setup {
    /// The TLS configurations.
    pub tls: TlsContext,
    /// The own hello.
    pub hello: Hello,
    /// The bound on one TLS handshake plus hello exchange.
    pub handshake_timeout: Duration,
    /// The socket-level counters.
    pub wire: Arc<WireCounters>,
}

/// The first pause between dial attempts; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(20);
const MAX_BACKOFF: Duration = Duration::from_millis(500);

impl Setup {
    /// Dials `peer` at `addr`, retrying while nothing listens there, or the
    /// handshake does not finish within the handshake timeout (a peer too
    /// busy to answer), until `deadline`; then authenticates it.
    ///
    /// # Errors
    /// [`Error::Connect`] naming the peer, its address and why: unreachable
    /// or silent until the deadline, or refused in the TLS handshake or the
    /// hello (these are not retried).
    pub async fn dial(
        &self,
        peer: PeerId,
        addr: String,
        deadline: Instant,
    ) -> Result<Established, Error> {
        let fail = |reason: String| Error::Connect {
            peer,
            addr: addr.clone(),
            reason,
        };
        let mut backoff = FIRST_BACKOFF;
        loop {
            let tcp = self
                .reach(peer, &addr, deadline, &mut backoff)
                .await
                .map_err(&fail)?;
            let remote = tcp.peer_addr().map_err(|e| fail(e.to_string()))?;
            // Frames are written whole and flushed; small ones must not wait.
            tcp.set_nodelay(true).map_err(|e| fail(e.to_string()))?;
            let name = server_name(peer).map_err(&fail)?;
            let connector = TlsConnector::from(self.tls.client.clone());
            let handshake = async {
                let mut tls = connector
                    .connect(name, socket(tcp, self.wire.clone()))
                    .await
                    .map_err(|e| format!("TLS handshake: {e}"))?;
                dialer_exchange(&mut tls, self.hello, peer).await?;
                Ok::<_, String>(tls)
            };
            match timeout(self.handshake_timeout, handshake).await {
                Ok(Ok(tls)) => {
                    return Ok(Established {
                        peer,
                        addr: remote,
                        stream: TlsStream::Client(tls),
                    })
                }
                Ok(Err(reason)) => return Err(fail(reason)),
                Err(_) if Instant::now() + backoff < deadline => {
                    tracing::debug!(%peer, %addr, "no handshake in time, dialing again");
                    sleep(backoff).await;
                }
                Err(_) => {
                    return Err(fail(format!(
                        "no handshake and hello within {:?} until the deadline",
                        self.handshake_timeout
                    )))
                }
            }
        }
    }

    /// A TCP connection to `addr`, dialed again (after `backoff`, which
    /// grows) while nothing listens there, until `deadline`.
    async fn reach(
        &self,
        peer: PeerId,
        addr: &str,
        deadline: Instant,
        backoff: &mut Duration,
    ) -> Result<TcpStream, String> {
        loop {
            match timeout_at(deadline, TcpStream::connect(addr)).await {
                Ok(Ok(tcp)) => return Ok(tcp),
                Ok(Err(e)) if Instant::now() + *backoff < deadline => {
                    tracing::debug!(%peer, %addr, error = %e, "dial failed, retrying");
                    sleep(*backoff).await;
                    *backoff = (*backoff * 2).min(MAX_BACKOFF);
                }
                Ok(Err(e)) => return Err(format!("unreachable until the deadline: {e}")),
                Err(_) => return Err("unreachable until the deadline".to_owned()),
            }
        }
    }

    /// Authenticates an incoming connection: its certificate leads to the
    /// CA, its hello states this session and a role in `allowed` that its
    /// certificate names and that has no connection yet (`claimed` holds
    /// those that do).
    ///
    /// # Errors
    /// Why the connection was refused (the caller adds the address).
    pub async fn accept(
        &self,
        tcp: TcpStream,
        allowed: &BTreeSet<PeerId>,
        claimed: &Mutex<BTreeSet<PeerId>>,
    ) -> Result<Established, String> {
        let addr = tcp.peer_addr().map_err(|e| e.to_string())?;
        tcp.set_nodelay(true).map_err(|e| e.to_string())?;
        let acceptor = TlsAcceptor::from(self.tls.server.clone());
        let mut claim = None;
        let handshake = async {
            let mut tls = acceptor
                .accept(socket(tcp, self.wire.clone()))
                .await
                .map_err(|e| format!("TLS handshake: {e}"))?;
            let leaf = tls
                .get_ref()
                .1
                .peer_certificates()
                .and_then(|chain| chain.first())
                .cloned()
                .ok_or_else(|| "no client certificate".to_owned())?;
            let session = self.hello.session;
            let peer = acceptor_exchange(&mut tls, self.hello, |theirs| {
                theirs.check(session, None)?;
                if !allowed.contains(&theirs.role) {
                    return Err(format!(
                        "{} does not dial {} in this session",
                        theirs.role, self.hello.role
                    ));
                }
                check_names(&leaf, theirs.role)?;
                let mut claimed = claimed.lock().unwrap_or_else(PoisonError::into_inner);
                if !claimed.insert(theirs.role) {
                    return Err(format!("{} is already connected", theirs.role));
                }
                claim = Some(theirs.role);
                Ok(())
            })
            .await?;
            Ok::<_, String>((peer, tls))
        };
        let outcome = timeout(self.handshake_timeout, handshake).await;
        let result = match outcome {
            Ok(Ok((peer, tls))) => {
                return Ok(Established {
                    peer,
                    addr,
                    stream: TlsStream::Server(tls),
                })
            }
            Ok(Err(reason)) => Err(reason),
            Err(_) => Err(format!(
                "no handshake and hello within {:?}",
                self.handshake_timeout
            )),
        };
        if let Some(role) = claim {
            claimed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&role);
        }
        result
    }
}
