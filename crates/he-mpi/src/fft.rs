//! he-fft's encrypted FFT over several ciphertexts (n = C·N, a four-step
//! plan) spread over the ranks.
//!
//! A four-step plan is C independent size-N transforms (one per group, its
//! twiddles folded in) and one size-C DFT across the ciphertexts, whose
//! outputs are sums of scalar multiples of every input
//! ([`he_fft::FourStep`]). Rank r holds the inputs and outputs
//! [`Partition::range`](crate::Partition::range)`(C, r)`. The groups run
//! where their ciphertexts are, so a rank needs only their own levels of the
//! plan ([`DistributedFft::build_plan`]); the DFT across is a reduce-scatter
//! in rounds: in round j each rank forms, from its own ciphertexts, its
//! partial sum for every other rank's j-th output, sends it there (all
//! primes of the round in one checked exchange of residues, each partial
//! with its noise estimate and factor), and adds up the partials it
//! receives for its own j-th output. So a rank holds its outputs and one
//! round's partials, not a partial of every output. Forward plans sum first
//! and then run the groups; inverse plans the other way round. The sums are
//! exact modulo Q, so every output is the ciphertext the one-process plan
//! gives, up to the order of its additions: it decrypts to the same values.
//!
//! Each rank sends `(C − C_r) · 2 · (ℓ + 1) · N` words for its C_r
//! ciphertexts at level ℓ (plus a header per rank and round), which
//! [`cost::fft_exchange`](crate::cost::fft_exchange) predicts.

use std::ops::Range;

use ark_ff::{FftField, PrimeField};
use he_fft::{FftPlan, FftPlanBuilder, FourStep};
use helib_rs::{Ciphertext, Context, GaloisKeys};
use num_bigint::BigUint;

use crate::cluster::{Checking, Cluster};
use crate::error::{Error, Result};

/// An [`FftPlan`] over several ciphertexts, run by every rank of a
/// [`Cluster`] on the ciphertexts it holds.
///
/// Every rank holds the plan's shared levels and the Galois keys, and the
/// own levels of the groups it runs: [`build_plan`](Self::build_plan) builds
/// just those (a whole plan serves too); [`execute`](Self::execute) is
/// collective.
pub struct DistributedFft<'a, F: PrimeField + FftField> {
    parts: FourStep<'a, F>,
    context: &'a Context,
    /// The ciphertexts (inputs and outputs) this rank holds.
    range: Range<usize>,
    /// Every rank's range.
    ranges: Vec<Range<usize>>,
}

impl<'a, F: PrimeField + FftField> DistributedFft<'a, F> {
    /// The part of `builder`'s plan this rank runs: only the own levels
    /// (those absorbing the twiddles) of the groups of its ciphertexts
    /// ([`FftPlanBuilder::only_groups`]), so that a plan's memory per rank
    /// falls with the ranks; the shared levels are built whole. Collective:
    /// a rank whose build fails (its memory limit) fails every rank.
    ///
    /// # Errors
    /// The same on every rank: [`Error::RankCount`] for a plan over fewer
    /// ciphertexts than ranks (or one); the builder's checks as
    /// [`Error::Fft`]. Then a failed build as [`Error::Fft`] on its rank and
    /// [`Error::RankFailed`] naming it elsewhere.
    pub fn build_plan(builder: FftPlanBuilder<F>, cluster: &Cluster) -> Result<FftPlan<F>> {
        // The same on every rank: the same builder.
        let count = builder.ciphertexts()?;
        let ranks = cluster.size();
        if count < ranks || count == 1 {
            return Err(Error::RankCount {
                ranks,
                reason: format!(
                    "the plan runs on {count} ciphertexts; spreading it needs several and at least one per rank"
                ),
            });
        }
        let groups = cluster.partition().range(count, cluster.rank());
        cluster.agree(builder.only_groups(groups).build().map_err(Error::from))
    }

    /// The plan `plan` spread over `cluster`'s ranks.
    ///
    /// # Errors
    /// [`Error::RankCount`] for a plan on one ciphertext (nothing to spread)
    /// or one over fewer ciphertexts than ranks; [`Error::Fft`] for a plan
    /// of another context than the cluster's.
    pub fn new(plan: &'a FftPlan<F>, cluster: &Cluster) -> Result<Self> {
        let ranks = cluster.size();
        if !plan.context().same_as(cluster.context()) {
            return Err(Error::Fft(he_fft::Error::ContextMismatch));
        }
        let parts = plan.four_step().ok_or_else(|| Error::RankCount {
            ranks,
            reason: "the plan runs on one ciphertext (n ≤ N); only plans over several ciphertexts are spread".into(),
        })?;
        let count = parts.ciphertexts();
        if count < ranks {
            return Err(Error::RankCount {
                ranks,
                reason: format!(
                    "the plan runs on {count} ciphertexts, fewer than the ranks (each rank holds at least one)"
                ),
            });
        }
        let partition = cluster.partition();
        let ranges = (0..ranks).map(|r| partition.range(count, r)).collect();
        Ok(Self {
            parts,
            context: plan.context(),
            range: partition.range(count, cluster.rank()),
            ranges,
        })
    }

