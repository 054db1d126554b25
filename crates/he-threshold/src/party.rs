//! One party: its secret share of the collective key and the shares it
//! sends in each protocol.

use helib_rs::threshold::{self as engine, PartySecret, Smudging};
use helib_rs::{Ciphertext, Plaintext, PublicKey, RelinKey, SecretKey};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::aggregate::Aggregate;
use crate::error::{Error, Result};
use crate::message::{Binding, ShareMessage, Step};
use crate::product::SwitchedProduct;
use crate::relin::{self, Commitment, Commitments, Opening};
use crate::session::Session;
use crate::share_methods::share_methods;

/// A party of a session: index `0..parties` and its secret share `s_i` of the
/// collective secret `s = Σ s_i` (an ordinary secret key, wiped when dropped).
pub struct Party {
    session: Session,
    index: u32,
    secret: SecretKey,
    /// The relinearization-key run in progress, between its steps.
    relin: Option<RelinRun>,
}

/// Where a party's relinearization-key run stands: its ephemeral secret
/// (wiped when dropped) and either its committed round-1 share, not sent
/// yet, or the digest of the commitment set it opened under.
struct RelinRun {
    run: u64,
    ephemeral: SecretKey,
    stage: RelinStage,
}

enum RelinStage {
    Committed {
        share: Box<ShareMessage>,
        /// The share message's checksum, which the commitment covers.
        checksum: [u8; 32],
        nonce: [u8; 32],
        digest: [u8; 32],
    },
    Opened {
        commitments: [u8; 32],
    },
}

impl std::fmt::Debug for Party {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Party")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

/// A party's additive share of a plaintext (coefficients in Z_t): the shares
/// of all parties sum to the plaintext. Secret: its coefficients are
/// overwritten with zeros when it is dropped ([`ZeroizeOnDrop`]), and
/// [`absorb_opening`](Self::absorb_opening) adds in place, leaving no copy.
#[derive(Clone, PartialEq, Eq, Zeroize, ZeroizeOnDrop)]
pub struct AdditiveShare {
    plaintext: Plaintext,
}

impl std::fmt::Debug for AdditiveShare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdditiveShare(..)")
    }
}

impl AdditiveShare {
    /// A share from its coefficients.
    pub fn new(plaintext: Plaintext) -> Self {
        Self { plaintext }
    }
    /// The share as a plaintext polynomial.
    pub fn plaintext(&self) -> &Plaintext {
        &self.plaintext
    }
    /// The designated party's step of encryption to shares: adds the opened
    /// value `m − Σ S_i` to its own share.
    ///
    /// # Errors
    /// [`Error::Engine`] for a plaintext of another context.
    pub fn absorb_opening(&mut self, opening: &Plaintext) -> Result<()> {
        Ok(self.plaintext.add_assign_mod_t(opening)?)
    }
    /// The sum of shares (reconstruction; for tests and for whoever is meant
    /// to learn the value).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no shares; [`Error::Engine`] for shares of different contexts.
    pub fn reconstruct(shares: &[AdditiveShare]) -> Result<Plaintext> {
        let (first, rest) = shares
            .split_first()
            .ok_or_else(|| Error::InvalidArgument("no shares to reconstruct".into()))?;
        let mut sum = first.plaintext.clone();
        for share in rest {
            sum.add_assign_mod_t(&share.plaintext)?;
        }
        Ok(sum)
    }
}

impl Party {
    /// Party `index` of `session`, with a fresh secret share.
    ///
    /// # Errors
    /// [`Error::UnknownParty`] for an index outside the session; the engine's
    /// error when the OS random source fails.
    pub fn new(session: &Session, index: u32) -> Result<Self> {
        if index >= session.parties() {
            return Err(Error::UnknownParty {
                party: index,
                parties: session.parties(),
            });
        }
        Ok(Self {
            session: session.clone(),
            index,
            secret: SecretKey::generate(session.context())?,
            relin: None,
        })
    }

    /// A party restored from its exported state (see `secret_export`).
    pub(crate) fn from_parts(session: &Session, index: u32, secret: SecretKey) -> Self {
        Self {
            session: session.clone(),
            index,
            secret,
            relin: None,
        }
    }

