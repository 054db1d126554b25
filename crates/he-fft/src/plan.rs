//! FFT plans: built once for (context, n, direction, coset, strategy), run many times.

use crate::error::{Error, Result};
use crate::layout::Packing;
use crate::memory::{available_memory_bytes, LevelShape, MemoryEstimate, PlanShape};
use crate::parallel::in_pool;
use crate::stages::{
    bit_reversal, bit_reversal_shape, compose_stages, dense_shape, group_bounds,
    group_bounds_short_last, group_shapes, group_shapes_in, group_stages, group_stages_in,
    radix2_shapes, radix2_stages, DenseDiagonals, Order,
};
use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::lintrans::{
    EncodedTransform, KeyMode, KeyPolicy, PlainTransform, Schedule, SlotTransform,
};
use helib_rs::{BatchEncoder, Ciphertext, Context, GaloisKeys, PublicKey, SecretKey};
use rayon::prelude::*;

/// Forward (`fft`) or inverse (`ifft`, including the 1/n factor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Evaluations at the domain (or coset) points: `y_k = Σ x_i (g ω^k)^i`.
    Forward,
    /// Coefficients from evaluations: the inverse of `Forward`.
    Inverse,
}

/// How the transform is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// The whole n×n matrix by the diagonal method with baby-step giant-step:
    /// one multiplication level, n diagonals (built and encoded at every
    /// execution rather than stored in the plan, so plans stay small).
    Dense,
    /// The radix-2 stages grouped into `levels` sparse transforms (each one
    /// multiplication level with at most 2^(s+1) - 1 diagonals for s stages).
    /// `None` lets the plan choose from the noise budget of the input level.
    Factored {
        /// Number of multiplication levels (1..=4), or automatic.
        levels: Option<usize>,
    },
}

/// The FFT of size n over F on encrypted vectors (see the crate docs for the
/// layouts and which orders are free).
pub struct FftPlan<F: PrimeField + FftField> {
    context: Context,
    encoder: BatchEncoder<F>,
    n: usize,
    direction: Direction,
    coset: Option<F>,
    strategy: Strategy,
    order: Order,
    output_order: Order,
    keys: KeyPolicy,
    level: usize,
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

/// Four-step FFT over C ciphertexts of N slots (n = C·N): a size-C DFT across
/// ciphertexts (additions for C = 2, scalar products otherwise) and, per
/// group, a size-N transform with the twiddles folded in.
///
/// Only one level of the size-N transform depends on the group (the first
/// going forward, the last going back: the one absorbing the twiddles); the
/// others are encoded once and shared, so the plan holds C copies of one
/// level and one copy of the rest.
struct SplitRun {
    groups: usize,
    across_first: bool,
    across_scalars: Vec<Vec<num_bigint::BigUint>>,
    /// Per group, the level absorbing its twiddles.
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
    /// Group k's own level: its schedule and plaintext products.
    fn own(&self, k: usize) -> (&Schedule, usize) {
        match &self.twiddled {
            Twiddled::Encoded(t) => (t[k].schedule(), t[k].multiplications()),
            Twiddled::Plain(t) => (t[k].schedule(), t[k].multiplications()),
        }
    }

    /// Group k's size-N transform on `x`.
    fn run_group(&self, k: usize, x: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
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

    /// Levels one ciphertext goes through.
    fn per_ciphertext_depth(&self) -> usize {
        1 + self.shared.len()
    }
}

/// Work one execution of a plan performs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanCost {
    /// Automorphisms (rotations and row swaps), baby and giant steps.
    pub rotations: usize,
    /// The automorphisms that pay a whole key switch: all of them in
    /// [`KeyMode::MinimalKeys`], only the giant steps in [`KeyMode::Fast`],
    /// whose double-hoisted baby steps cost an inner product each.
    pub key_switches: usize,
    /// Plaintext multiplications.
    pub multiplications: usize,
}

/// Builder for [`FftPlan`].
pub struct FftPlanBuilder<F: PrimeField + FftField> {
    context: Context,
    n: usize,
    direction: Direction,
    coset: Option<F>,
    strategy: Strategy,
    order: Order,
    keys: KeyPolicy,
    level: Option<usize>,
    natural_output: bool,
    memory_limit: Option<usize>,
    per_execution: bool,
}

impl<F: PrimeField + FftField> FftPlan<F> {
    /// A builder for a size-`n` transform in `context` (defaults: forward,
    /// no coset, factored with automatic levels, natural input order, fast keys,
    /// inputs at the top level).
    pub fn builder(context: &Context, n: usize) -> FftPlanBuilder<F> {
        FftPlanBuilder {
            context: context.clone(),
            n,
            direction: Direction::Forward,
            coset: None,
            strategy: Strategy::Factored { levels: None },
            order: Order::Natural,
            keys: KeyPolicy {
                mode: KeyMode::Fast,
                max_baby_steps: usize::MAX,
            },
            level: None,
            natural_output: false,
            memory_limit: None,
            per_execution: false,
        }
    }

    /// Transform size.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the transform is empty (never: n ≥ 2).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Number of ciphertexts holding one input vector.
    pub fn ciphertexts(&self) -> usize {
        self.n.div_ceil(self.context.ring_degree())
    }

    /// Multiplication levels the plan consumes.
    pub fn depth(&self) -> usize {
        match &self.pipeline {
            Pipeline::Levels(levels) => levels.len(),
            Pipeline::Dense(_) => 1,
            Pipeline::Split(split) => {
                split.per_ciphertext_depth() + usize::from(split.groups > 2 || self.coset.is_some())
            }
        }
    }

