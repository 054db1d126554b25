//! Plaintext polynomials: N coefficients modulo t, bound to a context.

use std::fmt;

use num_bigint::BigUint;
use zeroize::Zeroize;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::limbs;

/// A plaintext polynomial m(X) = Σ m_i X^i in Z_t\[X\]/(X^N + 1).
///
/// It holds exactly N coefficients in [0, t), stored compactly as
/// little-endian 64-bit limbs, and remembers its [`Context`]. Constructors
/// take at most N coefficients; the missing high ones are zero.
///
/// ```
/// use helib_rs::{Context, Parameters, Plaintext};
/// use num_bigint::BigUint;
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let p = Plaintext::from_i64s(&context, &[5, -1])?;
/// assert_eq!(p.coefficient(0), Some(BigUint::from(5u32)));
/// assert_eq!(p.coefficient(1), Some(context.plaintext_modulus() - 1u32));
/// assert_eq!(p.coefficient(2), Some(BigUint::from(0u32)));
/// assert_eq!(p.coefficient(4096), None);
/// # Ok::<(), helib_rs::Error>(())
/// ```
#[derive(Clone)]
pub struct Plaintext {
    context: Context,
    /// `N * context.plain_limbs()` limbs, coefficient-major.
    limbs: Vec<u64>,
}

impl Plaintext {
    /// The zero polynomial.
    pub fn zero(context: &Context) -> Self {
        Self {
            context: context.clone(),
            limbs: vec![0; context.ring_degree() * context.plain_limbs()],
        }
    }