    /// The relinearization-key run in progress, if any: its run number and
    /// whether the party has committed or already opened.
    pub(crate) fn relin_run_in_progress(&self) -> Option<(u64, &'static str)> {
        self.relin.as_ref().map(|r| {
            let stage = match r.stage {
                RelinStage::Committed { .. } => "committed to",
                RelinStage::Opened { .. } => "opened",
            };
            (r.run, stage)
        })
    }

    /// Drops the relinearization-key run in progress, if any, wiping its
    /// ephemeral secret, and returns its run number. For a run that will not
    /// be finished (another party or the server failed), since a party in
    /// the middle of a run refuses to export its state
    /// ([`export_secret`](Self::export_secret)). A dropped run cannot be
    /// resumed: the key needs a new run, with fresh commitments from every
    /// party.
    pub fn abandon_relin_key_run(&mut self) -> Option<u64> {
        self.relin.take().map(|r| r.run)
    }

    /// The party's session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The party's index.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The party's secret share (for tests against the single-key scheme
    /// and for local use; never send it).
    pub fn secret_share(&self) -> &SecretKey {
        &self.secret
    }

    fn message(&self, binding: Binding, polynomials: Vec<Vec<u64>>) -> ShareMessage {
        share_message(&self.session, self.index, binding, polynomials)
    }

    fn key_binding(&self, run: u64, step: Step) -> Binding {
        self.session.binding_for_key(run, step)
    }

    /// The party's share of the collective public key (run `run`).
    ///
    /// # Errors
    /// The engine's error when the OS random source fails.
    pub fn public_key_share(&self, run: u64) -> Result<ShareMessage> {
        let seed = self.session.crs_seed(run, Step::PublicKey);
        let b = engine::public_key_share(&self.secret, &seed)?;
        Ok(self.message(self.key_binding(run, Step::PublicKey), vec![b]))
    }

    /// Round 1 of the collective relinearization key, first step: the party
    /// computes its round-1 share and keeps it (with a fresh ephemeral
    /// secret) until every party has committed; it sends only the
    /// commitment. Starting a new run drops an unfinished one.
    ///
    /// # Errors
    /// The engine's error (no special primes, randomness).
    pub fn relin_key_commit(&mut self, run: u64) -> Result<Commitment> {
        self.relin = None;
        let ephemeral = SecretKey::generate(self.session.context())?;
        let seed = self.session.crs_seed(run, Step::RelinRound1);
        let (h0, h1) = engine::relin_key_round1(&self.secret, &ephemeral, &seed)?;
        let share = self.message(self.key_binding(run, Step::RelinRound1), vec![h0, h1]);
        let nonce = relin::fresh_nonce()?;
        // The one pass over the share's residues: the checksum its opening
        // will carry, which the commitment covers.
        let checksum = share.checksum();
        let digest = relin::commitment_digest(&share, &checksum, &nonce);
        self.relin = Some(RelinRun {
            run,
            ephemeral,
            stage: RelinStage::Committed {
                share: Box::new(share),
                checksum,
                nonce,
                digest,
            },
        });
        Ok(Commitment {
            fingerprint: *self.session.fingerprint(),
            session: *self.session.id(),
            party: self.index,
            run,
            digest,
        })
    }

    /// Round 1, second step: once every party's commitment is in
    /// `commitments`, the party opens its own, bound to the set (the set's
    /// digest in the opening's header). The share and its checksum are those
    /// committed to: nothing is hashed again.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] without a committed round 1 of the set's
    /// run, for a set of another session, or one whose entry for this party
    /// is not the commitment it sent (nothing is released).
    pub fn relin_key_open(&mut self, commitments: &Commitments) -> Result<Opening> {
        if !commitments.belongs_to(&self.session) {
            return Err(Error::InvalidArgument(
                "the commitment set belongs to another session".into(),
            ));
        }
        let index = self.index;
        let run = commitments.run();
        let Some(state) = self.relin.as_mut().filter(|r| r.run == run) else {
            return Err(Error::InvalidArgument(format!(
                "party {index} has no round 1 of run {run} in progress"
            )));
        };
        let set = commitments.digest();
        let stage = std::mem::replace(&mut state.stage, RelinStage::Opened { commitments: set });
        let RelinStage::Committed {
            share,
            checksum,
            nonce,
            digest,
        } = stage
        else {
            state.stage = stage;
            return Err(Error::InvalidArgument(format!(
                "party {index} has already opened its round 1 of run {run}"
            )));
        };
        if commitments.of(index) != Some(&digest) {
            state.stage = RelinStage::Committed {
                share,
                checksum,
                nonce,
                digest,
            };
            return Err(Error::InvalidArgument(format!(
                "the commitment set does not hold party {index}'s commitment"
            )));
        }
        Ok(Opening::with_checksum(nonce, set, *share, checksum))
    }

