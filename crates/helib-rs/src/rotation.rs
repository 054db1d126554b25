//! Galois automorphisms on ciphertexts: slot-row rotations, the row swap and hoisting.

use helib_sys as sys;

use crate::ciphertext::Ciphertext;
use crate::error::{Error, Result};
use crate::galois_keys::{ensure_valid_element, GaloisKeys};
use crate::relin_key::ensure_key_switching;

/// What [`Ciphertext::rotate_rows`] does when the key for the step is missing.
///
/// ```
/// use helib_rs::{Context, GaloisKeys, Parameters, Plaintext, RotationPolicy, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let powers = GaloisKeys::for_power_of_two_steps(&sk)?; // 21 keys for N = 4096
/// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[5, 6])?)?;
/// // 7 = 8 − 1: two key switches instead of one, with no key for 7.
/// assert_eq!(GaloisKeys::composition(&context, 7), vec![-1, 8]);
/// let composed = ct.rotate_rows(7, &powers, RotationPolicy::Compose)?;
/// assert!(ct.rotate_rows(7, &powers, RotationPolicy::Exact).is_err());
/// let direct = ct.rotate_rows(7, &GaloisKeys::for_steps(&sk, &[7])?, RotationPolicy::Exact)?;
/// assert_eq!(sk.decrypt(&composed)?, sk.decrypt(&direct)?);
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RotationPolicy {
    /// Only the step's own key is used; without it the rotation fails with
    /// [`Error::MissingGaloisKey`] naming the step and its element.
    #[default]
    Exact,
    /// Without the step's own key, the rotation is composed from rotations by
    /// signed powers of two (the non-adjacent form of k or of k − N/2,
    /// whichever has fewer terms), one key switch each; fails with
    /// [`Error::MissingGaloisKey`] naming the first power of two whose key
    /// is missing. [`GaloisKeys::for_power_of_two_steps`] makes every
    /// rotation composable.
    Compose,
}

impl Ciphertext {
    /// The encryption of m(X^g) for the Galois element g (odd, below 2N),
    /// using the key for g (none for the identity g = 1). Adds the
    /// key-switching noise, a few bits above log2 t.
    ///
    /// ```
    /// use helib_rs::{Context, GaloisKeys, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let keys = GaloisKeys::for_elements(&sk, &[5])?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2])?)?; // 1 + 2X
    /// let mapped = ct.apply_galois(5, &keys)?; // 1 + 2X^5
    /// assert_eq!(sk.decrypt(&mapped)?, Plaintext::from_u64s(&context, &[1, 0, 0, 0, 0, 2])?);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// * [`Error::ContextMismatch`] when the keys belong to another context;
    /// * [`Error::InvalidGaloisElement`] when g is even or not below 2N;
    /// * [`Error::InvalidCiphertextSize`] for a size-3 ciphertext (relinearize first);
    /// * [`Error::NoSpecialPrimes`] when the context cannot switch keys;
    /// * [`Error::MissingGaloisKey`] (with `step: None`) when the key for g is missing;
    /// * [`Error::NoiseBudgetExhausted`] when the estimate says the result,
    ///   with the key-switching noise added, would not decrypt.
    pub fn apply_galois(&self, g: u64, keys: &GaloisKeys) -> Result<Ciphertext> {
        if self.check_galois(keys, g)? {
            return self.try_clone();
        }
        let (k, src) = (keys.as_ptr(), self.as_ptr());
        // SAFETY: all three handles are live; the engine only reads `k` and `src`.
        Ciphertext::produce(self.context(), |dst| unsafe {
            sys::helib_ciphertext_apply_galois(k, src, g, dst)
        })
    }

    /// In-place [`apply_galois`](Self::apply_galois).
    ///
    /// # Errors
    /// As for [`apply_galois`](Self::apply_galois); on error `self` is unchanged.
    pub fn apply_galois_assign(&mut self, g: u64, keys: &GaloisKeys) -> Result<()> {
        if self.check_galois(keys, g)? {
            return Ok(());
        }
        let k = keys.as_ptr();
        // SAFETY: both handles are live; `dst` may alias `a` per the header.
        self.compute_assign(|a, dst| unsafe { sys::helib_ciphertext_apply_galois(k, a, g, dst) })
    }

