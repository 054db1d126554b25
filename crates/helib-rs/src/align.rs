//! Bringing ciphertexts to a common level and correction factor, so they can be added.
//!
//! Additions need operands at one level with one correction factor (the
//! plaintext scale that modulus switching and products change: a product's
//! factor is the product of its operands'). The level is matched by modulus
//! switching; the factor by multiplying one operand by the constant 1
//! *re-labelled*: the plaintext constant g = f_target / f_own mod t, declared
//! with correction factor g, which leaves the message as it is and turns the
//! factor into f_target. That product costs log2 |g| bits of noise (g taken in
//! (−t/2, t/2]), so [`Ciphertext::align`] re-labels whichever operand ends up
//! with less noise.

use num_bigint::{BigInt, BigUint};

use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::encoded::EncodedPlaintext;
use crate::error::{Error, Result};
use crate::limbs::log2;
use crate::plaintext::Plaintext;

impl EncodedPlaintext {
    /// The plaintext that turns a ciphertext's correction factor `from` into
    /// `to` without changing its message, encoded at `level`: multiply the
    /// ciphertext by it ([`Ciphertext::mul_plain`]). Its noise cost is
    /// [`factor_change_cost_bits`](Self::factor_change_cost_bits).
    ///
    /// # Errors
    /// [`Error::InvalidLevel`] for a level above the chain;
    /// [`Error::InvalidArgument`] when a factor is 0 mod t or not invertible mod t.
    pub fn factor_change(
        context: &Context,
        level: usize,
        from: &BigUint,
        to: &BigUint,
    ) -> Result<Self> {
        let ratio = factor_ratio(context, from, to)?;
        // The plaintext g^-1 encoded with factor g is the constant polynomial 1.
        let inverse = invert_mod(&ratio, context.plaintext_modulus())?;
        EncodedPlaintext::with_factor(
            &Plaintext::from_biguints(context, &[inverse])?,
            level,
            &ratio,
        )
    }

    /// log2 |g| for the centred g = to / from mod t: the bits of noise
    /// [`factor_change`](Self::factor_change) adds (0 when the factors agree).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a factor is 0 mod t or not invertible mod t.
    pub fn factor_change_cost_bits(context: &Context, from: &BigUint, to: &BigUint) -> Result<f64> {
        let ratio = factor_ratio(context, from, to)?;
        let t = BigInt::from(context.plaintext_modulus().clone());
        let mut centred = BigInt::from(ratio);
        if &centred * 2 > t {
            centred -= &t;
        }
        Ok(log2(centred.magnitude()))
    }
}

impl Ciphertext {
    /// This ciphertext with correction factor `factor` and the same message;
    /// see [`EncodedPlaintext::factor_change`] for the noise it costs.
    ///
    /// # Errors
    /// As for [`EncodedPlaintext::factor_change`] and [`Ciphertext::mul_plain`]
    /// ([`Error::NoiseBudgetExhausted`] when the budget cannot pay for it).
    pub fn with_correction_factor(&self, factor: &BigUint) -> Result<Ciphertext> {
        if self.correction_factor() == factor {
            return self.try_clone();
        }
        let change = EncodedPlaintext::factor_change(
            self.context(),
            self.level(),
            self.correction_factor(),
            factor,
        )?;
        self.mul_plain(&change)
    }

