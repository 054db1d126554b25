//! Galois keys: key switching from s(X^g) back to s(X), one key per Galois element g.

use std::collections::BTreeSet;
use std::fmt;

use helib_sys as sys;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{check, query, read_list, Owned};
use crate::keys::SecretKey;
use crate::relin_key::ensure_key_switching;

/// A set of Galois keys, one per Galois element g (an odd number below 2N).
///
/// The key for g lets [`Ciphertext::apply_galois`](crate::Ciphertext::apply_galois)
/// turn an encryption of m(X) into one of m(X^g). On the slot layout of the
/// [`BatchEncoder`](crate::BatchEncoder) ([`SlotLayout`](crate::SlotLayout)),
/// g = 3^k mod 2N rotates both rows left by k
/// ([`element_for_step`](Self::element_for_step)) and g = 2N − 1 swaps them
/// ([`row_swap_element`](Self::row_swap_element)). The identity g = 1
/// (a rotation by a multiple of N/2) needs no key and is never stored.
///
/// # Key memory
///
/// Each key holds 2 × (digits) polynomials modulo Q·P, as much as a
/// [`RelinKey`](crate::RelinKey). There are two ways to make every rotation
/// available:
///
/// * one key per step ([`for_steps`](Self::for_steps) over `0..N/2`):
///   N/2 − 1 keys, and every rotation is one key switch;
/// * the power-of-two steps ([`for_power_of_two_steps`](Self::for_power_of_two_steps)):
///   2·log2(N/2) − 1 keys, and with
///   [`RotationPolicy::Compose`](crate::RotationPolicy::Compose) a rotation
///   whose own key is missing is composed from the rotations of the
///   non-adjacent form of k (or of k − N/2): one key switch per term, each
///   adding its noise.
///
/// Measured with `cargo run --release --example rotations -- --preset bench
/// --threads 1 --measure-keys` (N = 2^16, t = BN254 Fr, the benches' chain of
/// 14 × 61-bit primes, 3 digits, 6 special primes), as CPU time of the one
/// engine thread on a 2-core machine shared with other builds (two runs):
///
/// | key set | keys | memory | generation | a rotation by k |
/// |---|---|---|---|---|
/// | every step | 32 767 | 2 062 GB | ≈ 1.6 h (32 767 × one key) | one key switch: 135–158 ms |
/// | powers of two | 29 | 1.82 GB | 5.3–5.5 s | one key switch per term: 2 terms 282–301 ms, 3 terms 416–466 ms, 8 terms (the most; k = 10923) 1.04–1.22 s |
///
/// A composed rotation takes 5.11 terms on average over all k (at most 8).
/// One key is 62.9 MB (3 digits × 2 polynomials × 20 primes × 2^16 × 8 bytes)
/// and takes 171–181 ms to generate. Composition costs time, not noise: each
/// term adds key-switching noise far below the ciphertext's own, and the
/// budget after 8 terms was within 0.3 bits of a direct rotation's. At
/// N = 2^15 (`--preset bench15`) a key is 31.5 MB (92 ms), the power-of-two
/// set 0.85 GB (27 keys), a rotation 62 ms and a composition 4.78 terms on
/// average.
///
/// A transform that needs only a few steps (such as the baby steps of a
/// baby-step giant-step product) should generate exactly those:
/// [`add_steps`](Self::add_steps) skips keys already present, so keys can be
/// added lazily as a computation turns out to need them.
///
/// ```
/// use helib_rs::{Context, GaloisKeys, Parameters, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let mut keys = GaloisKeys::for_steps(&sk, &[1, -1])?;
/// keys.add_row_swap(&sk)?;
/// assert_eq!(keys.len(), 3);
/// assert!(keys.contains_step(1) && keys.contains_step(-1));
/// assert!(keys.contains(GaloisKeys::row_swap_element(&context)));
/// assert!(!keys.contains_step(2));
/// assert_eq!(keys.elements(), vec![3, 2731, 8191]); // 3, 3^-1 and 2N - 1 mod 8192
/// # Ok::<(), helib_rs::Error>(())
/// ```
pub struct GaloisKeys {
    raw: Owned<sys::helib_galois_keys>,
    context: Context,
    elements: BTreeSet<u64>,
    size_bytes: usize,
}

// SAFETY: a key set is owned by this value alone and has no thread affinity.
// `&self` methods only call engine functions taking it as `const` (safe
// concurrently, per the header), and keys are only added through `&mut self`,
// so Rust's borrow rules give the engine the exclusive access it needs.
unsafe impl Send for GaloisKeys {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for GaloisKeys {}

impl GaloisKeys {
    /// An empty key set for `context`.
    ///
    /// # Errors
    /// Only on engine failures such as [`Error::OutOfMemory`].
    pub fn new(context: &Context) -> Result<Self> {
        let ctx = context.as_ptr();
        // SAFETY: the context handle is live and `out` is a valid out-pointer.
        let raw = Owned::create(|out| unsafe { sys::helib_galois_keys_new(ctx, out) })?;
        Ok(Self {
            raw,
            context: context.clone(),
            elements: BTreeSet::new(),
            size_bytes: 0,
        })
    }

