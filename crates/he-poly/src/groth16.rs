//! Groth16 proofs whose quotient h is computed under encryption: an
//! ark-groth16 [`R1CSToQAP`] reduction over
//! [`EncryptedPolynomial::groth16_quotient`] (feature `groth16`).
//!
//! The reduction splits the prover's quotient step between two parties:
//!
//! 1. **client** (holds the witness and the secret key): evaluates the
//!    constraint rows on its assignment z exactly as ark-groth16's
//!    [`LibsnarkReduction`] does — a_i = ⟨A_i, z⟩, b_i = ⟨B_i, z⟩ for every
//!    constraint i, then a = the public inputs (with b = c = 0) on the rows
//!    after the constraints — checks a_i·b_i = c_i, interpolates A and B on
//!    the domain H (two inverse FFTs in the clear) and encrypts them;
//! 2. **server**: h = ⌊A·B / X^n⌋ on the ciphertexts
//!    ([`EncryptedPolynomial::groth16_quotient`]: one block product, no key);
//! 3. **client**: decrypts h and pads it to n coefficients, the shape
//!    `LibsnarkReduction` returns (its last coefficient is 0: deg h ≤ n − 2).
//!
//! For a satisfied system the result equals `LibsnarkReduction`'s
//! coefficient for coefficient. For an unsatisfied one `LibsnarkReduction`
//! returns a vector that is no quotient (and a proof that does not verify);
//! this reduction refuses before encrypting anything
//! ([`Error::Unsatisfied`]), since nothing can be checked under encryption.
//!
//! [`witness_evaluations`] is step 1's first half; [`QuotientKeys`] holds
//! the client's keys and runs the rest, one method per step, or everything
//! at once from the constraint matrices.
//! [`EncryptedReduction`] is the `R1CSToQAP` to prove with:
//! `Groth16::<E, EncryptedReduction>`. Setup (the instance map and the h
//! query) uses only public data and is `LibsnarkReduction`'s, so proving and
//! verifying keys are interchangeable with the standard ones.
//!
//! # Keys for a trait without `self`
//! ark-groth16 calls `QAP::witness_map` inside `prove`, as an associated
//! function: there is no value to carry keys. [`EncryptedReduction::with_keys`]
//! sets keys for the current thread while a closure runs (ark-groth16 calls the
//! witness map on the thread that called `prove`); with none set, each call
//! generates fresh keys for its domain — correct, but a key generation per
//! proof. `SynthesisError` has no room for a message, so the full error of a
//! failed call stays available to [`EncryptedReduction::take_last_error`].
//!
//! ```
//! use std::sync::Arc;
//!
//! use ark_bn254::{Bn254, Fr};
//! use ark_groth16::Groth16;
//! use ark_relations::lc;
//! use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystemRef, SynthesisError};
//! use ark_snark::SNARK;
//! use he_poly::groth16::{EncryptedReduction, QuotientKeys};
//! use rand::{rngs::StdRng, SeedableRng};
//!
//! /// Knowledge of x with x³ = y (y public).
//! struct Cube(Option<Fr>);
//!
//! impl ConstraintSynthesizer<Fr> for Cube {
//!     fn generate_constraints(self, cs: ConstraintSystemRef<Fr>) -> Result<(), SynthesisError> {
//!         let x = self.0.ok_or(SynthesisError::AssignmentMissing);
//!         let y = cs.new_input_variable(|| Ok(x? * x? * x?))?;
//!         let xv = cs.new_witness_variable(|| x)?;
//!         let x2 = cs.new_witness_variable(|| Ok(x? * x?))?;
//!         cs.enforce_r1cs_constraint(|| lc!() + xv, || lc!() + xv, || lc!() + x2)?;
//!         cs.enforce_r1cs_constraint(|| lc!() + x2, || lc!() + xv, || lc!() + y)
//!     }
//! }
//!
//! let mut rng = StdRng::seed_from_u64(7);
//! let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(Cube(None), &mut rng)?;
//! // 2 constraints and 2 instance variables (1, y): a domain of 4 points.
//! let keys = Arc::new(QuotientKeys::<Fr>::generate(4)?);
//! let proof = EncryptedReduction::with_keys(&keys, || {
//!     Groth16::<Bn254, EncryptedReduction>::prove(&pk, Cube(Some(Fr::from(3u64))), &mut rng)
//! })?;
//! assert!(Groth16::<Bn254>::verify(&vk, &[Fr::from(27u64)], &proof)?);
//! assert!(!Groth16::<Bn254>::verify(&vk, &[Fr::from(28u64)], &proof)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::any::Any;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::Arc;
use std::thread::LocalKey;

