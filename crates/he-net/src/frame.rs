//! The frames that carry messages inside TLS, after the hello
//! ([`crate::hello`]).
//!
//! Frame: a 9-byte header — the payload length as u64 big-endian, then the
//! round tag (u8) — followed by the payload. A declared length above the
//! receiver's limit is refused before anything is allocated for it; room
//! for the rest of a payload beyond [`INITIAL_RESERVE`] is reserved only
//! once that many bytes have arrived.

use std::io;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use zeroize::{Zeroize, Zeroizing};

use crate::error::Violation;

/// Bytes of a frame header (length and round tag).
pub const HEADER_LEN: usize = 9;

/// Payloads up to this size are written together with their header, in one
/// TLS record when they fit; larger ones after it.
const COALESCE: usize = 64 << 10;

/// The most reserved up front for a payload; a longer one gets its whole
/// length reserved once this many of its bytes have arrived.
const INITIAL_RESERVE: u64 = 8 << 20;

/// A message's bytes, and whether they are secret: a secret payload is never
/// copied, and is wiped when it is dropped (sent or not).
#[derive(Debug)]
pub(crate) enum Payload {
    /// Bytes anyone on the path could see without harm; the same buffer
    /// may be queued to several peers (freed after the last has sent it).
    Public(Arc<Vec<u8>>),
    /// Bytes only the recipient may see (a Shamir dealing).
    Secret(Zeroizing<Vec<u8>>),
}

impl Payload {
    /// The bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Payload::Public(bytes) => bytes,
            Payload::Secret(bytes) => bytes,
        }
    }
}

/// A frame header: the payload length, then the round tag.
pub(crate) fn encode_header(round: u8, len: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&len.to_be_bytes());
    h[8] = round;
    h
}

/// Why reading a frame stopped.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The stream ended cleanly between frames.
    Closed,
    /// The stream failed or ended inside a frame.
    Io(io::Error),
    /// The peer sent a header no honest peer sends.
    Violation(Violation),
}

/// Reads one frame: `(round, payload)`.
///
/// # Errors
/// [`ReadError::Closed`] at a clean end between frames,
/// [`ReadError::Violation`] for a declared length above `max` or a round
/// tag not below `rounds` (checked before the payload is read), and
/// [`ReadError::Io`] otherwise.
pub(crate) async fn read_frame<R: AsyncRead + Unpin>(
    r: &mut R,
    max: u64,
    rounds: u16,
) -> Result<(u8, Vec<u8>), ReadError> {
    let mut header = [0u8; HEADER_LEN];
    let first = r.read(&mut header).await.map_err(ReadError::Io)?;
    if first == 0 {
        return Err(ReadError::Closed);
    }
    r.read_exact(&mut header[first..])
        .await
        .map_err(ReadError::Io)?;
    let mut len = [0u8; 8];
    len.copy_from_slice(&header[..8]);
    let len = u64::from_be_bytes(len);
    let round = header[8];
    if len > max {
        return Err(ReadError::Violation(Violation::FrameTooLarge {
            declared: len,
            max,
        }));
    }
    if u16::from(round) >= rounds {
        return Err(ReadError::Violation(Violation::UnknownRound {
            tag: round,
            count: rounds,
        }));
    }
    let payload = read_payload(r, len).await.map_err(ReadError::Io)?;
    if payload.len() as u64 != len {
        return Err(ReadError::Io(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the stream ended inside a frame ({} of {len} bytes)",
                payload.len()
            ),
        )));
    }
    Ok((round, payload))
}

/// Reads up to `len` payload bytes (fewer when the stream ends). The buffer
/// is reserved for [`INITIAL_RESERVE`] bytes at first and, once the peer has
/// sent that many, for the whole declared length: it moves at most once,
/// and the outgrown buffer is wiped (a payload may be secret, and the
/// frame does not say).
async fn read_payload<R: AsyncRead + Unpin>(r: &mut R, len: u64) -> io::Result<Vec<u8>> {
    let no_room = |bytes: u64| {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("no memory for a frame of {bytes} bytes"),
        )
    };
    let room = |bytes: u64| -> io::Result<Vec<u8>> {
        let mut buffer = Vec::new();
        let wanted = usize::try_from(bytes).map_err(|_| no_room(bytes))?;
        buffer
            .try_reserve_exact(wanted)
            .map_err(|_| no_room(bytes))?;
        Ok(buffer)
    };
    let mut payload = room(len.min(INITIAL_RESERVE))?;
    let mut body = r.take(len);
    while (payload.len() as u64) < len {
        if payload.len() == payload.capacity() {
            let mut whole = room(len)?;
            whole.extend_from_slice(&payload);
            payload.zeroize();
            payload = whole;
        }
        if body.read_buf(&mut payload).await? == 0 {
            break;
        }
    }
    Ok(payload)
}