    /// The keys rotating both slot rows left by each of `steps` (right for
    /// negative steps). Steps are taken modulo N/2; multiples of N/2 need no key.
    ///
    /// # Errors
    /// As for [`add_elements`](Self::add_elements).
    pub fn for_steps(sk: &SecretKey, steps: &[i64]) -> Result<Self> {
        let mut keys = Self::new(sk.context())?;
        keys.add_steps(sk, steps)?;
        Ok(keys)
    }

    /// The keys for the Galois elements `elements` (each odd and below 2N).
    ///
    /// # Errors
    /// As for [`add_elements`](Self::add_elements).
    pub fn for_elements(sk: &SecretKey, elements: &[u64]) -> Result<Self> {
        let mut keys = Self::new(sk.context())?;
        keys.add_elements(sk, elements)?;
        Ok(keys)
    }

    /// The single key swapping the two slot rows.
    ///
    /// # Errors
    /// As for [`add_elements`](Self::add_elements).
    pub fn for_row_swap(sk: &SecretKey) -> Result<Self> {
        let mut keys = Self::new(sk.context())?;
        keys.add_row_swap(sk)?;
        Ok(keys)
    }

    /// The keys for the steps of [`power_of_two_steps`](Self::power_of_two_steps):
    /// enough for every rotation with
    /// [`RotationPolicy::Compose`](crate::RotationPolicy::Compose).
    ///
    /// # Errors
    /// As for [`add_elements`](Self::add_elements).
    pub fn for_power_of_two_steps(sk: &SecretKey) -> Result<Self> {
        Self::for_steps(sk, &Self::power_of_two_steps(sk.context()))
    }

    /// Adds the keys for `steps` that are not present yet; see
    /// [`for_steps`](Self::for_steps).
    ///
    /// # Errors
    /// As for [`add_elements`](Self::add_elements).
    pub fn add_steps(&mut self, sk: &SecretKey, steps: &[i64]) -> Result<()> {
        let elements: Vec<u64> = steps
            .iter()
            .map(|&step| Self::element_for_step(&self.context, step))
            .collect();
        self.add_elements(sk, &elements)
    }

    /// Adds the key swapping the two slot rows, if it is not present yet.
    ///
    /// # Errors
    /// As for [`add_elements`](Self::add_elements).
    pub fn add_row_swap(&mut self, sk: &SecretKey) -> Result<()> {
        self.add_elements(sk, &[Self::row_swap_element(&self.context)])
    }

    /// Adds the keys for those of `elements` that are not present yet (the
    /// identity 1 needs none). Every element is checked before any key is
    /// generated.
    ///
    /// # Errors
    /// * [`Error::ContextMismatch`] when `sk` belongs to another context;
    /// * [`Error::InvalidGaloisElement`] for an element that is even or not below 2N;
    /// * [`Error::NoSpecialPrimes`] when the context cannot switch keys;
    /// * [`Error::Randomness`] when the OS random source fails; keys
    ///   generated before the failure stay in the set.
    pub fn add_elements(&mut self, sk: &SecretKey, elements: &[u64]) -> Result<()> {
        self.context.ensure_same(sk.context())?;
        for &element in elements {
            ensure_valid_element(&self.context, element)?;
        }
        let missing: BTreeSet<u64> = elements
            .iter()
            .copied()
            .filter(|&g| g != 1 && !self.elements.contains(&g))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        ensure_key_switching(&self.context)?;
        let _span =
            tracing::info_span!("helib.galois_keys_generate", keys = missing.len()).entered();
        // The engine makes several keys at once when the context has threads
        // enough, each key on one thread.
        let missing: Vec<u64> = missing.into_iter().collect();
        let (keys, key) = (self.raw.as_mut_ptr(), sk.as_ptr());
        // SAFETY: both handles are live, `keys` is written through `&mut self`
        // (exclusive access), and `missing` holds `missing.len()` valid elements.
        let outcome = check(unsafe {
            sys::helib_galois_keys_add_many(keys, key, missing.as_ptr(), missing.len())
        });
        let handle = self.raw.as_ptr();
        // The keys the engine holds now, also after a failure part way.
        // SAFETY: the key set handle is live; `buf`/`len` come from `read_list`.
        let list = |buf, len| unsafe { sys::helib_galois_keys_elements(handle, buf, len) };
        self.elements = read_list(list)?.into_iter().collect();
        // SAFETY: the key set handle is live and `out` is a valid out-pointer.
        self.size_bytes = query(|out| unsafe { sys::helib_galois_keys_size_bytes(handle, out) })?;
        outcome
    }

