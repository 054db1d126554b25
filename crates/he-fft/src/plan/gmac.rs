//! The MAC of plan files (format 7): GMAC with AES-256, fed with the bytes
//! as they stream through, under a key derived from the user's plan key.
//!
//! # The construction
//! GMAC is the authentication-only mode of GCM, NIST SP 800-38D (2007):
//! AES-GCM with no plaintext, every byte of the file before the tag as the
//! additional authenticated data A. With H = AES_K(0^128) and the 96-bit
//! nonce IV, J0 = IV ‖ 0^31 ‖ 1 and the tag is
//! `GHASH_H(A ‖ 0^v ‖ [len(A)]_64 ‖ [0]_64) ⊕ AES_K(J0)`, all 128 bits of
//! it kept. The AES-256 key K is HKDF-Expand-SHA256 (RFC 5869) of the plan
//! key with the label [`KEY_LABEL`] (the plan key is 32 uniformly random
//! bytes, so the extract step is skipped, as RFC 5869, section 3.3 allows):
//! K is independent of the plan key's id and of any other use of the key.
//! Each tagged file has its own nonce, 12 bytes from the operating system's
//! CSPRNG, stored in the file before the data it covers.
//!
//! # Its forgery bound
//! For a writer that never repeats a nonce under a key, GMAC is a secure
//! MAC if AES is a pseudorandom permutation: an adversary that sees any
//! number of tagged files and tries q forgeries of at most ℓ blocks of
//! 16 bytes succeeds with probability at most q·(ℓ + 1)/2^128 plus the
//! advantage of distinguishing AES-256 from a random permutation (McGrew
//! and Viega, "The Security and Performance of the Galois/Counter Mode of
//! Operation", INDOCRYPT 2004; Iwata, Ohashi and Minematsu, "Breaking and
//! Repairing GCM Security Proofs", CRYPTO 2012, whose corrected bounds
//! differ from the original only for nonces other than 96 bits). A plan
//! file of 2 GiB is ℓ = 2^27 blocks: at most about 2^-101 per forgery
//! tried. The nonces are random, so they repeat only by chance: after
//! 2^32 tagged files with one key, with probability below 2^-33 (NIST's
//! limit for random nonces is 2^32 invocations per key); a repeated nonce
//! would let whoever holds both files solve for H.
//!
//! # Its speed
//! GHASH runs on the carry-less multiplication instructions where the CPU
//! has them ([`clmul`], 16 blocks per reduction on 256-bit registers with
//! VPCLMULQDQ), elsewhere on RustCrypto's `ghash` crate; AES runs only
//! three times per file. Both compute the same tags.

use super::key::HmacSha256;
use super::key::PlanKey;
use aes::cipher::{BlockEncrypt, KeyInit};
use aes::Aes256;
use ghash::universal_hash::UniversalHash;
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
mod clmul;

/// Bytes of a GMAC nonce (96 bits: GCM's recommended length).
pub(super) const NONCE_BYTES: usize = 12;
/// Bytes of a tag.
pub(super) const TAG_BYTES: usize = 16;

/// HKDF's `info` for the GMAC key of plan files.
const KEY_LABEL: &[u8] = b"he-fft plan file tag: GMAC-AES-256 key";

/// A fresh nonce from the operating system's CSPRNG.
///
/// # Errors
/// [`crate::Error::He`] with [`helib_rs::Error::Randomness`] when the random
/// source fails.
pub(super) fn fresh_nonce() -> crate::Result<[u8; NONCE_BYTES]> {
    let mut nonce = [0u8; NONCE_BYTES];
    getrandom::getrandom(&mut nonce)
        .map_err(|e| crate::Error::He(helib_rs::Error::Randomness(e.to_string())))?;
    Ok(nonce)
}

