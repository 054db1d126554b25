//! A session: the parameters, parties and id every share is checked
//! against, the common reference seeds, the aggregators of each step
//! (in `aggregate`) and the public finishing steps of each protocol.

use helib_rs::threshold::{self as engine, Smudging};
use helib_rs::{Ciphertext, Context, GaloisKeys, Plaintext, PublicKey, RelinKey};
use sha2::{Digest, Sha256};

use crate::aggregate::{Aggregate, Aggregator};
use crate::error::{Error, Result};
use crate::message::{Binding, Step};
use crate::relin::{CommitmentCollector, Commitments};
use crate::shamir::ActiveSet;

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

    /// The common reference seed of `run` and `step`: SHA-256 of the session
    /// id, the run and the step. Public, and distinct for every run, so no
    /// common polynomial is ever used twice.
    pub fn crs_seed(&self, run: u64, step: Step) -> engine::Seed {
        let mut h = Sha256::new();
        h.update(b"he-threshold common reference seed");
        h.update(self.id);
        h.update(run.to_le_bytes());
        h.update(step.id_bytes());
        h.finalize().into()
    }

    /// The digest of a ciphertext to which shares on it are bound (see
    /// [`helib_rs::threshold::ciphertext_digest`]).
    ///
    /// # Errors
    /// [`Error::Engine`] for an empty ciphertext.
    pub fn ciphertext_digest(ciphertext: &Ciphertext) -> Result<[u8; 32]> {
        Ok(engine::ciphertext_digest(ciphertext)?)
    }

    /// The binding of a share for `step` of `run` on `ciphertext`.
    pub(crate) fn binding_on(
        &self,
        run: u64,
        step: Step,
        ciphertext: &Ciphertext,
    ) -> Result<Binding> {
        Ok(Binding {
            run,
            step,
            level: ciphertext.level() as u32,
            subject: Self::ciphertext_digest(ciphertext)?,
            active: [0u8; 32],
        })
    }

    /// The binding of a key-generation share.
    pub(crate) fn binding_for_key(&self, run: u64, step: Step) -> Binding {
        Binding {
            run,
            step,
            level: self.context.max_level() as u32,
            subject: [0u8; 32],
            active: [0u8; 32],
        }
    }

    /// An aggregator for key-generation `step` of `run` (round 1 of the
    /// relinearization key has its own,
    /// [`relin_round1_aggregator`](Self::relin_round1_aggregator)).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `step` is not a key-generation step
    /// or is [`Step::RelinRound1`].
    pub fn key_aggregator(&self, run: u64, step: Step) -> Result<Aggregator> {
        if step == Step::RelinRound1 {
            return Err(Error::InvalidArgument(
                "round 1 of the relinearization key is aggregated from openings of commitments: \
                 use relin_round1_aggregator"
                    .into(),
            ));
        }
        if !step.is_key_generation() {
            return Err(Error::InvalidArgument(format!(
                "{step:?} is not a key-generation step"
            )));
        }
        Aggregator::new(self, self.binding_for_key(run, step))
    }

    /// Collects the parties' commitments to their round-1 relinearization
    /// shares of `run` ([`Party::relin_key_commit`](crate::Party::relin_key_commit)).
    pub fn relin_commitments(&self, run: u64) -> CommitmentCollector {
        CommitmentCollector::new(self, run)
    }

    /// An aggregator for the round-1 openings under `commitments`
    /// ([`Aggregator::add_opening`]): each opening is checked against its
    /// sender's commitment before it is added, and the aggregate is bound to
    /// the set's digest.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a commitment set of another session.
    pub fn relin_round1_aggregator(&self, commitments: &Commitments) -> Result<Aggregator> {
        if !commitments.belongs_to(self) {
            return Err(Error::InvalidArgument(
                "the commitment set belongs to another session".into(),
            ));
        }
        let mut binding = self.binding_for_key(commitments.run(), Step::RelinRound1);
        binding.subject = commitments.digest();
        let mut agg = Aggregator::new(self, binding)?;
        agg.commitments = Some(commitments.clone());
        Ok(agg)
    }

    /// An aggregator for `step` of `run` on `ciphertext` (decryption,
    /// encryption to shares, key switching).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `step` does not work on a ciphertext.
    pub fn ciphertext_aggregator(
        &self,
        run: u64,
        step: Step,
        ciphertext: &Ciphertext,
    ) -> Result<Aggregator> {
        if !matches!(
            step,
            Step::Decrypt | Step::EncryptionToShares | Step::KeySwitch
        ) {
            return Err(Error::InvalidArgument(format!(
                "{step:?} does not work on a ciphertext"
            )));
        }
        self.context
            .same_as(ciphertext.context())
            .then_some(())
            .ok_or(helib_rs::Error::ContextMismatch)?;
        Aggregator::new(self, self.binding_on(run, step, ciphertext)?)
    }

    /// An aggregator for `step` of `run` on `ciphertext` among the members
    /// of `active` (t-out-of-N): it takes shares of members only, computed
    /// for this active set, and needs one from every member.
    ///
    /// # Errors
    /// As [`ciphertext_aggregator`](Self::ciphertext_aggregator);
    /// [`Error::InvalidArgument`] for an active set of another session.
    pub fn active_aggregator(
        &self,
        run: u64,
        step: Step,
        ciphertext: &Ciphertext,
        active: &ActiveSet,
    ) -> Result<Aggregator> {
        self.check_active_set(active)?;
        let mut agg = self.ciphertext_aggregator(run, step, ciphertext)?;
        agg.binding.active = *active.digest();
        agg.members = Some(active.members().iter().copied().collect());
        Ok(agg)
    }

    /// An aggregator for shares to encryption of `run` at `level` among the
    /// members of `active` (t-out-of-N): shares of members only, made for
    /// this set, one from every member.
    ///
    /// # Errors
    /// As [`shares_to_encryption_aggregator`](Self::shares_to_encryption_aggregator);
    /// [`Error::InvalidArgument`] for an active set of another session.
    pub fn active_shares_to_encryption_aggregator(
        &self,
        run: u64,
        level: usize,
        active: &ActiveSet,
    ) -> Result<Aggregator> {
        self.check_active_set(active)?;
        let mut agg = self.shares_to_encryption_aggregator(run, level)?;
        agg.binding.active = *active.digest();
        agg.members = Some(active.members().iter().copied().collect());
        Ok(agg)
    }

    /// An aggregator for shares to encryption of `run` at `level`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a level above the top.
    pub fn shares_to_encryption_aggregator(&self, run: u64, level: usize) -> Result<Aggregator> {
        if level > self.context.max_level() {
            return Err(Error::InvalidArgument(format!(
                "level {level} is above the top level"
            )));
        }
        Aggregator::new(
            self,
            Binding {
                run,
                step: Step::SharesToEncryption,
                level: level as u32,
                subject: [0u8; 32],
                active: [0u8; 32],
            },
        )
    }

    fn check_active_set(&self, active: &ActiveSet) -> Result<()> {
        if active.session_id() != &self.id || active.parties() != self.parties {
            return Err(Error::InvalidArgument(
                "the active set belongs to another session".into(),
            ));
        }
        Ok(())
    }

    pub(crate) fn expect(&self, aggregate: &Aggregate, step: Step) -> Result<()> {
        if aggregate.session != self.id || aggregate.fingerprint != self.fingerprint {
            return Err(Error::InvalidArgument(
                "the aggregate belongs to another session".into(),
            ));
        }
        if aggregate.binding.step != step {
            return Err(Error::InvalidArgument(format!(
                "expected an aggregate of {step:?}, got one of {:?}",
                aggregate.binding.step
            )));
        }
        Ok(())
    }

    fn expect_on(&self, aggregate: &Aggregate, step: Step, ciphertext: &Ciphertext) -> Result<()> {
        self.expect(aggregate, step)?;
        let mut binding = self.binding_on(aggregate.binding.run, step, ciphertext)?;
        binding.active = aggregate.binding.active;
        if binding != aggregate.binding {
            return Err(Error::InvalidArgument(format!(
                "the aggregate is for {}, not for this ciphertext ({binding})",
                aggregate.binding
            )));
        }
        Ok(())
    }

    /// The collective public key.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an aggregate of another step or session.
    pub fn public_key(&self, aggregate: &Aggregate) -> Result<PublicKey> {
        self.expect(aggregate, Step::PublicKey)?;
        let seed = self.crs_seed(aggregate.binding.run, Step::PublicKey);
        Ok(engine::public_key_assemble(
            &self.context,
            &seed,
            &aggregate.sums[0],
        )?)
    }

    /// The collective relinearization key from the aggregates of both rounds
    /// (of the same run). Its noise estimate accounts for the session's
    /// parties, and it serializes like a single-party key (in full, as its
    /// `a` polynomials are not expanded from seeds).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for aggregates of other steps, runs or sessions.
    pub fn relin_key(&self, round1: &Aggregate, round2: &Aggregate) -> Result<RelinKey> {
        self.expect(round1, Step::RelinRound1)?;
        self.expect(round2, Step::RelinRound2)?;
        if round1.binding.run != round2.binding.run {
            return Err(Error::InvalidArgument(
                "the two rounds belong to different runs".into(),
            ));
        }
        Ok(engine::relin_key_assemble(
            &self.context,
            self.parties,
            &round2.sums[0],
            &round1.sums[1],
        )?)
    }

    /// Adds the collective Galois key of an aggregate to `keys`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an aggregate of another step or session.
    pub fn insert_galois_key(&self, keys: &mut GaloisKeys, aggregate: &Aggregate) -> Result<()> {
        let Step::GaloisKey { element } = aggregate.binding.step else {
            return Err(Error::InvalidArgument(
                "not an aggregate of Galois key shares".into(),
            ));
        };
        self.expect(aggregate, aggregate.binding.step)?;
        self.context
            .same_as(keys.context())
            .then_some(())
            .ok_or(helib_rs::Error::ContextMismatch)?;
        let seed = self.crs_seed(aggregate.binding.run, aggregate.binding.step);
        Ok(engine::galois_keys_insert(
            keys,
            element,
            &seed,
            self.parties,
            &aggregate.sums[0],
        )?)
    }

    /// The plaintext of `ciphertext` from the aggregate of decryption shares.
    ///
    /// # Errors
    /// [`Error::InconsistentShares`] when the shares do not decrypt (one was
    /// not computed honestly on this ciphertext); [`Error::InvalidArgument`]
    /// for an aggregate of another step, ciphertext or session.
    pub fn decrypt(
        &self,
        ciphertext: &Ciphertext,
        aggregate: &Aggregate,
        smudging: &Smudging,
    ) -> Result<Plaintext> {
        self.combine_decryption(ciphertext, aggregate, smudging, Step::Decrypt)
    }

    /// The public value `m − Σ S_i` of encryption to shares (uniformly
    /// random to anyone without the parties' shares `S_i`); the designated
    /// party adds it to its share with [`AdditiveShare::absorb_opening`](crate::AdditiveShare::absorb_opening).
    ///
    /// # Errors
    /// As [`decrypt`](Self::decrypt).
    pub fn open_masked(
        &self,
        ciphertext: &Ciphertext,
        aggregate: &Aggregate,
        smudging: &Smudging,
    ) -> Result<Plaintext> {
        self.combine_decryption(ciphertext, aggregate, smudging, Step::EncryptionToShares)
    }

    /// `ciphertext`'s phase with the aggregated shares of `step` taken off.
    fn combine_decryption(
        &self,
        ciphertext: &Ciphertext,
        aggregate: &Aggregate,
        smudging: &Smudging,
        step: Step,
    ) -> Result<Plaintext> {
        self.expect_on(aggregate, step, ciphertext)?;
        self.check_smudging(smudging)?;
        engine::decrypt_combine(ciphertext, smudging, &aggregate.sums[0])
            .map_err(Error::from_combine)
    }

    /// The fresh ciphertext (under the collective key) of the sum of the
    /// parties' additive shares.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an aggregate of another step or session.
    pub fn shares_to_encryption(&self, aggregate: &Aggregate) -> Result<Ciphertext> {
        self.expect(aggregate, Step::SharesToEncryption)?;
        let seed = self.crs_seed(aggregate.binding.run, Step::SharesToEncryption);
        Ok(engine::s2e_assemble(
            &self.context,
            &seed,
            aggregate.binding.level as usize,
            self.parties,
            &aggregate.sums[0],
        )?)
    }

    /// `ciphertext` re-encrypted under the target public key of the shares.
    ///
    /// # Errors
    /// As [`decrypt`](Self::decrypt) for the aggregate; [`Error::Engine`] when
    /// the result would not fit the noise budget.
    pub fn key_switch(
        &self,
        ciphertext: &Ciphertext,
        aggregate: &Aggregate,
        smudging: &Smudging,
    ) -> Result<Ciphertext> {
        self.expect_on(aggregate, Step::KeySwitch, ciphertext)?;
        self.check_smudging(smudging)?;
        Ok(engine::key_switch_assemble(
            ciphertext,
            smudging,
            &aggregate.sums[0],
            &aggregate.sums[1],
        )?)
    }
}