    /// Lets the engine insert the key for `element` through `write`, then
    /// records it (collective key generation).
    pub(crate) fn insert_with(
        &mut self,
        element: u64,
        write: impl FnOnce(*mut sys::helib_galois_keys) -> sys::helib_status,
    ) -> Result<()> {
        check(write(self.raw.as_mut_ptr()))?;
        self.elements.insert(element);
        let handle = self.raw.as_ptr();
        // SAFETY: the key set handle is live and `out` is a valid out-pointer.
        self.size_bytes = query(|out| unsafe { sys::helib_galois_keys_size_bytes(handle, out) })?;
        Ok(())
    }

    /// Wraps a key set handle of `context` made by the engine (e.g. by a decoder).
    pub(crate) fn from_raw(raw: Owned<sys::helib_galois_keys>, context: &Context) -> Result<Self> {
        let handle = raw.as_ptr();
        // SAFETY: the key set handle is live; `buf`/`len` come from `read_list`.
        let list = |buf, len| unsafe { sys::helib_galois_keys_elements(handle, buf, len) };
        let elements = read_list(list)?.into_iter().collect();
        // SAFETY: the key set handle is live and `out` is a valid out-pointer.
        let size_bytes = query(|out| unsafe { sys::helib_galois_keys_size_bytes(handle, out) })?;
        Ok(Self {
            raw,
            context: context.clone(),
            elements,
            size_bytes,
        })
    }

    /// The context these keys belong to.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Whether the set holds the key for the Galois element `element`.
    pub fn contains(&self, element: u64) -> bool {
        self.elements.contains(&element)
    }

    /// Whether the set holds the key rotating the rows by `step` (true for
    /// multiples of N/2, which need none).
    pub fn contains_step(&self, step: i64) -> bool {
        let element = Self::element_for_step(&self.context, step);
        element == 1 || self.contains(element)
    }

    /// The Galois elements whose keys the set holds, ascending.
    pub fn elements(&self) -> Vec<u64> {
        self.elements.iter().copied().collect()
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Whether the set holds no key.
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    /// The bytes the keys occupy in the engine's memory.
    pub fn size_bytes(&self) -> usize {
        self.size_bytes
    }

    /// The Galois element 3^step mod 2N rotating both slot rows left by
    /// `step` (right for negative steps); 1 for multiples of N/2.
    ///
    /// ```
    /// use helib_rs::{Context, GaloisKeys, Parameters};
    ///
    /// let context = Context::new(&Parameters::for_tests())?; // 2N = 8192
    /// assert_eq!(GaloisKeys::element_for_step(&context, 2), 9);
    /// assert_eq!(GaloisKeys::element_for_step(&context, 2048), 1);
    /// let right = GaloisKeys::element_for_step(&context, -1);
    /// assert_eq!(3 * right % 8192, 1);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    pub fn element_for_step(context: &Context, step: i64) -> u64 {
        let ctx = context.as_ptr();
        // SAFETY: the context handle is live and `out` is a valid out-pointer.
        match query(|out| unsafe { sys::helib_galois_element_for_step(ctx, step, out) }) {
            Ok(element) => element,
            // The engine fails only on a null handle, which a `Context` never holds.
            Err(error) => unreachable!("the engine refused a live context: {error}"),
        }
    }

    /// The Galois element 2N − 1 swapping the two slot rows.
    pub fn row_swap_element(context: &Context) -> u64 {
        2 * context.ring_degree() as u64 - 1
    }

    /// The steps ±1, ±2, ±4, …, ±N/8 and N/4 (N/4 and −N/4 rotate alike):
    /// 2·log2(N/2) − 1 keys from which every rotation is composed.
    ///
    /// ```
    /// use helib_rs::{Context, GaloisKeys, Parameters};
    ///
    /// let context = Context::new(&Parameters::for_tests())?; // N = 4096
    /// let steps = GaloisKeys::power_of_two_steps(&context);
    /// assert_eq!(steps.len(), 2 * 11 - 1);
    /// assert_eq!(steps[..4], [1, -1, 2, -2]);
    /// assert_eq!(steps.last(), Some(&1024));
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    pub fn power_of_two_steps(context: &Context) -> Vec<i64> {
        let quarter = (context.ring_degree() / 4) as i64;
        let mut steps = Vec::new();
        let mut power = 1i64;
        while power < quarter {
            steps.extend([power, -power]);
            power *= 2;
        }
        steps.push(quarter);
        steps
    }

