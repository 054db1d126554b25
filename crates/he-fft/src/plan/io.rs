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

use super::auth::{MacReader, MacWriter, Running};
use super::gmac::{fresh_nonce, Gmac, NONCE_BYTES, TAG_BYTES};
use super::key::tags_equal;
use super::*;
use helib_rs::io::{WordReader, WordWriter};
use std::cell::RefCell;
use std::io::{Read, Write};

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

/// Everything a plan depends on besides the context and F.
#[derive(Debug, Clone, PartialEq)]
struct Header<F> {
    n: usize,
    direction: Direction,
    coset: Option<F>,
    strategy: Strategy,
    order: Order,
    natural_output: bool,
    per_execution: bool,
    keys: KeyPolicy,
    level: usize,
}

/// A usize as a word (`usize::MAX` as `u64::MAX`, as for "no cap").
fn word(x: usize) -> u64 {
    if x == usize::MAX {
        u64::MAX
    } else {
        x as u64
    }
}

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

impl<F: PrimeField + FftField> Header<F> {
    /// The header's words, from the magic to the key policy and level.
    fn words(&self, context: &Context) -> Result<Vec<u64>> {
        let mut w = vec![MAGIC, PLAN_FORMAT_VERSION];
        let fingerprint = context.fingerprint()?;
        w.extend(
            fingerprint
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default())),
        );
        let modulus = F::MODULUS;
        w.push(modulus.as_ref().len() as u64);
        w.extend_from_slice(modulus.as_ref());
        w.push(word(self.n));
        w.push(match self.direction {
            Direction::Forward => 0,
            Direction::Inverse => 1,
        });
        match self.coset {
            Some(g) => {
                let limbs = g.into_bigint();
                w.push(1);
                w.push(limbs.as_ref().len() as u64);
                w.extend_from_slice(limbs.as_ref());
            }
            None => w.push(0),
        }
        match self.strategy {
            Strategy::Dense => w.extend([0, 0]),
            Strategy::Factored { levels: None } => w.extend([1, 0]),
            Strategy::Factored { levels: Some(k) } => w.extend([2, word(k)]),
        }
        w.push(match self.order {
            Order::Natural => 0,
            Order::BitReversed => 1,
        });
        w.push(u64::from(self.natural_output));
        w.push(u64::from(self.per_execution));
        w.push(match self.keys.mode {
            KeyMode::Fast => 0,
            KeyMode::MinimalKeys => 1,
        });
        w.push(word(self.keys.max_baby_steps));
        w.push(self.keys.executions);
        w.push(word(self.level));
        Ok(w)
    }

    /// Reads a header (through its checkpoint) and checks it against
    /// `context` and F: bad magic, a version not read, a checksum mismatch,
    /// another context, another field, out-of-range fields, in that order.
    /// Returns it with the file's format version.
    fn read<R: Read>(context: &Context, input: &mut WordReader<R>) -> Result<(Self, u64)> {
        if input.word().map_err(from_he)? != MAGIC {
            return Err(format("not an FFT plan file (bad magic)"));
        }
        let version = input.word().map_err(from_he)?;
        if !(OLDEST_READ_VERSION..=PLAN_FORMAT_VERSION).contains(&version) {
            return Err(Error::PlanVersion {
                found: version,
                supported: PLAN_FORMAT_VERSION,
            });
        }
        let mut fingerprint = [0u64; 4];
        input.words(&mut fingerprint).map_err(from_he)?;
        let limbs = |input: &mut WordReader<R>, what: &str| -> Result<Vec<u64>> {
            let len = input.bounded(what, 64).map_err(from_he)? as usize;
            let mut out = vec![0u64; len];
            input.words(&mut out).map_err(from_he)?;
            Ok(out)
        };
        let modulus = limbs(input, "the field modulus's length")?;
        let mut fields = [0u64; 2];
        input.words(&mut fields).map_err(from_he)?;
        let [n, direction] = fields;
        let coset = match input.flag("the coset flag").map_err(from_he)? {
            true => Some(limbs(input, "the coset offset's length")?),
            false => None,
        };
        let mut rest = [0u64; 9];
        input.words(&mut rest).map_err(from_he)?;
        input.checkpoint().map_err(from_he)?;
        // The bytes are as written; now whether they fit this context and F.
        let ours: Vec<u64> = context
            .fingerprint()?
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        if fingerprint[..] != ours[..] {
            return Err(Error::PlanContextMismatch);
        }
        if modulus[..] != F::MODULUS.as_ref()[..] {
            return Err(Error::PlanFieldMismatch);
        }
        let [strategy, levels, order, natural_output, per_execution, mode, max_baby, executions, level] =
            rest;
        let flag = |w: u64, what: &str| match w {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(format(format!("{what} is {w}, not 0 or 1"))),
        };
        let size = |w: u64, what: &str| {
            usize::try_from(w).map_err(|_| format(format!("{what} {w} does not fit a usize")))
        };
        let coset = match coset {
            None => None,
            Some(limbs) => {
                let mut big = F::BigInt::default();
                if limbs.len() != big.as_ref().len() {
                    return Err(format("the coset offset has the wrong length"));
                }
                big.as_mut().copy_from_slice(&limbs);
                Some(
                    F::from_bigint(big)
                        .ok_or_else(|| format("the coset offset is not below F's modulus"))?,
                )
            }
        };
        let header = Header {
            n: size(n, "n")?,
            direction: match direction {
                0 => Direction::Forward,
                1 => Direction::Inverse,
                d => return Err(format(format!("direction {d} is neither 0 nor 1"))),
            },
            coset,
            strategy: match (strategy, levels) {
                (0, 0) => Strategy::Dense,
                (1, 0) => Strategy::Factored { levels: None },
                (2, k) => Strategy::Factored {
                    levels: Some(size(k, "the level count")?),
                },
                _ => return Err(format("unknown strategy")),
            },
            order: if flag(order, "the input order")? {
                Order::BitReversed
            } else {
                Order::Natural
            },
            natural_output: flag(natural_output, "the natural output flag")?,
            per_execution: flag(per_execution, "the per-execution flag")?,
            keys: KeyPolicy {
                mode: if flag(mode, "the key mode")? {
                    KeyMode::MinimalKeys
                } else {
                    KeyMode::Fast
                },
                max_baby_steps: if max_baby == u64::MAX {
                    usize::MAX
                } else {
                    size(max_baby, "the baby step cap")?
                },
                executions: match executions {
                    0 => return Err(format("the execution count is 0")),
                    e => e,
                },
            },
            level: size(level, "the input level")?,
        };
        Ok((header, version))
    }

    /// `Ok` when `found` (a file's header) is this header; otherwise
    /// [`Error::PlanMismatch`] naming the first field that differs.
    fn compare(&self, found: &Self) -> Result<()> {
        let cap = |x: usize| {
            if x == usize::MAX {
                "no cap".to_string()
            } else {
                x.to_string()
            }
        };
        let runs = |x: u64| {
            if x == KeyPolicy::UNBOUNDED {
                "unbounded".to_string()
            } else {
                x.to_string()
            }
        };
        let coset = |g: Option<F>| g.map_or_else(|| "none".to_string(), |g| g.to_string());
        let fields: [(&'static str, String, String); 11] = [
            ("n", self.n.to_string(), found.n.to_string()),
            (
                "direction",
                format!("{:?}", self.direction),
                format!("{:?}", found.direction),
            ),
            ("coset", coset(self.coset), coset(found.coset)),
            (
                "strategy",
                format!("{:?}", self.strategy),
                format!("{:?}", found.strategy),
            ),
            (
                "input order",
                format!("{:?}", self.order),
                format!("{:?}", found.order),
            ),
            (
                "natural output",
                self.natural_output.to_string(),
                found.natural_output.to_string(),
            ),
            (
                "encode per execution",
                self.per_execution.to_string(),
                found.per_execution.to_string(),
            ),
            (
                "key mode",
                format!("{:?}", self.keys.mode),
                format!("{:?}", found.keys.mode),
            ),
            (
                "max baby steps",
                cap(self.keys.max_baby_steps),
                cap(found.keys.max_baby_steps),
            ),
            (
                "executions",
                runs(self.keys.executions),
                runs(found.keys.executions),
            ),
            (
                "input level",
                self.level.to_string(),
                found.level.to_string(),
            ),
        ];
        match fields.into_iter().find(|(_, a, b)| a != b) {
            Some((field, expected, found)) => Err(Error::PlanMismatch {
                field,
                expected,
                found,
            }),
            // Equal renderings of unequal values would be a bug.
            None if self != found => Err(Error::Internal("plan headers differ unnamed")),
            None => Ok(()),
        }
    }
}