use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_poly::EvaluationDomain;
use ark_relations::gr1cs::{Matrix, SynthesisError};
use helib_rs::{Context, PublicKey, SecretKey};

use crate::error::{Error, Result};
use crate::params::PolyParameters;
use crate::polynomial::EncryptedPolynomial;

/// The client's keys for Groth16 quotients under encryption over F, for
/// domains of up to [`max_domain`](Self::max_domain) points: parameters
/// for one product ([`PolyParameters::for_field`]), a secret key and its
/// public key.
pub struct QuotientKeys<F: PrimeField> {
    parameters: PolyParameters,
    secret_key: SecretKey,
    public_key: PublicKey,
    field: PhantomData<F>,
}

impl<F: PrimeField> std::fmt::Debug for QuotientKeys<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuotientKeys")
            .field("parameters", &self.parameters)
            .finish_non_exhaustive()
    }
}

impl<F: PrimeField> QuotientKeys<F> {
    /// New keys on the smallest ≥128-bit ring holding one product of two
    /// polynomials of `max_domain` coefficients.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `max_domain` of 0;
    /// [`Error::NoParameters`] when no ring holds it; engine failures.
    pub fn generate(max_domain: usize) -> Result<Self> {
        let parameters = PolyParameters::for_field::<F>(max_domain, 1)?;
        let context = Context::new(parameters.parameters())?;
        let secret_key = SecretKey::generate(&context)?;
        let public_key = secret_key.public_key()?;
        Ok(Self {
            parameters,
            secret_key,
            public_key,
            field: PhantomData,
        })
    }

    /// The parameters the keys were made for.
    pub fn parameters(&self) -> &PolyParameters {
        &self.parameters
    }

    /// The largest domain these keys handle.
    pub fn max_domain(&self) -> usize {
        self.parameters.max_len()
    }

    /// The public key (the server needs none: the quotient takes no key).
    pub fn public_key(&self) -> &PublicKey {
        &self.public_key
    }

    /// Client, step 1: the interpolants A and B of the evaluations `a` and
    /// `b` on `domain` (missing trailing evaluations are 0), encrypted.
    ///
    /// # Errors
    /// [`Error::TooLong`] for a domain larger than
    /// [`max_domain`](Self::max_domain); [`Error::InvalidArgument`] for a
    /// domain that is a proper coset (its vanishing polynomial is not
    /// X^n − 1) or more evaluations than points; engine failures.
    pub fn encrypt_interpolants<D: EvaluationDomain<F>>(
        &self,
        domain: &D,
        a: &[F],
        b: &[F],
    ) -> Result<[EncryptedPolynomial<F>; 2]> {
        let n = domain.size();
        if n > self.max_domain() {
            return Err(Error::TooLong {
                len: n,
                max: self.max_domain(),
            });
        }
        if !domain.coset_offset().is_one() {
            return Err(Error::InvalidArgument(
                "the domain must be a subgroup (coset offset 1), so that Z_H = X^n − 1".into(),
            ));
        }
        if let Some(len) = [a.len(), b.len()].into_iter().find(|&len| len > n) {
            return Err(Error::InvalidArgument(format!(
                "{len} evaluations on a domain of {n} points"
            )));
        }
        let stride = self.parameters.stride();
        let encrypt = |values: &[F]| {
            EncryptedPolynomial::encrypt(&self.public_key, &domain.ifft(values), stride)
        };
        Ok([encrypt(a)?, encrypt(b)?])
    }

    /// Client, step 3: the decrypted quotient, padded with zeros to
    /// `domain_size` coefficients (the length ark-groth16 expects).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when h has `domain_size` or more
    /// coefficients (a Groth16 quotient has fewer); decryption failures
    /// (another context, an exhausted noise budget).
    pub fn decrypt_quotient(
        &self,
        h: &EncryptedPolynomial<F>,
        domain_size: usize,
    ) -> Result<Vec<F>> {
        if h.len() >= domain_size {
            return Err(Error::InvalidArgument(format!(
                "a quotient on a domain of {domain_size} points has fewer than {domain_size} \
                 coefficients, this one {}",
                h.len()
            )));
        }
        let mut coefficients = h.decrypt(&self.secret_key)?;
        coefficients.resize(domain_size, F::zero());
        Ok(coefficients)
    }

