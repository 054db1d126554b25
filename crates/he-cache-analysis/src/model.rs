//! A transparent BGV model: the engine's public-key encryption, written out
//! on [`ToyRing`] so that an attacker's view (every ciphertext coefficient)
//! and the secret key are both in sight.

use num_bigint::BigUint;
use num_traits::ToPrimitive;
use rand::{rngs::OsRng, RngCore};

use crate::ring::{Poly, ToyRing};
use he_cache::Algebra;
use he_cache::{Error, Result};

/// Variance of the error distribution: a centred binomial with 21 coin pairs
/// has variance 10.5 ≈ 3.2², the engine's Gaussian σ.
const BINOMIAL_PAIRS: u32 = 21;

/// A model ciphertext (c0, c1): decrypts to c0 + c1·s = m + t·(noise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToyCiphertext {
    /// The first polynomial.
    pub c0: Poly,
    /// The second polynomial.
    pub c1: Poly,
}

/// The public key (b, a) = (−a·s + t·e, a), as published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToyPublicKey {
    /// b = −a·s + t·e.
    pub b: Poly,
    /// a, uniform.
    pub a: Poly,
}

/// BGV on a [`ToyRing`] with plaintext modulus t: key generation, public-key
/// encryption (u ternary, e0 and e1 of σ ≈ 3.2, all from the OS CSPRNG) and
/// the operations of [`Algebra`], exactly as the engine defines them. Scalars
/// and messages are lifted from Z_t centred, as the engine does.
#[derive(Debug, Clone)]
pub struct ToyBgv {
    ring: ToyRing,
    t: BigUint,
    t_mod_q: u64,
    secret: Poly,
    public: ToyPublicKey,
}

impl ToyBgv {
    /// Generates a key pair on `ring` for plaintext modulus `t` ≥ 2.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] for t < 2; [`Error::Randomness`].
    pub fn generate(ring: ToyRing, t: BigUint) -> Result<Self> {
        if t < BigUint::from(2u32) {
            return Err(Error::InvalidConfig(
                "the plaintext modulus must be at least 2".into(),
            ));
        }
        let q = ring.modulus();
        let t_mod_q = (&t % q).to_u64().unwrap_or(0);
        let secret = ring.from_signed(&ternary(ring.degree())?);
        let a: Poly = uniform(ring.degree(), q)?;
        let e = ring.from_signed(&binomial(ring.degree())?);
        let b = ring.add(
            &ring.scale(&ring.mul(&a, &secret), q - 1),
            &ring.scale(&e, t_mod_q),
        );
        Ok(Self {
            ring,
            t,
            t_mod_q,
            secret,
            public: ToyPublicKey { b, a },
        })
    }

    /// The ring.
    pub fn ring(&self) -> &ToyRing {
        &self.ring
    }

    /// The public key — all an attacker gets besides ciphertexts.
    pub fn public_key(&self) -> &ToyPublicKey {
        &self.public
    }

    /// Decrypts the constant coefficient: [c0 + c1·s]_q centred, mod t.
    /// Meaningful only when q is far above t times the noise.
    pub fn decrypt_constant(&self, ct: &ToyCiphertext) -> BigUint {
        let q = self.ring.modulus();
        let x = self.ring.add(&ct.c0, &self.ring.mul(&ct.c1, &self.secret))[0];
        let centred = if x > q / 2 {
            x as i128 - q as i128
        } else {
            x as i128
        };
        let t = self.t.to_i128().unwrap_or(i128::MAX);
        BigUint::from(centred.rem_euclid(t) as u128)
    }

    /// v mod t lifted centred into (−t/2, t/2], then reduced mod q.
    fn lift(&self, value: &BigUint) -> u64 {
        let q = self.ring.modulus();
        let v = value % &self.t;
        if v > &self.t / 2u32 {
            let magnitude = ((&self.t - v) % q).to_u64().unwrap_or(0);
            (q - magnitude) % q
        } else {
            (v % q).to_u64().unwrap_or(0)
        }
    }

    fn constant(&self, value: u64) -> Poly {
        let mut poly = self.ring.zero();
        poly[0] = value;
        poly
    }
}

