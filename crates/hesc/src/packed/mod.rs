//! Packed (lattice) HESC over BGV (paper §3.2): a stream of L bits in the slots of few ciphertexts.
//!
//! * stochastic multiplication (inverted bipolar) is ciphertext addition,
//!   the XOR read off as the parity of each slot after decryption;
//!   multiplication by a *public* stream is a plaintext addition
//!   ([`PackedHesc::xor_plain`]) or, in unipolar, a 0/1 mask product
//!   ([`PackedHesc::and_plain`]);
//! * stochastic addition by multiplexing is A = Σ_k S_k·A_k with plaintext
//!   0/1 masks S_k ([`PackedHesc::mux`]; two inputs: S·A¹ + S̄·A²);
//! * concatenated addition joins block lists ([`PackedHesc::concat`]);
//! * S2B after decryption reads slot parities (BGV decrypts exactly, so no
//!   rounding is needed — unlike the paper's CKKS variant);
//! * fusion and separation ([`PackedHesc::fuse`], §3.3) cut the number of
//!   ciphertexts to decrypt.
//!
//! Several stochastic numbers ("lanes", e.g. the inputs of several samples)
//! can share the slots of each ciphertext; every operation acts on all lanes
//! at once.

mod fusion;
mod layout;

pub use fusion::{FusedCiphertext, FusedStreams, FusionCapacity};

use ark_ff::{FftField, PrimeField};
use helib_rs::{BatchEncoder, Ciphertext, Context, PublicKey, SecretKey};
use num_bigint::BigUint;

use crate::bits::BitStream;
use crate::error::{Error, Result};
use crate::number::{Encoding, StochasticNumber};
use crate::selection::Selection;

/// Packed HESC over a BGV context whose plaintext modulus is the prime of `F`
/// (with 2N | t − 1, for batching).
///
/// ```
/// use hesc::fields::Fp65537;
/// use hesc::{model, B2s, Encoding, PackedHesc, StochasticNumber};
/// use helib_rs::{Context, Parameters, SecretKey};
/// use num_bigint::BigUint;
/// use rand::SeedableRng;
///
/// // Small insecure parameters keep the example fast.
/// let params = Parameters::builder()
///     .ring_degree(1 << 12)
///     .plaintext_modulus(BigUint::from(65537u32))
///     .multiplicative_depth(1)
///     .allow_insecure()
///     .build()?;
/// let hesc = PackedHesc::<Fp65537>::new(&Context::new(&params)?)?;
/// let sk = SecretKey::generate(hesc.context())?;
/// let pk = sk.public_key()?;
///
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
/// let ibp = Encoding::InvertedBipolar;
/// let x = StochasticNumber::encode(0.5, 1024, ibp, B2s::Bernoulli, &mut rng)?;
/// let y = StochasticNumber::encode(-0.5, 1024, ibp, B2s::Bernoulli, &mut rng)?;
/// let (cx, cy) = (hesc.encrypt(&pk, &[x.clone()])?, hesc.encrypt(&pk, &[y.clone()])?);
/// let product = hesc.xor(&cx, &cy)?;
/// assert_eq!(hesc.decrypt(&sk, &product)?, [model::multiply(&x, &y)?]);
/// # Ok::<(), hesc::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct PackedHesc<F: PrimeField + FftField> {
    context: Context,
    encoder: BatchEncoder<F>,
}

/// One ciphertext of a packed stream.
#[derive(Debug, Clone)]
struct Block {
    ct: Ciphertext,
    /// Bits of each lane in this block.
    seg_len: usize,
    /// Upper bound on every slot value (the number of bits summed into it).
    max_count: u64,
}

/// A packed-HESC ciphertext: per lane a stochastic number, spread over blocks.
#[derive(Debug, Clone)]
pub struct PackedStream {
    blocks: Vec<Block>,
    lanes: usize,
    encoding: Encoding,
}

impl PackedStream {
    /// The number of lanes (stochastic numbers side by side).
    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// The length of each lane's stream.
    pub fn lane_len(&self) -> usize {
        self.blocks.iter().map(|b| b.seg_len).sum()
    }

    /// The number of BGV ciphertexts.
    pub fn ciphertext_count(&self) -> usize {
        self.blocks.len()
    }

    /// The stochastic encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The largest bound on a slot value over all blocks.
    pub fn max_count(&self) -> u64 {
        self.blocks.iter().map(|b| b.max_count).max().unwrap_or(0)
    }

    /// The ciphertexts, in order.
    pub fn ciphertexts(&self) -> impl Iterator<Item = &Ciphertext> {
        self.blocks.iter().map(|b| &b.ct)
    }
}

