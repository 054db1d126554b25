//! The negacyclic NTT over a prime field below 2^255, run by the engine.

use helib_sys as sys;

use crate::error::Result;
use crate::ffi::{check, query, Owned};

/// Which engine kernel runs a [`FieldNtt`] transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldNttKernel {
    /// AVX-512 IFMA when the CPU has it, `HELIB_CPU` allows avx512 and n >= 64;
    /// the portable kernel otherwise.
    Auto,
    /// The portable kernel (4 × 64-bit Montgomery products).
    Scalar,
    /// The AVX-512 IFMA kernel (8 butterflies at once on 5 × 52-bit limbs);
    /// an error where [`FieldNtt::ifma_available`] is false.
    Ifma,
}

impl FieldNttKernel {
    fn code(self) -> u32 {
        match self {
            Self::Auto => sys::HELIB_FIELD_NTT_AUTO,
            Self::Scalar => sys::HELIB_FIELD_NTT_SCALAR,
            Self::Ifma => sys::HELIB_FIELD_NTT_IFMA,
        }
    }
}

/// The engine's tables for the negacyclic NTT of length n over F_t (t odd,
/// below 2^255) with a primitive 2n-th root ψ.
///
/// Elements are 4 little-endian 64-bit limbs, each below t. The forward
/// transform maps the coefficients of m(X) ∈ F_t\[X\]/(X^n + 1) to the
/// evaluations m(ψ^(2k+1)), k = 0..n in natural order (the order of arkworks'
/// FFT on the coset ψ·⟨ψ²⟩); the inverse maps them back. All kernels give
/// identical results.
pub struct FieldNtt {
    raw: Owned<sys::helib_field_ntt>,
    len: usize,
}

// SAFETY: the engine's table is immutable after construction and its
// transforms only read it (each call works in its own buffer).
unsafe impl Send for FieldNtt {}
// SAFETY: as for Send.
unsafe impl Sync for FieldNtt {}

impl std::fmt::Debug for FieldNtt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FieldNtt")
            .field("len", &self.len)
            .field("vectorized", &self.vectorized())
            .finish()
    }
}

impl FieldNtt {
    /// The tables for modulus `t` and root `psi` (4 limbs each) and length `n`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) unless t is odd
    /// and in (2, 2^255), n is a power of two in [2, 2^17], ψ < t and ψ^n = −1.
    pub fn new(t: [u64; 4], n: usize, psi: [u64; 4]) -> Result<Self> {
        let raw = Owned::create(|out| {
            // SAFETY: t and psi point at 4 limbs each; out is a valid out-pointer.
            unsafe { sys::helib_field_ntt_new(t.as_ptr(), n as u64, psi.as_ptr(), out) }
        })?;
        Ok(Self { raw, len: n })
    }

    /// The transform length n.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false (n >= 2); for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether [`FieldNttKernel::Auto`] runs the IFMA kernel.
    pub fn vectorized(&self) -> bool {
        // SAFETY: the handle is live; out is a valid out-pointer.
        query(|out| unsafe { sys::helib_field_ntt_vectorized(self.raw.as_ptr(), out) })
            .is_ok_and(|v| v != 0)
    }

    /// Whether [`FieldNttKernel::Ifma`] can run here (whatever `HELIB_CPU` says).
    pub fn ifma_available(&self) -> bool {
        // SAFETY: the handle is live; out is a valid out-pointer.
        query(|out| unsafe { sys::helib_field_ntt_ifma_available(self.raw.as_ptr(), out) })
            .is_ok_and(|v| v != 0)
    }

    /// The forward transform, in place, of each of the `values.len() / (4n)`
    /// vectors in `values`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when the
    /// length is not a multiple of 4n, an element is not below t, or the
    /// kernel cannot run here; `values` is then unchanged.
    pub fn forward(&self, values: &mut [u64], kernel: FieldNttKernel) -> Result<()> {
        // SAFETY: the handle is live and values is a valid buffer of its length.
        check(unsafe {
            sys::helib_field_ntt_forward(
                self.raw.as_ptr(),
                values.as_mut_ptr(),
                values.len(),
                kernel.code(),
            )
        })
    }

    /// The inverse transform; as [`forward`](Self::forward).
    ///
    /// # Errors
    /// As for [`forward`](Self::forward).
    pub fn inverse(&self, values: &mut [u64], kernel: FieldNttKernel) -> Result<()> {
        // SAFETY: the handle is live and values is a valid buffer of its length.
        check(unsafe {
            sys::helib_field_ntt_inverse(
                self.raw.as_ptr(),
                values.as_mut_ptr(),
                values.len(),
                kernel.code(),
            )
        })
    }
}
