//! FFT plans: built once for (context, n, direction, coset, strategy), run many times.
//!
//! The modules depend one way: `spec` (what a plan computes), `geometry`
//! (how it sits in the ring), `levels` (the chain) and the plan keys import
//! nothing else of the plan; this file holds the plan's types and its
//! execution API on top of them; the builder, the shape and memory
//! estimate, the four-step parts, running, saving, loading and verifying
//! import from here and from each other, never the other way.

use crate::admission::ensure_same_context;
use crate::error::{Error, Result};
use crate::layout::Packing;
use crate::memory::MemoryEstimate;
use crate::options::{BuildOptions, Preparation};
use crate::parallel::{in_pool, map_in_pool};
use crate::stages::{dense_shape, strided_bit_reversed, unstride_bit_reversed, Order};
use ark_ff::{FftField, PrimeField};
use helib_rs::lintrans::{EncodedTransform, KeyPolicy, PlainTransform, Schedule};
use helib_rs::{BatchEncoder, Ciphertext, Context, GaloisKeys, PublicKey, SecretKey};
use std::ops::Range;

mod auth;
mod builder;
mod four_step;
mod geometry;
mod gmac;
mod io;
mod key;
mod levels;
mod run;
mod scaling;
mod shape;
mod spec;
mod split;
#[cfg(test)]
mod tests;
mod verify;

pub use auth::{PlanCheck, Unauthenticated};
pub use four_step::FourStep;
pub use geometry::default_levels;
pub(crate) use geometry::{AutoLevels, PlanGeometry};
pub use key::{PlanKey, PLAN_KEY_BYTES};
pub use levels::affordable_levels;
pub(crate) use levels::{level_after, level_cost_bits, run_levels};
pub use spec::{Direction, PlanOptions, PlanSpec, Strategy};

/// The FFT of size n over F on encrypted vectors (see the crate docs for the
/// layouts and which orders are free).
pub struct FftPlan<F: PrimeField + FftField> {
    context: Context,
    encoder: BatchEncoder<F>,
    spec: PlanSpec<F>,
    prep: Preparation,
    geometry: PlanGeometry,
    pipeline: Pipeline<F>,
    memory: MemoryEstimate,
}

/// What one plan runs: per-ciphertext transforms and the cross-ciphertext part.
enum Pipeline<F: PrimeField + FftField> {
    /// One ciphertext, one or more sparse levels.
    Levels(Vec<EncodedTransform>),
    /// One ciphertext, the dense matrix's diagonals produced at each execution.
    Dense(DenseRun<F>),
    /// C ciphertexts (n = C·N): four-step FFT.
    Split(SplitRun),
}

struct DenseRun<F: PrimeField + FftField> {
    packing: Packing,
    omega: F,
    scale_in: Vec<F>,
    scale_out: Vec<F>,
    input_bit_reversed: bool,
}

impl<F: PrimeField + FftField> DenseRun<F> {
    /// The dense transform's schedule: it depends only on which shifts
    /// occur, so no diagonal is computed.
    fn schedule(&self, keys: KeyPolicy) -> Schedule {
        keys.schedule_for_shape(self.packing.row(), &dense_shape(self.packing))
    }
}

/// Four-step FFT over C ciphertexts of N slots (n = C·N): a size-C DFT across
/// ciphertexts (additions for C = 2, scalar products otherwise) and, per
/// group, a size-N transform with the twiddles folded in.
///
/// Only one level of the size-N transform depends on the group (the first
/// going forward, the last going back: the one absorbing the twiddles); the
/// others are encoded once and shared, so the plan holds C copies of one
/// level and one copy of the rest (or the copies of the groups it was built
/// for, [`FftPlanBuilder::only_groups`]).
struct SplitRun {
    groups: usize,
    across_first: bool,
    across_scalars: Vec<Vec<num_bigint::BigUint>>,
    /// The groups whose own levels the plan holds (all, unless built with
    /// [`FftPlanBuilder::only_groups`]).
    held: Range<usize>,
    /// Per held group, in order, the level absorbing its twiddles.
    twiddled: Twiddled,
    /// The levels every group shares, in order.
    shared: Vec<EncodedTransform>,
}

