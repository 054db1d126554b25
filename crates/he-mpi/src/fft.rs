//! he-fft's encrypted FFT over several ciphertexts (n = C·N, a four-step
//! plan) spread over the ranks.
//!
//! A four-step plan is C independent size-N transforms (one per group, its
//! twiddles folded in) and one size-C DFT across the ciphertexts, whose
//! outputs are sums of scalar multiples of every input
//! ([`he_fft::FourStep`]). Rank r holds the inputs and outputs
//! [`Partition::range`](crate::Partition::range)`(C, r)`. The groups run
//! where their ciphertexts are, so a rank needs only their own levels of the
//! plan ([`DistributedFft::build_plan`]); the DFT across is a reduce-scatter: each
//! rank forms, from its own ciphertexts, its partial sum for every output,
//! sends each other rank the partials of the outputs that rank holds (per
//! chain prime, one checked exchange of residues), and adds up the partials
//! it receives for its own. Forward plans sum first and then run the
//! groups; inverse plans the other way round. The sums are exact modulo Q,
//! so every output is the ciphertext the one-process plan gives, up to the
//! order of its additions: it decrypts to the same values.
//!
//! Each rank sends `(C − C_r) · 2 · (ℓ + 1) · N` words for its C_r
//! ciphertexts at level ℓ (plus a header per rank and prime), which
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
    /// ciphertexts of its range) to the sums of its range, the partials of
    /// every other rank received through one exchange per chain prime.
    fn across(&self, cluster: &Cluster, local: &[Ciphertext]) -> Result<Vec<Ciphertext>> {
        let count = self.parts.ciphertexts();
        let partials = cluster.agree(self.partials(local, count))?;
        let level = partials[0].level();
        let n = self.context.ring_degree();
        let words = 2 * (level + 1) * n;
        let me = cluster.rank();
        let others = |r: usize| if r == me { 0 } else { 1 };
        let send_counts: Vec<usize> = self
            .ranges
            .iter()
            .enumerate()
            .map(|(d, range)| others(d) * range.len() * 2 * n)
            .collect();
        let recv_counts: Vec<usize> = (0..cluster.size())
            .map(|s| others(s) * self.range.len() * 2 * n)
            .collect();
        // What each rank's partials carry besides residues: per output, its
        // noise estimate (which depends on that output's scalars) and its
        // correction factor.
        let descriptions = cluster.all_gather(&self.describe(&partials))?;
        // received[s][j]: rank s's partial for this rank's j-th output,
        // part major, then prime, N words each (as Ciphertext::from_residues reads it).
        let mut received = vec![vec![vec![0u64; words]; self.range.len()]; cluster.size()];
        // Two staging regions, one for even primes and one for odd: a rank
        // copies a prime's partials out of a peer's region after the
        // exchange's agreement, while the peer may already stage the next
        // prime's (into the other region; the prime after next waits for this
        // rank's next exchange).
        let staged_words = send_counts.iter().sum();
        let mut staged = cluster.staging([staged_words; 2])?;
        let mut lent = cluster.scratch().lend::<1>();
        let [arrived] = &mut lent.buffers;
        for prime in 0..=level {
            let [even, odd] = staged.regions();
            let send = if prime % 2 == 0 { even } else { odd };
            let mut at = 0;
            let theirs = self.ranges.iter().enumerate().filter(|&(d, _)| d != me);
            for (_, range) in theirs {
                for to in range.clone() {
                    for part in 0..2 {
                        partials[to].residues_into(part, prime, &mut send.words[at..at + n])?;
                        at += n;
                    }
                }
            }
            let incoming = cluster.exchange(
                prime,
                send,
                &send_counts,
                &recv_counts,
                arrived,
                Checking::OnArrival,
            )?;
            for from in (0..cluster.size()).filter(|&s| s != me) {
                let mut rows = incoming.from(from).chunks_exact(n);
                for row in received[from].iter_mut() {
                    for part in 0..2 {
                        let offset = (part * (level + 1) + prime) * n;
                        if let Some(words) = rows.next() {
                            row[offset..offset + n].copy_from_slice(words);
                        }
                    }
                }
            }
        }
        let sums = self
            .range
            .clone()
            .enumerate()
            .map(|(j, to)| {
                let mut sum = partials[to].clone();
                for from in (0..cluster.size()).filter(|&s| s != me) {
                    let (noise, factor) = self.described(&descriptions, from, to);
                    let term = Ciphertext::from_residues(
                        self.context,
                        level,
                        2,
                        &factor,
                        noise,
                        &received[from][j],
                    )?;
                    sum.add_assign(&term)?;
                }
                Ok(sum)
            })
            .collect();
        cluster.agree(sums)
    }

    /// This rank's partial sum of every output from its `local` ciphertexts.
    fn partials(&self, local: &[Ciphertext], count: usize) -> Result<Vec<Ciphertext>> {
        (0..count)
            .map(|to| {
                let mut terms = local.iter().zip(self.range.clone());
                let (first, from) = terms.next().ok_or_else(|| {
                    Error::DistributionMismatch("a rank without ciphertexts".into())
                })?;
                let mut sum = self.parts.across_term(to, from, first)?;
                for (ct, from) in terms {
                    sum.add_assign(&self.parts.across_term(to, from, ct)?)?;
                }
                Ok(sum)
            })
            .collect()
    }

    /// Words describing the partials (one per output, in order) for the
    /// other ranks: each one's noise estimate (f64 bits) and correction
    /// factor, in as many words as t has.
    fn describe(&self, partials: &[Ciphertext]) -> Vec<u64> {
        let mut words = Vec::with_capacity(partials.len() * (1 + self.factor_words()));
        for partial in partials {
            words.push(partial.noise_estimate_bits().to_bits());
            let mut limbs = partial.correction_factor().to_u64_digits();
            limbs.resize(self.factor_words(), 0);
            words.extend(limbs);
        }
        words
    }

    /// The noise estimate and correction factor of rank `rank`'s partial for
    /// output `to`, from the gathered [`describe`](Self::describe) words.
    fn described(&self, all: &[u64], rank: usize, to: usize) -> (f64, BigUint) {
        let width = 1 + self.factor_words();
        let at = (rank * self.parts.ciphertexts() + to) * width;
        let words = &all[at..at + width];
        let limbs: Vec<u32> = words[1..]
            .iter()
            .flat_map(|&w| [w as u32, (w >> 32) as u32])
            .collect();
        (f64::from_bits(words[0]), BigUint::new(limbs))
    }

    /// Words of a value below t.
    fn factor_words(&self) -> usize {
        (self.context.plaintext_modulus().bits() as usize).div_ceil(64)
    }
}