    /// Rotates both slot rows left by `step` (right for negative steps;
    /// modulo N/2, so multiples of N/2 copy the ciphertext): slot j of each
    /// row receives slot j + step. See [`SlotLayout`](crate::SlotLayout).
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, GaloisKeys, Parameters, RotationPolicy, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let encoder = BatchEncoder::<Fr>::new(&context)?;
    /// let keys = GaloisKeys::for_steps(&sk, &[1, 2])?;
    /// let ct = sk.encrypt(&encoder.encode_rows(&[10u64, 11, 12, 13].map(Fr::from), &[])?)?;
    ///
    /// let by_two = ct.rotate_rows(2, &keys, RotationPolicy::Exact)?;
    /// let (row0, _) = encoder.decode_rows(&sk.decrypt(&by_two)?)?;
    /// assert_eq!(row0[..2], [12u64, 13].map(Fr::from));
    ///
    /// // No key for 3: Exact refuses, Compose uses 4 - 1 only if those keys exist.
    /// assert!(ct.rotate_rows(3, &keys, RotationPolicy::Exact).is_err());
    /// assert!(ct.rotate_rows(3, &keys, RotationPolicy::Compose).is_err());
    /// let three = ct.rotate_rows(1, &keys, RotationPolicy::Exact)?
    ///     .rotate_rows(2, &keys, RotationPolicy::Exact)?;
    /// let (row0, _) = encoder.decode_rows(&sk.decrypt(&three)?)?;
    /// assert_eq!(row0[0], Fr::from(13u64));
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// * [`Error::MissingGaloisKey`] when the key for `step` is missing
    ///   ([`RotationPolicy::Exact`]) or a power-of-two key needed to compose
    ///   it is ([`RotationPolicy::Compose`]);
    /// * otherwise as for [`apply_galois`](Self::apply_galois).
    pub fn rotate_rows(
        &self,
        step: i64,
        keys: &GaloisKeys,
        policy: RotationPolicy,
    ) -> Result<Ciphertext> {
        self.ensure_galois_input(keys)?;
        let (k, src, compose) = (keys.as_ptr(), self.as_ptr(), compose_flag(policy));
        // SAFETY: all three handles are live; the engine only reads `k` and `src`.
        Ciphertext::produce(self.context(), |dst| unsafe {
            sys::helib_ciphertext_rotate_rows(k, src, step, compose, dst)
        })
    }

    /// In-place [`rotate_rows`](Self::rotate_rows).
    ///
    /// # Errors
    /// As for [`rotate_rows`](Self::rotate_rows); on error `self` is unchanged.
    pub fn rotate_rows_assign(
        &mut self,
        step: i64,
        keys: &GaloisKeys,
        policy: RotationPolicy,
    ) -> Result<()> {
        self.ensure_galois_input(keys)?;
        let (k, compose) = (keys.as_ptr(), compose_flag(policy));
        // SAFETY: both handles are live; `dst` may alias `a` per the header.
        self.compute_assign(|a, dst| unsafe {
            sys::helib_ciphertext_rotate_rows(k, a, step, compose, dst)
        })
    }