impl<F: PrimeField + FftField> FftPlanBuilder<F> {
    /// A file name for the plan this builder makes, derived from everything
    /// the plan depends on (the context's fingerprint, F, n and every
    /// setting): plans of other parameters get other names. For a cache
    /// directory of saved plans ([`FftPlan::write_to`],
    /// [`load_from`](Self::load_from)). The name is a convenience, not a
    /// check: [`load_from`](Self::load_from) compares the file's header with
    /// this builder whatever the file is called.
    ///
    /// # Errors
    /// [`Error::InputLevelOutOfRange`] for an input level above the top; the
    /// engine's errors computing the fingerprint.
    pub fn plan_file_name(&self) -> Result<String> {
        let header = self.header()?;
        // FNV-1a over the header's words: a name, not a check.
        let hash = header
            .words(&self.context)?
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
        Ok(format!("fft-plan-n{}-{hash:016x}.plan", self.n))
    }

    /// The header of the plan this builder describes (its input level resolved).
    fn header(&self) -> Result<Header<F>> {
        let max = self.context.max_level();
        let level = self.level.unwrap_or(max);
        if level > max {
            return Err(Error::InputLevelOutOfRange { level, max });
        }
        Ok(Header {
            n: self.n,
            direction: self.direction,
            coset: self.coset,
            strategy: self.strategy,
            order: self.order,
            natural_output: self.natural_output,
            per_execution: self.per_execution,
            keys: self.keys,
            level,
        })
    }