/// The twiddle-absorbing levels of a four-step plan, one per group.
enum Twiddled {
    /// Encoded once, when the plan is built.
    Encoded(Vec<EncodedTransform>),
    /// Kept as plaintexts (about a seventh of the bytes for BN254) and
    /// encoded at each execution ([`FftPlanBuilder::encode_per_execution`]).
    Plain(Vec<PlainTransform>),
}

impl SplitRun {
    /// The held groups' own levels, in order: their schedules and plaintext
    /// products.
    fn own_levels(&self) -> Vec<(&Schedule, usize)> {
        match &self.twiddled {
            Twiddled::Encoded(t) => t
                .iter()
                .map(|l| (l.schedule(), l.multiplications()))
                .collect(),
            Twiddled::Plain(t) => t
                .iter()
                .map(|l| (l.schedule(), l.multiplications()))
                .collect(),
        }
    }

    /// Where group k's own level sits among the held ones.
    fn held_index(&self, k: usize) -> Result<usize> {
        if self.held.contains(&k) {
            Ok(k - self.held.start)
        } else {
            Err(Error::GroupNotHeld {
                index: k,
                start: self.held.start,
                end: self.held.end,
            })
        }
    }

    /// Refuses `operation` unless the plan holds every group's level.
    fn require_whole(&self, operation: &'static str) -> Result<()> {
        if self.held == (0..self.groups) {
            Ok(())
        } else {
            Err(Error::PartialPlan {
                operation,
                start: self.held.start,
                end: self.held.end,
                ciphertexts: self.groups,
            })
        }
    }

    /// Group k's size-N transform on `x`.
    fn run_group(&self, k: usize, x: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        let k = self.held_index(k)?;
        let own = |x: &Ciphertext| match &self.twiddled {
            Twiddled::Encoded(t) => run_levels([&t[k]], x, keys),
            Twiddled::Plain(t) => {
                let mut x = x.clone();
                if x.level() > t[k].level() {
                    x.mod_switch_to_assign(t[k].level())?;
                }
                Ok(t[k].apply(&x, keys)?)
            }
        };
        if self.across_first {
            run_levels(&self.shared, &own(x)?, keys)
        } else {
            own(&run_levels(&self.shared, x, keys)?)
        }
    }
}

/// Work one execution of a plan performs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanCost {
    /// Automorphisms (rotations and row swaps), baby and giant steps.
    pub rotations: usize,
    /// The automorphisms that pay a whole key switch: all of them in
    /// [`KeyMode::MinimalKeys`](crate::KeyMode::MinimalKeys), only the
    /// giant steps in [`KeyMode::Fast`](crate::KeyMode::Fast), whose
    /// double-hoisted baby steps cost an inner product each.
    pub key_switches: usize,
    /// Plaintext multiplications.
    pub multiplications: usize,
}

/// Builder for [`FftPlan`]: it builds the plan it describes
/// ([`build`](Self::build)) or loads it from a file
/// ([`load_from`](Self::load_from)), and only that plan.
#[derive(Clone)]
pub struct FftPlanBuilder<F: PrimeField + FftField> {
    context: Context,
    spec: PlanSpec<F>,
    options: BuildOptions,
    only_groups: Option<Range<usize>>,
}

impl<F: PrimeField + FftField> FftPlan<F> {
    /// A builder for a size-`n` transform in `context` (defaults: forward,
    /// no coset, factored with automatic levels, natural input order, fast keys,
    /// inputs at the top level).
    pub fn builder(context: &Context, n: usize) -> FftPlanBuilder<F> {
        FftPlanBuilder {
            context: context.clone(),
            spec: PlanSpec::new(n),
            options: BuildOptions::default(),
            only_groups: None,
        }
    }