    /// Round 2 of the collective relinearization key, from the aggregate of
    /// the round-1 openings of this party's session and run, under the
    /// commitment set it opened under. The ephemeral secret is dropped (wiped).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] without an opened round 1 of this run, or
    /// for an aggregate of another session, step or commitment set (nothing
    /// is released); the engine's error for sums no honest round 1 produces.
    pub fn relin_key_round2(&mut self, round1: &Aggregate) -> Result<ShareMessage> {
        self.session.expect(round1, Step::RelinRound1)?;
        let run = round1.binding().run;
        let index = self.index;
        let state = match self.relin.take() {
            Some(state) if state.run == run => state,
            other => {
                self.relin = other;
                return Err(Error::InvalidArgument(format!(
                    "party {index} has no round 1 of run {run} in progress"
                )));
            }
        };
        let opened_under = match state.stage {
            RelinStage::Opened { commitments } => Some(commitments),
            RelinStage::Committed { .. } => None,
        };
        if opened_under != Some(round1.binding().subject) {
            self.relin = Some(state);
            return Err(Error::InvalidArgument(format!(
                "party {index} has not opened its round 1 under the commitment set of this aggregate"
            )));
        }
        let out = engine::relin_key_round2(
            &self.secret,
            &state.ephemeral,
            &round1.sums()[0],
            &round1.sums()[1],
        )?;
        Ok(self.message(self.key_binding(run, Step::RelinRound2), vec![out]))
    }

    /// The party's share of the collective Galois key for `element`.
    ///
    /// # Errors
    /// The engine's error for an invalid element or without special primes.
    pub fn galois_key_share(&self, run: u64, element: u64) -> Result<ShareMessage> {
        let step = Step::GaloisKey { element };
        let seed = self.session.crs_seed(run, step);
        let b = engine::galois_key_share(&self.secret, element, &seed)?;
        Ok(self.message(self.key_binding(run, step), vec![b]))
    }

    share_methods! {
        /// The party's decryption share of `ciphertext`, with smudging noise
        /// as wide as `smudging` (from [`Session::smudging`]) asks: the width
        /// depends on what the party agreed to, never on the noise estimate the
        /// ciphertext carries.
        ///
        /// # Errors
        /// [`Error::InvalidArgument`] for a smudging spec of another number of
        /// parties or a lower λ than the session's; [`Error::Engine`] with
        /// `LevelMismatch` for a ciphertext not at the spec's level, with
        /// `NoiseBudgetExhausted` for one claiming more noise than the spec's
        /// bound, or for a ciphertext of size 3 or of another context (nothing
        /// is released).
        decryption_share;
        /// The party's step of encryption to shares: its additive share (secret)
        /// and the message to send. The designated party later adds the opened
        /// value ([`Session::open_masked`]) to its share.
        ///
        /// # Errors
        /// As [`decryption_share`](Self::decryption_share).
        encryption_to_shares;
        /// [`encryption_to_shares`](Self::encryption_to_shares) of the
        /// relinearization by `relin_key` of a size-3 `product` (switched to
        /// the smudging's level), which the party computes itself; the lowest
        /// participant (party 0) also adds the relinearization's public part,
        /// so that whoever opens ([`Session::open_masked_product`]) never
        /// relinearizes. The smudging's noise bound applies to the
        /// relinearization's estimate. The share is bound to the product as
        /// computed ([`SwitchedProduct`]).
        ///
        /// # Errors
        /// As [`decryption_share`](Self::decryption_share); [`Error::Engine`]
        /// for a key of another context.
        encryption_to_shares_of_product;
        /// The party's share of shares to encryption of its additive share at `level`.
        ///
        /// # Errors
        /// The engine's error for a level above the top or a share of another context.
        shares_to_encryption;
        /// The party's share of collective key switching of `ciphertext` to `target`.
        ///
        /// # Errors
        /// As [`decryption_share`](Self::decryption_share).
        key_switch_share;
    }