    /// Loads the plan this builder describes from `input`, as
    /// [`FftPlan::write_to`] saved it, and verifies it before returning it:
    /// the spec is mandatory, and the file is trusted for nothing it claims
    /// (see the [crate docs on plan files](crate#what-a-plan-depends-on)).
    ///
    /// In order: the file's header is read and checked (format, version,
    /// context, field); compared with this builder (every setting the plan
    /// depends on, the input level resolved as [`build`](Self::build)
    /// resolves it); the builder's settings and memory limit are checked as
    /// [`build`](Self::build) checks them; the levels are read, streaming:
    /// each diagonal straight into the engine's buffer for it, piece by
    /// piece, each piece summed and range-checked while it is in cache (with
    /// two or more threads in the rayon pool in use, the next diagonals'
    /// buffers are allocated on another thread meanwhile); then every level
    /// is verified against the slot transforms this builder's plan is made
    /// of (in parallel on the context's threads), a random test of the
    /// residues included, drawn from the operating system's CSPRNG at each
    /// call. Pass the file itself rather than a `BufReader`: the large reads
    /// bypass any buffer. The loaded plan equals the built one (same
    /// [`describe`](FftPlan::describe), [`cost`](FftPlan::cost),
    /// [`required_galois_elements`](FftPlan::required_galois_elements) and
    /// results).
    ///
    /// # Errors
    /// [`Error::PlanFormat`] for bytes that are not a plan file, truncated
    /// or corrupted ones (checksum mismatch), out-of-range fields and levels
    /// whose shape is not the plan's; [`Error::PlanVersion`] for another
    /// format version; [`Error::PlanContextMismatch`] for a plan of other
    /// parameters; [`Error::PlanFieldMismatch`] for a plan over another
    /// field; [`Error::PlanMismatch`] for a plan of another spec than this
    /// builder's (the field named); [`Error::PlanVerification`] for levels
    /// that are not the plan's (a diagonal changed, swapped, of another
    /// plan); the builder's errors, as for [`build`](Self::build) (memory
    /// limit included); [`Error::Io`] when reading fails;
    /// [`Error::ThreadPool`] when the verification's threads cannot start;
    /// [`Error::He`] with [`helib_rs::Error::Randomness`] when the operating
    /// system's random source fails.
    pub fn load_from<R: Read>(&self, input: &mut R) -> Result<FftPlan<F>> {
        Ok(self.load_checked(input, None)?.0)
    }

