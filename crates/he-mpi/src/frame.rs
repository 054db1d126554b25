//! The header that binds each exchanged payload of residues to its context,
//! its sender and receiver, its place in the job and its contents.
//!
//! A header is [`HEADER_WORDS`] little-endian 64-bit words: the magic
//! `HEMPI\0\0\x03`, the 32-byte context fingerprint (4 words), the sending
//! rank, the receiving rank, the exchange's sequence number, the chain prime
//! the residues are modulo, the payload's word count, where the payload lies
//! in the sender's shared-memory segment (`u64::MAX` when it travels in a
//! message) and a checksum of the payload seeded with all the fields before
//! it. The checksum finds
//! accidents (a flipped bit, a truncated or misrouted buffer): every step of
//! it is a bijection of its state for a fixed input word, so any one changed
//! word changes it. It is not a MAC against a rank that lies on purpose.

use crate::error::{Error, Result};

/// Words in a header.
pub const HEADER_WORDS: usize = 12;

/// Bytes in a header.
pub const HEADER_BYTES: usize = HEADER_WORDS * 8;

const MAGIC: u64 = u64::from_le_bytes(*b"HEMPI\0\0\x03");

/// The offset word of a payload that travels in a message.
const IN_A_MESSAGE: u64 = u64::MAX;

/// What a header announces about one payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The context fingerprint the residues belong to.
    pub fingerprint: [u8; 32],
    /// The sending rank.
    pub sender: usize,
    /// The receiving rank.
    pub receiver: usize,
    /// The exchange's sequence number in the job (every rank counts alike).
    pub sequence: u64,
    /// The chain prime index of the residues.
    pub prime: usize,
    /// The payload's word offset in the sender's shared-memory segment, where
    /// a receiver on the same node reads it in place; `None` when it travels
    /// in a message.
    pub segment_offset: Option<usize>,
}

impl Header {
    /// The header words for `payload`.
    pub fn seal(&self, payload: &[u64]) -> [u64; HEADER_WORDS] {
        let mut words = [0u64; HEADER_WORDS];
        words[0] = MAGIC;
        for (k, chunk) in self.fingerprint.chunks_exact(8).enumerate() {
            words[1 + k] = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        }
        words[5] = self.sender as u64;
        words[6] = self.receiver as u64;
        words[7] = self.sequence;
        words[8] = self.prime as u64;
        words[9] = payload.len() as u64;
        words[10] = self.segment_offset.map_or(IN_A_MESSAGE, |at| at as u64);
        words[11] = checksum(&words[..11], payload);
        words
    }

    /// Where the header `words` say their payload lies in the sender's
    /// shared segment (`None`: in a message, or no header at all, which
    /// [`verify`](Self::verify) reports).
    pub fn announced_offset(words: &[u64]) -> Option<usize> {
        match words.get(10) {
            Some(&IN_A_MESSAGE) | None => None,
            Some(&at) => usize::try_from(at).ok(),
        }
    }

    /// Checks that `words` is the header of `payload` as `self` expects it:
    /// every field, then the checksum.
    ///
    /// # Errors
    /// [`Error::Corrupted`] saying which field is wrong.
    pub fn verify(&self, words: &[u64], payload: &[u64]) -> Result<()> {
        let fail = |reason: String| {
            Err(Error::Corrupted {
                sender: self.sender,
                receiver: self.receiver,
                reason,
            })
        };
        if words.len() != HEADER_WORDS || words[0] != MAGIC {
            return fail("no header (wrong magic or length)".into());
        }
        let expected = self.seal(&[]);
        if words[1..5] != expected[1..5] {
            return fail("the residues belong to another context (fingerprints differ)".into());
        }
        let fields = [
            ("sender", 5, expected[5]),
            ("receiver", 6, expected[6]),
            ("sequence number", 7, expected[7]),
            ("prime", 8, expected[8]),
            ("word count", 9, payload.len() as u64),
            ("segment offset", 10, expected[10]),
        ];
        for (name, index, value) in fields {
            if words[index] != value {
                return fail(format!(
                    "the header's {name} is {}, expected {value}",
                    words[index]
                ));
            }
        }
        if checksum(&words[..11], payload) != words[11] {
            return fail(format!(
                "the checksum of the {} residue words does not match",
                payload.len()
            ));
        }
        Ok(())
    }
}