    /// Key switches and plaintext products one execution performs (the dense
    /// strategy's are counted from its schedule).
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
                let own = (0..split.groups).map(|k| {
                    let (schedule, multiplications) = split.own(k);
                    PlanCost {
                        rotations: schedule.baby_rotations() + schedule.giant_rotations(),
                        key_switches: schedule.key_switches(),
                        multiplications,
                    }
                });
                let once = sum(&mut split.shared.iter().map(of));
                let all_shared = PlanCost {
                    rotations: once.rotations * split.groups,
                    key_switches: once.key_switches * split.groups,
                    multiplications: once.multiplications * split.groups,
                };
                sum(&mut own.chain(std::iter::once(all_shared)))
            }
            Pipeline::Dense(run) => {
                let schedule = dense_schedule(run, self.keys);
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
        self.output_order
    }

    /// Strategy, direction and the input order (see [`FftPlanBuilder::input_order`]).
    pub fn describe(&self) -> String {
        format!(
            "{:?} {:?} n={} coset={} input={:?} keys={:?} depth={} ciphertexts={}",
            self.strategy,
            self.direction,
            self.n,
            self.coset.is_some(),
            self.order,
            self.keys.mode,
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
            Pipeline::Dense(run) => {
                dense_schedule(run, self.keys).required_galois_elements(&self.context)
            }
            Pipeline::Split(split) => (0..split.groups)
                .map(|k| split.own(k).0)
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
    /// # Errors
    /// [`Error::WrongLength`] unless there are exactly n values;
    /// [`Error::ContextMismatch`] for a key of another context.
    pub fn encrypt(&self, pk: &PublicKey, values: &[F]) -> Result<Vec<Ciphertext>> {
        self.ensure_context(pk.context())?;
        self.input_slots(values)?
            .iter()
            .map(|slots| Ok(pk.encrypt_at_level(&self.encoder.encode(slots)?, self.level)?))
            .collect()
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
        self.ensure_context(sk.context())?;
        for ct in outputs {
            self.ensure_context(ct.context())?;
        }
        let slots: Vec<Vec<F>> = outputs
            .iter()
            .map(|ct| Ok(self.encoder.decode(&sk.decrypt(ct)?)?))
            .collect::<Result<_>>()?;
        self.output_values(&slots)
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
    /// inputs' estimated noise budget is too small for the plan's depth.
    pub fn execute(&self, inputs: &[Ciphertext], keys: &GaloisKeys) -> Result<Vec<Ciphertext>> {
        if inputs.len() != self.ciphertexts() {
            return Err(Error::WrongInputCount {
                expected: self.ciphertexts(),
                got: inputs.len(),
            });
        }
        self.ensure_context(keys.context())?;
        for ct in inputs {
            self.ensure_context(ct.context())?;
        }
        if let Some(ct) = inputs.iter().find(|ct| ct.size() != 2) {
            return Err(Error::InputNotRelinearized { parts: ct.size() });
        }
        if let Some(ct) = inputs.iter().find(|ct| ct.level() != self.level) {
            return Err(Error::WrongInputLevel {
                expected: self.level,
                got: ct.level(),
            });
        }
        for element in self.required_galois_elements() {
            if !keys.contains(element) {
                return Err(Error::MissingGaloisKey { element });
            }
        }
        // Refuse inputs whose own (key-free) budget estimate is too small for
        // the plan's levels, instead of failing at decryption.
        let per_level = level_cost_bits(&self.context);
        let available = inputs
            .iter()
            .map(|ct| (ct.estimated_budget_bits() / per_level).floor().max(0.0) as usize)
            .min()
            .unwrap_or(0);
        if available < self.depth() {
            return Err(Error::InsufficientBudget {
                needed: self.depth(),
                available,
            });
        }
        let mut outputs = match &self.pipeline {
            Pipeline::Levels(levels) => vec![run_levels(levels, &inputs[0], keys)?],
            Pipeline::Dense(run) => vec![self.run_dense(run, &inputs[0], keys)?],
            Pipeline::Split(split) => {
                in_pool(&self.context, || self.run_split(split, inputs, keys))?
            }
        };
        // Outputs leave with the primes their noise no longer needs dropped.
        for ct in &mut outputs {
            ct.mod_switch_reduce_noise_assign()?;
        }
        Ok(outputs)
    }

    fn row(&self) -> usize {
        self.context.ring_degree() / 2
    }

    /// `Ok` when `other` is the plan's context.
    fn ensure_context(&self, other: &Context) -> Result<()> {
        if self.context.same_as(other) {
            Ok(())
        } else {
            Err(Error::ContextMismatch)
        }
    }

    /// Slot vectors of the input: entries in the plan's input order.
    fn input_slots(&self, values: &[F]) -> Result<Vec<Vec<F>>> {
        if values.len() != self.n {
            return Err(Error::WrongLength {
                expected: self.n,
                got: values.len(),
            });
        }
        let slots = 2 * self.row();
        match (&self.pipeline, self.direction) {
            (Pipeline::Split(_), Direction::Forward) => {
                Ok(values.chunks(slots).map(|c| c.to_vec()).collect())
            }
            (Pipeline::Split(split), Direction::Inverse) => {
                Ok(strided_bit_reversed(values, split.groups))
            }
            _ => {
                let packing =
                    Packing::for_length(self.n, self.row()).ok_or(Error::Internal("packing"))?;
                Ok(vec![packing.pack(values)])
            }
        }
    }

    /// Output vector from decrypted slot vectors.
    fn output_values(&self, slots: &[Vec<F>]) -> Result<Vec<F>> {
        match (&self.pipeline, self.direction) {
            (Pipeline::Split(split), Direction::Forward) => {
                Ok(unstride_bit_reversed(slots, split.groups))
            }
            (Pipeline::Split(_), Direction::Inverse) => Ok(slots.concat()),
            _ => {
                let packing =
                    Packing::for_length(self.n, self.row()).ok_or(Error::Internal("packing"))?;
                Ok(packing.unpack(&slots[0]))
            }
        }
    }

    fn run_dense(
        &self,
        run: &DenseRun<F>,
        x: &Ciphertext,
        keys: &GaloisKeys,
    ) -> Result<Ciphertext> {
        let transform = dense_transform(run);
        let encoded = EncodedTransform::new(&transform, self.keys, &self.encoder, x.level())?;
        Ok(encoded.apply(x, keys)?)
    }

    /// The four-step execution: the groups' size-N transforms run in
    /// parallel on the pool the caller installed, as do the sums across
    /// ciphertexts (one per output).
    fn run_split(
        &self,
        split: &SplitRun,
        inputs: &[Ciphertext],
        keys: &GaloisKeys,
    ) -> Result<Vec<Ciphertext>> {
        let across = |cts: &[Ciphertext]| -> Result<Vec<Ciphertext>> {
            (0..split.groups)
                .into_par_iter()
                .map(|k| {
                    let mut acc: Option<Ciphertext> = None;
                    for (c, ct) in cts.iter().enumerate() {
                        let term = scale(
                            ct,
                            &split.across_scalars[k][c],
                            self.context.plaintext_modulus(),
                        )?;
                        match acc.as_mut() {
                            Some(a) => a.add_assign(&term)?,
                            None => acc = Some(term),
                        }
                    }
                    acc.ok_or(Error::Internal("no ciphertexts"))
                })
                .collect()
        };
        let per_group = |cts: &[Ciphertext]| -> Result<Vec<Ciphertext>> {
            cts.par_iter()
                .enumerate()
                .map(|(k, ct)| split.run_group(k, ct, keys))
                .collect()
        };
        if split.across_first {
            per_group(&across(inputs)?)
        } else {
            across(&per_group(inputs)?)
        }
    }
}

/// Multiplies by a scalar given as 0, 1, t-1 (free) or anything else (a product).
fn scale(ct: &Ciphertext, k: &num_bigint::BigUint, t: &num_bigint::BigUint) -> Result<Ciphertext> {
    if *k == num_bigint::BigUint::from(1u8) {
        Ok(ct.clone())
    } else if k + 1u8 == *t {
        Ok(ct.negate()?)
    } else {
        Ok(ct.mul_scalar(k)?)
    }
}

pub(crate) fn run_levels<'a>(
    levels: impl IntoIterator<Item = &'a EncodedTransform>,
    x: &Ciphertext,
    keys: &GaloisKeys,
) -> Result<Ciphertext> {
    let mut current = x.clone();
    for transform in levels {
        // Drop the primes the previous level's noise growth made unnecessary.
        if current.level() > transform.level() {
            current.mod_switch_to_assign(transform.level())?;
        }
        current = transform.apply(&current, keys)?;
    }
    Ok(current)
}

fn dense_transform<F: PrimeField + FftField>(run: &DenseRun<F>) -> SlotTransform<F> {
    let n = run.packing.len();
    let bits = n.trailing_zeros();
    let powers: Vec<F> = std::iter::successors(Some(F::one()), |w| Some(*w * run.omega))
        .take(n)
        .collect();
    let bit_reversed = run.input_bit_reversed;
    let matrix = DenseDiagonals::new(run.packing, move |i, j| {
        let j = if bit_reversed {
            crate::stages::bit_reverse(j, bits)
        } else {
            j
        };
        powers[(i * j) % n]
    });
    // diag(out) ∘ (D ⊙ shift(·)) ∘ diag(in) = (out ⊙ D ⊙ shift(in)) ⊙ shift(·):
    // the scalings go into each diagonal as it is made, so only one copy of
    // the n diagonals is ever held.
    let row = run.packing.row();
    let mut t = SlotTransform::zero(row);
    for shift in matrix.shifts() {
        let scale_in = SlotTransform::shift_vector(row, &run.scale_in, shift);
        let diagonal: Vec<F> = matrix
            .diagonal(shift)
            .into_iter()
            .zip(scale_in)
            .zip(&run.scale_out)
            .map(|((d, a), b)| d * a * b)
            .collect();
        t.add_term(shift, &diagonal);
    }
    t
}

/// The dense transform's schedule: it depends only on which shifts occur,
/// so no diagonal is computed.
fn dense_schedule<F: PrimeField + FftField>(run: &DenseRun<F>, keys: KeyPolicy) -> Schedule {
    keys.schedule_for_shape(run.packing.row(), &dense_shape(run.packing))
}

/// Entry `c + C·bitrev(q)` of `values` to ciphertext c, slot q.
fn strided_bit_reversed<F: Copy>(values: &[F], groups: usize) -> Vec<Vec<F>> {
    let per = values.len() / groups;
    let bits = per.trailing_zeros();
    (0..groups)
        .map(|c| {
            (0..per)
                .map(|q| values[c + groups * crate::stages::bit_reverse(q, bits)])
                .collect()
        })
        .collect()
}

/// Inverse of [`strided_bit_reversed`].
fn unstride_bit_reversed<F: Copy + Default>(slots: &[Vec<F>], groups: usize) -> Vec<F> {
    let per = slots[0].len();
    let bits = per.trailing_zeros();
    let mut out = vec![F::default(); groups * per];
    for (c, s) in slots.iter().enumerate() {
        for (q, v) in s.iter().enumerate() {
            out[c + groups * crate::stages::bit_reverse(q, bits)] = *v;
        }
    }
    out
}

impl<F: PrimeField + FftField> FftPlanBuilder<F> {
    /// Forward or inverse.
    pub fn direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }

    /// The inverse transform (`ifft`).
    pub fn inverse(self) -> Self {
        self.direction(Direction::Inverse)
    }

    /// Evaluate on the coset `offset · ⟨ω⟩` (`coset_fft` / `coset_ifft`).
    pub fn coset(mut self, offset: F) -> Self {
        self.coset = Some(offset);
        self
    }

    /// The evaluation strategy.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// The order of the input vector; the output comes in the other order for
    /// the factored strategy with one ciphertext (Natural in → BitReversed out
    /// and vice versa: both free). The dense strategy always maps natural to
    /// natural (the order is folded into its matrix).
    pub fn input_order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// With the factored strategy and natural input order, also put the output
    /// in natural order, at the price of one more level: a bit-reversal
    /// permutation with up to n diagonals.
    pub fn natural_output(mut self) -> Self {
        self.natural_output = true;
        self
    }

    /// Galois-key memory mode.
    pub fn key_mode(mut self, mode: KeyMode) -> Self {
        self.keys.mode = mode;
        self
    }

    /// At most `max` baby steps per level (at least 1; `build` refuses 0):
    /// fewer Galois keys and more giant steps. The default leaves the choice
    /// to the cost model, which in [`KeyMode::Fast`] favours many (cheap,
    /// double-hoisted) baby steps and so many keys.
    pub fn max_baby_steps(mut self, max: usize) -> Self {
        self.keys.max_baby_steps = max;
        self
    }

    /// Refuse at [`build`](Self::build) a plan whose estimated peak memory
    /// ([`memory_estimate`](Self::memory_estimate)) exceeds `bytes`. The
    /// default limit is the memory the system reports available
    /// ([`available_memory_bytes`](crate::available_memory_bytes)), and no
    /// limit where it does not say; `usize::MAX` disables the check.
    pub fn memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = Some(bytes);
        self
    }

