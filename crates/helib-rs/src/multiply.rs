//! Ciphertext × ciphertext products, relinearization and the modulus-switching policy.

use std::borrow::Cow;

use helib_sys as sys;

use crate::ciphertext::Ciphertext;
use crate::error::{Error, Result};
use crate::relin_key::RelinKey;

/// When a product switches its operands' modulus on its own.
///
/// A BGV product roughly adds the operands' noise bits, so dropping primes
/// from the operands first (which shrinks noise and modulus alike) leaves
/// more budget after the product — every dropped prime q gains about
/// log2 q bits. The caller chooses whether the library does that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ModSwitchPolicy {
    /// No automatic switching: both operands must already be at the same
    /// level ([`Error::LevelMismatch`] otherwise).
    #[default]
    Manual,
    /// Before tensoring, switch each operand with
    /// [`Ciphertext::mod_switch_reduce_noise`] and then the higher one down
    /// to the lower one's level, so operands at different levels can be
    /// multiplied and the product keeps the most budget.
    BeforeMultiply,
}

impl Ciphertext {
    /// The tensor product `self · other`: a size-3 ciphertext decrypting with
    /// (1, s, s²). Relinearize it ([`relinearize`](Self::relinearize)) before
    /// rotating it or multiplying it again, or use
    /// [`multiply_relin`](Self::multiply_relin). The correction factors may
    /// differ; the product's is theirs multiplied.
    ///
    /// ```
    /// use helib_rs::{Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let a = sk.encrypt(&Plaintext::from_u64s(&context, &[6])?)?;
    /// let b = sk.encrypt(&Plaintext::from_u64s(&context, &[7])?)?;
    /// let product = a.multiply(&b)?;
    /// assert_eq!(product.size(), 3); // decryption handles size 3 too
    /// assert_eq!(sk.decrypt(&product)?, Plaintext::from_u64s(&context, &[42])?);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// * [`Error::ContextMismatch`] and [`Error::LevelMismatch`] when the
    ///   operands differ in those (see [`ModSwitchPolicy`]);
    /// * [`Error::InvalidCiphertextSize`] when an operand is not of size 2;
    /// * [`Error::NoiseBudgetExhausted`] when the engine's estimate says the
    ///   product would not decrypt (switch modulus first, or use a longer chain).
    pub fn multiply(&self, other: &Ciphertext) -> Result<Ciphertext> {
        self.ensure_multipliable(other)?;
        let b = other.as_ptr();
        let src = self.as_ptr();
        // SAFETY: all three handles are live; the engine only reads `src` and `b`.
        Ciphertext::produce(self.context(), |dst| unsafe {
            sys::helib_ciphertext_multiply(src, b, dst)
        })
    }

    /// `self = self · other`; see [`multiply`](Self::multiply).
    ///
    /// # Errors
    /// As for [`multiply`](Self::multiply); on error `self` is unchanged.
    pub fn multiply_assign(&mut self, other: &Ciphertext) -> Result<()> {
        self.ensure_multipliable(other)?;
        let b = other.as_ptr();
        // SAFETY: both handles are live; `dst` may alias `a` per the header.
        self.compute_assign(|a, dst| unsafe { sys::helib_ciphertext_multiply(a, b, dst) })
    }

    /// `self²` as a size-3 ciphertext; see [`multiply`](Self::multiply).
    ///
    /// # Errors
    /// As for [`multiply`](Self::multiply).
    pub fn square(&self) -> Result<Ciphertext> {
        self.multiply(self)
    }

    /// Brings a size-3 ciphertext back to size 2 with the relinearization
    /// key, adding the key-switching noise (a few bits above log2 t). A
    /// size-2 ciphertext is copied unchanged.
    ///
    /// ```
    /// use helib_rs::{Context, Parameters, Plaintext, RelinKey, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let rk = RelinKey::generate(&sk)?;
    /// let x = sk.encrypt(&Plaintext::from_i64s(&context, &[0, 3])?)?; // 3X
    /// let square = x.square()?.relinearize(&rk)?; // 9X^2
    /// assert_eq!(square.size(), 2);
    /// assert_eq!(sk.decrypt(&square)?, Plaintext::from_i64s(&context, &[0, 0, 9])?);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] when the key belongs to another context;
    /// [`Error::NoiseBudgetExhausted`] when the estimate says the result, with
    /// the key-switching noise added, would not decrypt.
    pub fn relinearize(&self, rk: &RelinKey) -> Result<Ciphertext> {
        self.context().ensure_same(rk.context())?;
        let (key, src) = (rk.as_ptr(), self.as_ptr());
        // SAFETY: all three handles are live; the engine only reads `key` and `src`.
        Ciphertext::produce(self.context(), |dst| unsafe {
            sys::helib_ciphertext_relinearize(key, src, dst)
        })
    }

