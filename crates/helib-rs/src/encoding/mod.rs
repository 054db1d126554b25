//! Encoders between application values and [`Plaintext`](crate::Plaintext) polynomials.
//!
//! * [`CoefficientEncoder`]: integers ↔ coefficients, for any t.
//! * [`FieldCoefficientEncoder`]: field elements ↔ coefficients, for t = F's modulus.
//! * [`BatchEncoder`]: N field elements ↔ the N evaluations of the plaintext
//!   polynomial (SIMD slots), when t is a prime with 2N | t − 1.

mod batch;
mod coefficient;
mod field_coefficients;
mod field_limbs;
mod field_ntt;
mod slots;

pub use batch::BatchEncoder;
pub use coefficient::CoefficientEncoder;
pub use field_coefficients::FieldCoefficientEncoder;
pub use field_ntt::{FieldNtt, FieldNttKernel};
pub(crate) use slots::row_period;
pub(crate) use slots::Route;
pub use slots::SlotLayout;