    /// For n > N, keep each ciphertext's own level (the one absorbing its
    /// twiddles; the others are shared) as plaintexts and encode it at each
    /// execution: the lower-memory mode for the largest sizes. A plaintext
    /// holds N·⌈log2 t / 64⌉ words against N words per prime for an
    /// encoding (about a seventh for BN254 at N = 2^16), and an execution
    /// encodes each ciphertext's level when it runs it (in parallel, one
    /// level per thread alive). No effect for n ≤ N.
    pub fn encode_per_execution(mut self) -> Self {
        self.per_execution = true;
        self
    }

    /// The level of input ciphertexts (default: the top level).
    pub fn input_level(mut self, level: usize) -> Self {
        self.level = Some(level);
        self
    }

    /// The plan's estimated memory, from its shape alone (no diagonal is
    /// computed or encoded): what [`build`](Self::build) compares with the
    /// [`memory_limit`](Self::memory_limit).
    ///
    /// # Errors
    /// As for [`build`](Self::build), except the memory check.
    pub fn memory_estimate(&self) -> Result<MemoryEstimate> {
        let settings = self.settings()?;
        self.estimate(&settings)
    }

    /// Builds the plan: checks the settings, estimates the plan's memory and
    /// refuses it when over the limit, then factors the transform and encodes
    /// its diagonals.
    ///
    /// # Errors
    /// In this order: [`Error::InvalidSize`] for n not a power of two ≥ 2 or
    /// without a root of unity of order n in F; [`Error::InvalidCosetOffset`]
    /// for a zero coset offset; [`Error::InvalidMaxBabySteps`] for
    /// `max_baby_steps(0)`; [`Error::InvalidLevels`] for a factored level
    /// count outside 1..=4; [`Error::InputLevelOutOfRange`] for an input
    /// level above the context's top; [`Error::Unsupported`] for a layout the
    /// strategy cannot take; [`Error::He`] when t is not F's modulus (or there
    /// is no batching); [`Error::InsufficientBudget`] when the input level
    /// leaves too little noise budget for the plan's depth;
    /// [`Error::InsufficientMemory`] when the estimated peak memory exceeds
    /// the limit.
    pub fn build(self) -> Result<FftPlan<F>> {
        let _span = tracing::info_span!("he_fft.plan_build", n = self.n).entered();
        let settings = self.settings()?;
        let memory = self.estimate(&settings)?;
        if let Some(limit) = self.memory_limit.or_else(available_memory_bytes) {
            if memory.peak_bytes() > limit {
                return Err(Error::InsufficientMemory {
                    estimated: memory.peak_bytes(),
                    limit,
                });
            }
        }
        let Settings {
            encoder,
            level,
            chosen,
            permute,
            output_order,
            omega,
        } = settings;
        let n = self.n;
        let slots = self.context.ring_degree();
        let row = slots / 2;
        let make = || -> Result<Pipeline<F>> {
            Ok(if n <= slots {
                let packing = Packing::for_length(n, row).ok_or(Error::InvalidSize(n))?;
                // The order the scalings see: the transform's own output, before
                // any bit-reversal permutation.
                let scaled_order = match (self.strategy, self.order) {
                    (Strategy::Dense, _) | (_, Order::BitReversed) => Order::Natural,
                    (_, Order::Natural) => Order::BitReversed,
                };
                let (scale_in, scale_out) = scalings(
                    packing,
                    self.direction,
                    self.coset,
                    self.order,
                    scaled_order,
                    n,
                )?;
                match self.strategy {
                    Strategy::Dense => Pipeline::Dense(DenseRun {
                        packing,
                        omega,
                        scale_in,
                        scale_out,
                        input_bit_reversed: self.order == Order::BitReversed,
                    }),
                    Strategy::Factored { .. } => {
                        let mut transforms =
                            factored(packing, omega, self.order, chosen, &scale_in, &scale_out);
                        if permute {
                            transforms.push(bit_reversal(packing));
                        }
                        Pipeline::Levels(encode_all(&transforms, self.keys, &encoder, level)?)
                    }
                }
            } else {
                Pipeline::Split(split_run(
                    &self.context,
                    &encoder,
                    n,
                    self.direction,
                    self.coset,
                    self.keys,
                    chosen,
                    level,
                    self.strategy,
                    self.per_execution,
                )?)
            })
        };
        // Field arithmetic and encodings in parallel, with the context's threads.
        let pipeline = in_pool(&self.context, make)?;
        Ok(FftPlan {
            context: self.context,
            encoder,
            n,
            direction: self.direction,
            coset: self.coset,
            strategy: self.strategy,
            order: self.order,
            output_order,
            keys: self.keys,
            level,
            pipeline,
            memory,
        })
    }

