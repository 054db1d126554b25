//! The Groth16 quotient h = (A·B − C)/(X^n − 1) by one polynomial product.
//!
//! For a satisfied R1CS instance with witness vectors a, b, c over a domain
//! H of size n, their interpolants A, B, C (degree < n) satisfy
//! A·B − C = h·(X^n − 1) with deg h ≤ n − 2. Writing it as
//! A·B = C − h + h·X^n, and since C − h has degree below n, the coefficients
//! of A·B from X^n on are exactly h: **h = ⌊A·B / X^n⌋**. So the quotient
//! costs one product of the coefficient-form encryptions of A and B — no
//! FFT, no rotation, no key — and C is not needed.
//!
//! # The witness must be valid
//! The identity holds only when a ∘ b = c on H. Under encryption nothing can
//! check that: for an invalid witness the result is ⌊A·B / X^n⌋, which is not
//! a quotient of anything. Verify after decryption that
//! h·(X^n − 1) = A·B − C (or that the proof verifies).

use ark_ff::PrimeField;

use crate::error::{Error, Result};
use crate::polynomial::EncryptedPolynomial;

impl<F: PrimeField> EncryptedPolynomial<F> {
    /// The Groth16 quotient h (n − 1 coefficients) from the encrypted
    /// interpolants A and B (at most n coefficients each) of a **valid**
    /// witness over a domain of size n: ⌊A·B / X^n⌋, computing only the
    /// product blocks that reach X^n. See the module docs.
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use ark_poly::{univariate::DensePolynomial, DenseUVPolynomial, EvaluationDomain, Radix2EvaluationDomain};
    /// use he_poly::{EncryptedPolynomial, PolyParameters};
    /// use helib_rs::{Context, SecretKey};
    ///
    /// let n = 8;
    /// let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    /// let a: Vec<Fr> = (1..=8u64).map(Fr::from).collect();
    /// let b: Vec<Fr> = (11..=18u64).map(Fr::from).collect();
    /// let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| *x * y).collect(); // a valid witness
    /// let (ca, cb, cc) = (domain.ifft(&a), domain.ifft(&b), domain.ifft(&c));
    ///
    /// let params = PolyParameters::for_field::<Fr>(n, 1)?; // N = 2^15, 128-bit
    /// let context = Context::new(params.parameters())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let pk = sk.public_key()?;
    /// let ea = EncryptedPolynomial::encrypt(&pk, &ca, params.stride())?;
    /// let eb = EncryptedPolynomial::encrypt(&pk, &cb, params.stride())?;
    /// let h = EncryptedPolynomial::groth16_quotient(&ea, &eb, n)?.decrypt(&sk)?;
    ///
    /// // h · (X^n − 1) = A·B − C
    /// let poly = DensePolynomial::from_coefficients_vec;
    /// let vanishing = DensePolynomial::from(domain.vanishing_polynomial());
    /// assert_eq!(&poly(h) * &vanishing, &(&poly(ca) * &poly(cb)) - &poly(cc));
    /// # Ok::<(), he_poly::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for n < 2 or an operand longer than n;
    /// as for [`mul_high`](Self::mul_high) otherwise.
    pub fn groth16_quotient(a: &Self, b: &Self, n: usize) -> Result<Self> {
        check_domain(n, &[a.len(), b.len()])?;
        let mut h = a.mul_high(b, n)?;
        h.layout.len = n - 1;
        Ok(h)
    }

    /// The exact quotient of an encrypted product P = A·B (at most 2n − 1
    /// coefficients) by the vanishing polynomial X^n − 1 in the Groth16 case:
    /// ⌊P / X^n⌋ with n − 1 coefficients. Prefer
    /// [`groth16_quotient`](Self::groth16_quotient), which does not compute
    /// the blocks this drops.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for n < 2 or a polynomial longer than 2n − 1.
    pub fn div_by_vanishing(&self, n: usize) -> Result<Self> {
        check_domain(n, &[])?;
        // 2n - 1 beyond usize bounds no length.
        if let Some(most) = n.checked_mul(2).map(|twice| twice - 1) {
            if self.len() > most {
                return Err(Error::InvalidArgument(format!(
                    "a product of polynomials below degree {n} has at most {most} coefficients, this one {}",
                    self.len()
                )));
            }
        }
        let mut h = self.div_by_monomial(n)?;
        h.layout.len = n - 1;
        Ok(h)
    }
}

/// n ≥ 2 and every operand length at most n.
fn check_domain(n: usize, lengths: &[usize]) -> Result<()> {
    if n < 2 {
        return Err(Error::InvalidArgument(format!(
            "the domain needs at least 2 points, got {n}"
        )));
    }
    if let Some(&len) = lengths.iter().find(|&&len| len > n) {
        return Err(Error::InvalidArgument(format!(
            "an interpolant over a domain of {n} points has at most {n} coefficients, got {len}"
        )));
    }
    Ok(())
}
