//! Encrypted polynomials whose blocks are spread over the ranks.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Range;

use ark_ff::PrimeField;
use he_poly::{BlockLayout, EncryptedPolynomial};
use helib_rs::{
    Ciphertext, EncodedPlaintext, FieldCoefficientEncoder, PublicKey, RowOperand, SecretKey,
};
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;
use num_bigint::BigUint;

use crate::cluster::Cluster;
use crate::error::{Error, Result};

/// A polynomial encrypted in blocks as an [`EncryptedPolynomial`], the
/// blocks spread over the ranks of a [`Cluster`]: rank r holds the
/// contiguous run [`Partition::range`](crate::Partition::range)`(blocks, r)`.
///
/// Sums, negation and scalar products are local; products
/// ([`mul`](Self::mul), [`mul_plain`](Self::mul_plain),
/// [`mul_high`](Self::mul_high), [`groth16_quotient`](Self::groth16_quotient))
/// exchange residues (see the [crate docs](crate)) and give the very
/// ciphertexts the one-process product gives, spread the same way. Every
/// method taking the cluster is collective: all ranks call it in the same
/// order, with the same public arguments.
#[derive(Debug, Clone)]
pub struct DistributedPolynomial<F: PrimeField> {
    local: Vec<Ciphertext>,
    blocks: usize,
    layout: BlockLayout,
    field: PhantomData<F>,
}