/// HKDF-Expand (RFC 5869) with SHA-256 of `prk` for `info`, 32 bytes (one
/// block: T(1) = HMAC(PRK, info ‖ 0x01)).
fn hkdf_expand_32(prk: &[u8; 32], info: &[u8]) -> [u8; 32] {
    let mut mac = HmacSha256::new(prk);
    mac.update(info);
    mac.update(&[1]);
    mac.finalize()
}

/// GHASH under one key: on the CPU's carry-less multiplication, or portable.
enum Ghash {
    /// Boxed: its 16 powers of the key make it large.
    #[cfg(target_arch = "x86_64")]
    Clmul(Box<clmul::ClmulGhash>),
    Portable(ghash::GHash),
}

impl Ghash {
    fn new(h: &[u8; 16]) -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(g) = clmul::ClmulGhash::new(h) {
            return Ghash::Clmul(Box::new(g));
        }
        Ghash::Portable(<ghash::GHash as KeyInit>::new(h.into()))
    }

    /// Feeds whole blocks (`blocks.len()` a multiple of 16).
    fn update(&mut self, blocks: &[u8]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Ghash::Clmul(g) => g.update(blocks),
            Ghash::Portable(g) => g.update_padded(blocks),
        }
    }

    fn value(&self) -> [u8; 16] {
        match self {
            #[cfg(target_arch = "x86_64")]
            Ghash::Clmul(g) => g.value(),
            Ghash::Portable(g) => g.clone().finalize().into(),
        }
    }
}

/// A GMAC being fed (see the [module docs](self)). The nonce is needed only
/// at the end, so a loader feeds the file from its first byte, before it
/// has read the nonce.
pub(super) struct Gmac {
    aes: Aes256,
    ghash: Ghash,
    /// A partial block waiting for more bytes.
    pending: [u8; 16],
    pending_len: usize,
    /// Bytes fed.
    len: u64,
}

impl Drop for Gmac {
    fn drop(&mut self) {
        self.pending.zeroize();
    }
}

impl Gmac {
    /// The MAC of plan files under `key`.
    pub(super) fn new(key: &PlanKey) -> Self {
        let mut aes_key = hkdf_expand_32(key.secret(), KEY_LABEL);
        let mac = Self::with_aes_key(&aes_key);
        aes_key.zeroize();
        mac
    }

    /// GMAC under the AES-256 key `key`.
    fn with_aes_key(key: &[u8; 32]) -> Self {
        let aes = <Aes256 as KeyInit>::new(key.into());
        let mut h = [0u8; 16];
        aes.encrypt_block((&mut h).into());
        let ghash = Ghash::new(&h);
        h.zeroize();
        Self {
            aes,
            ghash,
            pending: [0; 16],
            pending_len: 0,
            len: 0,
        }
    }