    /// Loads the plan this builder describes from `input` as
    /// [`load_from`](Self::load_from) does, but accepts a file that `key`
    /// tagged ([`FftPlan::write_to_with_key`]) without recomputing its
    /// levels, and says which check it made.
    ///
    /// The file's header is checked and compared with this builder as
    /// always. Its bytes are fed to the MAC under `key` (GMAC-AES-256; the
    /// construction and the trust model are in `src/plan/gmac.rs` and
    /// `src/plan/io.rs`) as they are read, each piece right after it is
    /// read (no second pass); the MAC's result counts only when the file
    /// names `key`'s id. Then:
    /// - the file names `key` and its tag verifies: the plan is returned,
    ///   [`PlanCheck::Authenticated`] (only a holder of `key` can make that
    ///   tag: the file is one this key's owner saved, unchanged);
    /// - otherwise (no tag, another key's, a tag that fails: a file changed
    ///   after it was saved, or a file of format version 6, whose tags are
    ///   not checked), the levels are verified against the
    ///   spec as [`load_from`](Self::load_from) verifies them, and the plan
    ///   is returned only if they pass, [`PlanCheck::Recomputed`] with the
    ///   reason.
    ///
    /// # Errors
    /// As [`load_from`](Self::load_from); in particular
    /// [`Error::PlanVerification`] for a file whose tag failed and whose
    /// levels are not the plan's.
    pub fn load_with_key<R: Read>(
        &self,
        input: &mut R,
        key: &PlanKey,
    ) -> Result<(FftPlan<F>, PlanCheck)> {
        self.load_checked(input, Some(key))
    }

    /// [`load_with_key`](Self::load_with_key), or with no key
    /// [`load_from`](Self::load_from).
    fn load_checked<R: Read>(
        &self,
        input: &mut R,
        key: Option<&PlanKey>,
    ) -> Result<(FftPlan<F>, PlanCheck)> {
        let _span = tracing::info_span!("he_fft.plan_load", n = self.n).entered();
        // The MAC is fed from the first byte; the nonce it needs comes later.
        let running: Running = RefCell::new(key.map(Gmac::new));
        let mut reader = MacReader {
            inner: input,
            mac: &running,
        };
        let mut r = WordReader::new(&mut reader);
        let (found, version) = Header::<F>::read(&self.context, &mut r)?;
        self.header()?.compare(&found)?;
        let current = version == PLAN_FORMAT_VERSION;
        let tagged = match r.word().map_err(from_he)? {
            UNTAGGED => None,
            TAGGED => {
                let mut id = [0u64; 2];
                r.words(&mut id).map_err(from_he)?;
                let mut nonce = [0u8; NONCE_BYTES];
                if current {
                    let mut words = [0u64; 2];
                    r.words(&mut words).map_err(from_he)?;
                    let bytes = word_bytes::<16>(&words);
                    if bytes[NONCE_BYTES..].iter().any(|&b| b != 0) {
                        return Err(format("the nonce's padding is not zero"));
                    }
                    nonce.copy_from_slice(&bytes[..NONCE_BYTES]);
                }
                Some((word_bytes::<16>(&id), nonce))
            }
            other => return Err(format(format!("tag marker {other} is neither 0 nor 1"))),
        };
        r.checkpoint().map_err(from_he)?;
        let mut unauthenticated = match (key, tagged) {
            (None, _) => Some(Unauthenticated::NoKey),
            (Some(_), _) if !current => Some(Unauthenticated::OlderVersion),
            (Some(_), None) => Some(Unauthenticated::Untagged),
            (Some(key), Some((id, _))) if id != key.id() => Some(Unauthenticated::OtherKey),
            (Some(_), Some(_)) => None,
        };
        if unauthenticated.is_some() {
            // No tag to check: stop feeding the MAC.
            running.replace(None);
        } else {
            // The tag covers every byte from here on: the checksum would be
            // a second pass over them. A changed file fails the tag and is
            // verified, so it is refused all the same.
            r.skip_checkpoints();
        }
        let settings = self.settings()?;
        let memory = self.estimate(&settings)?;
        if let Some(limit) = self.memory_limit.or_else(available_memory_bytes) {
            if memory.peak_bytes() > limit {
                return Err(Error::InsufficientMemory {
                    estimated: memory.peak_bytes(),
                    limit,
                });
            }
        }
        let pipeline = self.read_pipeline(&settings, &mut r)?;
        if r.word().map_err(from_he)? != END {
            return Err(format("the plan does not end where its levels do"));
        }
        r.checkpoint().map_err(from_he)?;
        if let Some((_, nonce)) = tagged {
            let computed = running.take().map(|mac| mac.finalize(&nonce));
            if !current {
                // A version 6 tag: read, never checked.
                r.words(&mut [0u64; V6_TAG_WORDS]).map_err(from_he)?;
            } else {
                let mut stored = [0u64; TAG_BYTES / 8];
                r.words(&mut stored).map_err(from_he)?;
                if let Some(computed) = computed {
                    if !tags_equal(&computed, &word_bytes::<TAG_BYTES>(&stored)) {
                        unauthenticated = Some(Unauthenticated::TagMismatch);
                    }
                }
            }
        }
        let check = match unauthenticated {
            None => PlanCheck::Authenticated,
            Some(why) => {
                in_pool(&self.context, || self.verify(&settings, &pipeline))?;
                PlanCheck::Recomputed(why)
            }
        };
        tracing::debug!(check = check.as_str(), "plan file checked");
        Ok((self.clone().finish(settings, memory, pipeline), check))
    }