    /// The three steps: h from the evaluations `a` and `b` of a valid
    /// witness on `domain`, encrypted, multiplied and decrypted.
    ///
    /// # Errors
    /// As for [`encrypt_interpolants`](Self::encrypt_interpolants),
    /// [`EncryptedPolynomial::groth16_quotient`] and
    /// [`decrypt_quotient`](Self::decrypt_quotient).
    pub fn quotient<D: EvaluationDomain<F>>(&self, domain: &D, a: &[F], b: &[F]) -> Result<Vec<F>> {
        let [ea, eb] = self.encrypt_interpolants(domain, a, b)?;
        let h = EncryptedPolynomial::groth16_quotient(&ea, &eb, domain.size())?;
        self.decrypt_quotient(&h, domain.size())
    }

    /// The QAP witness h of an R1CS instance — what
    /// [`LibsnarkReduction`]'s `witness_map_from_matrices` returns, with h
    /// computed under encryption: the domain is `D::new(num_constraints +
    /// num_inputs)` and `full_assignment` is instance ‖ witness.
    ///
    /// # Errors
    /// [`Error::Unsatisfied`] when the assignment violates a constraint;
    /// [`Error::InvalidArgument`] for matrices and an assignment that do not
    /// match (row counts, indices) or a size with no domain;
    /// as for [`quotient`](Self::quotient) otherwise.
    pub fn witness_map_from_matrices<D: EvaluationDomain<F>>(
        &self,
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Vec<F>> {
        let size = num_constraints.checked_add(num_inputs).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{num_constraints} constraints and {num_inputs} inputs: no domain has that many points"
            ))
        })?;
        let domain = domain::<F, D>(size)?;
        let [a, b] = witness_evaluations(matrices, num_inputs, num_constraints, full_assignment)?;
        self.quotient(&domain, &a, &b)
    }
}

/// The domain of at least `size` points, or a clear error.
fn domain<F: PrimeField, D: EvaluationDomain<F>>(size: usize) -> Result<D> {
    D::new(size).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "the field has no evaluation domain of {size} points"
        ))
    })
}

/// Client, step 0: the evaluations a and b on the domain's first points as
/// [`LibsnarkReduction`] forms them — the constraint rows on
/// `full_assignment` (instance ‖ witness), then the public inputs (the first
/// `num_inputs` values) in a, with b = 0 there — after checking every
/// constraint (a_i·b_i = c_i) and every variable index. `matrices` are the
/// R1CS matrices A, B and C, in that order (as ark-groth16 passes them).
///
/// # Errors
/// [`Error::Unsatisfied`] for the first violated constraint;
/// [`Error::InvalidArgument`] for other than three matrices, matrices
/// without `num_constraints` rows, more inputs than values, or an index
/// outside the assignment.
pub fn witness_evaluations<F: PrimeField>(
    matrices: &[Matrix<F>],
    num_inputs: usize,
    num_constraints: usize,
    full_assignment: &[F],
) -> Result<[Vec<F>; 2]> {
    let [ma, mb, mc] = matrices else {
        return Err(Error::InvalidArgument(format!(
            "an R1CS has three matrices (A, B, C), not {}",
            matrices.len()
        )));
    };
    if [ma, mb, mc].iter().any(|m| m.len() != num_constraints) {
        return Err(Error::InvalidArgument(format!(
            "{num_constraints} constraints but matrices of {}, {} and {} rows",
            ma.len(),
            mb.len(),
            mc.len()
        )));
    }
    if num_inputs > full_assignment.len() {
        return Err(Error::InvalidArgument(format!(
            "{num_inputs} public inputs but an assignment of {} values",
            full_assignment.len()
        )));
    }
    let evaluate = |row: &[(F, usize)]| -> Result<F> {
        row.iter()
            .try_fold(F::zero(), |sum, &(coefficient, index)| {
                let value = full_assignment.get(index).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "a constraint refers to variable {index}, the assignment has {}",
                        full_assignment.len()
                    ))
                })?;
                Ok(sum + coefficient * value)
            })
    };
    // Both counts are lengths of slices checked above, so the sum fits.
    let mut a = Vec::with_capacity(num_constraints.saturating_add(num_inputs));
    let mut b = Vec::with_capacity(num_constraints);
    for i in 0..num_constraints {
        let (ai, bi, ci) = (evaluate(&ma[i])?, evaluate(&mb[i])?, evaluate(&mc[i])?);
        if ai * bi != ci {
            return Err(Error::Unsatisfied { constraint: i });
        }
        a.push(ai);
        b.push(bi);
    }
    a.extend_from_slice(&full_assignment[..num_inputs]);
    Ok([a, b])
}

