//! What the workspace's examples and benches share, and nothing else: the
//! common flags, the text and JSON output, the phase timer and peak memory
//! ([`cli`]), the Groth16 test circuit the he-poly and he-threshold examples
//! prove ([`circuits::SquareChain`]), and the Groth16 quotient in the clear
//! that he-poly's quotient example and bench check against
//! ([`plain_groth16_quotient`]).
//!
//! Each crate's examples and benches sit next to the crate (`crates/*/examples`,
//! `crates/*/benches`) and take this crate as a path-only dev-dependency (no
//! version, so it is dropped from the published packages). It depends on no
//! crate of the workspace, only on clap, serde, indicatif and arkworks, so
//! every crate can use it without a cycle.

pub mod circuits;
pub mod cli;

pub use cli::peak_memory_bytes;

/// Ends a verifying example: exit status 0 when it ran and its result
/// verified, 1 when the check failed or it returned an error (printed).
pub fn exit_with(outcome: Result<bool, Box<dyn std::error::Error>>) -> ! {
    match outcome {
        Ok(true) => std::process::exit(0),
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// The Groth16 quotient in the clear, as ark-groth16's reduction computes it:
/// the interpolants of a, b, c on the domain (3 iffts), their values on the
/// coset g·H (3 coset ffts), (A·B − C)/Z_H there (pointwise; Z_H is constant
/// on the coset), and back to coefficients (coset ifft). Returns h with the
/// domain's size of coefficients (the last is 0 for a valid witness).
pub fn plain_groth16_quotient<F: ark_ff::FftField>(
    domain: &ark_poly::Radix2EvaluationDomain<F>,
    a: &[F],
    b: &[F],
    c: &[F],
) -> Vec<F> {
    use ark_poly::EvaluationDomain;
    let coset = domain
        .get_coset(F::GENERATOR)
        .expect("the multiplicative generator spans a coset of a radix-2 domain");
    let evaluations = [a, b, c].map(|v| coset.fft(&domain.ifft(v)));
    let z_inverse = domain
        .evaluate_vanishing_polynomial(F::GENERATOR)
        .inverse()
        .expect("the generator is outside the domain");
    let quotient: Vec<F> = evaluations[0]
        .iter()
        .zip(&evaluations[1])
        .zip(&evaluations[2])
        .map(|((x, y), z)| (*x * y - z) * z_inverse)
        .collect();
    coset.ifft(&quotient)
}
