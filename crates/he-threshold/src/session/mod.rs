//! A session: the parameters, parties and id every share is checked
//! against, the common reference seeds, the aggregators of each step
//! (in `aggregate`) and the public finishing steps of each protocol.

use helib_rs::threshold::{self as engine, Smudging};
use helib_rs::{Ciphertext, Context};

use crate::error::{Error, Result};

mod aggregators;
mod binding;
mod finish;

/// The default statistical security of the smudging noise: 40 bits (the
/// distribution of a released share is within statistical distance 2^-40 of
/// one that does not depend on the ciphertext's noise).
pub const DEFAULT_SECURITY_BITS: u32 = 40;

/// The most parties a session may have: the engine's bound on every
/// threshold protocol ([`helib_rs::noise::MAX_PARTIES`]).
pub const MAX_PARTIES: u32 = helib_rs::noise::MAX_PARTIES;

/// What every party and the aggregator agree on before a protocol runs: the
/// context (checked by its fingerprint), a session id (fresh for every
/// session, e.g. random), the number of parties and the statistical security
/// parameter of the smudging noise.
#[derive(Clone)]
pub struct Session {
    context: Context,
    fingerprint: [u8; 32],
    id: [u8; 32],
    parties: u32,
    security_bits: u32,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("parties", &self.parties)
            .field("security_bits", &self.security_bits)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// A session of `parties` parties (N-out-of-N) over `context`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 or more than
    /// [`MAX_PARTIES`] parties.
    pub fn new(context: &Context, id: [u8; 32], parties: u32) -> Result<Self> {
        if !(2..=MAX_PARTIES).contains(&parties) {
            return Err(Error::InvalidArgument(format!(
                "a session has between 2 and {MAX_PARTIES} parties, not {parties}"
            )));
        }
        Ok(Self {
            context: context.clone(),
            fingerprint: context.fingerprint()?,
            id,
            parties,
            security_bits: DEFAULT_SECURITY_BITS,
        })
    }

    /// Sets the statistical security parameter λ of the smudging noise (default 40).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] outside `1..=128`.
    pub fn with_security_bits(mut self, bits: u32) -> Result<Self> {
        if !(1..=128).contains(&bits) {
            return Err(Error::InvalidArgument(format!(
                "the statistical security parameter must be in 1..=128 bits, not {bits}"
            )));
        }
        self.security_bits = bits;
        Ok(self)
    }

    /// The context.
    pub fn context(&self) -> &Context {
        &self.context
    }
    /// The number of parties.
    pub fn parties(&self) -> u32 {
        self.parties
    }
    /// The session id.
    pub fn id(&self) -> &[u8; 32] {
        &self.id
    }
    /// The context fingerprint every share must carry.
    pub fn fingerprint(&self) -> &[u8; 32] {
        &self.fingerprint
    }
    /// The statistical security parameter of the smudging noise.
    pub fn security_bits(&self) -> u32 {
        self.security_bits
    }

    /// The smudging every party applies to its shares on a ciphertext at
    /// `level`: sized for the session's parties and λ and for the most noise
    /// a ciphertext at `level` can carry and still be decrypted collectively
    /// ([`Smudging::for_level`]). It depends on the parameters and the level
    /// alone, so whoever hands a party a ciphertext cannot narrow it; the
    /// level is the one the agreed computation ends at, and a ciphertext at
    /// any other is refused. A tighter bound the parties agreed on (the noise
    /// model of their computation) is [`Smudging::with_noise_bound`].
    ///
    /// # Errors
    /// [`Error::Engine`] with `NoiseBudgetExhausted` when the level cannot
    /// hold the smudging; an invalid level.
    pub fn smudging(&self, level: usize) -> Result<Smudging> {
        Ok(Smudging::for_level(
            &self.context,
            self.parties,
            self.security_bits,
            level,
        )?)
    }

    /// Refuses a smudging spec for another number of parties or a lower λ
    /// than the session's (t-out-of-N keeps the smudging of all N parties).
    pub(crate) fn check_smudging(&self, smudging: &Smudging) -> Result<()> {
        if smudging.parties() != self.parties || smudging.security_bits() < self.security_bits {
            return Err(Error::InvalidArgument(format!(
                "the smudging is sized for {} parties at 2^-{}, the session has {} parties at 2^-{}",
                smudging.parties(),
                smudging.security_bits(),
                self.parties,
                self.security_bits
            )));
        }
        Ok(())
    }

    /// The digest of a ciphertext to which shares on it are bound (see
    /// [`helib_rs::threshold::ciphertext_digest`]).
    ///
    /// # Errors
    /// [`Error::Engine`] for an empty ciphertext.
    pub fn ciphertext_digest(ciphertext: &Ciphertext) -> Result<[u8; 32]> {
        Ok(engine::ciphertext_digest(ciphertext)?)
    }
}