    /// Checks every setting (in the order [`build`](Self::build) documents)
    /// and derives what the plan's shape depends on.
    fn settings(&self) -> Result<Settings<F>> {
        let n = self.n;
        if n < 2 || !n.is_power_of_two() {
            return Err(Error::InvalidSize(n));
        }
        let domain = Radix2EvaluationDomain::<F>::new(n).ok_or(Error::InvalidSize(n))?;
        if self.coset.is_some_and(|g| g.is_zero()) {
            return Err(Error::InvalidCosetOffset);
        }
        if self.keys.max_baby_steps == 0 {
            return Err(Error::InvalidMaxBabySteps(0));
        }
        let levels_wanted = match self.strategy {
            Strategy::Factored { levels: Some(k) } if !(1..=4).contains(&k) => {
                return Err(Error::InvalidLevels(k))
            }
            Strategy::Factored { levels: Some(k) } => Some(k),
            Strategy::Factored { levels: None } => None,
            Strategy::Dense => Some(1),
        };
        let max = self.context.max_level();
        let level = self.level.unwrap_or(max);
        if level > max {
            return Err(Error::InputLevelOutOfRange { level, max });
        }
        let slots = self.context.ring_degree();
        if n > slots && self.order != Order::Natural {
            return Err(Error::Unsupported(
                "for n > N the input layout is fixed: natural chunks forward, the forward output layout inverse",
            ));
        }
        if n > slots && self.strategy == Strategy::Dense {
            return Err(Error::Unsupported(
                "the dense strategy handles n ≤ N; use the factored strategy for n > N",
            ));
        }
        // Refuses a t other than F's modulus (or without batching).
        let encoder = BatchEncoder::<F>::new(&self.context)?;
        let budget_levels = affordable_levels(&self.context, level);
        let output_order = if n > slots
            || self.strategy == Strategy::Dense
            || self.natural_output
            || self.order == Order::BitReversed
        {
            Order::Natural
        } else {
            Order::BitReversed
        };
        let permute = self.natural_output
            && self.order == Order::Natural
            && n <= slots
            && matches!(self.strategy, Strategy::Factored { .. });
        // Levels beyond the per-ciphertext transforms: the scalar products
        // across ciphertexts and the bit-reversal permutation.
        let extra = usize::from(n > slots && (n / slots > 2 || self.coset.is_some()))
            + usize::from(permute);
        // A ciphertext's transform has log2(min(n, N)) stages, so no more levels.
        let stages = n.min(slots).trailing_zeros() as usize;
        let chosen = match levels_wanted {
            Some(k) => k.min(stages),
            None => budget_levels.saturating_sub(extra).clamp(1, 4).min(stages),
        };
        if chosen + extra > budget_levels {
            return Err(Error::InsufficientBudget {
                needed: chosen + extra,
                available: budget_levels,
            });
        }
        let omega = match self.direction {
            Direction::Forward => domain.group_gen,
            Direction::Inverse => domain.group_gen_inv,
        };
        Ok(Settings {
            encoder,
            level,
            chosen,
            permute,
            output_order,
            omega,
        })
    }

