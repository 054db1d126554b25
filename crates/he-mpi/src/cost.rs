//! The cost model of a distributed block product: bytes per exchange,
//! rounds, and the work and memory of each rank.
//!
//! A product of operands of c_a and c_b blocks (p_a, p_b polynomials each)
//! into O output blocks (p_o polynomials), on a ring of degree N with P chain
//! primes, over R ranks: rank r holds the blocks A_r, B_r, O_r of the
//! [`Partition`] and the w_r slot columns of its column range. For each
//! prime there are three exchanges (operand a, operand b, the result back),
//! each one all-to-all of headers, one of payloads and one all-gather of the
//! outcome. Rank r sends, per prime,
//!
//! * to every other rank d, operand a: [`HEADER_BYTES`] + 8·|A_r|·p_a·w_d;
//! * likewise for operand b;
//! * the result: [`HEADER_BYTES`] + 8·|O_d|·p_o·w_r;
//!
//! and receives the mirror images. These are the bytes a `Cluster` counts in
//! its `Traffic` (feature `mpi`): headers and payloads, not the outcome
//! all-gathers of 8 bytes a rank; the multi-rank tests assert equality. Work: the rank's columns
//! go through p_a + p_b forward and p_o inverse transforms of length
//! L = 2^⌈log2(c_a + c_b − 1)⌉ ((L/2)·log2 L butterflies a column each) and
//! L·p_a·p_b pointwise products, per prime: 1/R of the one-process work.

use he_poly::BlockLayout;

use crate::error::Result;
use crate::frame::HEADER_BYTES;
use crate::partition::Partition;

/// The shape of one block product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProductShape {
    /// N, the ring degree.
    pub ring_degree: usize,
    /// Chain primes the operands are at (level + 1).
    pub primes: usize,
    /// Blocks of operand a.
    pub a_blocks: usize,
    /// Polynomials per block of a (2).
    pub a_parts: usize,
    /// Blocks of operand b.
    pub b_blocks: usize,
    /// Polynomials per block of b (2 for ciphertexts, 1 for a plaintext).
    pub b_parts: usize,
    /// The product blocks computed (all c_a + c_b − 1, or the high ones).
    pub outputs: usize,
}

impl ProductShape {
    /// The product of two ciphertext polynomials of these block counts.
    pub fn ciphertexts(
        ring_degree: usize,
        primes: usize,
        a_blocks: usize,
        b_blocks: usize,
    ) -> Self {
        Self {
            ring_degree,
            primes,
            a_blocks,
            a_parts: 2,
            b_blocks,
            b_parts: 2,
            outputs: a_blocks + b_blocks - 1,
        }
    }

    /// The Groth16 quotient of interpolants over a domain of n points held
    /// in blocks of `stride`: the product blocks that reach X^n.
    ///
    /// # Errors
    /// As for [`BlockLayout::cut_below`] (n below 2).
    pub fn groth16_quotient(
        ring_degree: usize,
        primes: usize,
        n: usize,
        stride: usize,
    ) -> Result<Self> {
        let fresh = BlockLayout::fresh(stride, n);
        let product = fresh.product(&fresh, ring_degree)?;
        let (first, _) = product.cut_below(n)?;
        let blocks = fresh.fresh_blocks();
        Ok(Self {
            outputs: 2 * blocks - 1 - first,
            ..Self::ciphertexts(ring_degree, primes, blocks, blocks)
        })
    }

    /// Polynomials per output block.
    pub fn out_parts(&self) -> usize {
        self.a_parts + self.b_parts - 1
    }

    /// The transform length L across blocks.
    pub fn transform_length(&self) -> usize {
        (self.a_blocks + self.b_blocks - 1).next_power_of_two()
    }
}

/// What one rank spends on one product.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankCost {
    /// Bytes of headers and payloads sent to other ranks.
    pub bytes_sent: u64,
    /// Bytes of headers and payloads received from other ranks.
    pub bytes_received: u64,
    /// Exchanges (3 per prime), each two all-to-alls and an all-gather.
    pub exchanges: u64,
    /// Row butterflies times columns: the transforms' work.
    pub butterfly_words: u64,
    /// Pointwise modular products.
    pub pointwise_products: u64,
    /// Bytes of the rank's own operand and result blocks.
    pub block_bytes: u64,
    /// Bytes of one prime's staged rows on this rank, the working set
    /// beyond the blocks: the other ranks' rows in its columns (operands
    /// received, results to send) and its own blocks' rows in the other
    /// columns (operands to send, results received). Its own rows in its
    /// own columns are read and written in place.
    pub row_bytes: u64,
}

impl RankCost {
    /// Seconds at `ns_per_butterfly` nanoseconds a butterfly word (a
    /// pointwise product counted as one) and `bandwidth` bytes a second
    /// each way, with `latency` seconds per all-to-all round.
    pub fn seconds(&self, ns_per_butterfly: f64, bandwidth: f64, latency: f64) -> f64 {
        let work =
            (self.butterfly_words + self.pointwise_products) as f64 * ns_per_butterfly * 1e-9;
        let bytes = self.bytes_sent.max(self.bytes_received) as f64;
        work + bytes / bandwidth + self.exchanges as f64 * 3.0 * latency
    }
}