/// The two setup-side maps of an R1CS-to-QAP reduction (the instance map
/// and the h query), taken from `LibsnarkReduction`: they use only public
/// data, so keys made with it serve every reduction of this module.
macro_rules! libsnark_setup_maps {
    () => {
        #[allow(clippy::type_complexity)]
        fn instance_map_with_evaluation<F: PrimeField, D: EvaluationDomain<F>>(
            cs: ark_relations::gr1cs::ConstraintSystemRef<F>,
            t: &F,
        ) -> std::result::Result<(Vec<F>, Vec<F>, Vec<F>, F, usize, usize), SynthesisError> {
            LibsnarkReduction::instance_map_with_evaluation::<F, D>(cs, t)
        }

        fn h_query_scalars<F: PrimeField, D: EvaluationDomain<F>>(
            max_power: usize,
            t: F,
            zt: F,
            delta_inverse: F,
        ) -> std::result::Result<Vec<F>, SynthesisError> {
            LibsnarkReduction::h_query_scalars::<F, D>(max_power, t, zt, delta_inverse)
        }
    };
}

/// The R1CS-to-QAP reduction of `LibsnarkReduction` with the witness map's
/// quotient computed under encryption (see the [module docs](self)).
///
/// Errors of the witness map become `SynthesisError`s as follows (the full
/// error: [`take_last_error`](Self::take_last_error)):
///
/// | error | `SynthesisError` |
/// |---|---|
/// | no domain of the size | `PolynomialDegreeTooLarge` (as `LibsnarkReduction`) |
/// | [`Error::Unsatisfied`] | `Unsatisfiable` |
/// | [`Error::TooLong`] (keys for a smaller domain), [`Error::NoParameters`] | `PolynomialDegreeTooLarge` |
/// | anything else (keys for another field, malformed matrices, the engine) | `AssignmentMissing`: h could not be computed |
#[derive(Debug, Clone, Copy, Default)]
pub struct EncryptedReduction;

/// A value set for the current thread while a closure runs: keys as
/// `QuotientKeys<F>`, a provided quotient as `Vec<F>`, for some F.
type AnyValue = Arc<dyn Any + Send + Sync>;

thread_local! {
    static KEYS: RefCell<Option<AnyValue>> = const { RefCell::new(None) };
    static LAST_ERROR: RefCell<Option<Error>> = const { RefCell::new(None) };
    static PROVIDED: RefCell<Option<AnyValue>> = const { RefCell::new(None) };
}

/// Runs `f` with `value` in `slot`; the previous value comes back afterwards,
/// also when `f` panics.
fn with_thread_value<R>(
    slot: &'static LocalKey<RefCell<Option<AnyValue>>>,
    value: AnyValue,
    f: impl FnOnce() -> R,
) -> R {
    /// Puts the previous value back when dropped.
    struct Restore(
        &'static LocalKey<RefCell<Option<AnyValue>>>,
        Option<AnyValue>,
    );
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.1.take();
            self.0.with(|cell| *cell.borrow_mut() = previous);
        }
    }
    let _restore = Restore(slot, slot.with(|cell| cell.borrow_mut().replace(value)));
    f()
}

impl EncryptedReduction {
    /// Runs `f` with `keys` as this thread's keys for the witness map (the
    /// previous keys, if any, come back afterwards, also when `f` panics).
    pub fn with_keys<F: PrimeField, R>(keys: &Arc<QuotientKeys<F>>, f: impl FnOnce() -> R) -> R {
        with_thread_value(&KEYS, keys.clone(), f)
    }