    /// The memory estimate for checked settings.
    fn estimate(&self, settings: &Settings<F>) -> Result<MemoryEstimate> {
        let shape = self.shape(settings);
        crate::memory::estimate(
            &shape,
            &self.context,
            self.keys,
            settings.level,
            std::mem::size_of::<F>(),
        )
    }

    /// What the plan will encode and run, without any values: mirrors
    /// `build`'s choices (a unit test checks they agree).
    fn shape(&self, settings: &Settings<F>) -> PlanShape {
        let slots = self.context.ring_degree();
        let row = slots / 2;
        let at_levels = |shapes: Vec<crate::stages::Shape>| -> Vec<LevelShape> {
            shapes
                .into_iter()
                .enumerate()
                .map(|(i, shape)| LevelShape {
                    shape,
                    level: level_after(&self.context, settings.level, i),
                    copies: 1,
                    plain: false,
                })
                .collect()
        };
        // Stage diagonals, grouped ones and the largest group's intermediate
        // product, all alive while the stages are grouped, plus the scalings.
        let field_diagonals = |stages: &[crate::stages::Shape], grouped: &[LevelShape]| {
            stages.iter().map(|s| s.len()).sum::<usize>()
                + grouped.iter().map(|l| l.shape.len()).sum::<usize>()
                + grouped.iter().map(|l| l.shape.len()).max().unwrap_or(0)
                + 2
        };
        if self.n <= slots {
            let packing = Packing::for_length(self.n, row).unwrap_or(Packing::Full { row });
            if self.strategy == Strategy::Dense {
                let levels = at_levels(vec![dense_shape(packing)]);
                // The dense diagonals, one being summed in, and the scalings.
                let field_diagonals = levels[0].shape.len() + 3;
                return PlanShape {
                    levels,
                    ciphertexts: 1,
                    per_execution: true,
                    field_diagonals,
                };
            }
            let stages = radix2_shapes(packing, self.order);
            let mut grouped = group_shapes(&stages, settings.chosen, row);
            if settings.permute {
                grouped.push(bit_reversal_shape(packing));
            }
            let levels = at_levels(grouped);
            let field_diagonals = field_diagonals(&stages, &levels);
            PlanShape {
                levels,
                ciphertexts: 1,
                per_execution: false,
                field_diagonals,
            }
        } else {
            let packing = Packing::Full { row };
            let order = match self.direction {
                Direction::Forward => Order::Natural,
                Direction::Inverse => Order::BitReversed,
            };
            let stages = radix2_shapes(packing, order);
            let forward = self.direction == Direction::Forward;
            let ranges = split_ranges(&stages, settings.chosen, forward, self.n / slots, row);
            let mut levels = at_levels(group_shapes_in(&stages, &ranges, row));
            // The twiddle-absorbing level is encoded once per ciphertext.
            let own = if forward { 0 } else { levels.len() - 1 };
            levels[own].copies = self.n / slots;
            levels[own].plain = self.per_execution;
            let field_diagonals = field_diagonals(&stages, &levels);
            PlanShape {
                levels,
                ciphertexts: self.n / slots,
                per_execution: false,
                field_diagonals,
            }
        }
    }
}