    fn sender(&self) -> Sender<'_, SecretKey> {
        Sender {
            session: &self.session,
            index: self.index,
            secret: &self.secret,
            active: &ALL_PARTIES,
            lowest: self.index == 0,
        }
    }
}

/// Party `party`'s message in `session` carrying `polynomials` for `binding`.
fn share_message(
    session: &Session,
    party: u32,
    binding: Binding,
    polynomials: Vec<Vec<u64>>,
) -> ShareMessage {
    ShareMessage {
        fingerprint: *session.fingerprint(),
        session: *session.id(),
        party,
        binding,
        polynomials,
    }
}

/// The active-set digest of shares for all parties (no active set).
const ALL_PARTIES: [u8; 32] = [0; 32];

/// The one code path of the share-producing steps on a ciphertext, for an
/// N-out-of-N party (its secret key, no active set) and for an active party
/// of a t-out-of-N re-sharing (`λ_j(T)·S_j`, bound to the active set).
pub(crate) struct Sender<'a, K: PartySecret> {
    pub(crate) session: &'a Session,
    pub(crate) index: u32,
    pub(crate) secret: &'a K,
    /// The digest of the active set (zero for all parties).
    pub(crate) active: &'a [u8; 32],
    /// Whether the party is the lowest participant (party 0, or the active
    /// set's first member): it adds the public part of a relinearization.
    pub(crate) lowest: bool,
}

impl<K: PartySecret> Sender<'_, K> {
    fn binding(&self, run: u64, step: Step, ciphertext: &Ciphertext) -> Result<Binding> {
        let mut binding = self.session.binding_on(run, step, ciphertext)?;
        binding.active = *self.active;
        Ok(binding)
    }

    fn message(&self, binding: Binding, polynomials: Vec<Vec<u64>>) -> ShareMessage {
        share_message(self.session, self.index, binding, polynomials)
    }

    pub(crate) fn decryption_share(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
        smudging: &Smudging,
    ) -> Result<ShareMessage> {
        let binding = self.binding(run, Step::Decrypt, ciphertext)?;
        self.session.check_smudging(smudging)?;
        let d = engine::decrypt_share(self.secret, ciphertext, smudging)?;
        Ok(self.message(binding, vec![d]))
    }

    pub(crate) fn encryption_to_shares(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
        smudging: &Smudging,
    ) -> Result<(AdditiveShare, ShareMessage)> {
        let binding = self.binding(run, Step::EncryptionToShares, ciphertext)?;
        self.session.check_smudging(smudging)?;
        let (mask, h) = engine::e2s_share(self.secret, ciphertext, smudging)?;
        Ok((AdditiveShare::new(mask), self.message(binding, vec![h])))
    }

    pub(crate) fn encryption_to_shares_of_product(
        &self,
        run: u64,
        product: &SwitchedProduct,
        relin_key: &RelinKey,
        smudging: &Smudging,
    ) -> Result<(AdditiveShare, ShareMessage)> {
        let mut binding = product.binding(run);
        binding.active = *self.active;
        self.session.check_smudging(smudging)?;
        let (mask, h) = engine::e2s_share_of_product(
            self.secret,
            product.ciphertext(),
            relin_key,
            smudging,
            self.lowest,
        )?;
        Ok((AdditiveShare::new(mask), self.message(binding, vec![h])))
    }

    pub(crate) fn shares_to_encryption(
        &self,
        run: u64,
        level: usize,
        share: &AdditiveShare,
    ) -> Result<ShareMessage> {
        let seed = self.session.crs_seed(run, Step::SharesToEncryption);
        let h = engine::s2e_share(self.secret, &seed, level, share.plaintext())?;
        let binding = Binding {
            run,
            step: Step::SharesToEncryption,
            level: level as u32,
            subject: [0u8; 32],
            active: *self.active,
        };
        Ok(self.message(binding, vec![h]))
    }

    pub(crate) fn key_switch_share(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
        target: &PublicKey,
        smudging: &Smudging,
    ) -> Result<ShareMessage> {
        let binding = self.binding(run, Step::KeySwitch, ciphertext)?;
        self.session.check_smudging(smudging)?;
        let (h0, h1) = engine::key_switch_share(self.secret, ciphertext, target, smudging)?;
        Ok(self.message(binding, vec![h0, h1]))
    }
}