    /// Copies of `a` and `b` at a common level and correction factor, ready
    /// to be added or subtracted: the higher one is switched down to the
    /// lower one's level, then one of them is re-labelled (see the module
    /// docs) — the one for which the larger of the two noise estimates stays
    /// smaller.
    ///
    /// ```
    /// use helib_rs::{Ciphertext, Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let x = sk.encrypt(&Plaintext::from_u64s(&context, &[6])?)?;
    /// let y = sk.encrypt(&Plaintext::from_u64s(&context, &[7])?)?;
    /// let xy = x.multiply(&y)?.mod_switch()?; // another level and factor than x
    /// assert!((&xy + &x).is_err());
    /// let (xy, x) = Ciphertext::align(&xy, &x)?;
    /// let sum = (&xy + &x)?;
    /// assert_eq!(sk.decrypt(&sum)?, Plaintext::from_u64s(&context, &[48])?);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] for ciphertexts of different contexts;
    /// [`Error::NoiseBudgetExhausted`] when neither can pay for the re-labelling.
    pub fn align(a: &Ciphertext, b: &Ciphertext) -> Result<(Ciphertext, Ciphertext)> {
        let (mut a, mut b) = Self::align_groups(std::slice::from_ref(a), std::slice::from_ref(b))?;
        match (a.pop(), b.pop()) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err(Error::InvalidArgument("nothing to align".into())),
        }
    }

    /// [`align`](Self::align) for two groups of ciphertexts, each group
    /// sharing a level and a correction factor (such as the blocks of one
    /// polynomial): every member ends at the lowest level, and the group
    /// whose re-labelling leaves less noise is re-labelled, with one encoded
    /// constant for all its members.
    ///
    /// # Errors
    /// As for [`align`](Self::align); [`Error::InvalidArgument`] for an empty
    /// group; [`Error::LevelMismatch`] and [`Error::CorrectionFactorMismatch`]
    /// for a group whose members disagree.
    pub fn align_groups(
        a: &[Ciphertext],
        b: &[Ciphertext],
    ) -> Result<(Vec<Ciphertext>, Vec<Ciphertext>)> {
        let (head_a, head_b) = match (a.first(), b.first()) {
            (Some(x), Some(y)) => (x, y),
            _ => return Err(Error::InvalidArgument("a group to align is empty".into())),
        };
        head_a.context().ensure_same(head_b.context())?;
        for member in a.iter().chain(b) {
            head_a.context().ensure_same(member.context())?;
        }
        for group in [a, b] {
            for member in group {
                if member.level() != group[0].level() {
                    return Err(Error::LevelMismatch {
                        left: group[0].level(),
                        right: member.level(),
                    });
                }
                if member.correction_factor() != group[0].correction_factor() {
                    return Err(Error::CorrectionFactorMismatch);
                }
            }
        }
        let level = head_a.level().min(head_b.level());
        let switch = |group: &[Ciphertext]| {
            group
                .iter()
                .map(|c| c.mod_switch_to(level))
                .collect::<Result<Vec<_>>>()
        };
        let (mut a, mut b) = (switch(a)?, switch(b)?);
        let (fa, fb) = (
            a[0].correction_factor().clone(),
            b[0].correction_factor().clone(),
        );
        if fa == fb {
            return Ok((a, b));
        }
        let context = a[0].context().clone();
        let noise = |group: &[Ciphertext]| {
            group
                .iter()
                .map(Ciphertext::noise_estimate_bits)
                .fold(f64::MIN, f64::max)
        };
        let (na, nb) = (noise(&a), noise(&b));
        let relabel_a = na + EncodedPlaintext::factor_change_cost_bits(&context, &fa, &fb)?;
        let relabel_b = nb + EncodedPlaintext::factor_change_cost_bits(&context, &fb, &fa)?;
        let (target, from, to) = if relabel_a.max(nb) <= relabel_b.max(na) {
            (&mut a, &fa, &fb)
        } else {
            (&mut b, &fb, &fa)
        };
        let change = EncodedPlaintext::factor_change(&context, level, from, to)?;
        for member in target.iter_mut() {
            member.mul_plain_assign(&change)?;
        }
        Ok((a, b))
    }
}

/// to / from mod t.
fn factor_ratio(context: &Context, from: &BigUint, to: &BigUint) -> Result<BigUint> {
    let t = context.plaintext_modulus();
    let from_inverse = invert_mod(&(from % t), t)?;
    let ratio = (to % t) * from_inverse % t;
    if ratio == BigUint::default() {
        return Err(Error::InvalidArgument(
            "a correction factor is 0 mod t".into(),
        ));
    }
    Ok(ratio)
}

/// x^-1 mod m, or an error when x is not invertible.
fn invert_mod(x: &BigUint, m: &BigUint) -> Result<BigUint> {
    x.modinv(m).ok_or_else(|| {
        Error::InvalidArgument(format!("the correction factor {x} is not invertible mod t"))
    })
}