    /// The full error of this thread's last witness map, if it failed
    /// (cleared by every call and by this).
    pub fn take_last_error() -> Option<Error> {
        LAST_ERROR.with(|slot| slot.borrow_mut().take())
    }

    /// The keys set on this thread, or fresh ones for a domain of `size`.
    fn keys<F: PrimeField>(size: usize) -> Result<Arc<QuotientKeys<F>>> {
        match KEYS.with(|slot| slot.borrow().clone()) {
            Some(keys) => keys
                .downcast::<QuotientKeys<F>>()
                .map_err(|_| Error::FieldMismatch),
            None => QuotientKeys::generate(size).map(Arc::new),
        }
    }
}

/// The R1CS-to-QAP reduction of `LibsnarkReduction` whose witness map
/// returns a quotient h computed elsewhere — for example reconstructed from
/// the additive shares of a threshold decryption (he-threshold), or
/// decrypted by a client that ran [`QuotientKeys`] step by step.
///
/// [`with_quotient`](Self::with_quotient) sets h for the current thread
/// while a closure (the `prove` call) runs. The witness map checks only the
/// length of h (the domain size, as `LibsnarkReduction` returns it): a wrong
/// h gives a proof that does not verify. With no h of the field set it
/// fails with `SynthesisError::AssignmentMissing`, with a wrong length with
/// `SynthesisError::PolynomialDegreeTooLarge`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProvidedQuotient;

impl ProvidedQuotient {
    /// Runs `f` with `h` (n coefficients for a domain of size n) as the
    /// quotient the witness map returns on this thread.
    pub fn with_quotient<F: PrimeField, R>(h: Vec<F>, f: impl FnOnce() -> R) -> R {
        with_thread_value(&PROVIDED, Arc::new(h), f)
    }
}

impl R1CSToQAP for ProvidedQuotient {
    libsnark_setup_maps!();

    fn witness_map_from_matrices<F: PrimeField, D: EvaluationDomain<F>>(
        _matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        _full_assignment: &[F],
    ) -> std::result::Result<Vec<F>, SynthesisError> {
        let domain = domain_of::<F, D>(num_constraints, num_inputs)?;
        let h = PROVIDED
            .with(|cell| cell.borrow().clone())
            .and_then(|value| value.downcast::<Vec<F>>().ok())
            .ok_or(SynthesisError::AssignmentMissing)?;
        if h.len() != domain.size() {
            return Err(SynthesisError::PolynomialDegreeTooLarge);
        }
        Ok(h.as_ref().clone())
    }
}

/// The domain of a reduction: `num_constraints + num_inputs` points at least,
/// or `PolynomialDegreeTooLarge` (as `LibsnarkReduction`) when there is none,
/// also when the sum overflows.
fn domain_of<F: PrimeField, D: EvaluationDomain<F>>(
    num_constraints: usize,
    num_inputs: usize,
) -> std::result::Result<D, SynthesisError> {
    num_constraints
        .checked_add(num_inputs)
        .and_then(D::new)
        .ok_or(SynthesisError::PolynomialDegreeTooLarge)
}

/// Keeps `error` for `take_last_error` and names its `SynthesisError`.
fn record(error: Error) -> SynthesisError {
    let kind = match error {
        Error::Unsatisfied { .. } => SynthesisError::Unsatisfiable,
        Error::TooLong { .. } | Error::NoParameters(_) => SynthesisError::PolynomialDegreeTooLarge,
        _ => SynthesisError::AssignmentMissing,
    };
    LAST_ERROR.with(|slot| *slot.borrow_mut() = Some(error));
    kind
}

impl R1CSToQAP for EncryptedReduction {
    libsnark_setup_maps!();

    fn witness_map_from_matrices<F: PrimeField, D: EvaluationDomain<F>>(
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> std::result::Result<Vec<F>, SynthesisError> {
        LAST_ERROR.with(|slot| slot.borrow_mut().take());
        let domain = domain_of::<F, D>(num_constraints, num_inputs)?;
        let outcome = witness_evaluations(matrices, num_inputs, num_constraints, full_assignment)
            .and_then(|[a, b]| {
                let keys = Self::keys::<F>(domain.size())?;
                keys.quotient(&domain, &a, &b)
            });
        outcome.map_err(record)
    }
}
