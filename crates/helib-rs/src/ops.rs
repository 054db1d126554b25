//! `std::ops` for ciphertext references; every operator returns a `Result`.
//!
//! ```
//! use helib_rs::{Context, EncodedPlaintext, Parameters, Plaintext, SecretKey};
//!
//! let context = Context::new(&Parameters::for_tests())?;
//! let sk = SecretKey::generate(&context)?;
//! let a = sk.encrypt(&Plaintext::from_u64s(&context, &[5])?)?;
//! let b = sk.encrypt(&Plaintext::from_u64s(&context, &[3])?)?;
//! let two = EncodedPlaintext::for_multiplication(&Plaintext::from_u64s(&context, &[2])?, a.level())?;
//!
//! let c = (&(&a - &b)? * &two)?; // (5 - 3) · 2
//! let d = (-&c)?;
//! assert_eq!(sk.decrypt(&c)?, Plaintext::from_u64s(&context, &[4])?);
//! assert_eq!(sk.decrypt(&d)?, Plaintext::from_i64s(&context, &[-4])?);
//! # Ok::<(), helib_rs::Error>(())
//! ```

use std::ops::{Add, Mul, Neg, Sub};

use num_bigint::BigUint;

use crate::ciphertext::Ciphertext;
use crate::encoded::EncodedPlaintext;
use crate::error::Result;

/// Implements a binary operator on references by forwarding to a `Result`-returning method.
macro_rules! forward_binary {
    ($trait:ident, $method:ident, $rhs:ty, $target:ident) => {
        impl $trait<&$rhs> for &Ciphertext {
            type Output = Result<Ciphertext>;

            #[doc = concat!("See [`Ciphertext::", stringify!($target), "`].")]
            fn $method(self, rhs: &$rhs) -> Self::Output {
                Ciphertext::$target(self, rhs)
            }
        }
    };
}

forward_binary!(Add, add, Ciphertext, add);
forward_binary!(Sub, sub, Ciphertext, sub);
forward_binary!(Add, add, EncodedPlaintext, add_plain);
forward_binary!(Sub, sub, EncodedPlaintext, sub_plain);
forward_binary!(Mul, mul, EncodedPlaintext, mul_plain);
forward_binary!(Mul, mul, BigUint, mul_scalar);

impl Neg for &Ciphertext {
    type Output = Result<Ciphertext>;

    /// See [`Ciphertext::negate`].
    fn neg(self) -> Self::Output {
        self.negate()
    }
}
