//! Saving a plan, one diagonal at a time, untagged or tagged under a plan key.

use super::super::auth::{MacWriter, Running};
use super::super::gmac::{fresh_nonce, Gmac};
use super::*;
use helib_rs::io::WordWriter;
use std::cell::RefCell;
use std::io::Write;

impl<F: PrimeField + FftField> FftPlan<F> {
    /// Saves the plan to `out`, one diagonal at a time (no second copy of
    /// the plan is made). The bytes depend only on public data (see the
    /// [crate docs on plans](crate#what-a-plan-depends-on)); load them with
    /// [`FftPlanBuilder::load_from`] on the builder of the same plan. `out` is buffered inside for the small
    /// fields, and each diagonal's residues are written from the engine's
    /// buffer without a copy, so pass the file itself.
    ///
    /// # Errors
    /// [`Error::PartialPlan`] (before anything is written) for a plan built
    /// with [`FftPlanBuilder::only_groups`]; [`Error::Io`] when writing
    /// fails; [`Error::He`] when the engine fails.
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
        let _span = tracing::info_span!("he_fft.plan_save", n = self.spec.n).entered();
        if let Pipeline::Split(split) = &self.pipeline {
            split.require_whole("saving")?;
        }
        let nonce = key.map(|_| fresh_nonce()).transpose()?;
        let running: Running = RefCell::new(key.map(Gmac::new));
        let mut writer = MacWriter {
            inner: out,
            mac: &running,
        };
        let mut w = WordWriter::new(&mut writer);
        w.words(&self.header().encode(&self.context)?)
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
