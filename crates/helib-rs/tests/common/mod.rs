//! Shared helpers for the integration tests: parameters, randomness and a
//! plaintext model of Z_t[X]/(X^N + 1) computed with num-bigint.
#![allow(dead_code)]

use std::sync::OnceLock;

use ark_ff::{Fp64, MontBackend, MontConfig, PrimeField};
use helib_rs::{Context, Parameters, Plaintext, PublicKey, SecretKey};
use num_bigint::BigUint;
use num_traits::Zero;
use rand::{rngs::StdRng, Rng, SeedableRng};

/// The prime field of order 65537, for batching with t = 65537.
#[derive(MontConfig)]
#[modulus = "65537"]
#[generator = "3"]
pub struct F65537Config;
/// Elements of Z_65537.
pub type F65537 = Fp64<MontBackend<F65537Config, 1>>;

/// The BN254 scalar field modulus.
pub fn bn254() -> BigUint {
    ark_bn254::Fr::MODULUS.into()
}

/// 65537.
pub fn t65537() -> BigUint {
    BigUint::from(65537u32)
}

/// Insecure test parameters for `depth` plaintext multiplications.
pub fn params(ring_degree: usize, t: &BigUint, depth: usize) -> Parameters {
    Parameters::builder()
        .ring_degree(ring_degree)
        .plaintext_modulus(t.clone())
        .multiplicative_depth(depth)
        .threads(2)
        .allow_insecure()
        .build()
        .expect("test parameters are valid")
}

/// A context for `params(ring_degree, t, depth)`.
pub fn context(ring_degree: usize, t: &BigUint, depth: usize) -> Context {
    Context::new(&params(ring_degree, t, depth)).expect("the engine accepts test parameters")
}

/// A context with a secret and a public key.
pub struct Keyed {
    pub context: Context,
    pub sk: SecretKey,
    pub pk: PublicKey,
}

impl Keyed {
    pub fn new(ring_degree: usize, t: &BigUint, depth: usize) -> Self {
        Self::from_context(context(ring_degree, t, depth))
    }

    /// Fresh keys for `context`.
    pub fn from_context(context: Context) -> Self {
        let sk = SecretKey::generate(&context).expect("key generation");
        let pk = sk.public_key().expect("public key");
        Self { context, sk, pk }
    }

    pub fn t(&self) -> &BigUint {
        self.context.plaintext_modulus()
    }

    pub fn n(&self) -> usize {
        self.context.ring_degree()
    }

    pub fn plaintext(&self, coefficients: &[BigUint]) -> Plaintext {
        Plaintext::from_biguints(&self.context, coefficients).expect("coefficients below t")
    }
}

/// N = 1024, t = BN254 Fr, depth 2, shared by the tests of one binary.
pub fn bn254_1024() -> &'static Keyed {
    static KEYED: OnceLock<Keyed> = OnceLock::new();
    KEYED.get_or_init(|| Keyed::new(1024, &bn254(), 2))
}

/// N = 1024, t = 65537, depth 3, shared by the tests of one binary.
pub fn t65537_1024() -> &'static Keyed {
    static KEYED: OnceLock<Keyed> = OnceLock::new();
    KEYED.get_or_init(|| Keyed::new(1024, &t65537(), 3))
}

/// A deterministic RNG for reproducible tests.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// A value in [0, t), close enough to uniform for tests.
pub fn random_below(rng: &mut impl Rng, t: &BigUint) -> BigUint {
    let words = (t.bits() as usize).div_ceil(32) + 2;
    let digits: Vec<u32> = (0..words).map(|_| rng.gen()).collect();
    BigUint::new(digits) % t
}

/// `count` random coefficients below t.
pub fn random_poly(rng: &mut impl Rng, t: &BigUint, count: usize) -> Vec<BigUint> {
    (0..count).map(|_| random_below(rng, t)).collect()
}

/// The plaintext model: polynomial arithmetic in Z_t[X]/(X^N + 1).
pub mod model {
    use super::*;

    pub fn add(a: &[BigUint], b: &[BigUint], t: &BigUint) -> Vec<BigUint> {
        a.iter().zip(b).map(|(x, y)| (x + y) % t).collect()
    }

    pub fn neg(a: &[BigUint], t: &BigUint) -> Vec<BigUint> {
        a.iter().map(|x| (t - x % t) % t).collect()
    }

    pub fn sub(a: &[BigUint], b: &[BigUint], t: &BigUint) -> Vec<BigUint> {
        add(a, &neg(b, t), t)
    }

    pub fn scale(a: &[BigUint], k: &BigUint, t: &BigUint) -> Vec<BigUint> {
        a.iter().map(|x| x * k % t).collect()
    }

    /// Schoolbook negacyclic product: X^N = -1. Both inputs have N entries.
    pub fn mul(a: &[BigUint], b: &[BigUint], t: &BigUint) -> Vec<BigUint> {
        let n = a.len();
        assert_eq!(b.len(), n);
        let mut plus = vec![BigUint::zero(); n];
        let mut minus = vec![BigUint::zero(); n];
        for (i, x) in a.iter().enumerate().filter(|(_, x)| !x.is_zero()) {
            for (j, y) in b.iter().enumerate().filter(|(_, y)| !y.is_zero()) {
                let product = x * y;
                if i + j < n {
                    plus[i + j] += product;
                } else {
                    minus[i + j - n] += product;
                }
            }
        }
        plus.into_iter()
            .zip(minus)
            .map(|(p, m)| (p % t + t - m % t) % t)
            .collect()
    }

    /// m(X) ↦ m(X^k) in Z_t[X]/(X^N + 1) for odd k (a Galois automorphism).
    pub fn substitute(a: &[BigUint], k: usize, t: &BigUint) -> Vec<BigUint> {
        let n = a.len();
        let mut out = vec![BigUint::zero(); n];
        for (i, x) in a.iter().enumerate() {
            let e = i * k % (2 * n);
            if e < n {
                out[e] = x.clone();
            } else {
                out[e - n] = (t - x) % t;
            }
        }
        out
    }

    /// The inverse of x mod the prime t.
    pub fn inverse(x: &BigUint, t: &BigUint) -> BigUint {
        x.modpow(&(t - 2u32), t)
    }
}

/// Whether this process runs under AddressSanitizer (its runtime preloaded).
pub fn address_sanitizer_loaded() -> bool {
    std::fs::read_to_string("/proc/self/maps").is_ok_and(|maps| maps.contains("libasan"))
}
