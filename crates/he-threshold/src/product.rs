//! A size-3 product on its way to encryption to shares: switched down to
//! the level the shares are made at, and bound to the product as it was
//! computed.

use helib_rs::Ciphertext;

use crate::error::{Error, Result};
use crate::message::{Binding, Step};
use crate::session::Session;

/// A size-3 ciphertext product (not relinearized) switched down to the level
/// of encryption to shares, remembering the digest of the product as its
/// evaluator computed it.
///
/// Shares of [`Step::EncryptionToSharesOfProduct`] are bound to that
/// original product. So whoever sums the shares (with
/// [`Session::product_aggregator`] on the product it computed) need not
/// switch it, and every party switches it itself: a modulus switch is a
/// deterministic function of the product, so every party that starts from
/// the same product holds the same switched ciphertext.
///
/// ```
/// use he_threshold::SwitchedProduct;
/// use helib_rs::{Context, Parameters, Plaintext, SecretKey};
///
/// let context = Context::new(&Parameters::for_tests())?;
/// let sk = SecretKey::generate(&context)?;
/// let ct = sk.encrypt(&Plaintext::from_u64s(&context, &[6])?)?;
/// let product = ct.multiply(&ct)?; // size 3, at the top level
/// let switched = SwitchedProduct::new(product.try_clone()?, product.level() - 1)?;
/// assert_eq!(switched.ciphertext().level(), product.level() - 1);
/// assert_eq!(sk.decrypt(switched.ciphertext())?, Plaintext::from_u64s(&context, &[36])?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SwitchedProduct {
    computed_digest: [u8; 32],
    switched: Ciphertext,
}

impl SwitchedProduct {
    /// `product` switched down to `level`, bound to `product` as given.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a ciphertext not of size 3;
    /// [`Error::Engine`] for a level above the product's, or one the
    /// product's noise does not fit.
    pub fn new(mut product: Ciphertext, level: usize) -> Result<Self> {
        let computed_digest = product_digest(&product)?;
        product.mod_switch_to_assign(level)?;
        Ok(Self {
            computed_digest,
            switched: product,
        })
    }

    /// The product at the level of encryption to shares.
    pub fn ciphertext(&self) -> &Ciphertext {
        &self.switched
    }

    /// The binding of a share of `run` on this product: at the switched
    /// level, on the product as computed (as
    /// [`Session::product_aggregator`] expects).
    pub(crate) fn binding(&self, run: u64) -> Binding {
        product_binding(run, self.switched.level(), self.computed_digest)
    }
}

/// The digest of a size-3 `product` as computed.
///
/// # Errors
/// [`Error::InvalidArgument`] for a ciphertext not of size 3.
pub(crate) fn product_digest(product: &Ciphertext) -> Result<[u8; 32]> {
    if product.size() != 3 {
        return Err(Error::InvalidArgument(format!(
            "a product to convert has size 3, not {}",
            product.size()
        )));
    }
    Session::ciphertext_digest(product)
}

/// The binding of encryption to shares of `run` at `level` of the product
/// whose digest (as computed) is `digest`.
pub(crate) fn product_binding(run: u64, level: usize, digest: [u8; 32]) -> Binding {
    Binding {
        run,
        step: Step::EncryptionToSharesOfProduct,
        level: level as u32,
        subject: digest,
        active: [0u8; 32],
    }
}
