//! The parts of a four-step plan (n = C·N over C ciphertexts), for callers
//! that run them apart: the sums across ciphertexts and each group's own
//! transform. [`FftPlan::execute`] composes them in one process; a
//! distributed runner (he-mpi) keeps the groups on the processes that hold
//! their ciphertexts and exchanges only the partial sums across them.

use super::{FftPlan, Pipeline, SplitRun, Twiddled};
use crate::admission::Admission;
use crate::error::{Error, Result};
use ark_ff::{FftField, PrimeField};
use helib_rs::{Ciphertext, GaloisKeys};
use num_bigint::BigUint;

/// A four-step plan's parts ([`FftPlan::four_step`]).
///
/// Going forward (`across_first`), output group k is
/// `run_group(k, Σ_c across_term(k, c, input_c))`; going back, output chunk
/// c is `Σ_k across_term(c, k, run_group(k, input_k))`. Every output then
/// goes through [`finish`](Self::finish). The sums are exact modulo Q, so
/// they may be formed in any order and on any process: the result decrypts
/// to what [`FftPlan::execute`] gives.
///
/// ```
/// # use he_fft::{FftPlan, Strategy};
/// # use helib_rs::{Context, Parameters, SecretKey};
/// # use ark_ff::{Fp64, MontBackend, MontConfig};
/// # #[derive(MontConfig)]
/// # #[modulus = "65537"]
/// # #[generator = "3"]
/// # struct C;
/// # type F = Fp64<MontBackend<C, 1>>;
/// let params = Parameters::builder()
///     .ring_degree(1024)
///     .plaintext_modulus(65537u32.into())
///     .chain_bits(&[50; 5])
///     .special_bits(&[60])
///     .allow_insecure()
///     .build()?;
/// let context = Context::new(&params)?;
/// let plan = FftPlan::<F>::builder(&context, 2048)
///     .strategy(Strategy::Factored { levels: Some(2) })
///     .build()?;
/// let parts = plan.four_step().expect("n = 2N runs on two ciphertexts");
/// assert_eq!(parts.ciphertexts(), 2);
/// assert!(parts.across_first()); // a forward plan sums across ciphertexts first
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FourStep<'a, F: PrimeField + FftField> {
    plan: &'a FftPlan<F>,
    split: &'a SplitRun,
}

impl<F: PrimeField + FftField> FftPlan<F> {
    /// The plan's four-step parts, when it runs over several ciphertexts
    /// (`None` for a plan on one ciphertext).
    pub fn four_step(&self) -> Option<FourStep<'_, F>> {
        match &self.pipeline {
            Pipeline::Split(split) => Some(FourStep { plan: self, split }),
            _ => None,
        }
    }
}

impl<F: PrimeField + FftField> FourStep<'_, F> {
    /// The ciphertexts C the plan's input and output span.
    pub fn ciphertexts(&self) -> usize {
        self.split.groups
    }

    /// The groups whose own levels the plan holds
    /// ([`FftPlan::held_groups`]).
    pub fn held_groups(&self) -> std::ops::Range<usize> {
        self.split.held.clone()
    }

    /// Whether the sums across ciphertexts come first (a forward plan) or
    /// last (an inverse one).
    pub fn across_first(&self) -> bool {
        self.split.across_first
    }

    /// The level of the ciphertexts the sums across add up (a distributed
    /// run exchanges them at this level): the plan's input level going
    /// forward; going back, the level the groups' transforms leave.
    pub fn across_level(&self) -> usize {
        if self.split.across_first {
            self.plan.prep.level
        } else {
            match &self.split.twiddled {
                Twiddled::Encoded(t) => t.first().map_or(0, |t| t.level()),
                Twiddled::Plain(t) => t.first().map_or(0, |t| t.level()),
            }
        }
    }

    /// Checks `inputs` (any number of the plan's input ciphertexts) and
    /// `keys` as [`FftPlan::execute`] does before any work: context,
    /// relinearized, at the plan's input level, budget for its depth, every
    /// Galois key the plan needs.
    ///
    /// # Errors
    /// As [`FftPlan::execute`], but for the count of inputs.
    pub fn admit(&self, inputs: &[Ciphertext], keys: &GaloisKeys) -> Result<()> {
        self.plan
            .admission(&self.plan.required_galois_elements())
            .check(inputs, keys)
    }

    /// The term of `ct` (input `from` of the sums) in sum `to`: `ct` times
    /// the size-C DFT's scalar (a copy or a negation where the scalar is 1
    /// or −1).
    ///
    /// # Errors
    /// [`Error::GroupOutOfRange`] for an index of no ciphertext; the
    /// engine's errors.
    pub fn across_term(&self, to: usize, from: usize, ct: &Ciphertext) -> Result<Ciphertext> {
        let scalar = self
            .split
            .across_scalars
            .get(to)
            .and_then(|row| row.get(from))
            .ok_or(Error::GroupOutOfRange {
                index: to.max(from),
                ciphertexts: self.split.groups,
            })?;
        scale(ct, scalar, self.plan.context.plaintext_modulus())
    }

    /// Group k's own transform (its shared levels and the level absorbing
    /// its twiddles) of `ct`.
    ///
    /// # Errors
    /// [`Error::GroupOutOfRange`] for a group of no ciphertext;
    /// [`Error::GroupNotHeld`] for one whose level a plan built with
    /// [`FftPlanBuilder::only_groups`](crate::FftPlanBuilder::only_groups)
    /// does not hold; the engine's errors.
    pub fn run_group(&self, k: usize, ct: &Ciphertext, keys: &GaloisKeys) -> Result<Ciphertext> {
        if k >= self.split.groups {
            return Err(Error::GroupOutOfRange {
                index: k,
                ciphertexts: self.split.groups,
            });
        }
        self.split.run_group(k, ct, keys)
    }

    /// An output as it leaves the plan: the primes its noise no longer needs
    /// dropped.
    ///
    /// # Errors
    /// The engine's errors.
    pub fn finish(&self, mut ct: Ciphertext) -> Result<Ciphertext> {
        ct.mod_switch_reduce_noise_assign()?;
        Ok(ct)
    }
}

impl<F: PrimeField + FftField> FftPlan<F> {
    /// What the plan's inputs must be (see [`Admission`]).
    pub(super) fn admission<'a>(&'a self, elements: &'a [u64]) -> Admission<'a> {
        Admission {
            context: &self.context,
            level: self.prep.level,
            depth: self.depth(),
            elements,
        }
    }
}

/// Multiplies by a scalar given as 0, 1, t-1 (free) or anything else (a product).
fn scale(ct: &Ciphertext, k: &BigUint, t: &BigUint) -> Result<Ciphertext> {
    if *k == BigUint::from(1u8) {
        Ok(ct.clone())
    } else if k + 1u8 == *t {
        Ok(ct.negate()?)
    } else {
        Ok(ct.mul_scalar(k)?)
    }
}
