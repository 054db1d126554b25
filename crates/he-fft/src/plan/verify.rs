//! Verifying a loaded plan against the builder's spec before it is used:
//! every stored level is compared with the slot transform the builder's
//! plan is made of.
//!
//! # What is checked
//! A file's checksum is keyless ([`io`]), so a file with a
//! negated or swapped diagonal, another plan's diagonals or a changed
//! direction or coset label can carry right checksums. The levels read are
//! verified against the spec's own slot transforms (recomputed from the
//! builder, as a build computes them): the level, schedule and place of
//! every diagonal, each encoding's form, stride, correction factor and
//! norms exactly, each per-execution plaintext exactly, and each encoding's
//! residues by a random test drawn from the operating system's CSPRNG at
//! every load ([`helib_rs::lintrans::verify`]: one random linear function
//! of the residues per prime, compared with the same function of the exact
//! centred lift of the diagonal's coefficients), which a file with any
//! residue of any diagonal changed passes with probability at most 2^-40.
//! That covers a diagonal wrong modulo t and one right modulo t whose lift
//! was inflated by a multiple of t (which would grow noise unseen): both
//! change residues.
//!
//! # Cost
//! Verification recomputes the spec's slot transforms (the radix-2 stages
//! composed into levels) and, per stored diagonal, its transform from slots
//! to coefficients over F, both as a build does, then makes one pass over
//! its residues (a 64×64-bit product a word); it skips the build's lift to
//! the primes and NTT per prime. `cargo run --release -p he-fft --example
//! plan_build -- --n N --threads 1 --repeat 3 --load` (BN254, ring 2^16,
//! 19 chain primes; best of three, file in the page cache; 2-core VM with
//! load average 3.6–4.6 from other builds, 2026-11-29; two runs each):
//!
//! | n | build | load + verify | file |
//! |---|---|---|---|
//! | 2^12 | 0.90–0.94 s | 0.61–0.68 s (68–72%) | 0.04 GiB |
//! | 2^15 | 4.85–5.85 s | 2.07–3.32 s (43–57%) | 0.48 GiB |
//!
//! The contention makes these 2.6–4.4 times the figures measured on the
//! same VM on 2026-11-28 (2^12 built in 0.36 s, loaded and verified in
//! 0.28 s, 78%; 2^15 1.33 s and 0.97 s, 72%, of which 0.11 s reading the
//! file), and the ratios move with it: plan with the 72–78%.
//!
//! A profile of loads at n = 2^15 (`perf record`): of the verification,
//! 52% is the transforms from slots to coefficients (one per diagonal), 32%
//! recomputing the slot transforms and 14% the residue test itself; reading
//! the file is a further 8% of the load. Of a build, the lift to the primes
//! with its NTTs is 56% (the NTTs alone 23%), the transforms from slots to
//! coefficients 20% and the slot transforms 19%.
//!
//! The target of a check within 5% of a build is not met by verification
//! (a keyed load meets it, below), and no sound verification found gets
//! there: the field-side work (the slot transforms and the
//! transforms to coefficients, 39% of a build) can be replaced by random
//! tests, but refusing an inflated lift then needs each stored diagonal in
//! coefficient form modulo primes whose product exceeds t (five inverse
//! NTTs and a five-prime CRT per diagonal, about 10% of a build by the
//! profile above) on top of one pass over the file; see
//! [`helib_rs::lintrans::verify`] for the argument.
//!
//! # Files a key vouches for skip it
//! A file saved with the loader's [`PlanKey`] whose tag verifies is not
//! verified at all ([`FftPlanBuilder::load_with_key`]; the trust model is
//! in the [plan files' docs](super::io), the MAC and its forgery bound in
//! [its docs](super::gmac)): its load is the header check, the spec's
//! settings, the read into the engine's buffers with the range checks, and
//! GMAC over the bytes as they stream in (the keyless checksum is skipped
//! under the tag). The same command, with `--load` (2026-11-29, best of
//! three, two runs each, the file in the page cache, the VM's guest
//! without AVX-512 this day: AVX2, VPCLMULQDQ and SHA instructions; load
//! average 4.8–6.9 from other jobs on the 2 cores). The load against the
//! build: wall-clock times; the processor time of the thread that loads
//! against the build's; the whole process's against the build's:
//!
//! | n | build | authenticated load | wall | loading thread | process | file |
//! |---|---|---|---|---|---|---|
//! | 2^12 | 0.59–0.75 s | 0.013–0.019 s | 2.2–2.6% | 2.1–2.3% | 2.4% | 0.04 GiB |
//! | 2^15 | 4.22–4.28 s | 0.119–0.122 s | 2.8–2.9% | 2.8–3.0% | 2.9–3.1% | 0.48 GiB |
//! | 2^18 | 14.2–14.4 s | 0.72–0.89 s | 5.0–6.1% | 3.5–3.8% | 5.3–6.2% | 1.67 GiB |
//!
//! The same runs of the format 6 loader (HMAC-SHA256, the example of the
//! time, which also timed dropping the plan) gave 10.9%, 11.2–13.3% and
//! 15.5% (one run).
//! A profile of the loading thread at n = 2^15 (`perf record`): a quarter
//! to a third is the kernel's copy from the page cache into the engine's
//! buffers, a fifth GHASH (about 16 GB/s on 256-bit carry-less products,
//! against 1.4 GB/s for SHA-256 with the SHA instructions), 4% the range
//! checks (AVX2); the spec's settings and shapes a few percent. At 2^18 the
//! plan outgrows the engine's buffer pool (1 GiB kept), so each load also
//! maps and zeroes 0.67 GiB of fresh pages (all 1.67 GiB in a process's
//! first load), about 0.3 s of processor time on rayon's second thread
//! while the first reads: the process time, and on this loaded VM the wall
//! time, miss 5% there by up to about a point, while the loading thread
//! stays under 4%. A build pays for fresh pages too (in its time above).

use super::builder::Settings;
use super::levels::level_after;
use super::split::SplitParts;
use super::{FftPlanBuilder, Pipeline, SplitRun, Twiddled};
use crate::error::{Error, Result};
use ark_ff::{FftField, PrimeField};
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
        let _span = tracing::info_span!("he_fft.plan_verify", n = self.spec.n).entered();
        let policy = settings.schedule_policy();
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
                    let level = level_after(&self.context, settings.prep.level, i);
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
        let policy = settings.schedule_policy();
        let parts = SplitParts::new(&self.context, &self.spec, &settings.geometry)?;
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
                    parts.shared_level(settings.prep.level, i),
                    &challenge,
                )
                .map_err(|e| refused(format!("shared level {i}"), e))?;
        }
        drop(shared);
        let level = parts.own_level(settings.prep.level);
        for (i, k) in split.held.clone().enumerate() {
            let transform = parts.own(k);
            let checked = match &split.twiddled {
                Twiddled::Encoded(t) => t[i].verify(&transform, policy, level, &challenge),
                Twiddled::Plain(t) => t[i].verify(&transform, policy, level, &challenge),
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
