//! Constructors and accessors named after ark-poly's `EvaluationDomain`, so
//! that code written against `Radix2EvaluationDomain` reads the same on
//! ciphertexts: `domain.fft(x)` becomes `FftPlan::fft(&context, n)?` once,
//! then `plan.execute(..)` per input.

use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::Context;

use crate::{FftPlan, FftPlanBuilder, Result};

impl<F: PrimeField + FftField> FftPlan<F> {
    /// The plan of `domain.fft` for the subgroup of size `n` (forward, no
    /// coset, default strategy and keys): ark-poly's
    /// `Radix2EvaluationDomain::new(n)?.fft(x)` on encrypted `x`.
    ///
    /// ```
    /// use he_fft::ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
    /// use he_fft::{bit_reverse_permute, FftPlan, Order};
    /// use helib_rs::ark_bn254::Fr;
    /// use helib_rs::{Context, Parameters, SecretKey};
    ///
    /// // A small insecure ring keeps the example fast.
    /// let params = Parameters::builder()
    ///     .ring_degree(4096)
    ///     .plaintext_modulus_from_field::<Fr>()
    ///     .chain_bits(&[60; 19])
    ///     .allow_insecure()
    ///     .build()?;
    /// let context = Context::new(&params)?;
    /// let sk = SecretKey::generate(&context)?;
    /// let pk = sk.public_key()?;
    ///
    /// let plan = FftPlan::<Fr>::fft(&context, 8)?;
    /// let keys = plan.generate_galois_keys(&sk)?;
    /// let x: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
    /// let y = plan.decrypt(&sk, &plan.execute(&plan.encrypt(&pk, &x)?, &keys)?)?;
    ///
    /// let domain = Radix2EvaluationDomain::<Fr>::new(8).unwrap();
    /// let mut want = domain.fft(&x);
    /// if plan.output_order() == Order::BitReversed {
    ///     want = bit_reverse_permute(&want);
    /// }
    /// assert_eq!(y, want);
    /// assert_eq!(plan.size(), domain.size());
    /// assert_eq!(plan.group_gen(), domain.group_gen());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`FftPlanBuilder::build`]: a size the field or the ring cannot
    /// take, too little noise budget or memory.
    pub fn fft(context: &Context, n: usize) -> Result<Self> {
        Self::builder(context, n).build()
    }

    /// The plan of `domain.ifft` (size `n`, no coset).
    ///
    /// # Errors
    /// As [`FftPlanBuilder::build`].
    pub fn ifft(context: &Context, n: usize) -> Result<Self> {
        Self::builder(context, n).inverse().build()
    }

    /// The plan of `domain.get_coset(offset)?.fft(x)`: evaluations on the
    /// coset `offset`·H of the subgroup H of size `n`.
    ///
    /// # Errors
    /// As [`FftPlanBuilder::build`].
    pub fn coset_fft(context: &Context, n: usize, offset: F) -> Result<Self> {
        Self::builder(context, n).coset(offset).build()
    }

    /// The plan of `domain.get_coset(offset)?.ifft(x)`: coefficients from
    /// evaluations on the coset `offset`·H.
    ///
    /// # Errors
    /// As [`FftPlanBuilder::build`].
    pub fn coset_ifft(context: &Context, n: usize, offset: F) -> Result<Self> {
        Self::builder(context, n).inverse().coset(offset).build()
    }

    /// A builder for the forward transform of an ark-poly domain: its size,
    /// and its coset offset when it is a coset (`domain.get_coset(g)`).
    /// Chain `.inverse()` for `ifft`, then `.build()`.
    ///
    /// ```
    /// use he_fft::ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
    /// use he_fft::FftPlan;
    /// use helib_rs::ark_bn254::Fr;
    /// use helib_rs::ark_ff::FftField;
    /// use helib_rs::{Context, Parameters};
    ///
    /// let params = Parameters::builder()
    ///     .ring_degree(4096)
    ///     .plaintext_modulus_from_field::<Fr>()
    ///     .chain_bits(&[60; 19])
    ///     .allow_insecure()
    ///     .build()?;
    /// let context = Context::new(&params)?;
    /// let coset = Radix2EvaluationDomain::<Fr>::new(16)
    ///     .and_then(|d| d.get_coset(Fr::GENERATOR))
    ///     .unwrap();
    /// let plan = FftPlan::from_domain(&context, &coset).inverse().build()?;
    /// assert_eq!(plan.size(), 16);
    /// assert_eq!(plan.group_gen(), coset.group_gen());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_domain(context: &Context, domain: &Radix2EvaluationDomain<F>) -> FftPlanBuilder<F> {
        let builder = Self::builder(context, domain.size());
        let offset = domain.coset_offset();
        if offset == F::one() {
            builder
        } else {
            builder.coset(offset)
        }
    }

    /// The transform size, as `EvaluationDomain::size` (the same as
    /// [`len`](Self::len)).
    pub fn size(&self) -> usize {
        self.len()
    }

    /// The generator ω of the subgroup H of size [`size`](Self::size), the
    /// one `Radix2EvaluationDomain::new(size)` uses (`EvaluationDomain::group_gen`).
    pub fn group_gen(&self) -> F {
        // A plan exists only for sizes whose root of unity the field has
        // (the builder checks), so the fallback is never taken.
        F::get_root_of_unity(self.len() as u64).unwrap_or_else(F::one)
    }
}
