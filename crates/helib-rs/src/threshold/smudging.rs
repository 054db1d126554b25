//! What a party agrees to smudge for, fixed before it sees a ciphertext.

use helib_sys as sys;

use crate::context::Context;
use crate::error::Result;
use crate::ffi::{check, query};

/// The smudging a party applies to its shares on a ciphertext (decryption,
/// encryption to shares, key switching): the number of parties that each add
/// a smudging term, the statistical parameter λ, the level the agreed
/// computation's results are at, and the most noise (bits of
/// `‖m + t·e‖_∞`) such a result can carry there.
///
/// The smudging width comes from this spec alone, never from the noise
/// estimate a ciphertext carries: that estimate travels in the ciphertext's
/// bytes, and whoever hands a party a ciphertext (a server, another party)
/// could forge it low to narrow the smudging. A ciphertext at another level,
/// or claiming more noise than the bound, is refused before any share is
/// released.
///
/// ```
/// use helib_rs::{threshold::Smudging, Context, Parameters};
/// let context = Context::new(&Parameters::for_tests())?;
/// let top = context.max_level();
/// // The widest bound the top level can hide for 3 parties at λ = 40 ...
/// let widest = Smudging::for_level(&context, 3, 40, top)?;
/// assert!(widest.width_bits(&context)? > 40);
/// // ... and a tighter one the parties agreed on (the noise of their computation).
/// let tight = widest.with_noise_bound(&context, widest.noise_bits() - 20.0)?;
/// assert!(tight.width_bits(&context)? < widest.width_bits(&context)?);
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Smudging {
    parties: u32,
    security_bits: u32,
    level: usize,
    noise_bits: f64,
}

impl Smudging {
    /// The spec at `level` whose noise bound is the most a ciphertext there
    /// may carry and still be decrypted collectively by `parties` parties
    /// with statistical parameter `security_bits` (leaving a margin that
    /// lets the combination catch a missing or forged share). It depends on
    /// the parameters and the level only.
    ///
    /// # Errors
    /// [`Error::NoiseBudgetExhausted`](crate::Error::NoiseBudgetExhausted)
    /// when the level cannot hold the smudging even for the least noise a
    /// ciphertext carries; [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// for `parties` outside `1..=4096` or `security_bits` outside `1..=128`;
    /// an invalid level.
    pub fn for_level(
        context: &Context,
        parties: u32,
        security_bits: u32,
        level: usize,
    ) -> Result<Self> {
        let mut raw = Self {
            parties,
            security_bits,
            level,
            noise_bits: f64::NAN,
        }
        .to_raw();
        // SAFETY: the context handle is live and `raw` is a valid out-pointer.
        check(unsafe {
            sys::helib_threshold_smudging_for_level(
                context.as_ptr(),
                parties,
                security_bits,
                level,
                &mut raw,
            )
        })?;
        Ok(Self::from_raw(&raw))
    }

    /// The same spec with a tighter noise bound `bits` (one the parties
    /// computed for their agreed computation), so that the smudged result
    /// keeps more of its budget (a key-switched ciphertext stays usable).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a bound
    /// below the engine's noise floor or not a number;
    /// [`Error::NoiseBudgetExhausted`](crate::Error::NoiseBudgetExhausted)
    /// for one the level cannot hide.
    pub fn with_noise_bound(self, context: &Context, bits: f64) -> Result<Self> {
        let tighter = Self {
            noise_bits: bits,
            ..self
        };
        tighter.width_bits(context)?;
        Ok(tighter)
    }

    /// The number of parties that each add a smudging term.
    pub fn parties(&self) -> u32 {
        self.parties
    }
    /// The statistical security parameter λ.
    pub fn security_bits(&self) -> u32 {
        self.security_bits
    }
    /// The level the agreed computation's results are at.
    pub fn level(&self) -> usize {
        self.level
    }
    /// The most noise (bits) the agreed computation's results carry.
    pub fn noise_bits(&self) -> f64 {
        self.noise_bits
    }

    /// The width `k` of each party's smudging term `t·E`, `E` uniform in
    /// `[-2^k, 2^k)`.
    ///
    /// # Errors
    /// As [`with_noise_bound`](Self::with_noise_bound).
    pub fn width_bits(&self, context: &Context) -> Result<u32> {
        let raw = self.to_raw();
        // SAFETY: the context handle is live, `raw` lives across the call and `out` is a valid out-pointer.
        query(|out| unsafe { sys::helib_threshold_smudging_bits(context.as_ptr(), &raw, out) })
    }

    pub(crate) fn to_raw(self) -> sys::helib_smudging {
        sys::helib_smudging {
            parties: self.parties,
            security_bits: self.security_bits,
            level: self.level,
            noise_bits: self.noise_bits,
        }
    }

    fn from_raw(raw: &sys::helib_smudging) -> Self {
        Self {
            parties: raw.parties,
            security_bits: raw.security_bits,
            level: raw.level,
            noise_bits: raw.noise_bits,
        }
    }
}
