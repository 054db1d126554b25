//! Plans converting a ciphertext between slot form and coefficient form.

use crate::admission::{ensure_same_context, Admission};
use crate::error::{Error, Result};
use crate::memory::{release_freed_heap, LevelShape, MemoryEstimate, PlanShape, Sizes};
use crate::options::{build_option_setters, BuildOptions, Preparation};
use crate::parallel::in_pool;
use crate::plan::{affordable_levels, level_after, run_levels, PlanCost};
use crate::special::{Conversion, Geometry, SlotForm};
use crate::stages::Order;
use ark_ff::{FftField, PrimeField};
use helib_rs::lintrans::SlotTransform;
use helib_rs::lintrans::{EncodedTransform, KeyMode, PlainTransform};
use helib_rs::{BatchEncoder, Ciphertext, Context, GaloisKeys, Plaintext, PublicKey, SecretKey};
use num_bigint::BigUint;

mod builder;

/// A conversion of one ciphertext between slot form and coefficient form,
/// built once for (context, n, direction, slot form, order, levels) and run
/// many times (see the crate docs, "Slots and coefficients").
///
/// - [`Conversion::SlotsToCoefficients`]: the input's slots hold a length-n
///   vector in `Row` packing (repeated along both rows, in the plan's
///   [`order`](ConversionPlanBuilder::order)); the output's plaintext
///   polynomial is A with n coefficients (the rest zero): the interpolant on
///   H of the vector for [`SlotForm::Evaluations`], the vector itself for
///   [`SlotForm::Coefficients`]. Its slots then hold A at all N evaluation
///   points, so products of such ciphertexts multiply the polynomials.
/// - [`Conversion::CoefficientsToSlots`]: the inverse. The input's plaintext
///   polynomial must have degree < n; the output's slots hold its values on
///   H (or its coefficients) in `Row` packing.
///
/// The map is the composition of log2(n) steps of the inverse FFT on H
/// (or bit moves, for coefficients) with log2(n) butterflies of the special
/// FFT, grouped into [`depth`](Self::depth) multiplication levels; one level
/// is the dense map with n diagonals.
pub struct ConversionPlan<F: PrimeField + FftField> {
    context: Context,
    encoder: BatchEncoder<F>,
    geometry: Geometry<F>,
    n: usize,
    conversion: Conversion,
    form: SlotForm,
    order: Order,
    prep: Preparation,
    levels: Levels,
    elements: Vec<u64>,
    memory: MemoryEstimate,
}

/// The plan's levels: encoded once, or kept as plaintexts and encoded at
/// each execution.
enum Levels {
    Encoded(Vec<EncodedTransform>),
    PerExecution(Vec<PlainTransform>),
}

/// Builder for [`ConversionPlan`].
pub struct ConversionPlanBuilder<F: PrimeField + FftField> {
    context: Context,
    n: usize,
    conversion: Conversion,
    form: SlotForm,
    order: Order,
    levels: Option<usize>,
    options: BuildOptions,
    field: std::marker::PhantomData<F>,
}

/// Checked builder settings.
struct Settings<F: PrimeField + FftField> {
    encoder: BatchEncoder<F>,
    geometry: Geometry<F>,
    prep: Preparation,
    levels: usize,
}

impl<F: PrimeField + FftField> ConversionPlan<F> {
    /// A builder for a length-`n` conversion in `context` (defaults:
    /// [`SlotForm::Evaluations`], natural order, levels chosen automatically,
    /// fast keys, inputs at the top level, diagonals encoded once).
    pub fn builder(
        context: &Context,
        n: usize,
        conversion: Conversion,
    ) -> ConversionPlanBuilder<F> {
        ConversionPlanBuilder {
            context: context.clone(),
            n,
            conversion,
            form: SlotForm::Evaluations,
            order: Order::Natural,
            levels: None,
            options: BuildOptions::default(),
            field: std::marker::PhantomData,
        }
    }

    /// [`builder`](Self::builder) for [`Conversion::SlotsToCoefficients`].
    pub fn slots_to_coefficients(context: &Context, n: usize) -> ConversionPlanBuilder<F> {
        Self::builder(context, n, Conversion::SlotsToCoefficients)
    }

    /// [`builder`](Self::builder) for [`Conversion::CoefficientsToSlots`].
    pub fn coefficients_to_slots(context: &Context, n: usize) -> ConversionPlanBuilder<F> {
        Self::builder(context, n, Conversion::CoefficientsToSlots)
    }

    /// The vector length n.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the vector is empty (never: n ≥ 2).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The direction.
    pub fn conversion(&self) -> Conversion {
        self.conversion
    }

    /// What the slot side holds.
    pub fn slot_form(&self) -> SlotForm {
        self.form
    }

    /// The order of the slot-side vector.
    pub fn order(&self) -> Order {
        self.order
    }

    /// The level input ciphertexts must have.
    pub fn input_level(&self) -> usize {
        self.prep.level
    }

    /// Multiplication levels the plan consumes (each a plaintext product
    /// costing about log2(t) + log2(N) bits of noise budget).
    pub fn depth(&self) -> usize {
        match &self.levels {
            Levels::Encoded(levels) => levels.len(),
            Levels::PerExecution(levels) => levels.len(),
        }
    }

