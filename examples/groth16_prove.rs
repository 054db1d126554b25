//! A real Groth16 proof (ark-groth16, BN254) whose quotient h is computed
//! under encryption.
//!
//! The statement: "I know z₀ with z_N = y", where z_{i+1} = z_i² + c_i for
//! public constants c_i — one R1CS constraint per step (N = `--constraints`),
//! y the public input.
//! The prover's R1CS-to-QAP witness map is `he_poly::groth16::EncryptedReduction`:
//! the client interpolates the witness vectors a and b (in the clear) and
//! encrypts them, the server computes h = ⌊A·B / X^n⌋ on the ciphertexts
//! (one block product), the client decrypts h. The proof goes to the
//! standard verifier.
//!
//! Printed: the circuit's size, the domain n, the ring, the time of each
//! step of the encrypted quotient against ark-groth16's plain
//! `LibsnarkReduction` witness map from the same matrices and assignment
//! (medians of 3 runs; both single-threaded) and whether the two h agree,
//! setup, proving and verification times, and `verified: true|false`. The
//! exit status is 0 only when the proof verifies, a wrong public input is
//! rejected and both h agree; `--help` prints the usage.
//!
//! ```text
//! cargo run --release --example groth16_prove                      # 500 constraints, n = 512
//! cargo run --release --example groth16_prove -- --constraints 2000
//! ```

use std::error::Error;

use clap::Parser;
use example_support::outln;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ark_bn254::{Bn254, Fr};
use ark_ff::Field;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::Groth16;
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain};
use ark_snark::SNARK;
use example_support::circuits::{ProverView, SquareChain};
use he_poly::groth16::{witness_evaluations, EncryptedReduction, QuotientKeys};
use he_poly::EncryptedPolynomial;
use rand::{rngs::StdRng, SeedableRng};

type Result<T> = std::result::Result<T, Box<dyn Error>>;
type Domain = GeneralEvaluationDomain<Fr>;

/// Proves knowledge of z0 with z_N = y (z_{i+1} = z_i^2 + c_i) with
/// ark-groth16 over BN254, the quotient h computed under encryption, and
/// verifies the proof.
#[derive(Debug, Parser)]
#[command(version)]
struct Options {
    /// R1CS constraints (steps of the chain), at least 1
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    constraints: u64,
}

fn main() {
    let options = Options::parse();
    example_support::exit_with(run(options.constraints as usize));
}

/// Runs of each reduction whose median is printed.
const RUNS: usize = 3;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed())
}

fn run(steps: usize) -> Result<bool> {
    let mut rng = StdRng::seed_from_u64(2026);
    let start = Fr::from(7u64);
    let circuit = SquareChain {
        steps,
        start: Some(start),
    };
    let image = circuit.end(start);

    // Both reductions below start from the same matrices and assignment (what
    // ark-groth16's witness_map extracts from the constraint system).
    let ProverView {
        num_constraints,
        num_inputs,
        domain,
        matrices,
        assignment,
    } = ProverView::of(&circuit)?;
    let n = domain.size();
    outln!(
        "circuit: {num_constraints} constraints, {num_inputs} instance variables; domain n = {n}"
    );

    let (keys, keygen) = timed(|| QuotientKeys::<Fr>::generate(n));
    let keys = Arc::new(keys?);
    let ring = keys.parameters().parameters();
    outln!(
        "keys: N = {}, log2 Q = {:.0}, stride {}, {} bits of security ({})",
        ring.ring_degree(),
        ring.chain_bits().iter().sum::<u32>(),
        keys.parameters().stride(),
        ring.security_level().bits(),
        ms(keygen)
    );

    // Medians over RUNS runs of each.
    let mut plain_times = Vec::new();
    let mut step_times: Vec<[Duration; 5]> = Vec::new();
    let (mut plain, mut decrypted, mut blocks, mut budget) = (Vec::new(), Vec::new(), 0, 0.0);
    for _ in 0..RUNS {
        // In the clear, as ark-groth16 computes it.
        let (h, time) = timed(|| {
            LibsnarkReduction::witness_map_from_matrices::<Fr, Domain>(
                &matrices,
                num_inputs,
                num_constraints,
                &assignment,
            )
        });
        plain = h?;
        plain_times.push(time);

        // Under encryption, step by step.
        let total = Instant::now();
        let (evaluations, evaluate) =
            timed(|| witness_evaluations(&matrices, num_inputs, num_constraints, &assignment));
        let [a, b] = evaluations?;
        let (interpolants, encrypt) = timed(|| keys.encrypt_interpolants(&domain, &a, &b));
        let [ea, eb] = interpolants?;
        let (h, server) = timed(|| EncryptedPolynomial::groth16_quotient(&ea, &eb, n));
        let h = h?;
        let (h_clear, decrypt) = timed(|| keys.decrypt_quotient(&h, n));
        decrypted = h_clear?;
        step_times.push([total.elapsed(), evaluate, encrypt, server, decrypt]);
        (blocks, budget) = (ea.blocks().len(), h.estimated_budget_bits());
    }
    let same = decrypted == plain;
    let plain_time = median(plain_times);
    let [total, evaluate, encrypt, server, decrypt] =
        std::array::from_fn(|i| median(step_times.iter().map(|t| t[i]).collect()));

    outln!(
        "quotient h ({} coefficients), median of {RUNS} runs:",
        plain.len()
    );
    outln!("  plain LibsnarkReduction witness map   {}", ms(plain_time));
    outln!("  encrypted, total                      {}", ms(total));
    outln!("    client: witness evaluations         {}", ms(evaluate));
    outln!("    client: 2 iffts + encrypt A, B      {}", ms(encrypt));
    outln!(
        "    server: A·B / X^n                   {}  ({blocks} block{} per operand, \
         estimated budget left {budget:.0} bits)",
        ms(server),
        if blocks == 1 { "" } else { "s" },
    );
    outln!("    client: decrypt h                   {}", ms(decrypt));
    outln!(
        "  encrypted / plain                     {:.1}×",
        total.as_secs_f64() / plain_time.as_secs_f64()
    );
    outln!("  h equals LibsnarkReduction's: {same}");

    // Setup (standard), proving with the encrypted reduction, standard verification.
    let setup_circuit = SquareChain {
        start: None,
        ..circuit.clone()
    };
    let (setup_keys, setup) =
        timed(|| Groth16::<Bn254>::circuit_specific_setup(setup_circuit, &mut rng));
    let (pk, vk) = setup_keys?;
    let (proof, prove) = timed(|| {
        EncryptedReduction::with_keys(&keys, || {
            Groth16::<Bn254, EncryptedReduction>::prove(&pk, circuit, &mut rng)
        })
    });
    let proof = match proof {
        Ok(proof) => proof,
        Err(e) => {
            let message = match EncryptedReduction::take_last_error() {
                Some(detail) => format!("proving failed: {e}: {detail}"),
                None => format!("proving failed: {e}"),
            };
            return Err(message.into());
        }
    };
    let (verified, verify) = timed(|| Groth16::<Bn254>::verify(&vk, &[image], &proof));
    let verified = verified?;
    let rejected = !Groth16::<Bn254>::verify(&vk, &[image + Fr::ONE], &proof)?;
    outln!(
        "setup {}, prove (encrypted reduction, keys above) {}, verify {}",
        ms(setup),
        ms(prove),
        ms(verify)
    );
    outln!("wrong public input rejected: {rejected}");
    outln!("verified: {verified}");
    Ok(verified && rejected && same)
}