    /// A plaintext with the given coefficients (constant term first).
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] when there are more than N coefficients or
    /// one of them is not below t.
    pub fn from_biguints(context: &Context, coefficients: &[BigUint]) -> Result<Self> {
        let t = context.plaintext_modulus();
        Self::build(context, coefficients.len(), |i, out| {
            let value = &coefficients[i];
            if value >= t {
                return Err(not_below_t(i, value, t));
            }
            // Below t, so it fits the plain limbs.
            let _fits = limbs::write_biguint(value, out);
            Ok(())
        })
    }

    /// A plaintext with the given small coefficients (constant term first).
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] when there are more than N coefficients or
    /// one of them is not below t.
    pub fn from_u64s(context: &Context, coefficients: &[u64]) -> Result<Self> {
        let t = context.plaintext_modulus();
        Self::build(context, coefficients.len(), |i, out| {
            let value = coefficients[i];
            if BigUint::from(value) >= *t {
                return Err(not_below_t(i, &BigUint::from(value), t));
            }
            out[0] = value;
            Ok(())
        })
    }

    /// A plaintext with signed coefficients, each taken mod t (so −1 becomes t − 1).
    ///
    /// # Errors
    /// [`Error::InvalidPlaintext`] when there are more than N coefficients.
    pub fn from_i64s(context: &Context, coefficients: &[i64]) -> Result<Self> {
        let t = context.plaintext_modulus();
        Self::build(context, coefficients.len(), |i, out| {
            let value = coefficients[i];
            let magnitude = BigUint::from(value.unsigned_abs()) % t;
            let reduced = if value < 0 && magnitude != BigUint::default() {
                t - magnitude
            } else {
                magnitude
            };
            let _fits = limbs::write_biguint(&reduced, out);
            Ok(())
        })
    }

    /// Fills the first `count` coefficients with `write(i, limbs_of_coefficient_i)`.
    fn build(
        context: &Context,
        count: usize,
        mut write: impl FnMut(usize, &mut [u64]) -> Result<()>,
    ) -> Result<Self> {
        let n = context.ring_degree();
        if count > n {
            return Err(Error::InvalidPlaintext(format!(
                "{count} coefficients were given but the ring degree is {n}"
            )));
        }
        let mut plaintext = Self::zero(context);
        let width = context.plain_limbs();
        for (i, out) in plaintext
            .limbs
            .chunks_exact_mut(width)
            .take(count)
            .enumerate()
        {
            write(i, out)?;
        }
        Ok(plaintext)
    }

    /// Wraps limbs produced by the engine (already reduced mod t).
    pub(crate) fn from_engine_limbs(context: &Context, limbs: Vec<u64>) -> Self {
        Self {
            context: context.clone(),
            limbs,
        }
    }

    /// The N coefficients, constant term first, each in [0, t).
    pub fn coefficients(&self) -> Vec<BigUint> {
        self.coefficient_limbs().map(limbs::to_biguint).collect()
    }

    /// Coefficient `index`, or `None` when `index ≥ N`.
    pub fn coefficient(&self, index: usize) -> Option<BigUint> {
        self.coefficient_limbs().nth(index).map(limbs::to_biguint)
    }

    /// Whether every coefficient is zero.
    pub fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&limb| limb == 0)
    }

    /// The context this plaintext belongs to.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The ring degree N (the number of coefficients).
    pub fn ring_degree(&self) -> usize {
        self.context.ring_degree()
    }

    /// The limbs of each coefficient, in order.
    pub(crate) fn coefficient_limbs(&self) -> std::slice::ChunksExact<'_, u64> {
        self.limbs.chunks_exact(self.context.plain_limbs())
    }

    /// All limbs, coefficient-major, `plain_limbs` per coefficient.
    pub(crate) fn limbs(&self) -> &[u64] {
        &self.limbs
    }

    /// `self + other` coefficient-wise modulo t, in place and on the limbs:
    /// no intermediate copies of either operand are made (for secret shares).
    ///
    /// # Errors
    /// [`Error::ContextMismatch`] for a plaintext of another context.
    pub fn add_assign_mod_t(&mut self, other: &Plaintext) -> Result<()> {
        self.context.ensure_same(&other.context)?;
        let width = self.context.plain_limbs();
        let mut t = limbs::from_biguint(self.context.plaintext_modulus());
        t.resize(width, 0);
        for (a, b) in self
            .limbs
            .chunks_exact_mut(width)
            .zip(other.limbs.chunks_exact(width))
        {
            let mut carry = false;
            for (x, &y) in a.iter_mut().zip(b) {
                let (s1, c1) = x.overflowing_add(y);
                let (s2, c2) = s1.overflowing_add(u64::from(carry));
                *x = s2;
                carry = c1 || c2;
            }
            // a + b < 2t: subtract t once when the sum reached it.
            if carry || !below(a, &t) {
                let mut borrow = false;
                for (x, &y) in a.iter_mut().zip(&t) {
                    let (d1, b1) = x.overflowing_sub(y);
                    let (d2, b2) = d1.overflowing_sub(u64::from(borrow));
                    *x = d2;
                    borrow = b1 || b2;
                }
            }
        }
        Ok(())
    }
}

/// Whether the little-endian limbs `a` are below `t` (same length).
fn below(a: &[u64], t: &[u64]) -> bool {
    for (x, y) in a.iter().rev().zip(t.iter().rev()) {
        if x != y {
            return x < y;
        }
    }
    false
}

/// Overwrites every coefficient with zero (volatile writes that the
/// compiler does not elide), leaving the zero polynomial: for plaintexts that
/// hold secrets, e.g. additive shares, before they are dropped or reused.
impl Zeroize for Plaintext {
    fn zeroize(&mut self) {
        self.limbs.as_mut_slice().zeroize();
    }
}

fn not_below_t(index: usize, value: &BigUint, t: &BigUint) -> Error {
    Error::InvalidPlaintext(format!(
        "coefficient {index} is {value}, which is not below t = {t}"
    ))
}

impl PartialEq for Plaintext {
    fn eq(&self, other: &Self) -> bool {
        self.context.same_as(&other.context) && self.limbs == other.limbs
    }
}

impl Eq for Plaintext {}

impl fmt::Debug for Plaintext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 8;
        let head: Vec<BigUint> = self
            .coefficient_limbs()
            .take(SHOWN)
            .map(limbs::to_biguint)
            .collect();
        f.debug_struct("Plaintext")
            .field("ring_degree", &self.ring_degree())
            .field("first_coefficients", &head)
            .finish_non_exhaustive()
    }
}