    /// Nonzero diagonals (plaintext products) per level.
    pub fn diagonals_per_level(&self) -> Vec<usize> {
        match &self.levels {
            Levels::Encoded(levels) => levels.iter().map(|l| l.multiplications()).collect(),
            Levels::PerExecution(levels) => levels.iter().map(|l| l.multiplications()).collect(),
        }
    }

    /// Key switches and plaintext products one execution performs.
    pub fn cost(&self) -> PlanCost {
        let schedules: Vec<(crate::Schedule, usize)> = match &self.levels {
            Levels::Encoded(levels) => levels
                .iter()
                .map(|l| (l.schedule().clone(), l.multiplications()))
                .collect(),
            Levels::PerExecution(levels) => levels
                .iter()
                .map(|l| (l.schedule().clone(), l.multiplications()))
                .collect(),
        };
        schedules
            .iter()
            .fold(PlanCost::default(), |acc, (s, products)| PlanCost {
                rotations: acc.rotations + s.baby_rotations() + s.giant_rotations(),
                key_switches: acc.key_switches + s.key_switches(),
                multiplications: acc.multiplications + products,
            })
    }

    /// The memory estimate [`ConversionPlanBuilder::build`] checked against
    /// its limit (made before anything was encoded).
    pub fn memory_estimate(&self) -> MemoryEstimate {
        self.memory
    }

    /// A one-line description of the plan.
    pub fn describe(&self) -> String {
        format!(
            "{:?} {:?} n={} order={:?} keys={:?} depth={} diagonals={:?}",
            self.conversion,
            self.form,
            self.n,
            self.order,
            self.prep.keys.mode,
            self.depth(),
            self.diagonals_per_level()
        )
    }

    /// The Galois elements whose keys the plan needs: generate exactly these.
    pub fn required_galois_elements(&self) -> Vec<u64> {
        self.elements.clone()
    }

    /// Generates the Galois keys [`required_galois_elements`](Self::required_galois_elements) names.
    ///
    /// # Errors
    /// [`Error::He`] when key generation fails.
    pub fn generate_galois_keys(&self, sk: &SecretKey) -> Result<GaloisKeys> {
        Ok(GaloisKeys::for_elements(sk, &self.elements)?)
    }

    /// Encrypts an input at the plan's input level: for
    /// [`Conversion::SlotsToCoefficients`] the slot-side vector (natural
    /// order, n values) packed into the slots; for
    /// [`Conversion::CoefficientsToSlots`] the n coefficients of the
    /// plaintext polynomial (which is how a client that holds its values
    /// gets coefficient form for free).
    ///
    /// # Errors
    /// [`Error::WrongLength`] unless there are exactly n values;
    /// [`Error::ContextMismatch`] for a key of another context.
    pub fn encrypt(&self, pk: &PublicKey, values: &[F]) -> Result<Ciphertext> {
        ensure_same_context(&self.context, pk.context())?;
        if values.len() != self.n {
            return Err(Error::WrongLength {
                expected: self.n,
                got: values.len(),
            });
        }
        let plaintext = match self.conversion {
            Conversion::SlotsToCoefficients => self.encoder.encode(&self.geometry.pack(values))?,
            Conversion::CoefficientsToSlots => {
                let big: Vec<BigUint> = values.iter().map(|v| v.into_bigint().into()).collect();
                Plaintext::from_biguints(&self.context, &big)?
            }
        };
        Ok(pk.encrypt_at_level(&plaintext, self.prep.level)?)
    }

    /// Decrypts an output: for [`Conversion::SlotsToCoefficients`] the first
    /// n coefficients of its plaintext polynomial; for
    /// [`Conversion::CoefficientsToSlots`] the slot-side vector (natural order).
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] for a key or ciphertext of another context.
    pub fn decrypt(&self, sk: &SecretKey, output: &Ciphertext) -> Result<Vec<F>> {
        ensure_same_context(&self.context, sk.context())?;
        ensure_same_context(&self.context, output.context())?;
        let plaintext = sk.decrypt(output)?;
        Ok(match self.conversion {
            Conversion::SlotsToCoefficients => plaintext
                .coefficients()
                .into_iter()
                .take(self.n)
                .map(F::from)
                .collect(),
            Conversion::CoefficientsToSlots => {
                self.geometry.unpack(&self.encoder.decode(&plaintext)?)
            }
        })
    }

    /// Runs the conversion.
    ///
    /// # Errors
    /// Checked before any work, in this order: [`Error::ContextMismatch`]
    /// for an input or keys of another context; [`Error::InputNotRelinearized`]
    /// for an input of more than two parts; [`Error::WrongInputLevel`] for an
    /// input not at the plan's input level; [`Error::MissingGaloisKey`];
    /// [`Error::InsufficientBudget`] when the input's estimated noise budget
    /// is too small for the plan's depth.
    pub fn execute(&self, input: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        Admission {
            context: &self.context,
            level: self.prep.level,
            depth: self.depth(),
            elements: &self.elements,
        }
        .check(std::slice::from_ref(input), keys)?;
        let mut output = match &self.levels {
            Levels::Encoded(levels) => run_levels(levels, input, keys)?,
            Levels::PerExecution(levels) => {
                let mut current = input.clone();
                for transform in levels {
                    if current.level() > transform.level() {
                        current.mod_switch_to_assign(transform.level())?;
                    }
                    current = transform.apply(&current, keys)?;
                }
                current
            }
        };
        output.mod_switch_reduce_noise_assign()?;
        Ok(output)
    }
}
