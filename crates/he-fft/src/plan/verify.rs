//! Verifying a loaded plan against the builder's spec before it is used:
//! every stored level is compared with the slot transform the builder's
//! plan is made of (see the [loader's docs](super::io) for what is checked,
//! the soundness of the random test and its cost).

use super::*;
use helib_rs::lintrans::Challenge;

impl<F: PrimeField + FftField> FftPlanBuilder<F> {
    /// Checks every stored level of `pipeline` (read for this builder's
    /// plan with `settings`) against the slot transforms a build makes,
    /// with one fresh [`Challenge`] for the whole file.
    ///
    /// # Errors
    /// [`Error::PlanVerification`] naming the level (and group) and the
    /// difference; the builder's and the engine's errors recomputing the
    /// transforms or drawing the challenge.
    pub(super) fn verify(&self, settings: &Settings<F>, pipeline: &Pipeline<F>) -> Result<()> {
        let _span = tracing::info_span!("he_fft.plan_verify", n = self.n).entered();
        let policy = self.schedule_policy();
        match pipeline {
            // Nothing stored: the dense matrix is made at each execution.
            Pipeline::Dense(_) => Ok(()),
            Pipeline::Levels(levels) => {
                let challenge = Challenge::new(&settings.encoder)?;
                let transforms = self.level_transforms(settings)?;
                if transforms.len() != levels.len() {
                    return Err(Error::PlanVerification(format!(
                        "the file holds {} levels, the plan {}",
                        levels.len(),
                        transforms.len()
                    )));
                }
                for (i, (stored, transform)) in levels.iter().zip(&transforms).enumerate() {
                    let level = level_after(&self.context, settings.level, i);
                    stored
                        .verify(transform, policy, level, &challenge)
                        .map_err(|e| refused(format!("level {i}"), e))?;
                }
                Ok(())
            }
            Pipeline::Split(split) => self.verify_split(settings, split),
        }
    }

    /// [`verify`](Self::verify) for a four-step plan: the shared levels,
    /// then each group's own level, one group's field diagonals at a time.
    fn verify_split(&self, settings: &Settings<F>, split: &SplitRun) -> Result<()> {
        let challenge = Challenge::new(&settings.encoder)?;
        let policy = self.schedule_policy();
        let parts = SplitParts::new(
            &self.context,
            self.n,
            self.direction,
            self.coset,
            settings.chosen,
        )?;
        let shared = parts.shared();
        if shared.len() != split.shared.len() || parts.groups != split.groups {
            return Err(Error::PlanVerification(
                "the file's levels are not laid out as the plan's".into(),
            ));
        }
        for (i, (stored, transform)) in split.shared.iter().zip(&shared).enumerate() {
            stored
                .verify(
                    transform,
                    policy,
                    parts.shared_level(settings.level, i),
                    &challenge,
                )
                .map_err(|e| refused(format!("shared level {i}"), e))?;
        }
        drop(shared);
        let level = parts.own_level(settings.level);
        for k in 0..parts.groups {
            let transform = parts.own(k);
            let checked = match &split.twiddled {
                Twiddled::Encoded(t) => t[k].verify(&transform, policy, level, &challenge),
                Twiddled::Plain(t) => t[k].verify(&transform, policy, level, &challenge),
            };
            checked.map_err(|e| refused(format!("the twiddled level of ciphertext {k}"), e))?;
        }
        Ok(())
    }
}

/// The plan's error for a level `what` that failed verification.
fn refused(what: String, e: helib_rs::Error) -> Error {
    match e {
        helib_rs::Error::TransformMismatch(m) => Error::PlanVerification(format!("{what}: {m}")),
        other => Error::He(other),
    }
}