/// Independent lanes of [`checksum`]: enough multiplications in flight to
/// keep the multiplier busy. On this project's Zen 4 VM eight lanes hash
/// 28 GB/s, four 19 GB/s.
const LANES: usize = 8;

/// The checksum of `payload` seeded with the header fields `seed`. Word i
/// of the payload goes to lane i mod [`LANES`]; each lane, and then the fold
/// of the lanes, steps through a bijection of its state for a fixed input
/// word, so any one changed word changes the checksum.
fn checksum(seed: &[u64], payload: &[u64]) -> u64 {
    const ODD: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, w: u64| (h ^ w).wrapping_mul(ODD).rotate_left(29);
    let start = seed.iter().fold(0x5bd1_e995_u64, |h, &w| step(h, w));
    let mut lanes: [u64; LANES] = std::array::from_fn(|i| start ^ i as u64);
    let words = payload.chunks_exact(LANES);
    let tail = words.remainder();
    for chunk in words {
        for (lane, &w) in lanes.iter_mut().zip(chunk) {
            *lane = step(*lane, w);
        }
    }
    for (lane, &w) in lanes.iter_mut().zip(tail) {
        *lane = step(*lane, w);
    }
    lanes.iter().fold(start, |h, &lane| step(h, lane))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            fingerprint: [7; 32],
            sender: 1,
            receiver: 2,
            sequence: 9,
            prime: 3,
            segment_offset: None,
        }
    }

    #[test]
    fn sealed_payloads_verify_and_damage_is_named() {
        let payload: Vec<u64> = (0..100).map(|i| i * 12345).collect();
        let h = header();
        let words = h.seal(&payload);
        h.verify(&words, &payload).unwrap();
        for word in [0, 1, 2, 3, 50, 97, 98, 99] {
            for bit in [0, 33, 63] {
                let mut damaged = payload.clone();
                damaged[word] ^= 1 << bit;
                let err = h.verify(&words, &damaged).unwrap_err().to_string();
                assert!(
                    err.contains("rank 2 received corrupted residues from rank 1"),
                    "{err}"
                );
                assert!(err.contains("checksum"), "{err}");
            }
        }
        assert!(h.verify(&words, &payload[..99]).is_err());
        let other = Header {
            fingerprint: [8; 32],
            ..h
        };
        let err = other.verify(&words, &payload).unwrap_err().to_string();
        assert!(err.contains("another context"), "{err}");
        let later = Header { sequence: 10, ..h };
        assert!(later
            .verify(&words, &payload)
            .unwrap_err()
            .to_string()
            .contains("sequence"));
        // A payload in a shared segment announces where; a receiver expecting
        // it in a message (or elsewhere) refuses it.
        let shared = Header {
            segment_offset: Some(4096),
            ..h
        };
        let shared_words = shared.seal(&payload);
        assert_eq!(Header::announced_offset(&shared_words), Some(4096));
        assert_eq!(Header::announced_offset(&words), None);
        shared.verify(&shared_words, &payload).unwrap();
        let err = h.verify(&shared_words, &payload).unwrap_err().to_string();
        assert!(err.contains("segment offset"), "{err}");
        for index in 0..HEADER_WORDS {
            let mut bad = words;
            bad[index] ^= 4;
            assert!(h.verify(&bad, &payload).is_err(), "header word {index}");
        }
    }

    #[test]
    fn any_one_changed_word_changes_the_checksum_at_every_length() {
        for len in 0..20u64 {
            let payload: Vec<u64> = (0..len).map(|i| i * 0x1234_5678_9abc).collect();
            let base = checksum(&[1, 2], &payload);
            for at in 0..len as usize {
                for bit in [0, 31, 63] {
                    let mut changed = payload.clone();
                    changed[at] ^= 1 << bit;
                    assert_ne!(checksum(&[1, 2], &changed), base, "{len} words, word {at}");
                }
            }
            assert_ne!(checksum(&[1, 3], &payload), base, "the seed counts");
        }
    }
}
