//! Loading a plan: the header compared with the spec, the levels streamed
//! into the engine's buffers, then authenticated by the plan key's tag or
//! verified by recomputation.

use super::super::auth::{MacReader, Running};
use super::super::builder::Settings;
use super::super::gmac::{Gmac, NONCE_BYTES, TAG_BYTES};
use super::super::key::tags_equal;
use super::header::Header;
use super::*;
use helib_rs::io::WordReader;
use std::cell::RefCell;
use std::io::Read;

impl<F: PrimeField + FftField> FftPlanBuilder<F> {
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
    /// `src/plan/io/mod.rs`) as they are read, each piece right after it is
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
        let _span = tracing::info_span!("he_fft.plan_load", n = self.spec.n).entered();
        // The MAC is fed from the first byte; the nonce it needs comes later.
        let running: Running = RefCell::new(key.map(Gmac::new));
        let mut reader = MacReader {
            inner: input,
            mac: &running,
        };
        let mut r = WordReader::new(&mut reader);
        let (found, version) = Header::<F>::decode(&self.context, &mut r)?;
        self.header()?.expect(&found)?;
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
        let (settings, memory) = self.checked()?;
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
        Ok((self.finish(settings, memory, pipeline), check))
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
        let geometry = &settings.geometry;
        let tag = r.word().map_err(from_he)?;
        let levels = &shape.levels;
        let policy = settings.schedule_policy();
        let mode = settings.prep.keys.mode;
        let check = |i: usize, level: usize, schedule: &Schedule, count: usize| -> Result<()> {
            let expected = &levels[i];
            let wanted = policy.schedule_for_shape(geometry.row(), &expected.shape);
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
        if geometry.split() {
            let groups = geometry.ciphertexts();
            if tag != SPLIT || r.word().map_err(from_he)? != groups as u64 {
                return Err(format("the pipeline does not match the plan's parameters"));
            }
            let forward = self.spec.direction == Direction::Forward;
            let own = if forward { 0 } else { levels.len() - 1 };
            let plain = r.flag("the twiddled levels' form").map_err(from_he)?;
            if plain != settings.prep.per_execution {
                return Err(format(
                    "the twiddled levels' form does not match the plan's parameters",
                ));
            }
            // Every group's level is read and checked; only the held ones
            // are kept (one at a time in memory otherwise).
            let held = &settings.held;
            let twiddled = if plain {
                let mut kept = Vec::with_capacity(held.len());
                for k in 0..groups {
                    let t = PlainTransform::read_from(context, r).map_err(from_he)?;
                    check(own, t.level(), t.schedule(), t.multiplications())?;
                    if held.contains(&k) {
                        kept.push(t);
                    }
                }
                Twiddled::Plain(kept)
            } else {
                let mut kept = Vec::with_capacity(held.len());
                for k in 0..groups {
                    let t = encoded(r, own)?;
                    if held.contains(&k) {
                        kept.push(t);
                    }
                }
                Twiddled::Encoded(kept)
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
            Ok(Pipeline::Split(SplitRun::assemble(
                &self.spec,
                geometry,
                held.clone(),
                twiddled,
                shared,
            )?))
        } else if geometry.dense() {
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
