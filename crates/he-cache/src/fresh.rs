//! Plain public-key encryption: the secure baseline every cache is compared with.

use std::sync::Arc;

use helib_rs::{Ciphertext, Context, Plaintext, PublicKey};
use num_bigint::BigUint;

use crate::algebra::{Algebra, Engine};
use crate::encryptor::{check_value, Encryptor, PlaintextEncryptor, Security};
use crate::error::Result;

/// Fresh public-key BGV encryption of every message (the baseline).
#[derive(Debug, Clone)]
pub struct FreshEncryptor {
    engine: Engine,
}

impl FreshEncryptor {
    /// Encrypts under `pk`.
    pub fn new(pk: Arc<PublicKey>) -> Self {
        Self {
            engine: Engine::new(pk),
        }
    }
}

impl Encryptor for FreshEncryptor {
    fn name(&self) -> String {
        "fresh".into()
    }

    fn security(&self) -> Security {
        Security::Secure
    }

    fn context(&self) -> &Context {
        self.engine.context()
    }

    fn encrypt_value(&self, value: &BigUint) -> Result<Ciphertext> {
        check_value(self.context(), value)?;
        self.engine.encrypt_fresh(value)
    }
}

impl PlaintextEncryptor for FreshEncryptor {
    fn encrypt_plaintext(&self, plaintext: &Plaintext) -> Result<Ciphertext> {
        Ok(self.engine.public_key().encrypt(plaintext)?)
    }
}
