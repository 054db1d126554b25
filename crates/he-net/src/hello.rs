//! The hello exchange right after the TLS handshake: each end states the
//! session and its role, the other checks both (and the accepting end that
//! the dialer's certificate names the role), and a refusal carries its
//! reason back.
//!
//! The exchange, dialer D and acceptor A:
//! 1. D → A: hello(D).
//! 2. A checks it; A → D: hello(A), or a refusal.
//! 3. D checks hello(A); D → A: `HNOK`, or a refusal.
//!
//! Wire forms:
//! - hello (42 bytes): `b"HNET"`, version `1`, the 32-byte session id, the
//!   sender's role (kind byte: 0 party, 1 server; the party index as u32
//!   big-endian, 0 for the server);
//! - accept: `b"HNOK"`;
//! - refusal: `b"HNNO"`, a u16 big-endian length (at most
//!   [`MAX_REASON`]), that many bytes of UTF-8 reason.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::config::SessionId;
use crate::peer::PeerId;

/// Bytes of a hello.
pub const HELLO_LEN: usize = 42;

/// The longest refusal reason sent or read, in bytes.
pub const MAX_REASON: usize = 1024;

const HELLO: [u8; 4] = *b"HNET";
const ACCEPT: [u8; 4] = *b"HNOK";
const REFUSE: [u8; 4] = *b"HNNO";
const VERSION: u8 = 1;

/// What each end states right after the TLS handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hello {
    /// The session the sender belongs to.
    pub session: SessionId,
    /// The sender's role.
    pub role: PeerId,
}

impl Hello {
    /// The 42-byte wire form.
    pub fn encode(&self) -> [u8; HELLO_LEN] {
        let mut out = [0u8; HELLO_LEN];
        out[..4].copy_from_slice(&HELLO);
        out[4] = VERSION;
        out[5..37].copy_from_slice(&self.session.0);
        out[37..].copy_from_slice(&self.role.to_wire());
        out
    }

    /// Parses the 38 bytes after the magic.
    fn decode_body(body: &[u8; HELLO_LEN - 4]) -> Result<Hello, String> {
        if body[0] != VERSION {
            return Err(format!(
                "hello version {}, this end speaks {VERSION}",
                body[0]
            ));
        }
        let mut session = [0u8; 32];
        session.copy_from_slice(&body[1..33]);
        let mut role = [0u8; 5];
        role.copy_from_slice(&body[33..]);
        let role = PeerId::from_wire(role)
            .ok_or_else(|| format!("the hello names no role: {role:02x?}"))?;
        Ok(Hello {
            session: SessionId(session),
            role,
        })
    }

    /// Checks a peer's hello against the own session and, when known, the
    /// role expected.
    ///
    /// # Errors
    /// The mismatch, described.
    pub fn check(&self, session: SessionId, expected: Option<PeerId>) -> Result<(), String> {
        if self.session != session {
            return Err(format!(
                "{} states session {}, this end is in session {session}",
                self.role, self.session
            ));
        }
        match expected {
            Some(role) if role != self.role => {
                Err(format!("the hello states {}, expected {role}", self.role))
            }
            _ => Ok(()),
        }
    }
}

/// One message of the exchange, as read.
#[derive(Debug, PartialEq, Eq)]
enum Message {
    Hello(Hello),
    Accept,
    Refuse(String),
}

/// Reads one exchange message.
async fn read_message<S: AsyncRead + Unpin>(s: &mut S) -> Result<Message, String> {
    let mut magic = [0u8; 4];
    s.read_exact(&mut magic)
        .await
        .map_err(|e| format!("the connection ended during the hello: {e}"))?;
    match magic {
        HELLO => {
            let mut body = [0u8; HELLO_LEN - 4];
            s.read_exact(&mut body)
                .await
                .map_err(|e| format!("the connection ended inside the hello: {e}"))?;
            Hello::decode_body(&body).map(Message::Hello)
        }
        ACCEPT => Ok(Message::Accept),
        REFUSE => {
            let len = s
                .read_u16()
                .await
                .map_err(|e| format!("the connection ended inside a refusal: {e}"))?;
            let len = usize::from(len);
            if len > MAX_REASON {
                return Err(format!("a refusal declares a reason of {len} bytes"));
            }
            let mut reason = vec![0u8; len];
            s.read_exact(&mut reason)
                .await
                .map_err(|e| format!("the connection ended inside a refusal: {e}"))?;
            Ok(Message::Refuse(
                String::from_utf8_lossy(&reason).into_owned(),
            ))
        }
        other => Err(format!(
            "not a hello: the peer sent {other:02x?} where a hello starts with {HELLO:02x?}"
        )),
    }
}

async fn write_all<S: AsyncWrite + Unpin>(s: &mut S, bytes: &[u8]) -> Result<(), String> {
    s.write_all(bytes)
        .await
        .map_err(|e| format!("sending the hello failed: {e}"))?;
    s.flush()
        .await
        .map_err(|e| format!("sending the hello failed: {e}"))
}

/// Sends a refusal (best effort) and returns `reason` as the error.
async fn refuse<S: AsyncWrite + Unpin, T>(s: &mut S, reason: String) -> Result<T, String> {
    let mut bytes = Vec::with_capacity(6 + MAX_REASON);
    bytes.extend_from_slice(&REFUSE);
    let mut end = reason.len().min(MAX_REASON);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    // `end` is at most MAX_REASON, which fits a u16.
    bytes.extend_from_slice(&u16::try_from(end).unwrap_or(0).to_be_bytes());
    bytes.extend_from_slice(&reason.as_bytes()[..end]);
    // The peer learns why; a failure to tell it changes nothing here.
    let _ = write_all(s, &bytes).await;
    let _ = s.shutdown().await;
    Err(reason)
}

