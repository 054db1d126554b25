//! The outcome of a proof, which the server sends every proving party
//! after the protocol's last round: the proof it made and verified, or why
//! there is none. A party process ends well only with a proof it has
//! verified itself. Without this message a party's part ends with its last
//! send (every party but the designated one receives nothing after the
//! upload round), so a proof that failed at the server's final check (a
//! share that does not add up, a deviating party) would leave those
//! parties ending well with no proof made.
//!
//! Layout: a kind byte (1: a proof, 0: a failure), the proof index (u64
//! big-endian), then the proof (ark-serialize, compressed, checked on
//! reading) or the reason (UTF-8, at most [`MAX_REASON`] bytes).

use ark_bn254::Bn254;
use ark_groth16::Proof;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};

/// The longest reason a failure carries, in bytes.
pub const MAX_REASON: usize = 4096;

const PROOF: u8 = 1;
const FAILURE: u8 = 0;

/// What the server says about one proof.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// The proof, which verified at the server.
    Proof {
        /// The proof index.
        index: u64,
        /// The proof.
        proof: Box<Proof<Bn254>>,
    },
    /// There is no proof.
    Failed {
        /// The proof index.
        index: u64,
        /// Why, as the server says (printable characters only).
        reason: String,
    },
}

/// The message for `proof`, proof `index`.
pub fn encode_proof(index: u64, proof: &Proof<Bn254>) -> Vec<u8> {
    let mut bytes = vec![PROOF];
    bytes.extend_from_slice(&index.to_be_bytes());
    // Writing to a Vec cannot fail.
    let _ = proof.serialize_compressed(&mut bytes);
    bytes
}

/// The message for a failed proof `index`.
pub fn encode_failure(index: u64, reason: &str) -> Vec<u8> {
    let mut end = reason.len().min(MAX_REASON);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    let mut bytes = vec![FAILURE];
    bytes.extend_from_slice(&index.to_be_bytes());
    bytes.extend_from_slice(&reason.as_bytes()[..end]);
    bytes
}

/// Reads a message of the server.
///
/// # Errors
/// What is wrong with it: too short, an unknown kind, a proof that does
/// not deserialize (points off the curve or outside the subgroup, bytes
/// left over), a reason too long.
pub fn decode(bytes: &[u8]) -> Result<Outcome, String> {
    let (&kind, rest) = bytes.split_first().ok_or("an empty outcome")?;
    let (index, body) = rest
        .split_first_chunk::<8>()
        .ok_or("an outcome without a proof index")?;
    let index = u64::from_be_bytes(*index);
    match kind {
        PROOF => {
            let mut reader = body;
            let proof = Proof::<Bn254>::deserialize_compressed(&mut reader)
                .map_err(|e| format!("proof {index} does not deserialize: {e}"))?;
            if !reader.is_empty() {
                return Err(format!("{} bytes after proof {index}", reader.len()));
            }
            Ok(Outcome::Proof {
                index,
                proof: Box::new(proof),
            })
        }
        FAILURE if body.len() <= MAX_REASON => {
            let reason = String::from_utf8_lossy(body)
                .chars()
                .map(|c| if c.is_control() { '?' } else { c })
                .collect();
            Ok(Outcome::Failed { index, reason })
        }
        FAILURE => Err(format!("a reason of {} bytes", body.len())),
        other => Err(format!("an outcome of unknown kind {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_read_back_and_damage_is_refused() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../he-circom/tests/fixtures/multiplier_proof.json");
        let proof = he_circom::snarkjs_json::read_proof(fixture).expect("the fixture");
        let bytes = encode_proof(7, &proof);
        assert_eq!(
            decode(&bytes),
            Ok(Outcome::Proof {
                index: 7,
                proof: Box::new(proof)
            })
        );
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_err());
        let mut other = bytes;
        other[0] = 9;
        assert!(decode(&other).is_err());

        let failure = encode_failure(3, "party 1 sent\x1b[31m garbage");
        assert_eq!(
            decode(&failure),
            Ok(Outcome::Failed {
                index: 3,
                reason: "party 1 sent?[31m garbage".into()
            })
        );
        let long = "é".repeat(MAX_REASON);
        assert!(encode_failure(0, &long).len() <= 9 + MAX_REASON);
        assert!(decode(&encode_failure(0, &long)).is_ok());
    }
}