    /// The input and output ciphertexts this rank holds (indices into the
    /// plan's C).
    pub fn local_range(&self) -> Range<usize> {
        self.range.clone()
    }

    /// Runs the plan: `inputs` are this rank's input ciphertexts (those of
    /// [`local_range`](Self::local_range), in order); returns this rank's
    /// outputs, each the one-process plan's output of that index.
    ///
    /// # Errors
    /// On every rank, naming the first failing one: [`Error::DistributionMismatch`]
    /// for another number of inputs than the rank holds, or a plan without
    /// the own levels of the rank's groups; the plan's checks
    /// ([`FftPlan::execute`]'s, as [`Error::Fft`]); [`Error::Corrupted`]
    /// when residues arrive damaged; [`Error::Mpi`].
    pub fn execute(
        &self,
        cluster: &Cluster,
        inputs: &[Ciphertext],
        keys: &GaloisKeys,
    ) -> Result<Vec<Ciphertext>> {
        let held = self.parts.held_groups();
        let admitted = if inputs.len() != self.range.len() {
            Err(Error::DistributionMismatch(format!(
                "rank {} holds ciphertexts {:?} of the plan, got {} inputs",
                cluster.rank(),
                self.range,
                inputs.len()
            )))
        } else if held.start > self.range.start || held.end < self.range.end {
            Err(Error::DistributionMismatch(format!(
                "rank {} runs groups {:?}, its plan holds {:?} (build it with DistributedFft::build_plan)",
                cluster.rank(),
                self.range,
                held
            )))
        } else {
            self.parts.admit(inputs, keys).map_err(Error::from)
        };
        cluster.agree(admitted)?;
        let run_groups = |cts: &[Ciphertext]| -> Result<Vec<Ciphertext>> {
            cts.iter()
                .zip(self.range.clone())
                .map(|(ct, k)| Ok(self.parts.run_group(k, ct, keys)?))
                .collect()
        };
        let outputs = if self.parts.across_first() {
            let sums = self.across(cluster, inputs)?;
            cluster.agree(run_groups(&sums))?
        } else {
            let grouped = cluster.agree(run_groups(inputs))?;
            self.across(cluster, &grouped)?
        };
        let finished = outputs
            .into_iter()
            .map(|ct| Ok(self.parts.finish(ct)?))
            .collect();
        cluster.agree(finished)
    }

    /// Every rank's `outputs` (of [`execute`](Self::execute)) at `root`, in
    /// the plan's order, for [`FftPlan::decrypt`]; `None` elsewhere.
    ///
    /// # Errors
    /// As [`Cluster::visit_at_root`].
    pub fn gather(
        &self,
        root: usize,
        cluster: &Cluster,
        outputs: &[Ciphertext],
    ) -> Result<Option<Vec<Ciphertext>>> {
        let mut all = Vec::new();
        cluster.visit_at_root(root, self.parts.ciphertexts(), outputs, |_, ct| {
            all.push(ct);
            Ok(())
        })?;
        Ok((cluster.rank() == root).then_some(all))
    }

