//! A caller's random generator read in 4 KiB draws: an operating-system
//! generator such as `OsRng` costs a system call per draw, and sharing a
//! witness of 2^20 field elements draws millions of words.

use rand::{CryptoRng, RngCore};
use zeroize::Zeroizing;

/// Bytes fetched from the inner generator at a time.
const BUFFER: usize = 4096;

/// `inner`'s byte stream, fetched [`BUFFER`] bytes at a time into a buffer
/// that is wiped when dropped (the bytes become secret shares). Every byte
/// is handed out once, in order, so the output is exactly `inner`'s
/// `fill_bytes` stream.
pub(crate) struct BufferedRng<'a, R: RngCore> {
    inner: &'a mut R,
    buffer: Zeroizing<[u8; BUFFER]>,
    /// The first byte of `buffer` not yet handed out.
    at: usize,
}

impl<'a, R: RngCore> BufferedRng<'a, R> {
    /// Reads `inner` from its next byte on.
    pub(crate) fn new(inner: &'a mut R) -> Self {
        Self {
            inner,
            buffer: Zeroizing::new([0; BUFFER]),
            at: BUFFER,
        }
    }
}

impl<R: RngCore> RngCore for BufferedRng<'_, R> {
    fn next_u32(&mut self) -> u32 {
        let mut word = [0; 4];
        self.fill_bytes(&mut word);
        u32::from_le_bytes(word)
    }

    fn next_u64(&mut self) -> u64 {
        let mut word = [0; 8];
        self.fill_bytes(&mut word);
        u64::from_le_bytes(word)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        // `inner.fill_bytes` fails only as `inner` does (OsRng panics).
        let _ = self.fill(dest, |inner, buffer| {
            inner.fill_bytes(buffer);
            Ok(())
        });
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.fill(dest, |inner, buffer| inner.try_fill_bytes(buffer))
    }
}

impl<R: RngCore> BufferedRng<'_, R> {
    /// Fills `dest` from the buffer, refilled by `refill` whenever it runs
    /// out; each byte handed out is wiped from the buffer.
    fn fill(
        &mut self,
        dest: &mut [u8],
        mut refill: impl FnMut(&mut R, &mut [u8]) -> Result<(), rand::Error>,
    ) -> Result<(), rand::Error> {
        let mut filled = 0;
        while filled < dest.len() {
            if self.at == BUFFER {
                refill(self.inner, &mut self.buffer[..])?;
                self.at = 0;
            }
            let take = (dest.len() - filled).min(BUFFER - self.at);
            let handed = &mut self.buffer[self.at..self.at + take];
            dest[filled..filled + take].copy_from_slice(handed);
            handed.fill(0);
            self.at += take;
            filled += take;
        }
        Ok(())
    }
}

impl<R: RngCore + CryptoRng> CryptoRng for BufferedRng<'_, R> {}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;

    /// A generator that counts the calls made into it.
    struct Counting {
        rng: StdRng,
        calls: usize,
    }

    impl RngCore for Counting {
        fn next_u32(&mut self) -> u32 {
            self.calls += 1;
            self.rng.next_u32()
        }
        fn next_u64(&mut self) -> u64 {
            self.calls += 1;
            self.rng.next_u64()
        }
        fn fill_bytes(&mut self, dest: &mut [u8]) {
            self.calls += 1;
            self.rng.fill_bytes(dest)
        }
        fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
            self.calls += 1;
            self.rng.try_fill_bytes(dest)
        }
    }

    #[test]
    fn the_output_is_the_inner_byte_stream_in_order() {
        let mut expected = vec![0u8; 3 * BUFFER + 100];
        StdRng::seed_from_u64(7).fill_bytes(&mut expected);
        let mut inner = Counting {
            rng: StdRng::seed_from_u64(7),
            calls: 0,
        };
        let mut got = Vec::new();
        {
            let mut buffered = BufferedRng::new(&mut inner);
            // Mixed widths, crossing every buffer boundary.
            while got.len() + 8 <= expected.len() - 300 {
                got.extend_from_slice(&buffered.next_u32().to_le_bytes());
                got.extend_from_slice(&buffered.next_u64().to_le_bytes());
                let mut odd = [0u8; 5];
                buffered.fill_bytes(&mut odd);
                got.extend_from_slice(&odd);
            }
            let mut rest = vec![0u8; expected.len() - got.len()];
            buffered.try_fill_bytes(&mut rest).unwrap();
            got.extend_from_slice(&rest);
        }
        assert_eq!(got, expected);
        assert_eq!(inner.calls, 4, "one call per {BUFFER} bytes");
    }

    #[test]
    fn a_failing_generator_is_an_error() {
        struct Failing;
        impl RngCore for Failing {
            fn next_u32(&mut self) -> u32 {
                0
            }
            fn next_u64(&mut self) -> u64 {
                0
            }
            fn fill_bytes(&mut self, _: &mut [u8]) {}
            fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), rand::Error> {
                Err(rand::Error::new("no entropy"))
            }
        }
        let mut failing = Failing;
        let mut buffered = BufferedRng::new(&mut failing);
        assert!(buffered.try_fill_bytes(&mut [0u8; 16]).is_err());
    }
}