/// The dialer's side: sends `mine`, checks the acceptor's hello (session,
/// and the role dialed), confirms.
///
/// # Errors
/// Why the connection is refused, by either end.
pub(crate) async fn dialer_exchange<S: AsyncRead + AsyncWrite + Unpin>(
    s: &mut S,
    mine: Hello,
    expected: PeerId,
) -> Result<(), String> {
    write_all(s, &mine.encode()).await?;
    match read_message(s).await {
        Ok(Message::Hello(theirs)) => match theirs.check(mine.session, Some(expected)) {
            Ok(()) => write_all(s, &ACCEPT).await,
            Err(reason) => refuse(s, reason).await,
        },
        Ok(Message::Refuse(reason)) => Err(format!("refused by the peer: {reason:?}")),
        Ok(Message::Accept) => refuse(s, "an accept before the hello".to_owned()).await,
        Err(reason) => refuse(s, reason).await,
    }
}

/// The acceptor's side: reads the dialer's hello, runs `check` on it (the
/// session, whether the role may dial here, its certificate), answers with
/// `mine` and waits for the dialer's confirmation.
///
/// # Errors
/// Why the connection is refused, by either end.
pub(crate) async fn acceptor_exchange<S, F>(
    s: &mut S,
    mine: Hello,
    check: F,
) -> Result<PeerId, String>
where
    S: AsyncRead + AsyncWrite + Unpin,
    F: FnOnce(&Hello) -> Result<(), String>,
{
    let theirs = match read_message(s).await {
        Ok(Message::Hello(h)) => h,
        Ok(Message::Refuse(reason)) => return Err(format!("refused by the peer: {reason:?}")),
        Ok(Message::Accept) => return refuse(s, "an accept before the hello".to_owned()).await,
        Err(reason) => return refuse(s, reason).await,
    };
    if let Err(reason) = check(&theirs) {
        return refuse(s, reason).await;
    }
    write_all(s, &mine.encode()).await?;
    match read_message(s).await {
        Ok(Message::Accept) => Ok(theirs.role),
        Ok(Message::Refuse(reason)) => Err(format!("refused by {}: {reason:?}", theirs.role)),
        Ok(Message::Hello(_)) => refuse(s, "a second hello".to_owned()).await,
        Err(reason) => Err(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
            .block_on(f)
    }

    fn hello(session: u8, role: PeerId) -> Hello {
        Hello {
            session: SessionId([session; 32]),
            role,
        }
    }

    #[test]
    fn hello_round_trips_and_rejects_garbage() {
        let h = hello(9, PeerId::Party(5));
        let bytes = h.encode();
        let mut body = [0u8; HELLO_LEN - 4];
        body.copy_from_slice(&bytes[4..]);
        assert_eq!(Hello::decode_body(&body), Ok(h));
        body[0] = 2;
        assert!(Hello::decode_body(&body).unwrap_err().contains("version"));
        body[0] = VERSION;
        body[33] = 9;
        assert!(Hello::decode_body(&body).unwrap_err().contains("no role"));
        let mut garbage = &b"GET / HTTP/1.1\r\n"[..];
        let err = block_on(read_message(&mut garbage)).unwrap_err();
        assert!(err.contains("not a hello"), "{err}");
    }

    #[test]
    fn check_compares_session_and_role() {
        let h = hello(1, PeerId::Server);
        assert!(h.check(SessionId([1; 32]), Some(PeerId::Server)).is_ok());
        assert!(h.check(SessionId([1; 32]), None).is_ok());
        assert!(h
            .check(SessionId([2; 32]), None)
            .unwrap_err()
            .contains("session"));
        assert!(h
            .check(SessionId([1; 32]), Some(PeerId::Party(0)))
            .unwrap_err()
            .contains("expected party 0"));
    }

    #[test]
    fn exchange_accepts_and_refuses_with_reasons() {
        block_on(async {
            let (mut d, mut a) = tokio::io::duplex(4096);
            let dialer = dialer_exchange(&mut d, hello(1, PeerId::Party(1)), PeerId::Party(0));
            let acceptor = acceptor_exchange(&mut a, hello(1, PeerId::Party(0)), |_| Ok(()));
            let (dr, ar) = tokio::join!(dialer, acceptor);
            assert_eq!(dr, Ok(()));
            assert_eq!(ar, Ok(PeerId::Party(1)));

            let (mut d, mut a) = tokio::io::duplex(4096);
            let dialer = dialer_exchange(&mut d, hello(1, PeerId::Party(1)), PeerId::Party(0));
            let acceptor = acceptor_exchange(&mut a, hello(1, PeerId::Party(0)), |h| {
                h.check(SessionId([2; 32]), None)
            });
            let (dr, ar) = tokio::join!(dialer, acceptor);
            assert!(dr.unwrap_err().contains("refused by the peer"));
            assert!(ar.unwrap_err().contains("session"));

            // The acceptor is not the role dialed: the dialer refuses.
            let (mut d, mut a) = tokio::io::duplex(4096);
            let dialer = dialer_exchange(&mut d, hello(1, PeerId::Party(2)), PeerId::Server);
            let acceptor = acceptor_exchange(&mut a, hello(1, PeerId::Party(0)), |_| Ok(()));
            let (dr, ar) = tokio::join!(dialer, acceptor);
            assert!(dr.unwrap_err().contains("expected the server"));
            assert!(ar.unwrap_err().contains("refused by party 2"));
        });
    }

    #[test]
    fn an_oversize_refusal_is_an_error() {
        let mut wire = REFUSE.to_vec();
        wire.extend_from_slice(&u16::MAX.to_be_bytes());
        let mut r = &wire[..];
        assert!(block_on(read_message(&mut r))
            .unwrap_err()
            .contains("65535"));
    }
}