    /// In-place [`relinearize`](Self::relinearize).
    ///
    /// # Errors
    /// As for [`relinearize`](Self::relinearize); on error `self` is unchanged.
    pub fn relinearize_assign(&mut self, rk: &RelinKey) -> Result<()> {
        self.context().ensure_same(rk.context())?;
        let key = rk.as_ptr();
        // SAFETY: both handles are live; `dst` may alias `a` per the header.
        self.compute_assign(|a, dst| unsafe { sys::helib_ciphertext_relinearize(key, a, dst) })
    }

    /// `self · other`, relinearized: a size-2 ciphertext. With
    /// [`ModSwitchPolicy::BeforeMultiply`] the operands are first switched
    /// down (copies; `self` and `other` are untouched), which also lets
    /// operands at different levels meet.
    ///
    /// ```
    /// use helib_rs::{Context, Error, ModSwitchPolicy, Parameters, Plaintext, RelinKey, SecretKey};
    ///
    /// // With t = BN254 Fr, Parameters::for_tests() has room for one product
    /// // at the top level only; a small t leaves room to switch first.
    /// let params = Parameters::builder()
    ///     .ring_degree(4096)
    ///     .plaintext_modulus(65537u32.into())
    ///     .multiplicative_depth(4)
    ///     .allow_insecure()
    ///     .build()?;
    /// let context = Context::new(&params)?;
    /// let sk = SecretKey::generate(&context)?;
    /// let rk = RelinKey::generate(&sk)?;
    /// let a = sk.encrypt(&Plaintext::from_u64s(&context, &[6])?)?;
    /// let b = sk.encrypt(&Plaintext::from_u64s(&context, &[7])?)?.mod_switch()?;
    ///
    /// // Different levels: refused unless the policy may switch.
    /// assert!(matches!(
    ///     a.multiply_relin(&b, &rk, ModSwitchPolicy::Manual),
    ///     Err(Error::LevelMismatch { .. })
    /// ));
    /// let product = a.multiply_relin(&b, &rk, ModSwitchPolicy::BeforeMultiply)?;
    /// assert!(product.level() <= b.level());
    /// assert_eq!(sk.decrypt(&product)?, Plaintext::from_u64s(&context, &[42])?);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`multiply`](Self::multiply) and [`relinearize`](Self::relinearize).
    pub fn multiply_relin(
        &self,
        other: &Ciphertext,
        rk: &RelinKey,
        policy: ModSwitchPolicy,
    ) -> Result<Ciphertext> {
        self.context().ensure_same(rk.context())?;
        let (a, b) = prepare_operands(self, other, policy)?;
        let mut product = a.multiply(&b)?;
        product.relinearize_assign(rk)?;
        Ok(product)
    }

    /// `self²`, relinearized; see [`multiply_relin`](Self::multiply_relin).
    ///
    /// # Errors
    /// As for [`multiply_relin`](Self::multiply_relin).
    pub fn square_relin(&self, rk: &RelinKey, policy: ModSwitchPolicy) -> Result<Ciphertext> {
        self.context().ensure_same(rk.context())?;
        self.ensure_size(2)?;
        let a = match policy {
            ModSwitchPolicy::Manual => Cow::Borrowed(self),
            ModSwitchPolicy::BeforeMultiply => Cow::Owned(self.mod_switch_reduce_noise()?),
        };
        let mut product = a.square()?;
        product.relinearize_assign(rk)?;
        Ok(product)
    }

    /// `Ok` if the ciphertext has `expected` polynomials, else
    /// [`Error::InvalidCiphertextSize`].
    pub(crate) fn ensure_size(&self, expected: usize) -> Result<()> {
        if self.size() == expected {
            Ok(())
        } else {
            Err(Error::InvalidCiphertextSize {
                size: self.size(),
                expected,
            })
        }
    }

    /// Same context, both of size 2 (the engine checks the levels).
    fn ensure_multipliable(&self, other: &Ciphertext) -> Result<()> {
        self.context().ensure_same(other.context())?;
        self.ensure_size(2)?;
        other.ensure_size(2)
    }
}

/// The operands as the policy wants them: unchanged, or switched down with
/// `mod_switch_reduce_noise` and then to a common level.
fn prepare_operands<'a>(
    a: &'a Ciphertext,
    b: &'a Ciphertext,
    policy: ModSwitchPolicy,
) -> Result<(Cow<'a, Ciphertext>, Cow<'a, Ciphertext>)> {
    match policy {
        ModSwitchPolicy::Manual => Ok((Cow::Borrowed(a), Cow::Borrowed(b))),
        ModSwitchPolicy::BeforeMultiply => {
            // Check first so that nothing is computed for operands that cannot meet.
            a.context().ensure_same(b.context())?;
            a.ensure_size(2)?;
            b.ensure_size(2)?;
            let mut a = a.mod_switch_reduce_noise()?;
            let mut b = b.mod_switch_reduce_noise()?;
            let level = a.level().min(b.level());
            a.mod_switch_to_assign(level)?;
            b.mod_switch_to_assign(level)?;
            Ok((Cow::Owned(a), Cow::Owned(b)))
        }
    }
}