impl<F: PrimeField + FftField> PackedHesc<F> {
    /// Packed HESC over `context`.
    ///
    /// # Errors
    /// [`Error::Bgv`] with [`helib_rs::Error::BatchingUnsupported`] when t is
    /// not F's modulus or 2N ∤ t − 1.
    pub fn new(context: &Context) -> Result<Self> {
        Ok(Self {
            context: context.clone(),
            encoder: BatchEncoder::new(context)?,
        })
    }

    /// The BGV context.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Slots per ciphertext (N).
    pub fn slot_count(&self) -> usize {
        self.encoder.slot_count()
    }

    /// The plaintext modulus t.
    pub fn plaintext_modulus(&self) -> &BigUint {
        self.context.plaintext_modulus()
    }

    /// Encrypts one stochastic number per lane (all of the same length and
    /// encoding): each lane gets min(L, N/lanes) slots per ciphertext, and
    /// ⌈L / that⌉ ciphertexts are made.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no lane or more lanes than slots;
    /// [`Error::LengthMismatch`] / [`Error::EncodingMismatch`] when the lanes
    /// differ; engine errors.
    pub fn encrypt(&self, pk: &PublicKey, lanes: &[StochasticNumber]) -> Result<PackedStream> {
        let (encoding, len) = lane_shape(lanes)?;
        let seg = layout::segment_length(len, lanes.len(), self.slot_count())?;
        let bits: Vec<&BitStream> = lanes.iter().map(StochasticNumber::bits).collect();
        let mut blocks = Vec::with_capacity(len.div_ceil(seg));
        for offset in (0..len).step_by(seg) {
            let seg_len = seg.min(len - offset);
            let slots = layout::block_slots::<F>(&bits, offset, seg_len);
            let ct = pk.encrypt(&self.encoder.encode(&slots)?)?;
            blocks.push(Block {
                ct,
                seg_len,
                max_count: 1,
            });
        }
        Ok(PackedStream {
            blocks,
            lanes: lanes.len(),
            encoding,
        })
    }

    /// Decrypts every block and reads each lane's bits as slot parities (S2B
    /// is then [`StochasticNumber::value`]).
    ///
    /// # Errors
    /// [`Error::PlaintextOverflow`] when a slot exceeds the stream's bound
    /// (cannot happen for streams made by this type); engine errors.
    pub fn decrypt(&self, sk: &SecretKey, stream: &PackedStream) -> Result<Vec<StochasticNumber>> {
        let mut lanes = vec![BitStream::default(); stream.lanes];
        for block in &stream.blocks {
            let values = self.decrypt_slots(sk, &block.ct)?;
            let counts = values
                .iter()
                .map(|v| layout::small_value(v).filter(|&c| c <= block.max_count))
                .collect::<Option<Vec<u64>>>()
                .ok_or(Error::PlaintextOverflow {
                    bound: block.max_count,
                })?;
            layout::append_parities(&mut lanes, &counts, block.seg_len);
        }
        Ok(lanes
            .into_iter()
            .map(|bits| StochasticNumber::from_bits(bits, stream.encoding))
            .collect())
    }

