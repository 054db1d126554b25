//! Products of distributed polynomials: per prime, an exchange of rows to
//! slot columns, the local convolutions, and the exchange back.

use super::*;
use crate::cluster::prefix_sums;

impl<F: PrimeField> DistributedPolynomial<F> {
    /// The product blocks `outputs` of `self` and `b`, laid out as `layout`,
    /// spread over the ranks.
    pub(super) fn block_product(
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
        let a = cluster.agree(he_poly::blocks_at_level(&self.local, level).map_err(Error::from))?;
        let noise_a = cluster.max_f64(max_noise(&a))?;
        // The second operand's rows source: ciphertext blocks, or plaintext
        // blocks encoded here (this rank's run of them).
        let (b_local, b_plain, b_parts, noise, factor) = match b {
            Operand::Ciphertexts(other) => {
                let local = cluster
                    .agree(he_poly::blocks_at_level(&other.local, level).map_err(Error::from))?;
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
        // The output blocks, filled column range by column range as the
        // convolved rows arrive.
        let mut results = cluster.agree(
            (0..mine.len())
                .map(|_| Ciphertext::zeros(context, level, out_parts, &factor, noise))
                .collect::<helib_rs::Result<Vec<_>>>()
                .map_err(Error::from),
        )?;
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
            // This rank's own rows stay in `out` (the exchange skips them).
            let recv_counts: Vec<usize> = (0..cluster.size())
                .map(|s| {
                    if s == rank {
                        0
                    } else {
                        mine.len() * out_parts * columns(s).len()
                    }
                })
                .collect();
            let received = &mut buffers.received;
            cluster.exchange(prime, &mut out, &send_counts, &recv_counts, received)?;
            // `received` holds exactly the counts asked for (checked on arrival).
            let mut at = 0;
            let written = (0..cluster.size()).try_for_each(|s| {
                let cols = columns(s);
                let (rows, mut from) = if s == rank {
                    (&out, mine.start * out_parts * width)
                } else {
                    (&*received, at)
                };
                for result in results.iter_mut() {
                    for part in 0..out_parts {
                        let row = &rows[from..from + cols.len()];
                        result.write_residue_columns(part, prime, cols.start, row)?;
                        from += cols.len();
                    }
                }
                if s != rank {
                    at = from;
                }
                Ok::<_, helib_rs::Error>(())
            });
            cluster.agree(written.map_err(Error::from))?;
        }
        Ok(Self::from_parts(results, outputs.len(), layout))
    }

    /// The all-to-all that gives this rank, in `rows`, the rows of every
    /// block in its column range at `prime`, from this rank's `blocks`
    /// (ciphertexts) and `plain` blocks; `counts(r)` is the rows rank r holds.
    /// This rank's own columns go straight into `rows`; only the other
    /// ranks' pieces are staged in `buffers.send`.
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
        let width = partition.columns(n, rank).len();
        let recv_counts: Vec<usize> = (0..size).map(|s| counts(s) * width).collect();
        let send_counts: Vec<usize> = (0..size)
            .map(|d| {
                if d == rank {
                    0
                } else {
                    own * partition.columns(n, d).len()
                }
            })
            .collect();
        rows.resize(recv_counts.iter().sum(), 0);
        buffers.send.resize(send_counts.iter().sum(), 0);
        // Row `index` of destination d: in `rows` for this rank, else in
        // d's payload of `send`, rows of d's columns one after the other.
        let pieces = Pieces {
            rank,
            own_at: recv_counts[..rank].iter().sum(),
            send_at: prefix_sums(&send_counts),
        };
        let mut index = 0;
        for block in blocks {
            for part in 0..block.size() {
                for d in 0..size {
                    let cols = partition.columns(n, d);
                    let piece = pieces.get(rows, &mut buffers.send, d, index, cols.len());
                    block.residue_columns_into(part, prime, cols.start, piece)?;
                }
                index += 1;
            }
        }
        for encoded in plain {
            let (words, _) = encoded.residues()?;
            let row = &words[prime * n..(prime + 1) * n];
            for d in 0..size {
                let cols = partition.columns(n, d);
                let piece = pieces.get(rows, &mut buffers.send, d, index, cols.len());
                piece.copy_from_slice(&row[cols]);
            }
            index += 1;
        }
        cluster.exchange(prime, &mut buffers.send, &send_counts, &recv_counts, rows)
    }
}

/// Where [`DistributedPolynomial::transpose`] puts each row piece: this
/// rank's own in the received rows at `own_at`, the others' in the send
/// buffer at their payload's offset `send_at[d]`.
struct Pieces {
    rank: usize,
    own_at: usize,
    send_at: Vec<usize>,
}

impl Pieces {
    /// The `len` words of row `index` for rank `d`.
    fn get<'a>(
        &self,
        rows: &'a mut [u64],
        send: &'a mut [u64],
        d: usize,
        index: usize,
        len: usize,
    ) -> &'a mut [u64] {
        let (buffer, at) = if d == self.rank {
            (rows, self.own_at)
        } else {
            (send, self.send_at[d])
        };
        &mut buffer[at + index * len..at + (index + 1) * len]
    }
}

/// The exchange buffers of a product, kept from prime to prime.
#[derive(Default)]
struct Buffers {
    send: Vec<u64>,
    received: Vec<u64>,
}

/// The level of a rank's blocks (all share one; the top for none).
fn local_level(blocks: &[Ciphertext]) -> u64 {
    blocks
        .iter()
        .map(Ciphertext::level)
        .min()
        .unwrap_or(usize::MAX) as u64
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
