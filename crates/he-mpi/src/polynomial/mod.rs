//! Encrypted polynomials whose blocks are spread over the ranks.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Range;

use ark_ff::PrimeField;
use he_poly::{BlockLayout, EncryptedPolynomial};
use helib_rs::{
    Ciphertext, CiphertextAssembly, EncodedPlaintext, FieldCoefficientEncoder, OutputRows,
    PublicKey, RowOperand, SecretKey,
};
use num_bigint::BigUint;

use crate::cluster::Cluster;
use crate::error::{Error, Result};

mod product;

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

    /// The polynomial `whole` of rank `root` (`None` on every other rank)
    /// spread over the ranks: its layout broadcast, and each block sent to
    /// the rank that holds it as checked engine bytes (the root's own run
    /// stays).
    ///
    /// # Errors
    /// On every rank, naming the first failing one: he-poly's
    /// [`InvalidArgument`](he_poly::Error::InvalidArgument) when `root` is
    /// not a rank, passes no polynomial, or another rank passes one;
    /// [`ContextMismatch`](helib_rs::Error::ContextMismatch) for blocks of
    /// another context than the cluster's; [`Error::RankCount`] for fewer
    /// blocks than ranks; [`Error::Corrupted`] for a block that does not
    /// load where it arrives.
    pub fn scatter(
        root: usize,
        whole: Option<&EncryptedPolynomial<F>>,
        cluster: &Cluster,
    ) -> Result<Self> {
        let invalid = |what: String| Err(he_poly::Error::InvalidArgument(what).into());
        let checked = match (cluster.rank() == root, whole) {
            _ if root >= cluster.size() => invalid(format!(
                "the root {root} is not a rank of {}",
                cluster.size()
            )),
            (true, None) => invalid("the root passes no polynomial to scatter".into()),
            (false, Some(_)) => invalid(format!(
                "rank {} passes a polynomial; only the root {root} does",
                cluster.rank()
            )),
            (true, Some(p))
                if p.blocks()
                    .iter()
                    .any(|block| !cluster.context().same_as(block.context())) =>
            {
                Err(helib_rs::Error::ContextMismatch.into())
            }
            _ => Ok(()),
        };
        cluster.agree(checked)?;
        // The layout and block count, as the root has them.
        let words: Vec<u64> = whole.map_or_else(Vec::new, |p| {
            let l = p.layout();
            let blocks = p.blocks().len();
            [l.stride, l.width, l.origin as usize, l.len, blocks]
                .map(|w| w as u64)
                .to_vec()
        });
        let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let bytes = cluster.broadcast(root, bytes)?;
        let word = |k: usize| {
            let at = 8 * k;
            bytes
                .get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_le_bytes) as usize
        };
        let layout = BlockLayout {
            stride: word(0),
            width: word(1),
            origin: word(2) as i64,
            len: word(3),
        };
        let blocks = word(4);
        cluster.partition().ensure_usable(
            blocks,
            cluster.context().ring_degree(),
            "the polynomial",
        )?;
        let items = whole.map_or(&[][..], EncryptedPolynomial::blocks);
        let local = cluster.scatter_from_root(root, blocks, items)?;
        Ok(Self::from_parts(local, blocks, layout))
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
        visit: impl FnMut(usize, Ciphertext) -> Result<()>,
    ) -> Result<()> {
        cluster.visit_at_root(root, self.blocks, &self.local, visit)
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
}

/// The coefficient encoder for F of the cluster's context.
fn encoder<F: PrimeField>(cluster: &Cluster) -> Result<FieldCoefficientEncoder<F>> {
    FieldCoefficientEncoder::new(cluster.context())
        .map_err(|_| he_poly::Error::FieldMismatch.into())
}