/// Checked builder settings.
struct Settings<F: PrimeField + FftField> {
    encoder: BatchEncoder<F>,
    level: usize,
    chosen: usize,
    permute: bool,
    output_order: Order,
    omega: F,
}

/// How many plaintext-multiplication levels fit the budget at `level`: each
/// product with a dense plaintext costs about log2(t) + log2(N) bits; fresh
/// noise and the rotations' key-switching noise need about log2(t) + 20 more.
pub fn affordable_levels(context: &Context, level: usize) -> usize {
    let log_q = context.log2_modulus(level).unwrap_or(0.0);
    let log_t = log2_biguint(context.plaintext_modulus());
    let log_n = (context.ring_degree() as f64).log2();
    let fresh = log_t + log_n / 2.0 + 20.0;
    (((log_q - 1.0 - fresh) / level_cost_bits(context)).floor()).max(0.0) as usize
}

/// Noise budget one FFT level costs: a product with a dense plaintext
/// (log2 t + log2 N bits) plus a little for sums and rotations.
pub(crate) fn level_cost_bits(context: &Context) -> f64 {
    log2_biguint(context.plaintext_modulus()) + (context.ring_degree() as f64).log2() + 2.0
}

fn log2_biguint(x: &num_bigint::BigUint) -> f64 {
    let bits = x.bits();
    if bits <= 52 {
        return (x.to_u64_digits().first().copied().unwrap_or(0) as f64).log2();
    }
    let shifted = x >> (bits - 52);
    (shifted.to_u64_digits()[0] as f64).log2() + (bits - 52) as f64
}

/// The input and output scalings of a single-ciphertext transform:
/// coset powers g^i (forward, on the input) or g^-i (inverse, on the output),
/// and 1/n for the inverse; in the packing's slot order (bit-reversed when the
/// corresponding side is).
///
/// # Errors
/// [`Error::InvalidCosetOffset`] for a zero offset.
#[allow(clippy::too_many_arguments)]
fn scalings<F: PrimeField + FftField>(
    packing: Packing,
    direction: Direction,
    coset: Option<F>,
    input_order: Order,
    output_order: Order,
    n: usize,
) -> Result<(Vec<F>, Vec<F>)> {
    let bits = n.trailing_zeros();
    let slots = 2 * packing.row();
    let input_index = |p: usize| {
        let i = packing.index_of(p);
        if input_order == Order::BitReversed {
            crate::stages::bit_reverse(i, bits)
        } else {
            i
        }
    };
    let output_index = |p: usize| {
        let i = packing.index_of(p);
        if output_order == Order::BitReversed {
            crate::stages::bit_reverse(i, bits)
        } else {
            i
        }
    };
    let ones = vec![F::one(); slots];
    if coset.is_some_and(|g| g.is_zero()) {
        return Err(Error::InvalidCosetOffset);
    }
    Ok(match direction {
        Direction::Forward => {
            let scale_in = match coset {
                Some(g) => (0..slots).map(|p| g.pow([input_index(p) as u64])).collect(),
                None => ones.clone(),
            };
            (scale_in, ones)
        }
        Direction::Inverse => {
            let n_inv = F::from(n as u64).inverse().unwrap_or(F::one());
            let scale_out = match coset {
                Some(g) => {
                    let g_inv = g.inverse().ok_or(Error::InvalidCosetOffset)?;
                    (0..slots)
                        .map(|p| g_inv.pow([output_index(p) as u64]) * n_inv)
                        .collect()
                }
                None => vec![n_inv; slots],
            };
            (ones, scale_out)
        }
    })
}

/// The radix-2 stages with the scalings folded in, grouped into `levels`.
fn factored<F: PrimeField + FftField>(
    packing: Packing,
    omega: F,
    order: Order,
    levels: usize,
    scale_in: &[F],
    scale_out: &[F],
) -> Vec<SlotTransform<F>> {
    let mut stages = radix2_stages(packing, omega, order);
    if let Some(first) = stages.first_mut() {
        *first = first.after_scaling(scale_in);
    }
    if let Some(last) = stages.last_mut() {
        *last = last.then_scaling(scale_out);
    }
    group_stages(&stages, levels)
}

/// Encodes each transform at the level its input will have: the first at
/// `level`, later ones lower by the primes earlier levels' noise growth frees.
fn encode_all<F: PrimeField + FftField>(
    transforms: &[SlotTransform<F>],
    keys: KeyPolicy,
    encoder: &BatchEncoder<F>,
    level: usize,
) -> Result<Vec<EncodedTransform>> {
    let context = encoder.context();
    transforms
        .iter()
        .enumerate()
        .map(|(i, t)| EncodedTransform::new(t, keys, encoder, level_after(context, level, i)))
        .collect::<helib_rs::Result<_>>()
        .map_err(Error::from)
}

/// The level for the input of transform `i` of a plan starting at `level`:
/// each earlier level grew the noise by at least log2(t) + log2(N) - 10 bits,
/// so that many bits of modulus can be dropped without losing budget.
pub(crate) fn level_after(context: &Context, level: usize, i: usize) -> usize {
    let log_t = log2_biguint(context.plaintext_modulus());
    let log_n = (context.ring_degree() as f64).log2();
    let top = context.log2_modulus(level).unwrap_or(0.0);
    let keep = top - i as f64 * (log_t + log_n - 10.0);
    (0..=level)
        .find(|&l| context.log2_modulus(l).unwrap_or(0.0) >= keep)
        .unwrap_or(level)
}

