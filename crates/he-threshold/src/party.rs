//! One party: its secret share of the collective key and the shares it
//! sends in each protocol.

use helib_rs::threshold::{self as engine, PartySecret};
use helib_rs::{Ciphertext, Plaintext, PublicKey, SecretKey};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::error::{Error, Result};
use crate::message::{Binding, ShareMessage, Step};
use crate::session::{Aggregate, Session};

/// A party of a session: index `0..parties` and its secret share `s_i` of the
/// collective secret `s = Σ s_i` (an ordinary secret key, wiped when dropped).
pub struct Party {
    session: Session,
    index: u32,
    secret: SecretKey,
    /// The ephemeral secret of a relinearization-key run between its rounds.
    ephemeral: Option<(u64, SecretKey)>,
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
            ephemeral: None,
        })
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

    /// Round 1 of the collective relinearization key; the party keeps an
    /// ephemeral secret until [`relin_key_round2`](Self::relin_key_round2).
    ///
    /// # Errors
    /// The engine's error (no special primes, randomness).
    pub fn relin_key_round1(&mut self, run: u64) -> Result<ShareMessage> {
        let ephemeral = SecretKey::generate(self.session.context())?;
        let seed = self.session.crs_seed(run, Step::RelinRound1);
        let (h0, h1) = engine::relin_key_round1(&self.secret, &ephemeral, &seed)?;
        self.ephemeral = Some((run, ephemeral));
        Ok(self.message(self.key_binding(run, Step::RelinRound1), vec![h0, h1]))
    }

    /// Round 2 of the collective relinearization key, from the aggregate of
    /// round 1 (of the same run). The ephemeral secret is dropped (wiped).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] without a round 1 of this run, or for an
    /// aggregate of another step.
    pub fn relin_key_round2(&mut self, round1: &Aggregate) -> Result<ShareMessage> {
        let run = round1.binding().run;
        if round1.binding().step != Step::RelinRound1 {
            return Err(Error::InvalidArgument(
                "round 2 needs the aggregate of round 1".into(),
            ));
        }
        let ephemeral = match self.ephemeral.take() {
            Some((r, key)) if r == run => key,
            other => {
                self.ephemeral = other;
                return Err(Error::InvalidArgument(format!(
                    "party {} has no round 1 of run {run} in progress",
                    self.index
                )));
            }
        };
        let out = engine::relin_key_round2(
            &self.secret,
            &ephemeral,
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

    /// The party's decryption share of `ciphertext` (with smudging noise).
    ///
    /// # Errors
    /// [`Error::Engine`] with `NoiseBudgetExhausted` when the smudging does
    /// not fit the ciphertext's level (nothing is released), or for a
    /// ciphertext of size 3 or of another context.
    pub fn decryption_share(&self, run: u64, ciphertext: &Ciphertext) -> Result<ShareMessage> {
        self.sender(&[0u8; 32]).decryption_share(run, ciphertext)
    }

    /// The party's step of encryption to shares: its additive share (secret)
    /// and the message to send. The designated party later adds the opened
    /// value ([`Session::open_masked`]) to its share.
    ///
    /// # Errors
    /// As [`decryption_share`](Self::decryption_share).
    pub fn encryption_to_shares(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
    ) -> Result<(AdditiveShare, ShareMessage)> {
        self.sender(&[0u8; 32])
            .encryption_to_shares(run, ciphertext)
    }

    /// The party's share of shares to encryption of its additive share at `level`.
    ///
    /// # Errors
    /// The engine's error for a level above the top or a share of another context.
    pub fn shares_to_encryption(
        &self,
        run: u64,
        level: usize,
        share: &AdditiveShare,
    ) -> Result<ShareMessage> {
        let seed = self.session.crs_seed(run, Step::SharesToEncryption);
        let h = engine::s2e_share(&self.secret, &seed, level, share.plaintext())?;
        let binding = Binding {
            run,
            step: Step::SharesToEncryption,
            level: level as u32,
            subject: [0u8; 32],
            active: [0u8; 32],
        };
        Ok(self.message(binding, vec![h]))
    }

    /// The party's share of collective key switching of `ciphertext` to `target`.
    ///
    /// # Errors
    /// As [`decryption_share`](Self::decryption_share).
    pub fn key_switch_share(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
        target: &PublicKey,
    ) -> Result<ShareMessage> {
        self.sender(&[0u8; 32])
            .key_switch_share(run, ciphertext, target)
    }

    fn sender<'a>(&'a self, active: &'a [u8; 32]) -> Sender<'a, SecretKey> {
        Sender {
            session: &self.session,
            index: self.index,
            secret: &self.secret,
            active,
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

/// The one code path of the share-producing steps on a ciphertext, for an
/// N-out-of-N party (its secret key, no active set) and for an active party
/// of a t-out-of-N re-sharing (`λ_j(T)·S_j`, bound to the active set).
pub(crate) struct Sender<'a, K: PartySecret> {
    pub(crate) session: &'a Session,
    pub(crate) index: u32,
    pub(crate) secret: &'a K,
    /// The digest of the active set (zero for all parties).
    pub(crate) active: &'a [u8; 32],
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
    ) -> Result<ShareMessage> {
        let binding = self.binding(run, Step::Decrypt, ciphertext)?;
        let d = engine::decrypt_share(
            self.secret,
            ciphertext,
            self.session.parties(),
            self.session.security_bits(),
        )?;
        Ok(self.message(binding, vec![d]))
    }

    pub(crate) fn encryption_to_shares(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
    ) -> Result<(AdditiveShare, ShareMessage)> {
        let binding = self.binding(run, Step::EncryptionToShares, ciphertext)?;
        let (mask, h) = engine::e2s_share(
            self.secret,
            ciphertext,
            self.session.parties(),
            self.session.security_bits(),
        )?;
        Ok((AdditiveShare::new(mask), self.message(binding, vec![h])))
    }

    pub(crate) fn key_switch_share(
        &self,
        run: u64,
        ciphertext: &Ciphertext,
        target: &PublicKey,
    ) -> Result<ShareMessage> {
        let binding = self.binding(run, Step::KeySwitch, ciphertext)?;
        let (h0, h1) = engine::key_switch_share(
            self.secret,
            ciphertext,
            target,
            self.session.parties(),
            self.session.security_bits(),
        )?;
        Ok(self.message(binding, vec![h0, h1]))
    }
}