    /// Reads the pipeline of the plan with `settings` (after the header),
    /// checking each level's shape against the plan's.
    fn read_pipeline<R: Read>(
        &self,
        settings: &Settings<F>,
        r: &mut WordReader<&mut R>,
    ) -> Result<Pipeline<F>> {
        let context = &self.context;
        let shape = self.shape(settings);
        let slots = context.ring_degree();
        let n = self.n;
        let tag = r.word().map_err(from_he)?;
        let levels = &shape.levels;
        let policy = self.schedule_policy();
        let mode = self.keys.mode;
        let check = |i: usize, level: usize, schedule: &Schedule, count: usize| -> Result<()> {
            let expected = &levels[i];
            let wanted = policy.schedule_for_shape(slots / 2, &expected.shape);
            if level != expected.level
                || schedule.mode() != mode
                || count > expected.shape.len()
                || (count == expected.shape.len() && *schedule != wanted)
            {
                return Err(format(format!(
                    "level {i} of the plan does not match the plan's parameters"
                )));
            }
            Ok(())
        };
        let encoded = |r: &mut WordReader<&mut R>, i: usize| -> Result<EncodedTransform> {
            let t = EncodedTransform::read_from(context, r).map_err(from_he)?;
            check(i, t.level(), t.schedule(), t.multiplications())?;
            Ok(t)
        };
        if n > slots {
            let groups = n / slots;
            if tag != SPLIT || r.word().map_err(from_he)? != groups as u64 {
                return Err(format("the pipeline does not match the plan's parameters"));
            }
            let forward = self.direction == Direction::Forward;
            let own = if forward { 0 } else { levels.len() - 1 };
            let plain = r.flag("the twiddled levels' form").map_err(from_he)?;
            if plain != self.per_execution {
                return Err(format(
                    "the twiddled levels' form does not match the plan's parameters",
                ));
            }
            let twiddled = if plain {
                Twiddled::Plain(
                    (0..groups)
                        .map(|_| {
                            let t = PlainTransform::read_from(context, r).map_err(from_he)?;
                            check(own, t.level(), t.schedule(), t.multiplications())?;
                            Ok(t)
                        })
                        .collect::<Result<_>>()?,
                )
            } else {
                Twiddled::Encoded(
                    (0..groups)
                        .map(|_| encoded(r, own))
                        .collect::<Result<_>>()?,
                )
            };
            if r.word().map_err(from_he)? != (levels.len() - 1) as u64 {
                return Err(format(
                    "the shared level count does not match the plan's parameters",
                ));
            }
            let shared = (0..levels.len())
                .filter(|&i| i != own)
                .map(|i| encoded(r, i))
                .collect::<Result<_>>()?;
            let (omega, g) = split_roots(n, self.direction, self.coset)?;
            Ok(Pipeline::Split(SplitRun {
                groups,
                across_first: forward,
                across_scalars: across_scalars(omega, g, groups, slots, forward),
                twiddled,
                shared,
            }))
        } else if self.strategy == Strategy::Dense {
            if tag != DENSE {
                return Err(format("the pipeline does not match the plan's parameters"));
            }
            Ok(Pipeline::Dense(self.dense_run(settings)?))
        } else {
            if tag != LEVELS || r.word().map_err(from_he)? != levels.len() as u64 {
                return Err(format("the pipeline does not match the plan's parameters"));
            }
            Ok(Pipeline::Levels(
                (0..levels.len())
                    .map(|i| encoded(r, i))
                    .collect::<Result<_>>()?,
            ))
        }
    }
}

