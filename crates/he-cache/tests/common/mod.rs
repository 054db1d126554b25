//! Shared fixtures: keyed contexts for t = BN254 Fr and t = 65537 at N = 4096,
//! every encryptor over them, and seeded test data.
#![allow(dead_code)]

use std::sync::{Arc, OnceLock};

use ark_ff::PrimeField;
use he_cache::{
    params, Encryptor, Engine, FreshEncryptor, InsecureRache, InsecureSmuche, PoolConfig, Radix,
    SecurePool,
};
use helib_rs::{Context, Parameters, PublicKey, SecretKey};
use num_bigint::BigUint;
use rand::{rngs::StdRng, SeedableRng};

/// A context with its keys.
pub struct Keyed {
    pub context: Context,
    pub sk: SecretKey,
    pub pk: Arc<PublicKey>,
}

impl Keyed {
    pub fn new(params: &Parameters) -> Self {
        let context = Context::new(params).expect("the engine accepts the test parameters");
        let sk = SecretKey::generate(&context).expect("key generation");
        let pk = Arc::new(sk.public_key().expect("public key"));
        Self { context, sk, pk }
    }

    pub fn t(&self) -> &BigUint {
        self.context.plaintext_modulus()
    }

    /// Decrypts and checks the result is the constant polynomial `value`.
    pub fn assert_decrypts_to(&self, ct: &helib_rs::Ciphertext, value: &BigUint, who: &str) {
        let plain = self.sk.decrypt(ct).unwrap_or_else(|e| panic!("{who}: {e}"));
        let mut expected = vec![BigUint::default(); self.context.ring_degree()];
        expected[0] = value.clone();
        assert!(
            plain.coefficients() == expected,
            "{who}: wrong decryption of {value}"
        );
    }
}

pub fn bn254() -> BigUint {
    ark_bn254::Fr::MODULUS.into()
}

/// t = BN254 Fr at N = 4096 (insecure, fast): room for a 254-bit scalar product.
pub fn bn254_keyed() -> &'static Keyed {
    static KEYED: OnceLock<Keyed> = OnceLock::new();
    KEYED.get_or_init(|| Keyed::new(&Parameters::for_tests().clone()))
}

/// t = 65537 at N = 4096, sized by `params::cached_encryption` (128-bit secure).
pub fn t65537_keyed() -> &'static Keyed {
    static KEYED: OnceLock<Keyed> = OnceLock::new();
    KEYED.get_or_init(|| {
        let params = params::cached_encryption(4096, BigUint::from(65537u32), 17)
            .threads(2)
            .build()
            .expect("65537 at N = 4096 is 128-bit secure with this chain");
        Keyed::new(&params)
    })
}

/// Every encryptor under `keyed`'s key: fresh, Rache (a radix covering t),
/// Smuche (radix 10, 4 pivots) and the pool.
pub fn all_encryptors(keyed: &Keyed) -> Vec<Box<dyn Encryptor>> {
    let engine = || Engine::new(keyed.pk.clone());
    let rache_radix = if keyed.t().bits() > 64 { 1 << 16 } else { 16 };
    let pool = SecurePool::new(keyed.pk.clone(), PoolConfig::new(4).workers(1)).unwrap();
    vec![
        Box::new(FreshEncryptor::new(keyed.pk.clone())),
        Box::new(
            InsecureRache::new(engine(), Radix::covering(rache_radix, keyed.t()).unwrap()).unwrap(),
        ),
        Box::new(InsecureSmuche::new(engine(), Radix::new(10, 4).unwrap()).unwrap()),
        Box::new(pool),
    ]
}

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// A seeded value in [0, t) (reduced from 64 extra bits: negligible bias).
pub fn random_below(rng: &mut StdRng, t: &BigUint) -> BigUint {
    use rand::RngCore;
    let mut bytes = vec![0u8; (t.bits() as usize).div_ceil(8) + 8];
    rng.fill_bytes(&mut bytes);
    BigUint::from_bytes_le(&bytes) % t
}