/// The four-step plan for n = C·N over C ciphertexts.
///
/// Forward: natural chunks `x_c` → across `u_k = Σ_c ω_C^(ck) g^(cN) x_c`
/// (additions only for C = 2 without coset) → per group k a size-N DIF whose
/// first stage absorbs the twiddles `ω^(pk) g^p`: ciphertext k, slot q holds
/// `X[k + C·bitrev(q)]`. Inverse: exactly that layout in → per group k a
/// size-N DIT whose last stage absorbs `ω^(-pk) g^(-p) / n` → across
/// `x_c = Σ_k ω_C^(-ck) g^(-cN) v_k`: natural chunks out.
#[allow(clippy::too_many_arguments)]
fn split_run<F: PrimeField + FftField>(
    context: &Context,
    encoder: &BatchEncoder<F>,
    n: usize,
    direction: Direction,
    coset: Option<F>,
    keys: KeyPolicy,
    levels: usize,
    level: usize,
    strategy: Strategy,
    per_execution: bool,
) -> Result<SplitRun> {
    if strategy == Strategy::Dense {
        return Err(Error::Unsupported(
            "the dense strategy handles n ≤ N; use the factored strategy for n > N",
        ));
    }
    let slots = context.ring_degree();
    let groups = n / slots;
    let packing = Packing::Full { row: slots / 2 };
    let domain = Radix2EvaluationDomain::<F>::new(n).ok_or(Error::InvalidSize(n))?;
    let forward = direction == Direction::Forward;
    let omega = if forward {
        domain.group_gen
    } else {
        domain.group_gen_inv
    };
    let g = match (coset, forward) {
        (Some(g), true) => g,
        (Some(g), false) => g.inverse().ok_or(Error::InvalidCosetOffset)?,
        (None, _) => F::one(),
    };
    let omega_c = omega.pow([slots as u64]);
    let omega_n = omega.pow([groups as u64]);
    let g_chunk = g.pow([slots as u64]);
    let to_big = |f: F| -> num_bigint::BigUint { f.into_bigint().into() };
    // scalars[out][in]: the chunk index (whose coset power g^(cN) applies) is the
    // input index going forward and the output index going back.
    let across_scalars = (0..groups)
        .map(|out| {
            (0..groups)
                .map(|inp| {
                    let chunk = if forward { inp } else { out };
                    to_big(omega_c.pow([(out * inp) as u64]) * g_chunk.pow([chunk as u64]))
                })
                .collect()
        })
        .collect();
    let n_inv = F::from(n as u64).inverse().unwrap_or(F::one());
    let stage_order = if forward {
        Order::Natural
    } else {
        Order::BitReversed
    };
    let stages = radix2_stages(packing, omega_n, stage_order);
    let shapes: Vec<crate::stages::Shape> = stages
        .iter()
        .map(|t| t.diagonals().keys().copied().collect())
        .collect();
    let ranges = split_ranges(&shapes, levels, forward, groups, slots / 2);
    // The group's own level: the first going forward (DIF, twiddles on the
    // input), the last going back (DIT, twiddles and 1/n on the output).
    let (own, shared_ranges) = if forward {
        (ranges[0].clone(), &ranges[1..])
    } else {
        (
            ranges[ranges.len() - 1].clone(),
            &ranges[..ranges.len() - 1],
        )
    };
    let shared_offset = usize::from(forward);
    let own_index = if forward { 0 } else { ranges.len() - 1 };
    let shared = group_stages_in(&stages, shared_ranges)
        .iter()
        .enumerate()
        .map(|(i, t)| {
            EncodedTransform::new(
                t,
                keys,
                encoder,
                level_after(context, level, i + shared_offset),
            )
        })
        .collect::<helib_rs::Result<Vec<_>>>()?;
    let own_level = level_after(context, level, own_index);
    let own_transform = |k: usize| {
        let twiddle: Vec<F> = powers_times(omega.pow([k as u64]), g, slots);
        let mut mine = stages[own.clone()].to_vec();
        if forward {
            mine[0] = mine[0].after_scaling(&twiddle);
        } else {
            let last = mine.len() - 1;
            let scale: Vec<F> = twiddle.iter().map(|w| *w * n_inv).collect();
            mine[last] = mine[last].then_scaling(&scale);
        }
        compose_stages(&mine)
    };
    // One group at a time (each in parallel inside), so the field diagonals
    // of a single group are alive at once.
    let twiddled = if per_execution {
        Twiddled::Plain(
            (0..groups)
                .map(|k| PlainTransform::new(&own_transform(k), keys, encoder, own_level))
                .collect::<helib_rs::Result<Vec<_>>>()?,
        )
    } else {
        Twiddled::Encoded(
            (0..groups)
                .map(|k| EncodedTransform::new(&own_transform(k), keys, encoder, own_level))
                .collect::<helib_rs::Result<Vec<_>>>()?,
        )
    };
    Ok(SplitRun {
        groups,
        across_first: forward,
        across_scalars,
        twiddled,
        shared,
    })
}

/// `(a·g)^p` for p in 0..len: the twiddles `ω^(pk) g^p` of group k with a = ω^k.
fn powers_times<F: FftField>(a: F, g: F, len: usize) -> Vec<F> {
    let step = a * g;
    std::iter::successors(Some(F::one()), |x| Some(*x * step))
        .take(len)
        .collect()
}

