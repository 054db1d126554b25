//! The session's aggregators of each step: key generation, the round-1
//! relinearization openings, steps on a ciphertext, shares to encryption.

use helib_rs::Ciphertext;

use super::Session;
use crate::aggregate::Aggregator;
use crate::error::{Error, Result};
use crate::message::{Binding, Step};
use crate::product;
use crate::relin::{CommitmentCollector, Commitments};

impl Session {
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
            let why = match step {
                Step::EncryptionToSharesOfProduct => "use product_aggregator",
                _ => "it does not work on a ciphertext",
            };
            return Err(Error::InvalidArgument(format!(
                "no ciphertext aggregator for {step:?}: {why}"
            )));
        }
        self.check_context(ciphertext)?;
        Aggregator::new(self, self.binding_on(run, step, ciphertext)?)
    }

    /// An aggregator for encryption to shares of `run` at `level` of the
    /// size-3 `product` as computed, which each party switches down to
    /// `level` itself ([`SwitchedProduct`](crate::SwitchedProduct)): the
    /// aggregator never switches it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a ciphertext not of size 3 or a level
    /// above the product's; [`Error::Engine`] for a product of another
    /// context.
    pub fn product_aggregator(
        &self,
        run: u64,
        product: &Ciphertext,
        level: usize,
    ) -> Result<Aggregator> {
        self.check_context(product)?;
        if level > product.level() {
            return Err(Error::InvalidArgument(format!(
                "level {level} is above the product's ({})",
                product.level()
            )));
        }
        let digest = product::product_digest(product)?;
        Aggregator::new(self, product::product_binding(run, level, digest))
    }

    fn check_context(&self, ciphertext: &Ciphertext) -> Result<()> {
        self.context
            .same_as(ciphertext.context())
            .then_some(())
            .ok_or(helib_rs::Error::ContextMismatch)?;
        Ok(())
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
}
