//! The public finishing steps of each protocol: the collective keys, the
//! plaintext or masked opening, the fresh ciphertext of shares, the
//! switched ciphertext, each from checked aggregates.

use helib_rs::threshold::{self as engine, Smudging};
use helib_rs::{Ciphertext, GaloisKeys, Plaintext, PublicKey, RelinKey};

use super::Session;
use crate::aggregate::Aggregate;
use crate::error::{Error, Result};
use crate::message::{Binding, Step};
use crate::product::SwitchedProduct;

impl Session {
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
        check_binding(&binding, aggregate)
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

    /// [`open_masked`](Self::open_masked) for encryption to shares of a
    /// size-3 `product` ([`Party::encryption_to_shares_of_product`](crate::Party::encryption_to_shares_of_product)):
    /// the lowest participant's share completes the switched product's
    /// `c_0` to the relinearized one, so this decodes with that `c_0` and
    /// never relinearizes. `relin_key` gives the noise estimate the shares
    /// were checked against.
    ///
    /// # Errors
    /// As [`decrypt`](Self::decrypt), the aggregate's binding checked
    /// against the product as computed; [`Error::Engine`] for a key of
    /// another context.
    pub fn open_masked_product(
        &self,
        product: &SwitchedProduct,
        relin_key: &RelinKey,
        aggregate: &Aggregate,
        smudging: &Smudging,
    ) -> Result<Plaintext> {
        let step = Step::EncryptionToSharesOfProduct;
        self.expect(aggregate, step)?;
        let mut binding = product.binding(aggregate.binding.run);
        binding.active = aggregate.binding.active;
        check_binding(&binding, aggregate)?;
        self.check_smudging(smudging)?;
        let ciphertext = product.ciphertext();
        engine::decrypt_combine_product(ciphertext, relin_key, smudging, &aggregate.sums[0])
            .map_err(Error::from_combine)
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

/// Refuses an aggregate not bound as `binding` says (its active set
/// included).
fn check_binding(binding: &Binding, aggregate: &Aggregate) -> Result<()> {
    if *binding != aggregate.binding {
        return Err(Error::InvalidArgument(format!(
            "the aggregate is for {}, not for this ciphertext ({binding})",
            aggregate.binding
        )));
    }
    Ok(())
}
