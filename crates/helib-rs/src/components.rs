//! Access to a ciphertext's polynomials, residue by residue.

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

    /// [`residues`](Self::residues) in place: the N values in the
    /// ciphertext's own memory, borrowed rather than copied (for reading
    /// pieces of many rows, as [`Context::convolve_rows`](crate::Context::convolve_rows)'s
    /// operands, without staging them).
    ///
    /// ```
    /// use helib_rs::{Context, Parameters, Plaintext, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[1, 2])?)?;
    /// assert_eq!(ct.residue_row(1, 0)?, &ct.residues(1, 0)?[..]);
    /// assert!(ct.residue_row(0, ct.level() + 1).is_err());
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`residues`](Self::residues).
    pub fn residue_row(&self, part: usize, prime: usize) -> Result<&[u64]> {
        let mut row: *const u64 = std::ptr::null();
        // SAFETY: the handle is live and only read; `row` is a valid place.
        crate::ffi::check(unsafe {
            sys::helib_ciphertext_residue_row(self.as_ptr(), part, prime, &mut row)
        })?;
        // SAFETY: the engine checked part and prime and points at that
        // row's N words, which stay alive and unchanged while `self` is
        // borrowed (every write to a ciphertext takes `&mut self`).
        Ok(unsafe { std::slice::from_raw_parts(row, self.context().ring_degree()) })
    }

    /// The address of [`residues`](Self::residues)' N words in the
    /// ciphertext's own memory, for the engine to write in place; the
    /// ciphertext drops any c₁ seed. Whoever writes through it writes only
    /// residues below the prime.
    pub(crate) fn residue_row_for_writing(
        &mut self,
        part: usize,
        prime: usize,
    ) -> Result<*mut u64> {
        let mut row: *mut u64 = std::ptr::null_mut();
        // SAFETY: the handle is live and exclusively borrowed; `row` is a
        // valid place.
        crate::ffi::check(unsafe {
            sys::helib_ciphertext_residue_row_mut(self.as_mut_ptr(), part, prime, &mut row)
        })?;
        Ok(row)
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
