//! Read access to a ciphertext's polynomials, residue by residue.

use helib_sys as sys;

use crate::ciphertext::Ciphertext;
use crate::error::Result;

impl Ciphertext {
    /// The residues of polynomial `part` (0 ≤ part < [`size`](Self::size))
    /// modulo the chain prime q = [`Context::chain_primes`](crate::Context::chain_primes)`[prime]`
    /// (0 ≤ prime ≤ [`level`](Self::level)), in the engine's evaluation form:
    /// N values in \[0, q), value j being the polynomial evaluated at
    /// ψ^(2·bitrev(j) + 1) mod q for a primitive 2N-th root of unity ψ mod q.
    /// Ring products are value by value in this form, so linear algebra on
    /// ciphertexts (such as a cryptanalysis) needs no transform.
    ///
    /// These are the values [`to_bytes`](Self::to_bytes) serializes; this
    /// accessor gives them without depending on the byte format.
    ///
    /// ```
    /// use helib_rs::{Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2])?)?;
    /// let c1 = ct.residues(1, 0)?;
    /// assert_eq!(c1.len(), context.ring_degree());
    /// assert!(c1.iter().all(|&r| r < context.chain_primes()[0]));
    /// assert!(ct.residues(2, 0).is_err()); // a fresh ciphertext has two polynomials
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidLevel`](crate::Error::InvalidLevel) when `prime` is
    /// above the ciphertext's level; [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// when `part` is not below its size.
    pub fn residues(&self, part: usize, prime: usize) -> Result<Vec<u64>> {
        let mut out = vec![0u64; self.context().ring_degree()];
        self.residues_into(part, prime, &mut out)?;
        Ok(out)
    }

    /// [`residues`](Self::residues) written into `out` (its first N
    /// values), without allocating: for copying many rows into one buffer.
    ///
    /// ```
    /// use helib_rs::{Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2])?)?;
    /// let n = context.ring_degree();
    /// let mut rows = vec![0u64; 2 * n];
    /// ct.residues_into(0, 0, &mut rows[..n])?;
    /// ct.residues_into(1, 0, &mut rows[n..])?;
    /// assert_eq!(rows[n..], ct.residues(1, 0)?[..]);
    /// let short = ct.residues_into(0, 0, &mut rows[..n - 1]).unwrap_err();
    /// assert!(matches!(
    ///     short,
    ///     helib_rs::Error::Engine { status: helib_rs::Status::BufferTooSmall, .. }
    /// ));
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`residues`](Self::residues), and
    /// [`Error::Engine`](crate::Error::Engine) with status
    /// [`Status::BufferTooSmall`](crate::Status::BufferTooSmall) when `out`
    /// holds fewer than N values.
    pub fn residues_into(&self, part: usize, prime: usize, out: &mut [u64]) -> Result<()> {
        let ct = self.as_ptr();
        // SAFETY: the handle is live and only read; `out` holds `out.len()`
        // values, which the engine checks against N before writing.
        crate::ffi::check(unsafe {
            sys::helib_ciphertext_residues(ct, part, prime, out.as_mut_ptr(), out.len())
        })
    }

    /// Columns `first..first + out.len()` of [`residues`](Self::residues),
    /// written into `out`: for sending pieces of rows to other processes
    /// without copying each row whole first.
    ///
    /// ```
    /// use helib_rs::{Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2])?)?;
    /// let mut piece = vec![0u64; 8];
    /// ct.residue_columns_into(1, 0, 16, &mut piece)?;
    /// assert_eq!(piece, ct.residues(1, 0)?[16..24]);
    /// let n = context.ring_degree();
    /// assert!(ct.residue_columns_into(1, 0, n - 4, &mut piece).is_err()); // past column N
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`residues`](Self::residues), and
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for columns
    /// beyond N.
    pub fn residue_columns_into(
        &self,
        part: usize,
        prime: usize,
        first: usize,
        out: &mut [u64],
    ) -> Result<()> {
        let ct = self.as_ptr();
        // SAFETY: the handle is live and only read; `out` holds `out.len()`
        // values, which the engine checks against the row before writing.
        crate::ffi::check(unsafe {
            sys::helib_ciphertext_residue_columns(
                ct,
                part,
                prime,
                first,
                out.as_mut_ptr(),
                out.len(),
            )
        })
    }
}