/// Writes one frame (not flushed).
///
/// # Errors
/// The stream's.
pub(crate) async fn write_frame<W: AsyncWrite + Unpin>(
    w: &mut W,
    round: u8,
    payload: &Payload,
) -> io::Result<()> {
    let secret = matches!(payload, Payload::Secret(_));
    let payload = payload.bytes();
    let header = encode_header(round, payload.len() as u64);
    // A secret payload is not copied beside its header.
    if payload.len() <= COALESCE && !secret {
        let mut buf = Vec::with_capacity(HEADER_LEN + payload.len());
        buf.extend_from_slice(&header);
        buf.extend_from_slice(payload);
        w.write_all(&buf).await
    } else {
        w.write_all(&header).await?;
        w.write_all(payload).await
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

    #[test]
    fn frames_round_trip_small_and_large() {
        block_on(async {
            let big = vec![0x5a; 3 * COALESCE];
            let public = |bytes: &[u8]| Payload::Public(Arc::new(bytes.to_vec()));
            let secret = |bytes: &[u8]| Payload::Secret(Zeroizing::new(bytes.to_vec()));
            let mut wire = Vec::new();
            for (round, payload) in [
                (3, public(b"hi")),
                (0, public(&[])),
                (7, public(&big)),
                (2, secret(b"dealing")),
                (1, secret(&big)),
            ] {
                write_frame(&mut wire, round, &payload)
                    .await
                    .expect("to a vec");
            }
            assert_eq!(wire.len(), 5 * HEADER_LEN + 2 + 2 * big.len() + 7);
            let mut r = &wire[..];
            let max = 1 << 20;
            assert_eq!(
                read_frame(&mut r, max, 8).await.ok(),
                Some((3, b"hi".to_vec()))
            );
            assert_eq!(read_frame(&mut r, max, 8).await.ok(), Some((0, vec![])));
            assert_eq!(
                read_frame(&mut r, max, 8).await.ok(),
                Some((7, big.clone()))
            );
            assert_eq!(
                read_frame(&mut r, max, 8).await.ok(),
                Some((2, b"dealing".to_vec()))
            );
            assert_eq!(read_frame(&mut r, max, 8).await.ok(), Some((1, big)));
            assert!(matches!(
                read_frame(&mut r, max, 8).await,
                Err(ReadError::Closed)
            ));
        });
    }

    #[test]
    fn a_payload_beyond_the_first_reserve_moves_once_into_its_exact_room() {
        block_on(async {
            let len = INITIAL_RESERVE as usize + 77;
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut wire = encode_header(4, len as u64).to_vec();
            wire.extend_from_slice(&payload);
            let mut r = &wire[..];
            let (round, read) = read_frame(&mut r, 1 << 30, 8).await.expect("a frame");
            assert_eq!(round, 4);
            assert_eq!(read, payload);
            // One reservation for the whole declared length, not a doubling.
            assert_eq!(read.capacity(), len);
            // A declared length no memory holds is an I/O error once the
            // first reserve is full, not an abort.
            let mut huge = encode_header(4, 1 << 62).to_vec();
            huge.extend_from_slice(&payload[..INITIAL_RESERVE as usize]);
            let mut r = &huge[..];
            match read_frame(&mut r, u64::MAX, 8).await {
                Err(ReadError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::OutOfMemory, "{e}"),
                other => panic!("expected an out-of-memory error, got {other:?}"),
            }
            // Cut short past the first reserve, it is an I/O error.
            let mut r = &wire[..HEADER_LEN + INITIAL_RESERVE as usize + 5];
            assert!(matches!(
                read_frame(&mut r, 1 << 30, 8).await,
                Err(ReadError::Io(_))
            ));
        });
    }

    #[test]
    fn oversize_and_unknown_tags_are_violations_before_the_payload() {
        block_on(async {
            // A header declaring 2^63 bytes with no payload behind it: refused
            // from the header alone (reading on would hit the end of input).
            let wire = encode_header(0, 1 << 63);
            let mut r = &wire[..];
            match read_frame(&mut r, 1 << 31, 256).await {
                Err(ReadError::Violation(Violation::FrameTooLarge { declared, max })) => {
                    assert_eq!((declared, max), (1 << 63, 1 << 31));
                }
                other => panic!("expected FrameTooLarge, got {other:?}"),
            }
            let wire = encode_header(5, 1);
            let mut r = &wire[..];
            assert!(matches!(
                read_frame(&mut r, 10, 5).await,
                Err(ReadError::Violation(Violation::UnknownRound {
                    tag: 5,
                    count: 5
                }))
            ));
        });
    }

    #[test]
    fn truncation_is_an_io_error() {
        block_on(async {
            let mut wire = encode_header(1, 10).to_vec();
            wire.extend_from_slice(b"abc");
            let mut r = &wire[..];
            assert!(matches!(
                read_frame(&mut r, 100, 8).await,
                Err(ReadError::Io(_))
            ));
            let mut r = &wire[..4];
            assert!(matches!(
                read_frame(&mut r, 100, 8).await,
                Err(ReadError::Io(_))
            ));
        });
    }
}