    /// Swaps the two slot rows (the automorphism X ↦ X^(2N−1)), using the key
    /// from [`GaloisKeys::for_row_swap`] or [`GaloisKeys::add_row_swap`].
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, GaloisKeys, Parameters, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let encoder = BatchEncoder::<Fr>::new(&context)?;
    /// let keys = GaloisKeys::for_row_swap(&sk)?;
    /// let ct = sk.encrypt(&encoder.encode_rows(&[Fr::from(1u64)], &[Fr::from(2u64)])?)?;
    /// let (row0, row1) = encoder.decode_rows(&sk.decrypt(&ct.swap_rows(&keys)?)?)?;
    /// assert_eq!((row0[0], row1[0]), (Fr::from(2u64), Fr::from(1u64)));
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`apply_galois`](Self::apply_galois).
    pub fn swap_rows(&self, keys: &GaloisKeys) -> Result<Ciphertext> {
        self.apply_galois(GaloisKeys::row_swap_element(self.context()), keys)
    }

    /// In-place [`swap_rows`](Self::swap_rows).
    ///
    /// # Errors
    /// As for [`apply_galois`](Self::apply_galois); on error `self` is unchanged.
    pub fn swap_rows_assign(&mut self, keys: &GaloisKeys) -> Result<()> {
        let g = GaloisKeys::row_swap_element(self.context());
        self.apply_galois_assign(g, keys)
    }

    /// The rotations of this ciphertext by each of `steps`, hoisted: the
    /// expensive decomposition of the ciphertext is done once and shared by
    /// all of them (the baby steps of a baby-step giant-step transform).
    /// Each result equals [`rotate_rows`](Self::rotate_rows) with
    /// [`RotationPolicy::Exact`] — hoisting cannot compose, so every step's
    /// own key must be present.
    ///
    /// The shared decomposition is about half of a rotation's cost; each
    /// output still pays its own inner product and division by P, so 8
    /// hoisted rotations cost about 1.6× less than 8 plain ones
    /// (`cargo bench --bench bgv_ops -- rotations`). When the rotations only
    /// feed a sum of plaintext products — the baby steps of a baby-step
    /// giant-step transform — [`linear_transform`](Self::linear_transform)
    /// also shares the division by P and is several times cheaper per step.
    ///
    /// ```
    /// use helib_rs::{Context, GaloisKeys, Parameters, Plaintext, RotationPolicy, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let keys = GaloisKeys::for_steps(&sk, &[1, 2, 3])?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2, 3])?)?;
    /// let rotated = ct.rotate_rows_hoisted(&[0, 1, 2, 3], &keys)?;
    /// for (step, hoisted) in (0..4).zip(&rotated) {
    ///     let plain = ct.rotate_rows(step, &keys, RotationPolicy::Exact)?;
    ///     assert_eq!(sk.decrypt(hoisted)?, sk.decrypt(&plain)?);
    /// }
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::MissingGaloisKey`] naming the first step whose key is
    /// missing; otherwise as for [`apply_galois`](Self::apply_galois).
    pub fn rotate_rows_hoisted(&self, steps: &[i64], keys: &GaloisKeys) -> Result<Vec<Ciphertext>> {
        let context = self.context();
        let elements: Vec<u64> = steps
            .iter()
            .map(|&s| GaloisKeys::element_for_step(context, s))
            .collect();
        self.ensure_galois_input(keys)?;
        // The engine names the first missing element; this names its step.
        self.galois_hoisted(&elements, keys)
            .map_err(|error| match error {
                Error::MissingGaloisKey {
                    step: None,
                    element,
                } => Error::MissingGaloisKey {
                    step: steps
                        .iter()
                        .zip(&elements)
                        .find(|&(_, &g)| g == element)
                        .map(|(&step, _)| step),
                    element,
                },
                other => other,
            })
    }

    /// The automorphisms X ↦ X^g for each of `elements`, hoisted; see
    /// [`rotate_rows_hoisted`](Self::rotate_rows_hoisted).
    ///
    /// # Errors
    /// As for [`apply_galois`](Self::apply_galois), for the first element that fails.
    pub fn apply_galois_hoisted(
        &self,
        elements: &[u64],
        keys: &GaloisKeys,
    ) -> Result<Vec<Ciphertext>> {
        self.ensure_galois_input(keys)?;
        for &g in elements {
            self.check_galois(keys, g)?;
        }
        self.galois_hoisted(elements, keys)
    }

    /// The hoisted engine call for checked elements. The identity is copied
    /// here (it needs no key); the rest share one engine call.
    fn galois_hoisted(&self, elements: &[u64], keys: &GaloisKeys) -> Result<Vec<Ciphertext>> {
        let moved: Vec<u64> = elements.iter().copied().filter(|&g| g != 1).collect();
        let mut results = if moved.is_empty() {
            Vec::new()
        } else {
            let (k, src) = (keys.as_ptr(), self.as_ptr());
            Ciphertext::produce_many(self.context(), moved.len(), |dsts| {
                // SAFETY: every handle is live; `moved` and `dsts` hold
                // `moved.len()` entries each, the destinations are distinct
                // new handles, none aliasing `src`, as the header requires.
                unsafe {
                    sys::helib_ciphertext_apply_galois_hoisted(
                        k,
                        src,
                        moved.as_ptr(),
                        moved.len(),
                        dsts.as_ptr(),
                    )
                }
            })?
        }
        .into_iter();
        elements
            .iter()
            .map(|&g| match g {
                1 => self.try_clone(),
                _ => results.next().ok_or_else(|| Error::Engine {
                    status: crate::Status::Internal,
                    message: "the hoisted call returned too few ciphertexts".into(),
                }),
            })
            .collect()
    }

    /// Checks an automorphism by g; `Ok(true)` when it is the identity.
    /// Whether the key is present is the engine's check.
    pub(crate) fn check_galois(&self, keys: &GaloisKeys, g: u64) -> Result<bool> {
        self.ensure_galois_input(keys)?;
        ensure_valid_element(self.context(), g)?;
        Ok(g == 1)
    }

    /// Same context as the keys, key switching available, size 2.
    fn ensure_galois_input(&self, keys: &GaloisKeys) -> Result<()> {
        self.context().ensure_same(keys.context())?;
        ensure_key_switching(self.context())?;
        self.ensure_size(2)
    }
}

fn compose_flag(policy: RotationPolicy) -> i32 {
    match policy {
        RotationPolicy::Exact => 0,
        RotationPolicy::Compose => 1,
    }
}
