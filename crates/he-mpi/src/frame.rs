//! The header that binds each exchanged payload of residues to its context,
//! its sender and receiver, its place in the job and its contents.
//!
//! A header is [`HEADER_WORDS`] little-endian 64-bit words: the magic
//! `HEMPI\0\0\x03`, the 32-byte context fingerprint (4 words), the sending
//! rank, the receiving rank, the exchange's sequence number, its step
//! within its operation (the chain prime of a product's residues, the round
//! of an FFT's sums), the payload's word count, where the payload lies
//! in the sender's shared-memory segment (`u64::MAX` when it travels in a
//! message) and a checksum of all the fields before it and the payload
//! ([`PayloadSum`]). The checksum finds accidents (a flipped bit, a
//! truncated or misrouted buffer): every step of it is a bijection of its
//! state for a fixed input word, so any one changed word changes it. It is
//! not a MAC against a rank that lies on purpose.

pub use crate::checksum::PayloadSum;
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
    /// The exchange's step within its operation: the chain prime index of a
    /// product's residues, the round of an FFT's sums across ciphertexts.
    pub step: usize,
    /// The payload's word offset in the sender's shared-memory segment, where
    /// a receiver on the same node reads it in place; `None` when it travels
    /// in a message.
    pub segment_offset: Option<usize>,
}

impl Header {
    /// The header words for `payload`.
    pub fn seal(&self, payload: &[u64]) -> [u64; HEADER_WORDS] {
        self.seal_summed(&PayloadSum::of(payload))
    }

    /// The header words for the payload whose sum is `sum` (summed while it
    /// was staged, as he-mpi's staging does).
    pub fn seal_summed(&self, sum: &PayloadSum) -> [u64; HEADER_WORDS] {
        let mut words = [0u64; HEADER_WORDS];
        words[0] = MAGIC;
        for (k, chunk) in self.fingerprint.chunks_exact(8).enumerate() {
            words[1 + k] = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        }
        words[5] = self.sender as u64;
        words[6] = self.receiver as u64;
        words[7] = self.sequence;
        words[8] = self.step as u64;
        words[9] = sum.len() as u64;
        words[10] = self.segment_offset.map_or(IN_A_MESSAGE, |at| at as u64);
        words[11] = sum.seal(&words[..11]);
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
        self.verify_fields(words, payload.len())?;
        self.verify_sum(words, &PayloadSum::of(payload))
    }

    /// Checks every field of `words` against `self` and a payload of `len`
    /// words, but not the checksum (for a receiver that sums the payload
    /// piece by piece as it uses it, then calls
    /// [`verify_sum`](Self::verify_sum)).
    ///
    /// # Errors
    /// [`Error::Corrupted`] saying which field is wrong.
    pub fn verify_fields(&self, words: &[u64], len: usize) -> Result<()> {
        if words.len() != HEADER_WORDS || words[0] != MAGIC {
            return Err(self.corrupted("no header (wrong magic or length)".into()));
        }
        let expected = self.seal_summed(&PayloadSum::default());
        if words[1..5] != expected[1..5] {
            return Err(self
                .corrupted("the residues belong to another context (fingerprints differ)".into()));
        }
        let fields = [
            ("sender", 5, expected[5]),
            ("receiver", 6, expected[6]),
            ("sequence number", 7, expected[7]),
            ("step", 8, expected[8]),
            ("word count", 9, len as u64),
            ("segment offset", 10, expected[10]),
        ];
        for (name, index, value) in fields {
            if words[index] != value {
                return Err(self.corrupted(format!(
                    "the header's {name} is {}, expected {value}",
                    words[index]
                )));
            }
        }
        Ok(())
    }

    /// Checks the word count and checksum of header `words` (whose fields
    /// [`verify_fields`](Self::verify_fields) passed) against the payload's
    /// `sum`.
    ///
    /// # Errors
    /// [`Error::Corrupted`] when they differ.
    pub fn verify_sum(&self, words: &[u64], sum: &PayloadSum) -> Result<()> {
        match words.get(..HEADER_WORDS) {
            Some(words) if words[9] == sum.len() as u64 && sum.seal(&words[..11]) == words[11] => {
                Ok(())
            }
            _ => Err(self.corrupted(format!(
                "the checksum of the {} residue words does not match",
                sum.len()
            ))),
        }
    }

    fn corrupted(&self, reason: String) -> Error {
        Error::Corrupted {
            sender: self.sender,
            receiver: self.receiver,
            reason,
        }
    }
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
            step: 3,
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
}
