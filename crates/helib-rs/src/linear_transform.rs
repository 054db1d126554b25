//! Baby-step giant-step linear transforms with double hoisting.

use helib_sys as sys;

use crate::ciphertext::Ciphertext;
use crate::encoded::EncodedPlaintext;
use crate::error::{Error, Result};
use crate::galois_keys::{ensure_valid_element, GaloisKeys};

impl Ciphertext {
    /// A baby-step giant-step linear transform in one engine call:
    ///
    /// `y = Σ_(j < G) σ_giant^j( Σ_(i < B) D_(j,i) ⊙ σ_(baby[i])(x) )`
    ///
    /// with `B = baby.len()`, `G = diagonals.len() / B` and
    /// `D_(j,i) = diagonals[j·B + i]` (`None` for a zero term). σ_g is the
    /// automorphism X ↦ X^g ([`apply_galois`](Self::apply_galois)); with
    /// [`GaloisKeys::element_for_step`] elements, σ acts as a slot rotation and
    /// this is the classic BSGS evaluation of a matrix by its diagonals.
    /// [`lintrans::EncodedTransform`](crate::lintrans::EncodedTransform)
    /// builds these arguments from a map's diagonals keyed by rotation.
    ///
    /// The evaluation is *double-hoisted*: the ciphertext is decomposed once,
    /// every baby step stays in the key-switching basis Q·P (it skips its
    /// division by P) and the products with the diagonals are summed there, so
    /// a giant step costs one division by P however many baby steps feed it.
    /// The giant sum runs in Horner form (`acc = σ_giant(acc) + S_j`) with the
    /// rotation of `acc` kept in Q·P as well: one key switch per giant step,
    /// and a single giant-step key. A baby step therefore costs an inner
    /// product and its plaintext products — a small fraction of a rotation
    /// (see the `hoisted_baby_steps` rows of `cargo bench --bench bgv_ops`).
    ///
    /// Every diagonal must be an extended encoding
    /// ([`EncodedPlaintext::for_linear_transform`]) at this ciphertext's level
    /// or above, all with one correction factor; the result's factor is the
    /// product of it and this ciphertext's. Element 1 (the identity) needs no
    /// key.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, GaloisKeys, Parameters, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let encoder = BatchEncoder::<Fr>::new(&context)?;
    /// let x: Vec<Fr> = (0..encoder.slot_count() as u64).map(Fr::from).collect();
    /// let ct = sk.encrypt(&encoder.encode(&x)?)?;
    ///
    /// // y = 2·x + 3·rot_1(x): baby steps {0, 1}, one giant step.
    /// let elements = [1, GaloisKeys::element_for_step(&context, 1)];
    /// let keys = GaloisKeys::for_elements(&sk, &elements[1..])?;
    /// let constant = |c: u64| encoder.encode_for_linear_transform(&vec![Fr::from(c); x.len()], ct.level());
    /// let (two, three) = (constant(2)?, constant(3)?);
    /// let y = ct.linear_transform(&elements, 1, &[Some(&two), Some(&three)], &keys)?;
    ///
    /// let slots = encoder.decode(&sk.decrypt(&y)?)?;
    /// let row = encoder.slot_count() / 2;
    /// assert_eq!(slots[0], Fr::from(3u64)); // 2·0 + 3·1
    /// assert_eq!(slots[row - 1], Fr::from(2 * (row as u64 - 1))); // + 3·x[0] = 0
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// * [`Error::InvalidArgument`] when `baby` is empty, `diagonals.len()` is
    ///   not a nonzero multiple of it, every diagonal is `None`, a diagonal is
    ///   not an extended encoding, or the diagonals' correction factors differ;
    /// * [`Error::ContextMismatch`]; [`Error::LevelMismatch`] when a diagonal is
    ///   encoded below this ciphertext's level;
    /// * [`Error::MissingGaloisKey`] for a baby element (or the giant element,
    ///   when there are several giant steps) without a key;
    /// * [`Error::NoiseBudgetExhausted`] (before any work) when the estimate
    ///   says the result would not decrypt.
    pub fn linear_transform(
        &self,
        baby: &[u64],
        giant: u64,
        diagonals: &[Option<&EncodedPlaintext>],
        keys: &GaloisKeys,
    ) -> Result<Ciphertext> {
        if baby.is_empty() || diagonals.is_empty() || !diagonals.len().is_multiple_of(baby.len()) {
            return Err(Error::InvalidArgument(format!(
                "a linear transform takes (giant steps × baby steps) diagonals: {} diagonals for {} baby steps",
                diagonals.len(),
                baby.len()
            )));
        }
        for &g in baby {
            self.check_galois(keys, g)?;
        }
        ensure_valid_element(self.context(), giant)?;
        if diagonals.len() > baby.len() {
            self.check_galois(keys, giant)?;
        }
        // The engine checks each diagonal's context, level and factor.
        for plain in diagonals.iter().flatten() {
            if !plain.is_extended() {
                return Err(Error::InvalidArgument(
                    "linear_transform needs diagonals encoded with EncodedPlaintext::for_linear_transform".into(),
                ));
            }
        }
        let handles: Vec<*const sys::helib_encoded_plaintext> = diagonals
            .iter()
            .map(|d| d.map_or(std::ptr::null(), EncodedPlaintext::as_ptr))
            .collect();
        let k = keys.as_ptr();
        // SAFETY: every handle is live (the keys, this ciphertext, each
        // non-null diagonal); `baby` and `handles` are live slices of the
        // lengths passed; the destination is a new handle.
        self.compute(|a, dst| unsafe {
            sys::helib_ciphertext_linear_transform(
                k,
                a,
                baby.as_ptr(),
                baby.len(),
                giant,
                handles.as_ptr(),
                handles.len(),
                dst,
            )
        })
    }
}
