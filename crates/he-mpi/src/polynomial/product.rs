//! Products of distributed polynomials: per prime, an exchange of rows to
//! slot columns, the local convolutions, and the exchange back.

use super::*;
use crate::checksum::PayloadSum;
use crate::cluster::{prefix_sums, Checking, Incoming, PayloadCheck};
use crate::scratch::Outgoing;

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
        // The output blocks, not zeroed first: this rank's columns written
        // in place by the convolution, the others' column range by column
        // range as they arrive; each handed out once all are written.
        let mut results = cluster.agree(
            (0..mine.len())
                .map(|_| CiphertextAssembly::new(context, level, out_parts, &factor, noise))
                .collect::<helib_rs::Result<Vec<_>>>()
                .map_err(Error::from),
        )?;
        let a_counts = |r: usize| partition.range(self.blocks, r).len() * 2;
        let b_counts = |r: usize| partition.range(b_blocks, r).len() * b_parts;
        // The result words each rank sends back (the other ranks' output
        // blocks in this rank's columns) and receives (its own blocks in
        // theirs), the same at every prime; its own part never moves.
        let block_words = out_parts * width;
        let first = columns(rank).start;
        let (send_counts, recv_counts): (Vec<usize>, Vec<usize>) = (0..cluster.size())
            .map(|d| {
                if d == rank {
                    (0, 0)
                } else {
                    let theirs = partition.range(outputs.len(), d).len() * block_words;
                    (theirs, mine.len() * out_parts * columns(d).len())
                }
            })
            .unzip();
        // Staging for the pieces of a and b this rank sends (its rows in the
        // other ranks' columns) and the result rows it sends back, reused from
        // prime to prime; the received rows in buffers kept between products
        // (fresh pages cost more than the copies through them).
        let elsewhere = n - width;
        let mut staged = cluster.staging([
            a_counts(rank) * elsewhere,
            b_counts(rank) * elsewhere,
            send_counts.iter().sum(),
        ])?;
        let mut lent = cluster.scratch().lend::<3>();
        let [a_received, b_received, received] = &mut lent.buffers;
        for prime in 0..primes {
            let [a_send, b_send, mut out] = staged.regions();
            // Operand rows: this rank's blocks, every other column range to
            // its rank; this rank's own columns are read where they are.
            let a_in = transpose(cluster, prime, &a, &[], a_counts, a_send, a_received)?;
            let b_in = transpose(
                cluster, prime, &b_local, &b_plain, b_counts, b_send, b_received,
            )?;
            let a_rows = operand_rows(cluster, prime, &a, &[], a_counts, &a_in)?;
            let b_rows = operand_rows(cluster, prime, &b_local, &b_plain, b_counts, &b_in)?;
            let b_operand = if b_parts == 2 {
                RowOperand::ciphertexts(&b_rows, b_blocks)
            } else {
                RowOperand::encoded_plaintexts(&b_rows, b_blocks)
            };
            // The result rows: the other ranks' blocks into `out`, to be sent
            // back; this rank's straight into its output blocks, which are
            // spread in rank order (the ranks before this one hold the
            // first `mine.start`).
            let (before, after) = out.words.split_at_mut(mine.start * block_words);
            let mut destinations: Vec<_> = before
                .chunks_exact_mut(block_words)
                .map(OutputRows::Words)
                .collect();
            destinations.extend(
                results
                    .iter_mut()
                    .map(|block| OutputRows::Assembly { block, first }),
            );
            destinations.extend(after.chunks_exact_mut(block_words).map(OutputRows::Words));
            let convolved = context.convolve_rows(
                prime,
                width,
                RowOperand::ciphertexts(&a_rows, self.blocks),
                b_operand,
                outputs.clone(),
                &mut destinations,
            );
            drop(destinations);
            // After this agreement no rank reads the operand pieces of this
            // prime any more (their senders may stage the next prime's).
            cluster.agree(convolved.map_err(Error::from))?;
            // The result rows back: rank d gets its run of output blocks.
            // Each payload is checked as it is written into the blocks, so
            // its words are read once; the agreement below covers the checks.
            let back = cluster.exchange(
                prime,
                out.reborrow(),
                &send_counts,
                &recv_counts,
                received,
                Checking::ByReader,
            )?;
            let written = (0..cluster.size())
                .filter(|&s| s != rank)
                .try_for_each(|s| {
                    let cols = columns(s);
                    // Exactly the counts asked for (checked on arrival).
                    let mut rows = back.from(s);
                    let mut check = back.check(s);
                    let mut outcome = Ok(());
                    for result in results.iter_mut() {
                        for part in 0..out_parts {
                            let (row, tail) = rows.split_at(cols.len());
                            if let Some(check) = check.as_mut() {
                                check.absorb(row);
                            }
                            if outcome.is_ok() {
                                outcome =
                                    result.write_residue_columns(part, prime, cols.start, row);
                            }
                            rows = tail;
                        }
                    }
                    // A damaged payload explains a refused residue: its
                    // check speaks first, naming the sender.
                    check
                        .map_or(Ok(()), PayloadCheck::finish)
                        .and(outcome.map_err(Error::from))
                });
            // After this agreement no rank reads the result rows of this prime.
            cluster.agree(written)?;
        }
        // Every column of every block is written by now (this rank's by
        // the convolutions, the others' from the exchanges back).
        let blocks = cluster.agree(
            results
                .into_iter()
                .map(CiphertextAssembly::finish)
                .collect::<helib_rs::Result<Vec<_>>>()
                .map_err(Error::from),
        )?;
        Ok(Self::from_parts(blocks, outputs.len(), layout))
    }
}

