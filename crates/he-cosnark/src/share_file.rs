//! The byte format of a witness share, as an input owner hands it to a
//! computing party (a file, a message): bound to the circuit and to the
//! party, every value canonical, a checksum over everything. Secret: the
//! bytes are wiped when dropped.
//!
//! Layout: magic `HECW`, version 1, the circuit's digest (32 bytes), the
//! party (u32), the number of values (u64), the field element width in
//! bytes (u32), the values (little-endian, each below the modulus), and
//! SHA-256 of all of it.

use ark_ff::{BigInteger, PrimeField};
use sha2::{Digest, Sha256};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{Error, Result};
use crate::shares::WitnessShare;

const MAGIC: &[u8; 4] = b"HECW";
const VERSION: u8 = 1;
const HEADER: usize = 4 + 1 + 32 + 4 + 8 + 4;

/// Bytes of one element of F.
fn width<F: PrimeField>() -> usize {
    (F::MODULUS_BIT_SIZE as usize).div_ceil(8)
}

impl<F: PrimeField> WitnessShare<F> {
    /// The share of `party` for the circuit of digest `circuit`
    /// ([`Circuit::digest`](crate::Circuit::digest)), as bytes.
    pub fn to_bytes(&self, circuit: &[u8; 32], party: u32) -> Zeroizing<Vec<u8>> {
        let w = width::<F>();
        let mut out = Zeroizing::new(Vec::with_capacity(HEADER + w * self.values().len() + 32));
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        out.extend_from_slice(circuit);
        out.extend_from_slice(&party.to_le_bytes());
        out.extend_from_slice(&(self.values().len() as u64).to_le_bytes());
        out.extend_from_slice(&(w as u32).to_le_bytes());
        for value in self.values() {
            let mut bytes = value.into_bigint().to_bytes_le();
            bytes.resize(w, 0);
            out.extend_from_slice(&bytes);
            bytes.zeroize();
        }
        let digest = Sha256::digest(&out[..]);
        out.extend_from_slice(&digest);
        out
    }

    /// Reads a share written by [`to_bytes`](Self::to_bytes), which must be
    /// for the circuit `circuit` and for `party`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming what is wrong: the length, the
    /// checksum, the magic or version, another circuit or party, another
    /// field width, a value not below the modulus.
    pub fn from_bytes(bytes: &[u8], circuit: &[u8; 32], party: u32) -> Result<Self> {
        let bad = |what: String| Error::InvalidArgument(format!("witness share: {what}"));
        if bytes.len() < HEADER + 32 {
            return Err(bad(format!("{} bytes, shorter than a header", bytes.len())));
        }
        let (body, checksum) = bytes.split_at(bytes.len() - 32);
        if Sha256::digest(body).as_slice() != checksum {
            return Err(bad("checksum mismatch (truncated or changed)".into()));
        }
        let (header, values) = body.split_at(HEADER);
        if &header[..4] != MAGIC || header[4] != VERSION {
            return Err(bad("not a version-1 witness share".into()));
        }
        if &header[5..37] != circuit {
            return Err(bad("made for another circuit".into()));
        }
        let field = |range: std::ops::Range<usize>| {
            let mut le = [0u8; 8];
            le[..range.len()].copy_from_slice(&header[range]);
            u64::from_le_bytes(le)
        };
        let (owner, count, w) = (field(37..41), field(41..49), field(49..53));
        if owner != u64::from(party) {
            return Err(bad(format!("made for party {owner}, not party {party}")));
        }
        if w != width::<F>() as u64 {
            return Err(bad(format!(
                "values of {w} bytes, the field's are {}",
                width::<F>()
            )));
        }
        let w = width::<F>();
        if Some(values.len() as u64) != count.checked_mul(w as u64) {
            return Err(bad(format!(
                "{count} values announced, {} bytes of values",
                values.len()
            )));
        }
        let mut share = Vec::with_capacity(values.len() / w);
        for (index, chunk) in values.chunks_exact(w).enumerate() {
            let value = F::from_le_bytes_mod_order(chunk);
            let mut canonical = value.into_bigint().to_bytes_le();
            canonical.resize(w, 0);
            let ok = canonical == chunk;
            canonical.zeroize();
            if !ok {
                share.iter_mut().for_each(Zeroize::zeroize);
                return Err(bad(format!("value {index} is not below the modulus")));
            }
            share.push(value);
        }
        Ok(Self::new(share))
    }
}

#[cfg(test)]
mod tests {
    use ark_bn254::Fr;
    use ark_ff::UniformRand;

    use super::*;

    #[test]
    fn a_share_reads_back_only_for_its_circuit_and_party() {
        let mut rng = rand::rngs::OsRng;
        let share = WitnessShare::new((0..5).map(|_| Fr::rand(&mut rng)).collect());
        let bytes = share.to_bytes(&[3; 32], 2);
        assert!(WitnessShare::<Fr>::from_bytes(&bytes, &[3; 32], 2).unwrap() == share);
        let error = |b: &[u8], circuit: [u8; 32], party: u32| {
            WitnessShare::<Fr>::from_bytes(b, &circuit, party)
                .unwrap_err()
                .to_string()
        };
        assert!(error(&bytes, [4; 32], 2).contains("another circuit"));
        assert!(error(&bytes, [3; 32], 1).contains("party 2"));
        for cut in [0, 10, HEADER + 31, bytes.len() - 1] {
            assert!(WitnessShare::<Fr>::from_bytes(&bytes[..cut], &[3; 32], 2).is_err());
        }
        for at in [0, 4, 40, HEADER + 3, bytes.len() - 1] {
            let mut flipped = bytes.to_vec();
            flipped[at] ^= 1;
            assert!(error(&flipped, [3; 32], 2).contains("checksum"));
        }
        // A value at the modulus, with a valid checksum, is refused.
        let mut forged = bytes[..bytes.len() - 32].to_vec();
        let modulus = Fr::MODULUS.to_bytes_le();
        forged[HEADER..HEADER + 32].copy_from_slice(&modulus);
        let digest = Sha256::digest(&forged);
        forged.extend_from_slice(&digest);
        assert!(error(&forged, [3; 32], 2).contains("value 0 is not below the modulus"));
    }
}