    /// What the plan computes: size, direction, coset, strategy and orders.
    pub fn spec(&self) -> &PlanSpec<F> {
        &self.spec
    }

    /// Transform size.
    pub fn len(&self) -> usize {
        self.spec.n
    }

    /// Whether the transform is empty (never: n ≥ 2).
    pub fn is_empty(&self) -> bool {
        self.spec.n == 0
    }

    /// The context the plan was built for.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Number of ciphertexts holding one input vector.
    pub fn ciphertexts(&self) -> usize {
        self.geometry.ciphertexts()
    }

    /// The groups (ciphertexts of a four-step plan) whose own levels the plan
    /// holds: every one (`0..ciphertexts()`) unless it was built with
    /// [`FftPlanBuilder::only_groups`].
    pub fn held_groups(&self) -> Range<usize> {
        match &self.pipeline {
            Pipeline::Split(split) => split.held.clone(),
            _ => 0..self.ciphertexts(),
        }
    }

    /// Multiplication levels the plan consumes.
    pub fn depth(&self) -> usize {
        self.geometry.depth()
    }

    /// Key switches and plaintext products one execution performs (the dense
    /// strategy's are counted from its schedule); for a plan built with
    /// [`FftPlanBuilder::only_groups`], those of its groups' transforms.
    pub fn cost(&self) -> PlanCost {
        let of = |l: &EncodedTransform| PlanCost {
            rotations: l.schedule().baby_rotations() + l.schedule().giant_rotations(),
            key_switches: l.schedule().key_switches(),
            multiplications: l.multiplications(),
        };
        let sum = |it: &mut dyn Iterator<Item = PlanCost>| {
            it.fold(PlanCost::default(), |a, b| PlanCost {
                rotations: a.rotations + b.rotations,
                key_switches: a.key_switches + b.key_switches,
                multiplications: a.multiplications + b.multiplications,
            })
        };
        match &self.pipeline {
            Pipeline::Levels(levels) => sum(&mut levels.iter().map(of)),
            Pipeline::Split(split) => {
                let own = split
                    .own_levels()
                    .into_iter()
                    .map(|(schedule, multiplications)| PlanCost {
                        rotations: schedule.baby_rotations() + schedule.giant_rotations(),
                        key_switches: schedule.key_switches(),
                        multiplications,
                    });
                let once = sum(&mut split.shared.iter().map(of));
                let held = split.held.len();
                let all_shared = PlanCost {
                    rotations: once.rotations * held,
                    key_switches: once.key_switches * held,
                    multiplications: once.multiplications * held,
                };
                sum(&mut own.chain(std::iter::once(all_shared)))
            }
            Pipeline::Dense(run) => {
                let schedule = run.schedule(self.prep.keys);
                PlanCost {
                    rotations: schedule.baby_rotations() + schedule.giant_rotations(),
                    key_switches: schedule.key_switches(),
                    multiplications: dense_shape(run.packing).len(),
                }
            }
        }
    }

    /// The memory estimate [`FftPlanBuilder::build`] checked against its
    /// limit (computed from the plan's shape before anything was encoded).
    pub fn memory_estimate(&self) -> MemoryEstimate {
        self.memory
    }

    /// The estimated peak bytes: [`MemoryEstimate::peak_bytes`] of
    /// [`memory_estimate`](Self::memory_estimate).
    pub fn estimated_memory_bytes(&self) -> usize {
        self.memory.peak_bytes()
    }

    /// The order of the vector [`decrypt`](Self::decrypt) returns (and of the
    /// slots of a single output ciphertext): bit-reversed for the factored
    /// strategy with natural input, natural otherwise (for n > N, `decrypt`
    /// undoes the strided layout).
    pub fn output_order(&self) -> Order {
        self.geometry.output_order()
    }

