//! The frames that carry messages inside TLS, after the hello
//! ([`crate::hello`]).
//!
//! Frame: a 9-byte header — the payload length as u64 big-endian, then the
//! round tag (u8) — followed by the payload. A declared length above the
//! receiver's limit is refused before anything is allocated for it; the
//! payload buffer then grows with the bytes that actually arrive.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::error::Violation;

/// Bytes of a frame header (length and round tag).
pub const HEADER_LEN: usize = 9;

/// Payloads up to this size are written together with their header, in one
/// TLS record when they fit; larger ones after it.
const COALESCE: usize = 64 << 10;

/// The most reserved up front for a payload; beyond it the buffer grows
/// with the bytes received.
const INITIAL_RESERVE: u64 = 8 << 20;

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
    let reserve = usize::try_from(len.min(INITIAL_RESERVE)).unwrap_or(0);
    let mut payload = Vec::with_capacity(reserve);
    r.take(len)
        .read_to_end(&mut payload)
        .await
        .map_err(ReadError::Io)?;
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

/// Writes one frame (not flushed).
///
/// # Errors
/// The stream's.
pub(crate) async fn write_frame<W: AsyncWrite + Unpin>(
    w: &mut W,
    round: u8,
    payload: &[u8],
) -> io::Result<()> {
    let header = encode_header(round, payload.len() as u64);
    if payload.len() <= COALESCE {
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
            let mut wire = Vec::new();
            write_frame(&mut wire, 3, b"hi").await.expect("to a vec");
            write_frame(&mut wire, 0, &[]).await.expect("to a vec");
            write_frame(&mut wire, 7, &big).await.expect("to a vec");
            assert_eq!(wire.len(), 3 * HEADER_LEN + 2 + big.len());
            let mut r = &wire[..];
            assert_eq!(
                read_frame(&mut r, 1 << 20, 8).await.ok(),
                Some((3, b"hi".to_vec()))
            );
            assert_eq!(read_frame(&mut r, 1 << 20, 8).await.ok(), Some((0, vec![])));
            assert_eq!(read_frame(&mut r, 1 << 20, 8).await.ok(), Some((7, big)));
            assert!(matches!(
                read_frame(&mut r, 1 << 20, 8).await,
                Err(ReadError::Closed)
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
