//! The HESC paper's applications, built on the public API of [`hesc`]: the
//! all-ones polynomial f(x) = Σ xⁱ ([`polynomial`]) and oblivious Iris
//! inference with a small trained network ([`iris`]).
//!
//! They live outside the `hesc` library so that the library holds only the
//! scheme; the examples `hesc_polynomial` and `hesc_iris` drive them.
#![deny(missing_docs)]

pub mod iris;
pub mod polynomial;
