//! The paper's applications: the all-ones polynomial f(x) = Σ xⁱ and oblivious Iris inference.

pub mod iris;
pub mod polynomial;