/// The all-to-all that gives this rank the rows of every other rank's
/// blocks in its column range at `prime`, from this rank's `blocks`
/// (ciphertexts) and `plain` blocks; `counts(r)` is the rows rank r holds.
/// The pieces for the other ranks are staged in `send`; this rank's own
/// columns stay where they are ([`operand_rows`] reads them).
fn transpose<'a>(
    cluster: &'a Cluster,
    prime: usize,
    blocks: &[Ciphertext],
    plain: &[EncodedPlaintext],
    counts: impl Fn(usize) -> usize,
    send: Outgoing<'_>,
    received: &'a mut Vec<u64>,
) -> Result<Incoming<'a>> {
    let (size, rank, partition) = (cluster.size(), cluster.rank(), cluster.partition());
    let n = cluster.context().ring_degree();
    let width = partition.columns(n, rank).len();
    let others = |count: usize, r: usize| if r == rank { 0 } else { count };
    let recv_counts: Vec<usize> = (0..size).map(|s| others(counts(s) * width, s)).collect();
    let own = counts(rank);
    let send_counts: Vec<usize> = (0..size)
        .map(|d| others(own * partition.columns(n, d).len(), d))
        .collect();
    // Row `index` of destination d: d's payload of `send`, rows of d's
    // columns one after the other, summed for its header as it is written.
    let send_at = prefix_sums(&send_counts);
    let mut sums = vec![PayloadSum::default(); size];
    let mut send = send;
    let mut stage = |d: usize, index: usize, row: &[u64]| {
        let cols = partition.columns(n, d);
        let at = send_at[d] + index * cols.len();
        sums[d].copy_absorb(&mut send.words[at..at + cols.len()], &row[cols]);
    };
    let mut index = 0;
    for block in blocks {
        for part in 0..block.size() {
            let row = block.residue_row(part, prime)?;
            for d in (0..size).filter(|&d| d != rank) {
                stage(d, index, row);
            }
            index += 1;
        }
    }
    for encoded in plain {
        let (words, _) = encoded.residues()?;
        let row = &words[prime * n..(prime + 1) * n];
        for d in (0..size).filter(|&d| d != rank) {
            stage(d, index, row);
        }
        index += 1;
    }
    send.sums = Some(sums);
    cluster.exchange(
        prime,
        send,
        &send_counts,
        &recv_counts,
        received,
        Checking::OnArrival,
    )
}

/// The rows of an operand at `prime` in this rank's column range, block by
/// block (then part): this rank's own from its `blocks` or `plain` blocks,
/// read in place, the other ranks' from what [`transpose`] brought.
fn operand_rows<'a>(
    cluster: &Cluster,
    prime: usize,
    blocks: &'a [Ciphertext],
    plain: &'a [EncodedPlaintext],
    counts: impl Fn(usize) -> usize,
    incoming: &Incoming<'a>,
) -> Result<Vec<&'a [u64]>> {
    let (rank, partition) = (cluster.rank(), cluster.partition());
    let n = cluster.context().ring_degree();
    let cols = partition.columns(n, rank);
    let mut rows = Vec::new();
    for s in 0..cluster.size() {
        if s != rank {
            rows.extend(incoming.from(s).chunks_exact(cols.len()).take(counts(s)));
            continue;
        }
        for block in blocks {
            for part in 0..block.size() {
                rows.push(&block.residue_row(part, prime)?[cols.clone()]);
            }
        }
        for encoded in plain {
            let (words, _) = encoded.residues()?;
            rows.push(&words[prime * n + cols.start..prime * n + cols.end]);
        }
    }
    Ok(rows)
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