    /// Feeds `data`.
    pub(super) fn update(&mut self, mut data: &[u8]) {
        self.len += data.len() as u64;
        if self.pending_len > 0 {
            let take = (16 - self.pending_len).min(data.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            self.pending_len += take;
            data = &data[take..];
            if self.pending_len < 16 {
                return;
            }
            let block = self.pending;
            self.ghash.update(&block);
            self.pending_len = 0;
        }
        let whole = data.len() - data.len() % 16;
        self.ghash.update(&data[..whole]);
        let rest = &data[whole..];
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The tag of everything fed, with `nonce`.
    pub(super) fn finalize(mut self, nonce: &[u8; NONCE_BYTES]) -> [u8; TAG_BYTES] {
        if self.pending_len > 0 {
            self.pending[self.pending_len..].fill(0);
            let block = self.pending;
            self.ghash.update(&block);
        }
        let mut lengths = [0u8; 16];
        lengths[..8].copy_from_slice(&(8 * self.len).to_be_bytes());
        self.ghash.update(&lengths);
        let mut tag = self.ghash.value();
        let mut mask = [0u8; 16];
        mask[..NONCE_BYTES].copy_from_slice(nonce);
        mask[15] = 1;
        self.aes.encrypt_block((&mut mask).into());
        for (t, m) in tag.iter_mut().zip(&mask) {
            *t ^= m;
        }
        mask.zeroize();
        tag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// RFC 5869's test case 1: expanding its PRK for its info gives the
    /// first 32 bytes of its OKM.
    #[test]
    fn hkdf_expand_matches_rfc_5869() {
        let prk: [u8; 32] =
            unhex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
                .try_into()
                .unwrap();
        let info = unhex("f0f1f2f3f4f5f6f7f8f9");
        assert_eq!(
            hex(&hkdf_expand_32(&prk, &info)),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
        );
    }

    /// The GCM specification's test case 13 (AES-256, zero key and IV,
    /// nothing to authenticate).
    #[test]
    fn empty_message_matches_gcm_test_case_13() {
        let mac = Gmac::with_aes_key(&[0; 32]);
        assert_eq!(
            hex(&mac.finalize(&[0; 12])),
            "530f8afbc74536b9a963b4f1c4cb738b"
        );
    }

    /// Tags are AES-256-GCM's over an empty plaintext with the message as
    /// associated data (the `aes-gcm` crate), for many lengths, fed whole
    /// or in uneven pieces, on this CPU's GHASH and the portable one.
    #[test]
    fn tags_match_aes_gcm() {
        use aes_gcm::aead::AeadInPlace;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let data: Vec<u8> = (0..20_000).map(|_| next() as u8).collect();
        for round in 0..40 {
            let key: [u8; 32] = std::array::from_fn(|_| next() as u8);
            let nonce: [u8; 12] = std::array::from_fn(|_| next() as u8);
            let len = match round {
                0..=20 => round,
                _ => (next() % data.len() as u64) as usize,
            };
            let message = &data[..len];
            let cipher = <aes_gcm::Aes256Gcm as aes_gcm::KeyInit>::new(&key.into());
            let want = cipher
                .encrypt_in_place_detached(&nonce.into(), message, &mut [])
                .unwrap();
            for portable in [false, true] {
                let mut whole = Gmac::with_aes_key(&key);
                let mut pieces = Gmac::with_aes_key(&key);
                if portable {
                    let mut h = [0u8; 16];
                    whole.aes.encrypt_block((&mut h).into());
                    whole.ghash = Ghash::Portable(KeyInit::new(&h.into()));
                    pieces.ghash = Ghash::Portable(KeyInit::new(&h.into()));
                }
                whole.update(message);
                assert_eq!(whole.finalize(&nonce)[..], want[..], "{len} bytes");
                let mut rest = message;
                while !rest.is_empty() {
                    let take = (1 + next() % 700).min(rest.len() as u64) as usize;
                    pieces.update(&rest[..take]);
                    rest = &rest[take..];
                }
                assert_eq!(
                    pieces.finalize(&nonce)[..],
                    want[..],
                    "{len} bytes in pieces"
                );
            }
        }
    }

    /// The tag depends on the key, the nonce and every byte.
    #[test]
    fn tags_change_with_key_nonce_and_data() {
        let tag = |key: &PlanKey, nonce: &[u8; 12], data: &[u8]| {
            let mut mac = Gmac::new(key);
            mac.update(data);
            mac.finalize(nonce)
        };
        let key = PlanKey::from_bytes([7; 32]);
        let data = vec![5u8; 100];
        let base = tag(&key, &[1; 12], &data);
        assert_ne!(tag(&PlanKey::from_bytes([8; 32]), &[1; 12], &data), base);
        assert_ne!(tag(&key, &[2; 12], &data), base);
        for at in 0..data.len() {
            let mut changed = data.clone();
            changed[at] ^= 0x80;
            assert_ne!(tag(&key, &[1; 12], &changed), base, "byte {at}");
        }
        // A trailing zero byte changes the length, hence the tag.
        let mut longer = data.clone();
        longer.push(0);
        assert_ne!(tag(&key, &[1; 12], &longer), base);
    }
}