impl<F: PrimeField + FftField> FftPlan<F> {
    fn header(&self) -> Header<F> {
        Header {
            n: self.n,
            direction: self.direction,
            coset: self.coset,
            strategy: self.strategy,
            order: self.order,
            natural_output: self.natural_output,
            per_execution: self.per_execution,
            keys: self.keys,
            level: self.level,
        }
    }

    /// Saves the plan to `out`, one diagonal at a time (no second copy of
    /// the plan is made). The bytes depend only on public data (see the
    /// [crate docs on plans](crate#what-a-plan-depends-on)); load them with
    /// [`FftPlanBuilder::load_from`] on the builder of the same plan. `out` is buffered inside for the small
    /// fields, and each diagonal's residues are written from the engine's
    /// buffer without a copy, so pass the file itself.
    ///
    /// # Errors
    /// [`Error::Io`] when writing fails; [`Error::He`] when the engine fails.
    pub fn write_to<W: Write>(&self, out: &mut W) -> Result<()> {
        self.write(out, None)
    }

    /// Saves the plan to `out` as [`write_to`](Self::write_to) does, with
    /// `key`'s id, a nonce drawn from the operating system's CSPRNG and the
    /// GMAC tag under `key` of every byte before the tag (computed as the
    /// bytes go out; two saves of one plan differ in their nonces and tags):
    /// loaded with the same key
    /// ([`FftPlanBuilder::load_with_key`]), the file is accepted on its tag
    /// instead of being verified by recomputation. Only save plans that
    /// were built or loaded by this crate: the tag vouches for the file.
    ///
    /// # Errors
    /// As [`write_to`](Self::write_to); [`Error::He`] with
    /// [`helib_rs::Error::Randomness`] when the random source fails.
    pub fn write_to_with_key<W: Write>(&self, out: &mut W, key: &PlanKey) -> Result<()> {
        self.write(out, Some(key))
    }

    /// [`write_to`](Self::write_to), tagged under `key` when there is one.
    fn write<W: Write>(&self, out: &mut W, key: Option<&PlanKey>) -> Result<()> {
        let _span = tracing::info_span!("he_fft.plan_save", n = self.n).entered();
        let nonce = key.map(|_| fresh_nonce()).transpose()?;
        let running: Running = RefCell::new(key.map(Gmac::new));
        let mut writer = MacWriter {
            inner: out,
            mac: &running,
        };
        let mut w = WordWriter::new(&mut writer);
        w.words(&self.header().words(&self.context)?)
            .map_err(from_he)?;
        w.checkpoint().map_err(from_he)?;
        match key {
            Some(key) => {
                w.word(TAGGED).map_err(from_he)?;
                w.words(&byte_words(&key.id())).map_err(from_he)?;
                w.words(&byte_words(&nonce.unwrap_or_default()))
                    .map_err(from_he)?;
            }
            None => w.word(UNTAGGED).map_err(from_he)?,
        }
        w.checkpoint().map_err(from_he)?;
        match &self.pipeline {
            Pipeline::Levels(levels) => {
                w.words(&[LEVELS, levels.len() as u64]).map_err(from_he)?;
                for t in levels {
                    t.write_to(&mut w).map_err(from_he)?;
                }
            }
            Pipeline::Dense(_) => w.word(DENSE).map_err(from_he)?,
            Pipeline::Split(split) => {
                w.words(&[SPLIT, split.groups as u64]).map_err(from_he)?;
                match &split.twiddled {
                    Twiddled::Encoded(ts) => {
                        w.word(0).map_err(from_he)?;
                        for t in ts {
                            t.write_to(&mut w).map_err(from_he)?;
                        }
                    }
                    Twiddled::Plain(ts) => {
                        w.word(1).map_err(from_he)?;
                        for t in ts {
                            t.write_to(&mut w).map_err(from_he)?;
                        }
                    }
                }
                w.word(split.shared.len() as u64).map_err(from_he)?;
                for t in &split.shared {
                    t.write_to(&mut w).map_err(from_he)?;
                }
            }
        }
        w.word(END).map_err(from_he)?;
        w.checkpoint().map_err(from_he)?;
        // Every byte before the tag goes through the MAC.
        w.flush().map_err(from_he)?;
        if let (Some(mac), Some(nonce)) = (running.take(), nonce) {
            w.words(&byte_words(&mac.finalize(&nonce)))
                .map_err(from_he)?;
            w.flush().map_err(from_he)?;
        }
        Ok(())
    }
}