/// How the four-step plan groups a ciphertext's stages (of shapes
/// `stages`) into `levels` levels: the group made once per ciphertext (the
/// first going forward, the last going back) takes the number of stages
/// that minimizes the diagonals the plan holds, `groups` copies of it plus
/// one of the others (the rest split evenly); with many ciphertexts that is
/// a shorter own group and longer shared ones.
pub(crate) fn split_ranges(
    stages: &[crate::stages::Shape],
    levels: usize,
    forward: bool,
    groups: usize,
    row: usize,
) -> Vec<std::ops::Range<usize>> {
    let count = stages.len();
    let levels = levels.clamp(1, count.max(1));
    let arrange = |own: usize| -> Vec<std::ops::Range<usize>> {
        // The own group first (forward) or last (inverse), the others even.
        let rest = group_bounds(count - own, levels - 1);
        if forward {
            std::iter::once(0..own)
                .chain(rest.into_iter().map(|r| r.start + own..r.end + own))
                .collect()
        } else {
            rest.into_iter()
                .chain(std::iter::once(count - own..count))
                .collect()
        }
    };
    if levels == 1 {
        return std::iter::once(0..count).collect();
    }
    let balanced = if forward {
        group_bounds(count, levels)
    } else {
        group_bounds_short_last(count, levels)
    };
    let balanced_own = if forward {
        balanced[0].len()
    } else {
        balanced[levels - 1].len()
    };
    let held = |ranges: &[std::ops::Range<usize>]| -> usize {
        let shapes = group_shapes_in(stages, ranges, row);
        let own = if forward { 0 } else { shapes.len() - 1 };
        shapes
            .iter()
            .enumerate()
            .map(|(i, s)| s.len() * if i == own { groups } else { 1 })
            .sum()
    };
    let mut best = (held(&balanced), balanced);
    // Every other group keeps at least one stage.
    for own in 1..balanced_own.min(count + 1 - levels) {
        let ranges = arrange(own);
        let bytes = held(&ranges);
        if bytes < best.0 {
            best = (bytes, ranges);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Sizes;
    use ark_bn254::Fr;
    use helib_rs::Parameters;

    /// The bytes of the diagonals a built plan actually holds.
    fn held_bytes(plan: &FftPlan<Fr>) -> usize {
        let sizes = Sizes::new(&plan.context).unwrap();
        let extended = plan.keys.mode == KeyMode::Fast;
        let of = |t: &EncodedTransform| t.multiplications() * sizes.encoded(t.level(), extended);
        match &plan.pipeline {
            Pipeline::Levels(levels) => levels.iter().map(of).sum(),
            Pipeline::Dense(_) => 0,
            Pipeline::Split(split) => {
                let own: usize = match &split.twiddled {
                    Twiddled::Encoded(t) => t.iter().map(of).sum(),
                    Twiddled::Plain(t) => t
                        .iter()
                        .map(|t| t.multiplications() * sizes.plaintext())
                        .sum(),
                };
                own + split.shared.iter().map(of).sum::<usize>()
            }
        }
    }

    /// The estimate, made from shapes before anything is encoded, counts
    /// exactly the diagonals and Galois keys the built plan has.
    #[test]
    fn estimates_count_what_the_plan_holds() {
        let params = Parameters::builder()
            .ring_degree(1 << 10)
            .plaintext_modulus_from_field::<Fr>()
            .chain_bits(&[60; 19])
            .allow_insecure()
            .build()
            .unwrap();
        let context = Context::new(&params).unwrap();
        let sizes = Sizes::new(&context).unwrap();
        let factored = |levels| Strategy::Factored {
            levels: Some(levels),
        };
        let cases = [
            (8, factored(1), Order::Natural, KeyMode::Fast, false),
            (64, factored(2), Order::BitReversed, KeyMode::Fast, false),
            (64, factored(2), Order::Natural, KeyMode::Fast, true),
            (
                256,
                factored(3),
                Order::Natural,
                KeyMode::MinimalKeys,
                false,
            ),
            (1024, factored(3), Order::Natural, KeyMode::Fast, false),
            (2048, factored(2), Order::Natural, KeyMode::Fast, false),
            (32, Strategy::Dense, Order::Natural, KeyMode::Fast, false),
        ];
        for (n, strategy, order, mode, natural_output) in cases {
            for direction in [Direction::Forward, Direction::Inverse] {
                let mut builder = FftPlan::<Fr>::builder(&context, n)
                    .direction(direction)
                    .strategy(strategy)
                    .input_order(order)
                    .key_mode(mode)
                    .coset(Fr::from(5u64));
                if natural_output {
                    builder = builder.natural_output();
                }
                let before = builder.memory_estimate().unwrap();
                let plan = builder.build().unwrap();
                let what = plan.describe();
                assert_eq!(plan.memory_estimate(), before, "{what}");
                assert_eq!(before.plan_bytes, held_bytes(&plan), "{what}");
                assert_eq!(
                    before.galois_key_bytes,
                    plan.required_galois_elements().len() * sizes.galois_key(),
                    "{what}"
                );
                assert!(before.execution_bytes > 0 && before.build_bytes < before.peak_bytes());
                if strategy == Strategy::Dense {
                    assert_eq!(before.plan_bytes, 0);
                    // Its diagonals are encoded at every execution instead.
                    assert!(
                        before.execution_bytes > n * sizes.encoded(plan.level, true),
                        "{what}"
                    );
                }
            }
        }
        // Four-step plans keeping their own levels as plaintexts: the
        // estimate counts those plaintexts, a fraction of the encodings.
        for groups in [2, 4] {
            for direction in [Direction::Forward, Direction::Inverse] {
                let builder = || {
                    FftPlan::<Fr>::builder(&context, groups << 10)
                        .direction(direction)
                        .strategy(factored(2))
                };
                let encoded = builder().memory_estimate().unwrap();
                let lean = builder().encode_per_execution();
                let before = lean.memory_estimate().unwrap();
                let plan = lean.build().unwrap();
                assert_eq!(before.plan_bytes, held_bytes(&plan), "{}", plan.describe());
                assert!(before.plan_bytes < encoded.plan_bytes);
                assert!(before.execution_bytes > encoded.execution_bytes);
            }
        }
    }
}