    /// Stochastic multiplication in inverted bipolar: block-wise ciphertext
    /// addition (XOR as parity).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for unipolar; layout mismatches
    /// ([`Error::LengthMismatch`], [`Error::EncodingMismatch`],
    /// [`Error::InvalidArgument`]); [`Error::PlaintextOverflow`] when the
    /// slot counts could reach t; engine errors.
    pub fn xor(&self, a: &PackedStream, b: &PackedStream) -> Result<PackedStream> {
        require_bipolar(a.encoding)?;
        same_layout(&[a, b])?;
        let blocks = a
            .blocks
            .iter()
            .zip(&b.blocks)
            .map(|(x, y)| {
                let max_count = self.checked_count(x.max_count.saturating_add(y.max_count))?;
                Ok(Block {
                    ct: x.ct.add(&y.ct)?,
                    seg_len: x.seg_len,
                    max_count,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(a.with_blocks(blocks))
    }

    /// Stochastic multiplication by a public stream per lane (inverted
    /// bipolar): a plaintext addition, no noise growth.
    ///
    /// # Errors
    /// As for [`xor`](Self::xor), with the public lanes' lengths checked
    /// against the stream's.
    pub fn xor_plain(&self, a: &PackedStream, public: &[StochasticNumber]) -> Result<PackedStream> {
        require_bipolar(a.encoding)?;
        self.with_public(a, public, |this, block, slots| {
            let plain = this.encoder.encode_for_addition_to(slots, &block.ct)?;
            let max_count = this.checked_count(block.max_count.saturating_add(1))?;
            Ok(Block {
                ct: block.ct.add_plain(&plain)?,
                seg_len: block.seg_len,
                max_count,
            })
        })
    }

    /// Stochastic multiplication by a public stream per lane in unipolar:
    /// AND as a product with a 0/1 mask. (AND of two encrypted streams is a
    /// ciphertext × ciphertext product, which the engine does not offer yet.)
    ///
    /// # Errors
    /// [`Error::Unsupported`] for inverted bipolar (use
    /// [`xor_plain`](Self::xor_plain)); layout mismatches; engine errors such
    /// as an exhausted noise budget.
    pub fn and_plain(&self, a: &PackedStream, public: &[StochasticNumber]) -> Result<PackedStream> {
        if a.encoding != Encoding::Unipolar {
            return Err(Error::Unsupported(
                "and_plain is the unipolar product".into(),
            ));
        }
        if a.max_count() > 1 {
            return Err(Error::Unsupported(
                "unipolar slots must hold single bits".into(),
            ));
        }
        self.with_public(a, public, |this, block, slots| {
            let mask = this
                .encoder
                .encode_for_multiplication(slots, block.ct.level())?;
            Ok(Block {
                ct: block.ct.mul_plain(&mask)?,
                seg_len: block.seg_len,
                max_count: 1,
            })
        })
    }

    /// Stochastic addition by multiplexing: A = Σ_k S_k·A_k, where S_k is
    /// the 0/1 mask of the positions `selections[lane]` gives to input k.
    /// One plaintext product per input and block.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the selections do not match the
    /// lanes, the terms or their length; layout mismatches; engine errors
    /// such as an exhausted noise budget.
    pub fn mux(&self, terms: &[&PackedStream], selections: &[Selection]) -> Result<PackedStream> {
        same_layout(terms)?;
        let first = terms[0];
        if selections.len() != first.lanes
            || selections
                .iter()
                .any(|s| s.arity() != terms.len() || s.len() != first.lane_len())
        {
            return Err(Error::InvalidArgument(
                "one selection per lane, over every term and position, is needed".into(),
            ));
        }
        let masks: Vec<Vec<BitStream>> = selections.iter().map(Selection::masks).collect();
        let mut blocks = Vec::with_capacity(first.blocks.len());
        let mut offset = 0;
        for (k, block) in first.blocks.iter().enumerate() {
            let seg = block.seg_len;
            let mut acc: Option<Ciphertext> = None;
            for (j, term) in terms.iter().enumerate() {
                let lane_masks: Vec<&BitStream> = masks.iter().map(|m| &m[j]).collect();
                let slots = layout::block_slots::<F>(&lane_masks, offset, seg);
                let ct = &term.blocks[k].ct;
                let mask = self.encoder.encode_for_multiplication(&slots, ct.level())?;
                let part = ct.mul_plain(&mask)?;
                acc = Some(match acc {
                    None => part,
                    Some(mut sum) => {
                        sum.add_assign(&part)?;
                        sum
                    }
                });
            }
            let ct = acc.ok_or_else(|| Error::InvalidArgument("no term".into()))?;
            let max_count = terms
                .iter()
                .map(|t| t.blocks[k].max_count)
                .max()
                .unwrap_or(1);
            blocks.push(Block {
                ct,
                seg_len: seg,
                max_count,
            });
            offset += seg;
        }
        Ok(first.with_blocks(blocks))
    }

    /// Concatenated addition: the block lists joined, lane by lane.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no term or differing lane counts;
    /// [`Error::EncodingMismatch`].
    pub fn concat(&self, terms: &[&PackedStream]) -> Result<PackedStream> {
        let first = check_concatenable(terms)?;
        let blocks = terms
            .iter()
            .flat_map(|t| t.blocks.iter().cloned())
            .collect();
        Ok(first.with_blocks(blocks))
    }

    /// [`concat`](Self::concat) of owned streams: their ciphertexts are moved, not copied.
    ///
    /// # Errors
    /// As for [`concat`](Self::concat).
    pub fn concat_owned(&self, terms: Vec<PackedStream>) -> Result<PackedStream> {
        {
            let refs: Vec<&PackedStream> = terms.iter().collect();
            check_concatenable(&refs)?;
        }
        let mut iter = terms.into_iter();
        let mut out = iter
            .next()
            .ok_or_else(|| Error::InvalidArgument("no operand".into()))?;
        for t in iter {
            out.blocks.extend(t.blocks);
        }
        Ok(out)
    }

    /// Decrypts one ciphertext into its N slot values.
    fn decrypt_slots(&self, sk: &SecretKey, ct: &Ciphertext) -> Result<Vec<F>> {
        Ok(self.encoder.decode(&sk.decrypt(ct)?)?)
    }

    /// Applies `op` to every block with the slots of the public lanes.
    fn with_public(
        &self,
        a: &PackedStream,
        public: &[StochasticNumber],
        op: impl Fn(&Self, &Block, &[F]) -> Result<Block>,
    ) -> Result<PackedStream> {
        let (encoding, len) = lane_shape(public)?;
        if encoding != a.encoding {
            return Err(Error::EncodingMismatch);
        }
        if public.len() != a.lanes {
            return Err(Error::InvalidArgument(format!(
                "{} public lanes for a stream of {} lanes",
                public.len(),
                a.lanes
            )));
        }
        if len != a.lane_len() {
            return Err(Error::LengthMismatch {
                left: a.lane_len(),
                right: len,
            });
        }
        let bits: Vec<&BitStream> = public.iter().map(StochasticNumber::bits).collect();
        let mut offset = 0;
        let mut blocks = Vec::with_capacity(a.blocks.len());
        for block in &a.blocks {
            let slots = layout::block_slots::<F>(&bits, offset, block.seg_len);
            blocks.push(op(self, block, &slots)?);
            offset += block.seg_len;
        }
        Ok(a.with_blocks(blocks))
    }

    /// `count` if slot values up to it stay below t.
    fn checked_count(&self, count: u64) -> Result<u64> {
        if BigUint::from(count) < *self.plaintext_modulus() {
            Ok(count)
        } else {
            let bound = u64::try_from(self.plaintext_modulus() - 1u32).unwrap_or(u64::MAX);
            Err(Error::PlaintextOverflow { bound })
        }
    }
}

impl PackedStream {
    /// A stream with this one's lanes and encoding and the given blocks.
    fn with_blocks(&self, blocks: Vec<Block>) -> Self {
        Self {
            blocks,
            lanes: self.lanes,
            encoding: self.encoding,
        }
    }
}

/// The first of `terms` after checking they share encoding and lane count.
fn check_concatenable<'a>(terms: &[&'a PackedStream]) -> Result<&'a PackedStream> {
    let first = *terms
        .first()
        .ok_or_else(|| Error::InvalidArgument("no operand".into()))?;
    if terms.iter().any(|t| t.encoding != first.encoding) {
        return Err(Error::EncodingMismatch);
    }
    if terms.iter().any(|t| t.lanes != first.lanes) {
        return Err(Error::InvalidArgument(
            "the streams have different lane counts".into(),
        ));
    }
    Ok(first)
}

/// The common encoding and length of the lanes.
fn lane_shape(lanes: &[StochasticNumber]) -> Result<(Encoding, usize)> {
    let first = lanes
        .first()
        .ok_or_else(|| Error::InvalidArgument("no lane".into()))?;
    for lane in lanes {
        if lane.encoding() != first.encoding() {
            return Err(Error::EncodingMismatch);
        }
        if lane.len() != first.len() {
            return Err(Error::LengthMismatch {
                left: first.len(),
                right: lane.len(),
            });
        }
    }
    Ok((first.encoding(), first.len()))
}

/// The streams have the same encoding, lanes and block segments.
fn same_layout(streams: &[&PackedStream]) -> Result<()> {
    let first = streams
        .first()
        .ok_or_else(|| Error::InvalidArgument("no operand".into()))?;
    for s in streams {
        if s.encoding != first.encoding {
            return Err(Error::EncodingMismatch);
        }
        if s.lanes != first.lanes {
            return Err(Error::InvalidArgument(
                "the streams have different lane counts".into(),
            ));
        }
        let same_blocks = s.blocks.len() == first.blocks.len()
            && s.blocks
                .iter()
                .zip(&first.blocks)
                .all(|(x, y)| x.seg_len == y.seg_len);
        if !same_blocks {
            return Err(Error::LengthMismatch {
                left: first.lane_len(),
                right: s.lane_len(),
            });
        }
    }
    Ok(())
}

fn require_bipolar(encoding: Encoding) -> Result<()> {
    if encoding == Encoding::InvertedBipolar {
        Ok(())
    } else {
        Err(Error::Unsupported(
            "encrypted unipolar multiplication is AND of two ciphertexts, which needs \
             ciphertext × ciphertext multiplication (not in the engine yet)"
                .into(),
        ))
    }
}