    /// The key policy the plan was built under: its key mode, baby step cap
    /// and expected executions per set of Galois keys.
    pub fn key_policy(&self) -> KeyPolicy {
        self.prep.keys
    }

    /// Strategy, direction and the input order (see [`FftPlanBuilder::input_order`]).
    pub fn describe(&self) -> String {
        format!(
            "{:?} {:?} n={} coset={} input={:?} keys={:?} depth={} ciphertexts={}",
            self.spec.strategy,
            self.spec.direction,
            self.spec.n,
            self.spec.coset.is_some(),
            self.spec.input_order,
            self.prep.keys.mode,
            self.depth(),
            self.ciphertexts()
        )
    }

    /// The Galois elements whose keys the plan needs: generate exactly these.
    pub fn required_galois_elements(&self) -> Vec<u64> {
        let mut out: Vec<u64> = match &self.pipeline {
            Pipeline::Levels(levels) => levels
                .iter()
                .flat_map(|l| l.schedule().required_galois_elements(&self.context))
                .collect(),
            Pipeline::Dense(run) => run
                .schedule(self.prep.keys)
                .required_galois_elements(&self.context),
            // Every group's own level has the same diagonals (its twiddles
            // scale them), so the held groups name every group's keys.
            Pipeline::Split(split) => split
                .own_levels()
                .into_iter()
                .map(|(schedule, _)| schedule)
                .chain(split.shared.iter().map(|l| l.schedule()))
                .flat_map(|s| s.required_galois_elements(&self.context))
                .collect(),
        };
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Generates the Galois keys [`required_galois_elements`](Self::required_galois_elements) names.
    pub fn generate_galois_keys(&self, sk: &SecretKey) -> Result<GaloisKeys> {
        Ok(GaloisKeys::for_elements(
            sk,
            &self.required_galois_elements(),
        )?)
    }

    /// Packs `values` (length n, in the plan's input order) into slot vectors
    /// and encrypts them at the plan's input level.
    ///
    /// The ciphertexts are encoded and encrypted in parallel on the context's
    /// thread count (each with its own randomness from the OS, as one
    /// encryption alone would draw it).
    ///
    /// # Errors
    /// [`Error::WrongLength`] unless there are exactly n values;
    /// [`Error::ContextMismatch`] for a key of another context;
    /// [`Error::ThreadPool`] when the system cannot start the threads.
    pub fn encrypt(&self, pk: &PublicKey, values: &[F]) -> Result<Vec<Ciphertext>> {
        self.encrypt_ciphertexts(pk, values, 0..self.ciphertexts())
    }

    /// As [`encrypt`](Self::encrypt), the input ciphertexts `which` only
    /// (of [`ciphertexts`](Self::ciphertexts)): for a process that holds
    /// some of them ([`FourStep`]).
    ///
    /// # Errors
    /// As [`encrypt`](Self::encrypt); [`Error::GroupOutOfRange`] for a range
    /// reaching past the plan's ciphertexts.
    pub fn encrypt_ciphertexts(
        &self,
        pk: &PublicKey,
        values: &[F],
        which: std::ops::Range<usize>,
    ) -> Result<Vec<Ciphertext>> {
        ensure_same_context(&self.context, pk.context())?;
        let slots = self.input_slots(values)?;
        let chosen = slots.get(which.clone()).ok_or(Error::GroupOutOfRange {
            index: which.end.saturating_sub(1).max(which.start),
            ciphertexts: slots.len(),
        })?;
        map_in_pool(&self.context, chosen, |slots| {
            Ok(pk.encrypt_at_level(&self.encoder.encode(slots)?, self.prep.level)?)
        })
    }

    /// Decrypts the outputs and unpacks them into a vector in the plan's output order.
    ///
    /// # Errors
    /// [`Error::WrongOutputCount`] unless there are exactly
    /// [`ciphertexts`](Self::ciphertexts) outputs; [`Error::ContextMismatch`]
    /// for a key or ciphertext of another context.
    pub fn decrypt(&self, sk: &SecretKey, outputs: &[Ciphertext]) -> Result<Vec<F>> {
        if outputs.len() != self.ciphertexts() {
            return Err(Error::WrongOutputCount {
                expected: self.ciphertexts(),
                got: outputs.len(),
            });
        }
        ensure_same_context(&self.context, sk.context())?;
        for ct in outputs {
            ensure_same_context(&self.context, ct.context())?;
        }
        let slots = map_in_pool(&self.context, outputs, |ct| {
            Ok(self.encoder.decode(&sk.decrypt(ct)?)?)
        })?;
        Ok(self.output_values(&slots))
    }

    /// Runs the transform.
    ///
    /// # Errors
    /// Checked before any work, in this order: [`Error::WrongInputCount`]
    /// unless there are exactly [`ciphertexts`](Self::ciphertexts) inputs;
    /// [`Error::ContextMismatch`] for inputs or keys of another context;
    /// [`Error::InputNotRelinearized`] for an input of more than two parts;
    /// [`Error::WrongInputLevel`] for inputs not at the plan's input level;
    /// [`Error::MissingGaloisKey`]; [`Error::InsufficientBudget`] when the
    /// inputs' estimated noise budget is too small for the plan's depth;
    /// first of all, [`Error::PartialPlan`] for a plan built with
    /// [`FftPlanBuilder::only_groups`] (its groups run through
    /// [`four_step`](Self::four_step)).
    pub fn execute(&self, inputs: &[Ciphertext], keys: &GaloisKeys) -> Result<Vec<Ciphertext>> {
        if let Pipeline::Split(split) = &self.pipeline {
            split.require_whole("a one-process execution")?;
        }
        if inputs.len() != self.ciphertexts() {
            return Err(Error::WrongInputCount {
                expected: self.ciphertexts(),
                got: inputs.len(),
            });
        }
        self.admission(&self.required_galois_elements())
            .check(inputs, keys)?;
        // Outputs leave with the primes their noise no longer needs dropped
        // (those of a four-step plan in parallel, one ciphertext per task).
        let reduced = |mut ct: Ciphertext| -> Result<Vec<Ciphertext>> {
            ct.mod_switch_reduce_noise_assign()?;
            Ok(vec![ct])
        };
        let outputs = match &self.pipeline {
            Pipeline::Levels(levels) => reduced(run_levels(levels, &inputs[0], keys)?)?,
            Pipeline::Dense(run) => reduced(self.run_dense(run, &inputs[0], keys)?)?,
            Pipeline::Split(_) => {
                let parts = self
                    .four_step()
                    .ok_or(Error::Internal("a four-step pipeline"))?;
                in_pool(&self.context, || self.run_split(&parts, inputs, keys))?
            }
        };
        Ok(outputs)
    }

    /// Slot vectors of the input: entries in the plan's input order.
    fn input_slots(&self, values: &[F]) -> Result<Vec<Vec<F>>> {
        if values.len() != self.spec.n {
            return Err(Error::WrongLength {
                expected: self.spec.n,
                got: values.len(),
            });
        }
        let groups = self.geometry.ciphertexts();
        Ok(match (self.geometry.split(), self.spec.direction) {
            (true, Direction::Forward) => values
                .chunks(self.context.ring_degree())
                .map(<[F]>::to_vec)
                .collect(),
            (true, Direction::Inverse) => strided_bit_reversed(values, groups),
            (false, _) => vec![self.geometry.packing().pack(values)],
        })
    }

    /// Output vector from decrypted slot vectors.
    fn output_values(&self, slots: &[Vec<F>]) -> Vec<F> {
        match (self.geometry.split(), self.spec.direction) {
            (true, Direction::Forward) => unstride_bit_reversed(slots, self.geometry.ciphertexts()),
            (true, Direction::Inverse) => slots.concat(),
            (false, _) => self.geometry.packing().unpack(&slots[0]),
        }
    }
}