    /// The sums across ciphertexts: from this rank's `local` terms (the
    /// ciphertexts of its range) to the sums of its range. Round j sends
    /// every other rank this rank's partial for that rank's j-th output (all
    /// primes in one checked exchange) and adds the partials received for
    /// this rank's own j-th output, so a rank holds only the partials of one
    /// round besides its own outputs' sums.
    fn across(&self, cluster: &Cluster, local: &[Ciphertext]) -> Result<Vec<Ciphertext>> {
        let mut sums = cluster.agree(
            self.range
                .clone()
                .map(|to| self.partial(local, to))
                .collect::<Result<Vec<_>>>(),
        )?;
        let level = sums.first().map_or(0, Ciphertext::level);
        let n = self.context.ring_degree();
        let words = 2 * (level + 1) * n;
        let width = self.description_words();
        let (me, size) = (cluster.rank(), cluster.size());
        let rounds = self.ranges.iter().map(Range::len).max().unwrap_or(0);
        // One staging region: each round ends with an agreement after which
        // no rank reads its partials, so the next round stages over them.
        // Round 0 sends the most.
        let most = words * (0..size).filter(|&d| d != me).count();
        let mut staged = cluster.staging([most])?;
        let mut lent = cluster.scratch().lend::<1>();
        let [arrived] = &mut lent.buffers;
        for round in 0..rounds {
            // The output of each rank in this round (None: it has no more).
            let output = |r: usize| self.ranges[r].clone().nth(round);
            let send_counts: Vec<usize> = (0..size)
                .map(|d| {
                    if d != me && output(d).is_some() {
                        words
                    } else {
                        0
                    }
                })
                .collect();
            let mine = output(me);
            let recv_counts: Vec<usize> = (0..size)
                .map(|s| if s != me && mine.is_some() { words } else { 0 })
                .collect();
            let [mut send] = staged.regions();
            let total = send_counts.iter().sum();
            send.words = &mut std::mem::take(&mut send.words)[..total];
            // Each partial's residues (part major, then prime, as
            // Ciphertext::from_residues reads them), and what they carry
            // besides: its noise estimate (which depends on the output's
            // scalars) and correction factor, in the description for d.
            let staged_round = (|| -> Result<Vec<u64>> {
                let mut descriptions = vec![0u64; size * width];
                let mut at = 0;
                for d in (0..size).filter(|&d| d != me) {
                    let Some(to) = output(d) else { continue };
                    let partial = self.partial(local, to)?;
                    for part in 0..2 {
                        for prime in 0..=level {
                            partial.residues_into(part, prime, &mut send.words[at..at + n])?;
                            at += n;
                        }
                    }
                    descriptions[d * width..(d + 1) * width]
                        .copy_from_slice(&self.describe(&partial));
                }
                Ok(descriptions)
            })();
            let descriptions = cluster.agree(staged_round)?;
            let described = cluster.all_gather(&descriptions)?;
            let incoming = cluster.exchange(
                round,
                send,
                &send_counts,
                &recv_counts,
                arrived,
                Checking::OnArrival,
            )?;
            let added = match mine {
                None => Ok(()),
                Some(to) => (0..size).filter(|&s| s != me).try_for_each(|from| {
                    let (noise, factor) = self.described(&described, from, me);
                    let term = Ciphertext::from_residues(
                        self.context,
                        level,
                        2,
                        &factor,
                        noise,
                        incoming.from(from),
                    )?;
                    Ok(sums[to - self.range.start].add_assign(&term)?)
                }),
            };
            // After this agreement no rank reads this round's partials.
            cluster.agree(added)?;
        }
        Ok(sums)
    }

    /// This rank's partial sum of output `to` from its `local` ciphertexts.
    fn partial(&self, local: &[Ciphertext], to: usize) -> Result<Ciphertext> {
        let mut terms = local.iter().zip(self.range.clone());
        let (first, from) = terms
            .next()
            .ok_or_else(|| Error::DistributionMismatch("a rank without ciphertexts".into()))?;
        let mut sum = self.parts.across_term(to, from, first)?;
        for (ct, from) in terms {
            sum.add_assign(&self.parts.across_term(to, from, ct)?)?;
        }
        Ok(sum)
    }

    /// Words describing a partial for the rank it goes to: its noise
    /// estimate (f64 bits) and its correction factor, in as many words as t
    /// has.
    fn describe(&self, partial: &Ciphertext) -> Vec<u64> {
        let mut words = vec![partial.noise_estimate_bits().to_bits()];
        let mut limbs = partial.correction_factor().to_u64_digits();
        limbs.resize(self.factor_words(), 0);
        words.extend(limbs);
        words
    }

    /// The noise estimate and correction factor of rank `rank`'s partial
    /// for rank `to_rank`, from every rank's gathered descriptions (one
    /// [`describe`](Self::describe) per destination rank).
    fn described(&self, all: &[u64], rank: usize, to_rank: usize) -> (f64, BigUint) {
        let width = self.description_words();
        let at = (rank * self.ranges.len() + to_rank) * width;
        let words = &all[at..at + width];
        let limbs: Vec<u32> = words[1..]
            .iter()
            .flat_map(|&w| [w as u32, (w >> 32) as u32])
            .collect();
        (f64::from_bits(words[0]), BigUint::new(limbs))
    }

    /// Words of one [`describe`](Self::describe).
    fn description_words(&self) -> usize {
        1 + self.factor_words()
    }

    /// Words of a value below t.
    fn factor_words(&self) -> usize {
        (self.context.plaintext_modulus().bits() as usize).div_ceil(64)
    }
}
