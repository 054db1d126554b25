//! Benches and examples host: helpers they share.

pub mod circuits;
pub mod cli;

pub use cli::peak_memory_bytes;

/// The workspace README's Rust examples, compiled and run as doctests
/// (`scripts/test-outside-crate.sh` runs them again from a crate outside the
/// workspace).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

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
