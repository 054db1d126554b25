//! What every role derives alike from the session and the domain size,
//! before any message: how the interpolants are split into ring elements,
//! where r·s lands, the level the parties switch the server's products to
//! and convert them to shares at, the smudging for that, and the run number of every protocol step.
//! Nothing here is read from a message.
//!
//! # The product the server computes
//! With n the domain size and N the ring degree, the server computes
//! A·B mod (X^n' + 1) for n' = max(n, N), split into m = n'/N components
//! ([`he_poly::NegacyclicSplit`]: the parties split their shares of A and B
//! before the upload and merge their shares of the result): m ciphertext
//! products (each relinearized by the parties), nothing across ciphertexts. To the
//! first component it adds R·S, the product of the encryptions of r and of
//! s·X^(N−1), so that r·s rides on one coefficient no other value needs:
//! - n < N: A·B has degree 2n − 2 < N − 1, so nothing wraps, h is
//!   coefficients n .. 2n − 2 and coefficient N − 1 is r·s;
//! - n ≥ N: A·B = C − h + X^n·h for the interpolant C of the third matrix
//!   (a valid witness), so A·B mod (X^n + 1) = C − 2h. The parties hold
//!   shares of C; h has n − 1 coefficients, so the merged coefficient n − 1
//!   is C's plus r·s times a public constant, which gives r·s and then h.

use he_poly::NegacyclicSplit;
use he_threshold::Session;
use helib_rs::noise;
use helib_rs::threshold::Smudging;

use crate::error::{Error, Result};

/// Bits between the noise the plan expects of the server's results and the
/// most their level lets the parties hide. The expectation itself runs above
/// the engine's estimate of the switched and relinearized product (for
/// BN254 and 2–5 parties, measured: 2–3.5 bits above it at N = 4096, 6–7 at
/// N = 2^16), so an honest server's results are never refused.
const LEVEL_MARGIN_BITS: f64 = 2.0;

/// Largest proof index: run numbers hold it in their top bits.
pub const MAX_PROOF_INDEX: u64 = (1 << 40) - 1;

/// Ciphertext products summed into the first component (A·B and R·S).
const PRODUCTS_PER_COMPONENT: usize = 2;

/// The agreed shape of one proof's computation.
#[derive(Clone, Debug)]
pub struct ProofPlan {
    domain_size: usize,
    ring_degree: usize,
    components: usize,
    upload_level: usize,
    convert_level: usize,
    smudging: Smudging,
}

/// The protocol steps that consume run numbers (each run seeds its own
/// common random polynomial or binds its own shares).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum RunKind {
    /// Shares to encryption of A's components.
    UploadA = 1,
    /// Shares to encryption of B's components.
    UploadB = 2,
    /// Shares to encryption of r (index 0) and of s·X^(N−1) (index 1).
    UploadRandomness = 3,
    /// Encryption to shares of the product's components.
    ConvertProduct = 4,
}

