//! What every role derives alike from the session and the domain size,
//! before any message: the block layouts, the level the server's results
//! are converted to shares at, the smudging for that, and the run number of
//! every protocol step. Nothing here is read from a message.

use he_poly::BlockLayout;
use he_threshold::Session;
use helib_rs::noise;
use helib_rs::threshold::Smudging;

use crate::error::{Error, Result};

/// Bits between the noise the plan expects of the server's results and the
/// most their level lets the parties hide. The expectation itself runs above
/// the engine's estimate (measured at N = 4096 for BN254 and 3 parties: 16
/// bits above it for the relinearized product, 9 at the floor after the
/// switch), so an honest server's results are never refused.
const LEVEL_MARGIN_BITS: f64 = 2.0;

/// Largest proof index: run numbers hold it in their top bits.
pub const MAX_PROOF_INDEX: u64 = (1 << 40) - 1;

/// The agreed shape of one proof's computation.
#[derive(Clone, Debug)]
pub struct ProofPlan {
    domain_size: usize,
    ring_degree: usize,
    upload_level: usize,
    convert_level: usize,
    smudging: Smudging,
    inputs: BlockLayout,
    quotient: BlockLayout,
    quotient_blocks: usize,
}

/// The protocol steps that consume run numbers (each run seeds its own
/// common random polynomial or binds its own shares).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum RunKind {
    /// Shares to encryption of A's blocks.
    UploadA = 1,
    /// Shares to encryption of B's blocks.
    UploadB = 2,
    /// Shares to encryption of r + s·X^(N/2).
    UploadRandomness = 3,
    /// Encryption to shares of h's blocks.
    ConvertQuotient = 4,
    /// Encryption to shares of (r + s·X^(N/2))².
    ConvertRandomness = 5,
}

impl ProofPlan {
    /// The plan for proofs over a domain of `domain_size` points in `session`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the session's ring cannot hold the
    /// product or no level can convert its result to shares.
    pub fn new(session: &Session, domain_size: usize) -> Result<Self> {
        let context = session.context();
        let ring_degree = context.ring_degree();
        if domain_size < 2 || !domain_size.is_power_of_two() {
            return Err(Error::InvalidArgument(format!(
                "the domain size must be a power of two of at least 2, got {domain_size}"
            )));
        }
        // The fullest blocks that do not wrap: a block product has 2·stride − 1
        // coefficients. Fewer blocks are fewer uploads and conversions.
        let stride = ring_degree / 2;
        let inputs = BlockLayout::fresh(stride, domain_size);
        let product = inputs.product(&inputs, ring_degree)?;
        let (first, mut quotient) = product.cut_below(domain_size)?;
        quotient.len = domain_size - 1;
        let quotient_blocks = 2 * inputs.fresh_blocks() - 1 - first;
        let upload_level = context.max_level();
        let expected = expected_noise_bits(session, inputs.fresh_blocks());
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
            upload_level,
            convert_level,
            smudging,
            inputs,
            quotient,
            quotient_blocks,
        })
    }

    /// The domain size n.
    pub fn domain_size(&self) -> usize {
        self.domain_size
    }
    /// The layout of the interpolants A and B.
    pub fn inputs(&self) -> &BlockLayout {
        &self.inputs
    }
    /// Blocks of A (and of B).
    pub fn input_blocks(&self) -> usize {
        self.inputs.fresh_blocks()
    }
    /// The layout of h = ⌊A·B / X^n⌋.
    pub fn quotient(&self) -> &BlockLayout {
        &self.quotient
    }
    /// Blocks of h.
    pub fn quotient_blocks(&self) -> usize {
        self.quotient_blocks
    }
    /// The level the uploads are encrypted at (the top).
    pub fn upload_level(&self) -> usize {
        self.upload_level
    }
    /// The level the server's results are converted to shares at.
    pub fn convert_level(&self) -> usize {
        self.convert_level
    }
    /// The smudging the parties apply there.
    pub fn smudging(&self) -> &Smudging {
        &self.smudging
    }
    /// The coefficient of (r + s·X^(N/2))² that holds 2·r·s.
    pub fn randomness_product_at(&self) -> usize {
        self.ring_degree / 2
    }

    /// The run of step `kind`, block `index`, of proof `proof`.
    pub(crate) fn run(proof: u64, kind: RunKind, index: usize) -> u64 {
        ((proof + 1) << 23) | ((kind as u64) << 20) | index as u64
    }

    /// Checks a proof index and the plan's block counts against the run
    /// numbering's room.
    pub(crate) fn check_proof(&self, proof: u64) -> Result<()> {
        if proof > MAX_PROOF_INDEX {
            return Err(Error::InvalidArgument(format!(
                "proof index {proof} is above {MAX_PROOF_INDEX}"
            )));
        }
        if self.input_blocks().max(self.quotient_blocks) >= 1 << 20 {
            return Err(Error::InvalidArgument(
                "too many blocks for one proof".into(),
            ));
        }
        Ok(())
    }
}

/// What the plan expects of an honest server's results, in bits of noise.
struct Expected {
    /// The relinearized product at the upload level.
    product: f64,
    /// The least noise a ciphertext under the collective key keeps after a
    /// modulus switch.
    floor: f64,
}

fn expected_noise_bits(session: &Session, blocks: usize) -> Expected {
    let context = session.context();
    let ring = context.ring_degree();
    let log_t = noise::log2(context.plaintext_modulus());
    let parties = f64::from(session.parties()).log2();
    let fresh = noise::fresh_bits(ring, log_t) + parties + 1.0;
    Expected {
        product: 2.0 * fresh + (ring as f64).log2() + noise::addition_bits(blocks) + 2.0,
        floor: fresh + 1.0,
    }
}

/// Bits of modulus a switch from level `from` down to `to` drops.
fn dropped_bits(context: &helib_rs::Context, to: usize, from: usize) -> f64 {
    context.chain_primes()[to + 1..=from]
        .iter()
        .map(|&q| (q as f64).log2())
        .sum()
}
