//! Plaintexts encoded for the evaluator: RNS + NTT form at a level, with a correction factor.

mod encode;
mod import;
mod plaintext;
mod residues;

pub(crate) use import::ResidueImport;
pub use plaintext::EncodedPlaintext;