/// The cost of `shape` for `rank` of `partition`.
pub fn rank_cost(shape: &ProductShape, partition: &Partition, rank: usize) -> RankCost {
    let ranks = partition.ranks();
    let n = shape.ring_degree;
    let width = |r: usize| partition.columns(n, r).len() as u64;
    let a = |r: usize| partition.range(shape.a_blocks, r).len() as u64;
    let b = |r: usize| partition.range(shape.b_blocks, r).len() as u64;
    let o = |r: usize| partition.range(shape.outputs, r).len() as u64;
    let (pa, pb, po) = (
        shape.a_parts as u64,
        shape.b_parts as u64,
        shape.out_parts() as u64,
    );
    let header = HEADER_BYTES as u64;
    let (mut sent, mut received) = (0u64, 0u64);
    for other in (0..ranks).filter(|&d| d != rank) {
        sent += 3 * header + 8 * (a(rank) * pa + b(rank) * pb) * width(other);
        sent += 8 * o(other) * po * width(rank);
        received += 3 * header + 8 * (a(other) * pa + b(other) * pb) * width(rank);
        received += 8 * o(rank) * po * width(other);
    }
    let primes = shape.primes as u64;
    let length = shape.transform_length() as u64;
    let butterflies = if length > 1 {
        length / 2 * u64::from(length.trailing_zeros())
    } else {
        0
    };
    let w = width(rank);
    let all_rows =
        pa * shape.a_blocks as u64 + pb * shape.b_blocks as u64 + po * shape.outputs as u64;
    let own_rows = pa * a(rank) + pb * b(rank) + po * o(rank);
    RankCost {
        bytes_sent: sent * primes,
        bytes_received: received * primes,
        exchanges: 3 * primes,
        butterfly_words: primes * w * butterflies * (pa + pb + po),
        pointwise_products: primes * w * length * pa * pb,
        block_bytes: 8 * n as u64 * primes * (pa * a(rank) + pb * b(rank) + po * o(rank)),
        row_bytes: 8 * (w * (all_rows - own_rows) + (n as u64 - w) * own_rows),
    }
}

/// What one rank exchanges in a distributed four-step FFT
/// (`DistributedFft`, feature `mpi`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FftExchange {
    /// Bytes of headers and payloads sent to other ranks.
    pub bytes_sent: u64,
    /// Bytes of headers and payloads received from other ranks.
    pub bytes_received: u64,
    /// Exchanges: one per round, as many as the most ciphertexts a rank holds.
    pub exchanges: u64,
}

/// The bytes `rank` of `partition` exchanges running an FFT over
/// `ciphertexts` ciphertexts of a ring of degree `ring_degree`, summed across
/// at `primes` chain primes (`FourStep::across_level` + 1): in round j (as
/// many rounds as the most ciphertexts a rank holds) it sends every other
/// rank d a header and, when d holds a j-th output, its partial sum of that
/// output (two polynomials of `primes`·N words); it receives a header from
/// every other rank and, when it holds a j-th output itself, their partials
/// of it.
///
/// ```
/// use he_mpi::{cost::fft_exchange, Partition};
///
/// let p = Partition::new(2)?;
/// let rank0 = fft_exchange(1 << 12, 3, 4, &p, 0);
/// // Two rounds: one partial of each of rank 1's two outputs, two
/// // polynomials, 3 primes, 4096 words each.
/// let header = he_mpi::frame::HEADER_BYTES as u64;
/// assert_eq!(rank0.bytes_sent, 2 * header + 2 * (8 * 2 * 3 * 4096));
/// assert_eq!(rank0.bytes_sent, rank0.bytes_received);
/// assert_eq!(rank0.exchanges, 2);
/// # Ok::<(), he_mpi::Error>(())
/// ```
pub fn fft_exchange(
    ring_degree: usize,
    primes: usize,
    ciphertexts: usize,
    partition: &Partition,
    rank: usize,
) -> FftExchange {
    let held = |r: usize| partition.range(ciphertexts, r).len() as u64;
    let partial = 8 * 2 * (primes * ring_degree) as u64;
    let header = HEADER_BYTES as u64;
    let rounds = (0..partition.ranks()).map(held).max().unwrap_or(0);
    let others = (0..partition.ranks()).filter(|&d| d != rank);
    let (mut sent, mut received) = (0, 0);
    for other in others {
        sent += rounds * header + held(other) * partial;
        received += rounds * header + held(rank) * partial;
    }
    FftExchange {
        bytes_sent: sent,
        bytes_received: received,
        exchanges: rounds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_split_work_and_send_what_others_receive() {
        let shape = ProductShape::groth16_quotient(1 << 12, 3, 1 << 14, 1 << 11).unwrap();
        assert_eq!(
            (shape.a_blocks, shape.outputs, shape.transform_length()),
            (8, 8, 16)
        );
        let one = rank_cost(&shape, &Partition::new(1).unwrap(), 0);
        assert_eq!((one.bytes_sent, one.bytes_received), (0, 0));
        assert_eq!(one.row_bytes, 0, "one rank stages no rows");
        for ranks in [2, 3, 4] {
            let p = Partition::new(ranks).unwrap();
            let costs: Vec<RankCost> = (0..ranks).map(|r| rank_cost(&shape, &p, r)).collect();
            let sent: u64 = costs.iter().map(|c| c.bytes_sent).sum();
            let received: u64 = costs.iter().map(|c| c.bytes_received).sum();
            assert_eq!(sent, received);
            let work: u64 = costs.iter().map(|c| c.butterfly_words).sum();
            assert_eq!(work, one.butterfly_words);
            let blocks: u64 = costs.iter().map(|c| c.block_bytes).sum();
            assert_eq!(blocks, one.block_bytes);
            // The staged rows of a prime are what the rank sends and
            // receives of it, less the headers.
            let headers = 2 * 3 * (ranks as u64 - 1) * HEADER_BYTES as u64;
            for c in &costs {
                let per_prime = (c.bytes_sent + c.bytes_received) / shape.primes as u64;
                assert_eq!(c.row_bytes, per_prime - headers);
            }
        }
    }
}