/// The second operand of a block product.
enum Operand<'a, F: PrimeField> {
    Ciphertexts(&'a DistributedPolynomial<F>),
    /// A public plaintext polynomial every rank knows, in blocks of the stride.
    Plain(&'a [F]),
}

impl<F: PrimeField> DistributedPolynomial<F> {
    /// Encrypts Σ coefficients\[i\]·X^i in blocks of `stride`: every rank
    /// passes all the coefficients and encrypts only its own blocks.
    ///
    /// # Errors
    /// [`Error::RankCount`] when the polynomial has fewer blocks than ranks;
    /// he-poly's errors for the field or stride; engine failures.
    pub fn encrypt(
        cluster: &Cluster,
        pk: &PublicKey,
        coefficients: &[F],
        stride: usize,
    ) -> Result<Self> {
        let context = cluster.context();
        let n = context.ring_degree();
        if stride == 0 || stride > n {
            return Err(he_poly::Error::InvalidArgument(format!(
                "the stride must be in 1..={n}, got {stride}"
            ))
            .into());
        }
        let layout = BlockLayout::fresh(stride, coefficients.len());
        let blocks = layout.fresh_blocks();
        cluster
            .partition()
            .ensure_usable(blocks, n, "the polynomial")?;
        let encoder = encoder::<F>(cluster)?;
        let local = cluster
            .partition()
            .range(blocks, cluster.rank())
            .map(|i| {
                let end = coefficients.len().min((i + 1) * stride);
                let block = coefficients.get(i * stride..end).unwrap_or(&[]);
                Ok(pk.encrypt(&encoder.encode(block)?)?)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self::from_parts(local, blocks, layout))
    }

    /// This rank's share of a polynomial every rank holds whole (no
    /// communication): its run of blocks.
    ///
    /// # Errors
    /// [`Error::RankCount`] when the polynomial has fewer blocks than ranks.
    pub fn from_whole(cluster: &Cluster, whole: &EncryptedPolynomial<F>) -> Result<Self> {
        let blocks = whole.blocks().len();
        let n = cluster.context().ring_degree();
        cluster
            .partition()
            .ensure_usable(blocks, n, "the polynomial")?;
        let range = cluster.partition().range(blocks, cluster.rank());
        Ok(Self::from_parts(
            whole.blocks()[range].to_vec(),
            blocks,
            *whole.layout(),
        ))
    }

    fn from_parts(local: Vec<Ciphertext>, blocks: usize, layout: BlockLayout) -> Self {
        Self {
            local,
            blocks,
            layout,
            field: PhantomData,
        }
    }

    /// This rank's blocks, in order.
    pub fn local_blocks(&self) -> &[Ciphertext] {
        &self.local
    }

    /// The number of blocks over all ranks.
    pub fn block_count(&self) -> usize {
        self.blocks
    }

    /// How the coefficients are placed in the blocks.
    pub fn layout(&self) -> &BlockLayout {
        &self.layout
    }

    /// The number of coefficients.
    pub fn len(&self) -> usize {
        self.layout.len
    }

    /// Whether the polynomial has no coefficients.
    pub fn is_empty(&self) -> bool {
        self.layout.len == 0
    }

    /// `self + other`, block by block on every rank (no communication).
    ///
    /// # Errors
    /// [`Error::DistributionMismatch`] for other block counts; he-poly's
    /// layout errors; engine errors.
    pub fn add(&self, other: &Self) -> Result<Self> {
        self.combine(other, false)
    }

    /// `self − other`; see [`add`](Self::add).
    ///
    /// # Errors
    /// As for [`add`](Self::add).
    pub fn sub(&self, other: &Self) -> Result<Self> {
        self.combine(other, true)
    }

    /// `k · self` (no communication).
    ///
    /// # Errors
    /// Engine errors (an exhausted budget).
    pub fn mul_scalar(&self, k: F) -> Result<Self> {
        let k: BigUint = k.into_bigint().into();
        let local = self
            .local
            .iter()
            .map(|b| b.mul_scalar(&k))
            .collect::<helib_rs::Result<Vec<_>>>()?;
        Ok(Self::from_parts(local, self.blocks, self.layout))
    }

    fn combine(&self, other: &Self, subtract: bool) -> Result<Self> {
        self.layout.ensure_addable(&other.layout)?;
        if self.blocks != other.blocks {
            return Err(Error::DistributionMismatch(format!(
                "{} and {} blocks",
                self.blocks, other.blocks
            )));
        }
        let (mut local, b) = Ciphertext::align_groups(&self.local, &other.local)?;
        for (x, y) in local.iter_mut().zip(&b) {
            if subtract {
                x.sub_assign(y)?;
            } else {
                x.add_assign(y)?;
            }
        }
        Ok(Self::from_parts(
            local,
            self.blocks,
            self.layout.sum(&other.layout),
        ))
    }

    /// `self · other`: one distributed block product (see the crate docs).
    ///
    /// # Errors
    /// As for [`EncryptedPolynomial::mul`]; [`Error::RankCount`] when the
    /// product has fewer blocks than ranks; [`Error::Corrupted`] when
    /// residues arrive damaged; [`Error::RankFailed`] when another rank failed.
    pub fn mul(&self, other: &Self, cluster: &Cluster) -> Result<Self> {
        let n = cluster.context().ring_degree();
        let layout = self.layout.product(&other.layout, n)?;
        let total = self.blocks + other.blocks - 1;
        self.block_product(Operand::Ciphertexts(other), 0..total, layout, cluster)
    }

    /// `self · p` for a public plaintext polynomial p that every rank passes
    /// whole (each rank encodes only its run of p's blocks).
    ///
    /// # Errors
    /// As for [`mul`](Self::mul); he-poly's [`InvalidArgument`](he_poly::Error::InvalidArgument)
    /// for an empty p.
    pub fn mul_plain(&self, p: &[F], cluster: &Cluster) -> Result<Self> {
        if p.is_empty() {
            return Err(he_poly::Error::InvalidArgument(
                "the plaintext polynomial has no coefficients".into(),
            )
            .into());
        }
        let n = cluster.context().ring_degree();
        let plain = BlockLayout::fresh(self.layout.stride, p.len());
        let layout = self.layout.product(&plain, n)?;
        let total = self.blocks + plain.fresh_blocks() - 1;
        self.block_product(Operand::Plain(p), 0..total, layout, cluster)
    }

    /// ⌊(self · other) / X^cut⌋, computing only the product blocks that
    /// reach X^cut.
    ///
    /// # Errors
    /// As for [`mul`](Self::mul) and [`EncryptedPolynomial::mul_high`].
    pub fn mul_high(&self, other: &Self, cut: usize, cluster: &Cluster) -> Result<Self> {
        let n = cluster.context().ring_degree();
        let product = self.layout.product(&other.layout, n)?;
        let (first, layout) = product.cut_below(cut)?;
        let total = self.blocks + other.blocks - 1;
        self.block_product(Operand::Ciphertexts(other), first..total, layout, cluster)
    }

    /// The Groth16 quotient h = ⌊A·B / X^n⌋ (n − 1 coefficients) of the
    /// interpolants of a **valid** witness, as
    /// [`EncryptedPolynomial::groth16_quotient`], spread over the ranks.
    ///
    /// # Errors
    /// he-poly's [`InvalidArgument`](he_poly::Error::InvalidArgument) for
    /// n < 2 or an operand longer than n; as for [`mul_high`](Self::mul_high).
    pub fn groth16_quotient(a: &Self, b: &Self, n: usize, cluster: &Cluster) -> Result<Self> {
        if n < 2 || a.len() > n || b.len() > n {
            return Err(he_poly::Error::InvalidArgument(format!(
                "a domain of {n} points (at least 2) and interpolants of at most {n} \
                 coefficients, got {} and {}",
                a.len(),
                b.len()
            ))
            .into());
        }
        let mut h = a.mul_high(b, n, cluster)?;
        h.layout.len = n - 1;
        Ok(h)
    }

    /// Sends every block to `root`, one at a time in block order, where
    /// `visit` gets each with its index (other ranks visit nothing): for
    /// gathering or decrypting without holding all blocks at once.
    ///
    /// # Errors
    /// Engine errors loading a block (it arrives as checked engine bytes);
    /// `visit`'s errors (agreed over the ranks).
    pub fn visit_at_root(
        &self,
        root: usize,
        cluster: &Cluster,
        mut visit: impl FnMut(usize, Ciphertext) -> Result<()>,
    ) -> Result<()> {
        let partition = cluster.partition();
        let comm = cluster.communicator();
        let mut outcome = Ok(());
        if cluster.rank() == root {
            for source in 0..cluster.size() {
                for (k, index) in partition.range(self.blocks, source).enumerate() {
                    let block = if source == root {
                        self.local[k].clone()
                    } else {
                        let (bytes, _) = comm.process_at_rank(source as i32).receive_vec::<u8>();
                        match Ciphertext::from_bytes(cluster.context(), &bytes) {
                            Ok(block) => block,
                            Err(e) => {
                                outcome = Err(Error::Corrupted {
                                    sender: source,
                                    receiver: root,
                                    reason: format!("block {index}: {e}"),
                                });
                                continue;
                            }
                        }
                    };
                    if outcome.is_ok() {
                        outcome = visit(index, block);
                    }
                }
            }
        } else {
            for block in &self.local {
                let bytes = block.to_bytes()?;
                comm.process_at_rank(root as i32).send(&bytes[..]);
            }
        }
        cluster.agree(outcome)
    }

    /// The whole polynomial at `root` (`None` elsewhere).
    ///
    /// # Errors
    /// As for [`visit_at_root`](Self::visit_at_root).
    pub fn gather(&self, root: usize, cluster: &Cluster) -> Result<Option<EncryptedPolynomial<F>>> {
        let mut blocks = Vec::new();
        self.visit_at_root(root, cluster, |_, block| {
            blocks.push(block);
            Ok(())
        })?;
        if cluster.rank() != root {
            return Ok(None);
        }
        Ok(Some(EncryptedPolynomial::from_blocks(blocks, self.layout)?))
    }

    /// Decrypts at `root` with `sk` (which only `root` needs to pass),
    /// receiving and decrypting one block at a time: the coefficients at
    /// `root`, `None` elsewhere.
    ///
    /// # Errors
    /// he-poly's [`InvalidArgument`](he_poly::Error::InvalidArgument) when
    /// `root` has no key; decryption errors; as for [`visit_at_root`](Self::visit_at_root).
    pub fn decrypt_at_root(
        &self,
        root: usize,
        sk: Option<&SecretKey>,
        cluster: &Cluster,
    ) -> Result<Option<Vec<F>>> {
        let layout = self.layout;
        let mut out = vec![
            F::zero();
            if cluster.rank() == root {
                layout.len
            } else {
                0
            }
        ];
        let encoder = encoder::<F>(cluster)?;
        self.visit_at_root(root, cluster, |index, block| {
            let sk = sk.ok_or_else(|| {
                he_poly::Error::InvalidArgument("the root rank needs the secret key".into())
            })?;
            let values = encoder.decode(&sk.decrypt(&block)?)?;
            let start = layout.block_exponent(index);
            for (j, value) in values.into_iter().take(layout.width).enumerate() {
                // Terms below X^0 (cut off) and from X^len on are dropped.
                let exponent = i64::try_from(j).ok().and_then(|j| start.checked_add(j));
                let place = exponent.and_then(|e| usize::try_from(e).ok());
                if let Some(slot) = place.and_then(|e| out.get_mut(e)) {
                    *slot += value;
                }
            }
            Ok(())
        })?;
        Ok((cluster.rank() == root).then_some(out))
    }

    /// The product blocks `outputs` of `self` and `b`, laid out as `layout`,
    /// spread over the ranks.
    fn block_product(
        &self,
        b: Operand<'_, F>,
        outputs: Range<usize>,
        layout: BlockLayout,
        cluster: &Cluster,
    ) -> Result<Self> {
        let context = cluster.context();
        let (n, rank, partition) = (context.ring_degree(), cluster.rank(), cluster.partition());
        let b_blocks = match &b {
            Operand::Ciphertexts(other) => other.blocks,
            Operand::Plain(p) => p.len().div_ceil(self.layout.stride),
        };
        partition.ensure_usable(outputs.len(), n, "the product")?;
        if self
            .local
            .iter()
            .any(|block| !context.same_as(block.context()))
        {
            return Err(helib_rs::Error::ContextMismatch.into());
        }
        // One level for both operands on every rank: the lowest anywhere.
        let mut levels = vec![local_level(&self.local)];
        if let Operand::Ciphertexts(other) = &b {
            levels.push(local_level(&other.local));
        }
        let level = cluster.all_gather(&levels)?.into_iter().min().unwrap_or(0) as usize;
        let a = cluster.agree(at_level(&self.local, level))?;
        let noise_a = cluster.max_f64(max_noise(&a))?;
        // The second operand's rows source: ciphertext blocks, or plaintext
        // blocks encoded here (this rank's run of them).
        let (b_local, b_plain, b_parts, noise, factor) = match b {
            Operand::Ciphertexts(other) => {
                let local = cluster.agree(at_level(&other.local, level))?;
                let noise_b = cluster.max_f64(max_noise(&local))?;
                let terms = self.blocks.min(other.blocks);
                let noise = context.block_product_noise(level, noise_a, noise_b, terms)?;
                let factor = product_factor(
                    &a,
                    local.first().map(Ciphertext::correction_factor),
                    context,
                );
                (local, Vec::new(), 2, noise, factor)
            }
            Operand::Plain(p) => {
                let encoder = encoder::<F>(cluster)?;
                let stride = self.layout.stride;
                let encoded = cluster.agree(
                    partition
                        .range(b_blocks, rank)
                        .map(|i| {
                            let block = &p[i * stride..p.len().min((i + 1) * stride)];
                            Ok(EncodedPlaintext::for_multiplication(
                                &encoder.encode(block)?,
                                level,
                            )?)
                        })
                        .collect::<Result<Vec<_>>>(),
                )?;
                let mut l1 = Vec::with_capacity(encoded.len());
                for e in &encoded {
                    l1.push(e.residues()?.1 .1.max(0.0));
                }
                // log2 of the sum of every block's l1 norm, over all ranks.
                let local_sum = log2_sum(&l1);
                let all = cluster.all_gather(&[local_sum.to_bits()])?;
                let total = log2_sum(&all.into_iter().map(f64::from_bits).collect::<Vec<_>>());
                let noise = context.plain_block_product_noise(level, noise_a, total)?;
                // EncodedPlaintext::for_multiplication encodes with factor 1.
                let factor = product_factor(&a, Some(&BigUint::from(1u8)), context);
                (Cow::Owned(Vec::new()), encoded, 1, noise, factor)
            }
        };
        let factor = cluster.agree(factor)?;
        let out_parts = 2 + b_parts - 1;
        let primes = level + 1;
        let columns = |r: usize| partition.columns(n, r);
        let width = columns(rank).len();
        let mine = partition.range(outputs.len(), rank);
        let mut results: Vec<Vec<u64>> = (0..mine.len())
            .map(|_| vec![0u64; out_parts * primes * n])
            .collect();
        let a_counts = |r: usize| partition.range(self.blocks, r).len() * 2;
        let b_counts = |r: usize| partition.range(b_blocks, r).len() * b_parts;
        // Buffers reused from prime to prime: fresh pages cost more than
        // the copies through them.
        let mut buffers = Buffers::default();
        let (mut a_rows, mut b_rows, mut out) = (Vec::new(), Vec::new(), Vec::new());
        for prime in 0..primes {
            // Operand rows: this rank's blocks, every column range to its rank.
            self.transpose(cluster, prime, &a, &[], a_counts, &mut buffers, &mut a_rows)?;
            self.transpose(
                cluster,
                prime,
                &b_local,
                &b_plain,
                b_counts,
                &mut buffers,
                &mut b_rows,
            )?;
            let b_operand = if b_parts == 2 {
                RowOperand::ciphertexts(&b_rows, b_blocks)
            } else {
                RowOperand::encoded_plaintexts(&b_rows, b_blocks)
            };
            out.resize(outputs.len() * out_parts * width, 0);
            let convolved = context.convolve_rows(
                prime,
                width,
                RowOperand::ciphertexts(&a_rows, self.blocks),
                b_operand,
                outputs.clone(),
                &mut out,
            );
            cluster.agree(convolved.map_err(Error::from))?;
            // The result rows back: rank d gets its run of output blocks.
            let send_counts: Vec<usize> = (0..cluster.size())
                .map(|d| partition.range(outputs.len(), d).len() * out_parts * width)
                .collect();
            let recv_counts: Vec<usize> = (0..cluster.size())
                .map(|s| mine.len() * out_parts * columns(s).len())
                .collect();
            let received = &mut buffers.received;
            cluster.exchange(prime, &mut out, &send_counts, &recv_counts, received)?;
            let mut at = 0;
            for s in 0..cluster.size() {
                let cols = columns(s);
                for result in results.iter_mut() {
                    for part in 0..out_parts {
                        let row = &received[at..at + cols.len()];
                        let start = (part * primes + prime) * n + cols.start;
                        result[start..start + cols.len()].copy_from_slice(row);
                        at += cols.len();
                    }
                }
            }
        }
        drop((a_rows, b_rows, out, buffers));
        let local = cluster.agree(
            results
                .into_iter()
                .map(|residues| {
                    Ok(Ciphertext::from_residues(
                        context, level, out_parts, &factor, noise, &residues,
                    )?)
                })
                .collect::<Result<Vec<_>>>(),
        )?;
        Ok(Self::from_parts(local, outputs.len(), layout))
    }

    /// The all-to-all that gives this rank, in `rows`, the rows of every
    /// block in its column range at `prime`, from this rank's `blocks`
    /// (ciphertexts) and `plain` blocks; `counts(r)` is the rows rank r holds.
    #[allow(clippy::too_many_arguments)]
    fn transpose(
        &self,
        cluster: &Cluster,
        prime: usize,
        blocks: &[Ciphertext],
        plain: &[EncodedPlaintext],
        counts: impl Fn(usize) -> usize,
        buffers: &mut Buffers,
        rows: &mut Vec<u64>,
    ) -> Result<()> {
        let (size, rank, partition) = (cluster.size(), cluster.rank(), cluster.partition());
        let n = cluster.context().ring_degree();
        let own = counts(rank);
        let send_counts: Vec<usize> = (0..size)
            .map(|d| own * partition.columns(n, d).len())
            .collect();
        buffers.send.resize(own * n, 0);
        // Destination d's payload starts at own·(first column of d): rows of
        // d's columns, one after the other.
        let mut put = |row_index: usize, row: &[u64]| {
            for d in 0..size {
                let cols = partition.columns(n, d);
                let at = own * cols.start + row_index * cols.len();
                buffers.send[at..at + cols.len()].copy_from_slice(&row[cols]);
            }
        };
        let mut index = 0;
        for block in blocks {
            for part in 0..block.size() {
                put(index, &block.residues(part, prime)?);
                index += 1;
            }
        }
        for encoded in plain {
            let (words, _) = encoded.residues()?;
            put(index, &words[prime * n..(prime + 1) * n]);
            index += 1;
        }
        let width = partition.columns(n, rank).len();
        let recv_counts: Vec<usize> = (0..size).map(|s| counts(s) * width).collect();
        cluster.exchange(prime, &mut buffers.send, &send_counts, &recv_counts, rows)
    }
}

/// The exchange buffers of a product, kept from prime to prime.
#[derive(Default)]
struct Buffers {
    send: Vec<u64>,
    received: Vec<u64>,
}

/// The coefficient encoder for F of the cluster's context.
fn encoder<F: PrimeField>(cluster: &Cluster) -> Result<FieldCoefficientEncoder<F>> {
    FieldCoefficientEncoder::new(cluster.context())
        .map_err(|_| he_poly::Error::FieldMismatch.into())
}

/// The level of a rank's blocks (all share one; the top for none).
fn local_level(blocks: &[Ciphertext]) -> u64 {
    blocks
        .iter()
        .map(Ciphertext::level)
        .min()
        .unwrap_or(usize::MAX) as u64
}

/// The blocks at `level`: borrowed when they are there already, else switched down.
fn at_level(blocks: &[Ciphertext], level: usize) -> Result<Cow<'_, [Ciphertext]>> {
    if blocks.iter().all(|b| b.level() == level) {
        return Ok(Cow::Borrowed(blocks));
    }
    let switched = blocks
        .iter()
        .map(|b| b.mod_switch_to(level))
        .collect::<helib_rs::Result<Vec<_>>>()?;
    Ok(Cow::Owned(switched))
}

/// The largest noise estimate of the blocks.
fn max_noise(blocks: &[Ciphertext]) -> f64 {
    blocks
        .iter()
        .map(Ciphertext::noise_estimate_bits)
        .fold(f64::NEG_INFINITY, f64::max)
}

/// log2 of Σ 2^x over `values`.
fn log2_sum(values: &[f64]) -> f64 {
    let top = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return top;
    }
    top + values.iter().map(|v| (v - top).exp2()).sum::<f64>().log2()
}

/// The product's correction factor: a's times b's, mod t.
fn product_factor(
    a: &[Ciphertext],
    b: Option<&BigUint>,
    context: &helib_rs::Context,
) -> Result<BigUint> {
    match (a.first(), b) {
        (Some(x), Some(y)) => Ok(x.correction_factor() * y % context.plaintext_modulus()),
        _ => Err(Error::DistributionMismatch(
            "a rank holds no block of an operand".into(),
        )),
    }
}