impl Algebra for ToyBgv {
    type Ciphertext = ToyCiphertext;

    fn plaintext_modulus(&self) -> &BigUint {
        &self.t
    }

    fn encrypt_fresh(&self, value: &BigUint) -> Result<ToyCiphertext> {
        let ring = &self.ring;
        let n = ring.degree();
        let u = ring.from_signed(&ternary(n)?);
        let e0 = ring.scale(&ring.from_signed(&binomial(n)?), self.t_mod_q);
        let e1 = ring.scale(&ring.from_signed(&binomial(n)?), self.t_mod_q);
        let m = self.constant(self.lift(value));
        Ok(ToyCiphertext {
            c0: ring.add(&ring.add(&ring.mul(&self.public.b, &u), &e0), &m),
            c1: ring.add(&ring.mul(&self.public.a, &u), &e1),
        })
    }

    fn add_constant_assign(&self, ct: &mut ToyCiphertext, k: &BigUint) -> Result<()> {
        ct.c0 = self.ring.add(&ct.c0, &self.constant(self.lift(k)));
        Ok(())
    }

    fn duplicate(&self, ct: &ToyCiphertext) -> Result<ToyCiphertext> {
        Ok(ct.clone())
    }

    fn add_assign(&self, acc: &mut ToyCiphertext, other: &ToyCiphertext) -> Result<()> {
        acc.c0 = self.ring.add(&acc.c0, &other.c0);
        acc.c1 = self.ring.add(&acc.c1, &other.c1);
        Ok(())
    }

    fn sub_assign(&self, acc: &mut ToyCiphertext, other: &ToyCiphertext) -> Result<()> {
        acc.c0 = self.ring.sub(&acc.c0, &other.c0);
        acc.c1 = self.ring.sub(&acc.c1, &other.c1);
        Ok(())
    }

    fn mul_scalar(&self, ct: &ToyCiphertext, k: &BigUint) -> Result<ToyCiphertext> {
        let mut out = ct.clone();
        self.mul_scalar_assign(&mut out, k)?;
        Ok(out)
    }

    fn mul_scalar_assign(&self, ct: &mut ToyCiphertext, k: &BigUint) -> Result<()> {
        let k = self.lift(k);
        ct.c0 = self.ring.scale(&ct.c0, k);
        ct.c1 = self.ring.scale(&ct.c1, k);
        Ok(())
    }

    fn add_mask_insecure(&self, ct: &mut ToyCiphertext) -> Result<()> {
        let xi = self.ring.from_signed(&ternary(self.ring.degree())?);
        ct.c0 = self.ring.add(&ct.c0, &self.ring.mul(&self.public.b, &xi));
        ct.c1 = self.ring.add(&ct.c1, &self.ring.mul(&self.public.a, &xi));
        Ok(())
    }
}

fn os_bytes(count: usize) -> Result<Vec<u8>> {
    let mut bytes = vec![0u8; count];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| Error::Randomness(e.to_string()))?;
    Ok(bytes)
}

/// n uniform values in {−1, 0, 1} (rejection sampling on bytes).
fn ternary(n: usize) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        for byte in os_bytes(n)? {
            if byte < 255 && out.len() < n {
                out.push(i64::from(byte % 3) - 1);
            }
        }
    }
    Ok(out)
}

/// n centred binomial samples of variance 10.5.
fn binomial(n: usize) -> Result<Vec<i64>> {
    let words = os_bytes(n * 8)?;
    Ok(words
        .chunks_exact(8)
        .map(|w| {
            let bits = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            let mask = (1u64 << BINOMIAL_PAIRS) - 1;
            i64::from((bits & mask).count_ones()) - i64::from((bits >> 32 & mask).count_ones())
        })
        .collect())
}

/// n uniform values in [0, q) (rejection sampling on 64-bit words).
fn uniform(n: usize, q: u64) -> Result<Poly> {
    let zone = u64::MAX - u64::MAX % q;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        for w in os_bytes(8 * n)?.chunks_exact(8) {
            let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            if x < zone && out.len() < n {
                out.push(x % q);
            }
        }
    }
    Ok(out)
}
