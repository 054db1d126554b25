//! Saving and loading plans: a header naming everything the plan depends on,
//! then its prepared levels ([`helib_rs::lintrans::io`]).
//!
//! A plan depends only on public data: the context's parameters (its
//! fingerprint), the field F, n, the direction, the coset offset, the
//! strategy, the input order, `natural_output`, `encode_per_execution`, the
//! key policy and the input level. It never depends on a key, so a server
//! builds it once and loads it for every run and every client with the same
//! parameters.
//!
//! File layout (little-endian 64-bit words): the magic `HEFFTPLN`, the
//! format version, the context fingerprint (4 words), F's modulus (length,
//! limbs), n, direction, coset (flag, length, limbs), strategy (tag, level
//! count), input order, natural output, per-execution flag, key mode, max
//! baby steps, executions per set of keys, input level, a checkpoint; the
//! tag marker (0 untagged; 1 tagged, then the plan key's id in 2 words and
//! the file's 12-byte nonce, zero-padded to 2 words) and a checkpoint; then
//! the pipeline tag and its prepared levels, each with a checkpoint per
//! diagonal; then an end marker and a final checkpoint; in a tagged file,
//! last, the 16-byte GMAC tag (2 words) of every byte before it. Only the
//! prepared levels are stored: everything else (the
//! dense matrix's scalings, the scalars across ciphertexts, the memory
//! estimate) is recomputed from the spec, which costs no encoding.
//!
//! # Integrity is not authentication: loads are verified
//! The checkpoints hold a keyless, non-cryptographic checksum: integrity
//! against corruption, not authentication (anyone who can write the file
//! can recompute it). Loading therefore trusts nothing the file claims
//! ([`FftPlanBuilder::load_from`]): the caller's builder is the spec, a
//! header naming another plan is refused with [`Error::PlanMismatch`], and
//! the levels read are verified against the spec before the plan is
//! returned ([`Error::PlanVerification`]); see the
//! [verification's docs](super::verify) for what is checked and its cost.
//!
//! # Files a key vouches for: the trust model
//! The verification costs most of a build; a plan its user saved needs
//! none of it if the user can recognize the file as their own, unchanged.
//! That is what a [`PlanKey`] gives: 32 secret bytes from the OS CSPRNG,
//! one per user, kept in a file only the user can read (see
//! [`PlanKey`] for where and how).
//! [`FftPlan::write_to_with_key`] stores the key's id, a fresh nonce and a
//! GMAC-AES-256 tag under a key derived from the plan key over every byte
//! of the file before the tag (header, spec, tag marker, id and nonce,
//! every diagonal, every checkpoint; the construction, its key derivation
//! and its forgery bound are in [the MAC's docs](super::gmac));
//! [`FftPlanBuilder::load_with_key`] feeds the same MAC as the file streams
//! into the plan's buffers (no second pass: each piece is hashed right
//! after it is read, while it is in cache; once the file names the
//! caller's key, the keyless checksum is no longer computed, since the tag
//! covers the same bytes and a changed file fails it) and then:
//! - always reads the header and compares it with the caller's spec, as
//!   above (a tag vouches for the bytes, not for their being the plan
//!   asked for);
//! - accepts the levels without recomputing them
//!   ([`PlanCheck::Authenticated`]) only when the file names the caller's
//!   key and its tag verifies (compared in constant time);
//! - otherwise verifies them as [`load_from`](FftPlanBuilder::load_from)
//!   does ([`PlanCheck::Recomputed`], with the reason): a file untagged,
//!   tagged with another key (another user's or machine's: still usable,
//!   and sound without trusting anyone), naming the key with a tag that
//!   fails, which means it was changed after it was saved (it is never
//!   trusted, and the verification refuses a changed transform), or of
//!   format version 6, whose HMAC-SHA256 tags are not checked any more.
//!
//! So an attacker who can write the plan store but cannot read the user's
//! key file cannot make a changed plan load as authenticated: that needs
//! a valid GMAC tag under a key it does not know for bytes the key never
//! tagged, which succeeds with probability at most about 2^-101 per try
//! for files up to 2 GiB (a 128-bit tag; [the bound](super::gmac)); the
//! key's id is 16 bytes of SHA-256 of the key with a label, revealing
//! nothing useful about it. What it can do is what it
//! could before: delete files (the plan is built again), replace them with
//! files of its own (verified by recomputation, so refused unless they
//! hold the plan asked for), or put back an older file this key tagged
//! (accepted only if its header is the spec asked for, and then it holds
//! that spec's plan, as the key's owner built or verified it). The key
//! itself never leaves the machine: it is written nowhere but its key
//! file, and plan files carry only its id and tags. Whoever can read the
//! key file (the user, root) is trusted, as is the code that wrote the
//! tagged files: a tag vouches for a plan this crate built or verified.

mod header;
mod load;
mod save;

use super::*;

/// `HEFFTPLN`: the first word of a plan file.
const MAGIC: u64 = u64::from_le_bytes(*b"HEFFTPLN");
/// `PLANDONE`: the word after the last level.
const END: u64 = u64::from_le_bytes(*b"PLANDONE");
/// The version this crate writes and reads. Version 3: the stream checksum
/// has 16 lanes instead of 4 (see [`helib_rs::io`]), so that it
/// runs on vector units, and a forward plan over more than two ciphertexts
/// (or two with a coset) encodes its group levels one level lower on the
/// chain than versions 1 and 2 did. Version 4: the header stores the
/// expected executions per set of Galois keys (after the baby step cap).
/// Version 5: each transform lists its terms' strides before the terms, and
/// an encoding holds N / stride words a prime
/// ([`helib_rs::EncodedPlaintext::stride`]). Version 6: after the header, a
/// tag marker (with the key's id when tagged), and after the end, the
/// HMAC-SHA256 tag of a file saved with a [`PlanKey`]. Version 7: the tag
/// is GMAC-AES-256 (16 bytes), with the file's nonce after the key's id.
/// Version 6 files still load, by verification only (their tags are not
/// checked); older versions are refused ([`Error::PlanVersion`]): build the
/// plan again.
pub const PLAN_FORMAT_VERSION: u64 = 7;

/// The oldest version read: its files are verified by recomputation,
/// whatever they carry.
const OLDEST_READ_VERSION: u64 = 6;

/// Tag markers: no tag, or a tag under the key whose id follows.
const UNTAGGED: u64 = 0;
const TAGGED: u64 = 1;

/// Words of a version 6 file's HMAC-SHA256 tag.
const V6_TAG_WORDS: usize = 4;

/// Bytes as little-endian words, the last one zero-padded.
fn byte_words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

/// Words as their little-endian bytes.
fn word_bytes<const B: usize>(words: &[u64]) -> [u8; B] {
    let mut out = [0u8; B];
    for (o, w) in out.chunks_mut(8).zip(words) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// Pipeline tags.
const LEVELS: u64 = 0;
const DENSE: u64 = 1;
const SPLIT: u64 = 2;

/// The error for an ill-formed plan file.
fn format(what: impl Into<String>) -> Error {
    Error::PlanFormat(what.into())
}

/// Maps the lower layer's stream errors to the plan's.
fn from_he(e: helib_rs::Error) -> Error {
    match e {
        helib_rs::Error::Malformed(m) => Error::PlanFormat(m),
        helib_rs::Error::Io { kind, message } => Error::Io(std::io::Error::new(kind, message)),
        other => Error::He(other),
    }
}