impl ProofPlan {
    /// The plan for proofs over a domain of `domain_size` points in `session`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the domain size is not a power of two
    /// of at least 2, or no level can convert the product to shares.
    pub fn new(session: &Session, domain_size: usize) -> Result<Self> {
        let context = session.context();
        let ring_degree = context.ring_degree();
        if domain_size < 2 || !domain_size.is_power_of_two() {
            return Err(Error::InvalidArgument(format!(
                "the domain size must be a power of two of at least 2, got {domain_size}"
            )));
        }
        let components = domain_size.max(ring_degree) / ring_degree;
        let upload_level = context.max_level();
        let expected = expected_noise_bits(session);
        let (convert_level, smudging) = (0..=upload_level)
            .find_map(|level| {
                let smudging = session.smudging(level).ok()?;
                let switched = (expected.product - dropped_bits(context, level, upload_level))
                    .max(expected.floor);
                (smudging.noise_bits() >= switched + LEVEL_MARGIN_BITS).then_some((level, smudging))
            })
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "no level of the chain can convert a product of {:.0} bits of noise to shares",
                    expected.product
                ))
            })?;
        Ok(Self {
            domain_size,
            ring_degree,
            components,
            upload_level,
            convert_level,
            smudging,
        })
    }

    /// The domain size n.
    pub fn domain_size(&self) -> usize {
        self.domain_size
    }
    /// The ring degree N.
    pub fn ring_degree(&self) -> usize {
        self.ring_degree
    }
    /// m: ring elements per interpolant, and ciphertexts of the product.
    pub fn components(&self) -> usize {
        self.components
    }
    /// Whether the product wraps around X^n + 1 (n ≥ N), so that the parties
    /// need their shares of C to recover h.
    pub fn wraps(&self) -> bool {
        self.domain_size >= self.ring_degree
    }
    /// The split of the interpolants (n' = max(n, N) coefficients) into the
    /// plan's components.
    ///
    /// # Errors
    /// [`Error::Polynomial`] when F has no 2n'-th roots of unity.
    pub fn split<F: ark_ff::PrimeField>(&self) -> Result<NegacyclicSplit<F>> {
        Ok(NegacyclicSplit::new(
            self.components * self.ring_degree,
            self.ring_degree,
        )?)
    }
    /// The level the uploads are encrypted at (the top).
    pub fn upload_level(&self) -> usize {
        self.upload_level
    }
    /// The level the parties switch the server's products to and convert
    /// them to shares at.
    pub fn convert_level(&self) -> usize {
        self.convert_level
    }
    /// The smudging the parties apply there.
    pub fn smudging(&self) -> &Smudging {
        &self.smudging
    }
    /// The coefficient of the first component where R·S puts r·s, N − 1.
    pub fn randomness_product_at(&self) -> usize {
        self.ring_degree - 1
    }

    /// The run of step `kind`, block `index`, of proof `proof`.
    pub(crate) fn run(proof: u64, kind: RunKind, index: usize) -> u64 {
        ((proof + 1) << 23) | ((kind as u64) << 20) | index as u64
    }

    /// Checks a proof index and the plan's component count against the run
    /// numbering's room.
    pub(crate) fn check_proof(&self, proof: u64) -> Result<()> {
        if proof > MAX_PROOF_INDEX {
            return Err(Error::InvalidArgument(format!(
                "proof index {proof} is above {MAX_PROOF_INDEX}"
            )));
        }
        if self.components >= 1 << 20 {
            return Err(Error::InvalidArgument(
                "too many components for one proof".into(),
            ));
        }
        Ok(())
    }
}

/// What the plan expects of an honest server's results, in bits of noise.
struct Expected {
    /// The relinearized product at the upload level.
    product: f64,
    /// The least noise the product keeps after its modulus switch. It is
    /// switched before the parties relinearize it, so its third part's
    /// rounding meets s²: one bit over the larger of that and a switched
    /// sum's floor.
    floor: f64,
}

fn expected_noise_bits(session: &Session) -> Expected {
    let context = session.context();
    let ring = context.ring_degree();
    let log_t = noise::log2(context.plaintext_modulus());
    let fresh = noise::fresh_bits(ring, log_t) + upload_growth_bits(session.parties());
    Expected {
        product: 2.0 * fresh
            + (ring as f64).log2()
            + noise::addition_bits(PRODUCTS_PER_COMPONENT)
            + 2.0,
        floor: (fresh + 1.0).max(noise::squared_secret_rounding_bits(ring, log_t)) + 1.0,
    }
}

/// Bits the server's sum of `parties` shares-to-encryption uploads carries
/// above a fresh encryption's noise: log2(parties) for the sum of the
/// parties' errors, and one bit of margin.
pub(crate) fn upload_growth_bits(parties: u32) -> f64 {
    f64::from(parties).log2() + 1.0
}

/// Bits of modulus a switch from level `from` down to `to` drops.
fn dropped_bits(context: &helib_rs::Context, to: usize, from: usize) -> f64 {
    context.chain_primes()[to + 1..=from]
        .iter()
        .map(|&q| (q as f64).log2())
        .sum()
}