    /// The signed powers of two a rotation by `step` is composed of under
    /// [`RotationPolicy::Compose`](crate::RotationPolicy::Compose) when its
    /// own key is missing (empty for multiples of N/2): the non-adjacent form
    /// of k = step mod N/2 or of k − N/2, whichever is shorter. Each term
    /// costs one key switch.
    ///
    /// ```
    /// use helib_rs::{Context, GaloisKeys, Parameters};
    ///
    /// let context = Context::new(&Parameters::for_tests())?; // N/2 = 2048
    /// assert_eq!(GaloisKeys::composition(&context, 7), vec![-1, 8]);
    /// assert_eq!(GaloisKeys::composition(&context, 2047), vec![-1]);
    /// assert!(GaloisKeys::composition(&context, 4096).is_empty());
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    pub fn composition(context: &Context, step: i64) -> Vec<i64> {
        let ctx = context.as_ptr();
        // SAFETY: the context handle is live; `buf`/`len` come from `read_list`.
        let terms = |buf, len| unsafe { sys::helib_rotation_terms(ctx, step, buf, len) };
        match read_list(terms) {
            Ok(terms) => terms,
            // The engine fails only on a null handle, which a `Context` never holds.
            Err(error) => unreachable!("the engine refused a live context: {error}"),
        }
    }

    /// The engine handle.
    pub(crate) fn as_ptr(&self) -> *const sys::helib_galois_keys {
        self.raw.as_ptr()
    }
}

/// `Ok` if `element` is odd and below 2N, else [`Error::InvalidGaloisElement`].
pub(crate) fn ensure_valid_element(context: &Context, element: u64) -> Result<()> {
    let two_n = 2 * context.ring_degree() as u64;
    if element % 2 == 1 && element < two_n {
        Ok(())
    } else {
        Err(Error::InvalidGaloisElement { element, two_n })
    }
}

impl fmt::Debug for GaloisKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GaloisKeys")
            .field("elements", &self.elements)
            .field("size_bytes", &self.size_bytes)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_context() -> Context {
        let params = crate::Parameters::builder()
            .ring_degree(1024)
            .plaintext_modulus(65537u32.into())
            .chain_bits(&[40])
            .special_bits(&[])
            .allow_insecure()
            .build()
            .unwrap();
        Context::new(&params).unwrap()
    }

    #[test]
    fn elements_are_powers_of_three_modulo_2n() {
        let context = small_context();
        // 3 generates a subgroup of order N/2 in (Z/2N)^*; walk it step by step.
        let mut power = 1u64;
        for step in 0..600i64 {
            assert_eq!(
                GaloisKeys::element_for_step(&context, step),
                power,
                "step {step}"
            );
            assert_eq!(
                GaloisKeys::element_for_step(&context, step - 512),
                power,
                "step {}",
                step - 512
            );
            power = power * 3 % 2048;
        }
        for step in [i64::MIN, i64::MAX, i64::MIN + 1] {
            let element = GaloisKeys::element_for_step(&context, step);
            let back = GaloisKeys::element_for_step(&context, step.rem_euclid(512));
            assert_eq!(element, back, "step {step}");
        }
        assert_eq!(GaloisKeys::row_swap_element(&context), 2047);
    }

    #[test]
    fn compositions_add_up_to_the_step() {
        let context = small_context();
        for step in (-600..600).chain([i64::MIN, i64::MAX]) {
            let terms = GaloisKeys::composition(&context, step);
            let sum: i64 = terms.iter().sum();
            assert_eq!(sum.rem_euclid(512), step.rem_euclid(512), "step {step}");
            for term in &terms {
                assert!(term.unsigned_abs().is_power_of_two() && term.unsigned_abs() <= 256);
            }
            assert!(terms.len() <= 6, "step {step}: {terms:?}");
        }
        assert_eq!(GaloisKeys::composition(&context, 3), vec![-1, 4]);
        assert_eq!(GaloisKeys::composition(&context, 11), vec![-1, -4, 16]);
        assert_eq!(GaloisKeys::composition(&context, 507), vec![-1, -4]);
        assert!(GaloisKeys::composition(&context, 512).is_empty());
    }

    #[test]
    fn power_of_two_steps_cover_distinct_elements() {
        let params = crate::Parameters::builder()
            .ring_degree(1024)
            .plaintext_modulus(65537u32.into())
            .chain_bits(&[40])
            .allow_insecure()
            .build()
            .unwrap();
        let context = Context::new(&params).unwrap();
        let steps = GaloisKeys::power_of_two_steps(&context);
        let elements: BTreeSet<u64> = steps
            .iter()
            .map(|&s| GaloisKeys::element_for_step(&context, s))
            .collect();
        assert_eq!(steps.len(), 17);
        assert_eq!(elements.len(), 17);
        assert!(!elements.contains(&1));
    }
}
