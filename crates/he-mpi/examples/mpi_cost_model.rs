//! he-mpi's cost model of the distributed Groth16 quotient for n = 2^20 ..
//! 2^28 and R = 1 .. 64 ranks: per rank the bytes sent, the exchanges, the
//! transform work and the memory of its blocks, and an estimated time at a
//! given bandwidth. No MPI needed: the model is arithmetic (the multi-rank
//! tests check its bytes against the counted ones).
//!
//! The ring and chain for each n are he-poly's choice (the smallest 128-bit
//! ring for one product). Time = work × `--ns-per-butterfly` + bytes /
//! `--bandwidth` + 3 all-to-alls per exchange × `--latency`.
//!
//! `--json` prints one object with `rows`, each with `n`, `ranks`,
//! `ring_degree`, `primes`, `bytes_sent_per_rank`, `exchanges`,
//! `butterfly_words_per_rank`, `block_bytes_per_rank` and `seconds`.
//!
//! ```text
//! cargo run --release -p he-mpi --example mpi_cost_model -- --bandwidth 1.25e9
//! ```

use clap::Parser;
use example_support::outln;
use he_mpi::cost::{rank_cost, ProductShape};
use he_mpi::Partition;
use he_poly::PolyParameters;
use serde_json::json;

/// Prints the cost model of the distributed quotient.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// Smallest log2 n.
    #[arg(long, default_value_t = 20)]
    log_n_min: u32,
    /// Largest log2 n.
    #[arg(long, default_value_t = 28)]
    log_n_max: u32,
    /// Largest rank count (powers of two from 1).
    #[arg(long, default_value_t = 64)]
    max_ranks: usize,
    /// Bytes per second each way per rank.
    #[arg(long, default_value_t = 1.25e9)]
    bandwidth: f64,
    /// Seconds per all-to-all round.
    #[arg(long, default_value_t = 20e-6)]
    latency: f64,
    /// Nanoseconds per butterfly word (calibrated on this machine, see docs/MPI.md).
    #[arg(long, default_value_t = 2.4)]
    ns_per_butterfly: f64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

fn main() {
    let o = Options::parse();
    example_support::exit_with(run(&o).map(|()| true));
}

fn run(o: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let mut rows = Vec::new();
    if !o.json {
        outln!("| n | R | N | primes | sent per rank | exchanges | butterfly words per rank | blocks per rank | est. s |");
        outln!("|---|---|---|---|---|---|---|---|---|");
    }
    for log_n in o.log_n_min..=o.log_n_max {
        let n = 1usize << log_n;
        let p = PolyParameters::for_field::<ark_bn254::Fr>(n, 1)?;
        let ring = p.parameters().ring_degree();
        let primes = p.parameters().chain_bits().len();
        let shape = ProductShape::groth16_quotient(ring, primes, n, p.stride())?;
        let mut ranks = 1;
        while ranks <= o.max_ranks {
            let cost = rank_cost(&shape, &Partition::new(ranks)?, 0);
            let seconds = cost.seconds(o.ns_per_butterfly, o.bandwidth, o.latency);
            if o.json {
                rows.push(json!({
                    "n": n, "ranks": ranks, "ring_degree": ring, "primes": primes,
                    "bytes_sent_per_rank": cost.bytes_sent, "exchanges": cost.exchanges,
                    "butterfly_words_per_rank": cost.butterfly_words,
                    "block_bytes_per_rank": cost.block_bytes, "seconds": seconds,
                }));
            } else {
                outln!(
                    "| 2^{log_n} | {ranks} | 2^{} | {primes} | {:.3} GB | {} | {:.3e} | {:.2} GB | {seconds:.1} |",
                    ring.trailing_zeros(),
                    cost.bytes_sent as f64 / 1e9,
                    cost.exchanges,
                    cost.butterfly_words as f64,
                    cost.block_bytes as f64 / 1e9
                );
            }
            ranks *= 2;
        }
    }
    if o.json {
        example_support::cli::print_json(&json!({ "rows": rows }));
    }
    Ok(())
}
