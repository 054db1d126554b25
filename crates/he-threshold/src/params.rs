//! Parameters with room for the smudging noise of collective decryption.

use helib_rs::{Parameters, ParametersBuilder};

use crate::error::Result;

/// The extra modulus bits collective decryption (and encryption to shares,
/// key switching) needs at the level it runs at, beyond what an ordinary
/// decryption needs: each of `parties` parties adds `t·E` with
/// `|E| ≤ 2^λ · N · ||e||`, so the noise grows by
/// `λ + log2 N + log2(parties) + 1` bits over `||t·e||` (one more bit for
/// the rounding of `||e||` up).
pub fn smudging_extra_bits(ring_degree: usize, parties: u32, security_bits: u32) -> u32 {
    let log2 = |x: f64| x.log2().ceil() as u32;
    security_bits + log2(ring_degree as f64) + log2(parties as f64) + 2
}

/// Builds `builder`'s parameters with the chain extended at the bottom by a
/// prime of [`smudging_extra_bits`] (at most 60 bits per prime, more primes
/// when needed), so collective decryption fits at every level an ordinary
/// decryption fits at. The special primes are resized for the longer chain
/// unless set explicitly.
///
/// # Errors
/// The builder's errors (e.g. when the longer chain is below 128-bit
/// security and insecure parameters were not allowed).
pub fn with_smudging_room(
    builder: ParametersBuilder,
    parties: u32,
    security_bits: u32,
) -> Result<Parameters> {
    let base = builder.clone().build()?;
    let mut extra = smudging_extra_bits(base.ring_degree(), parties, security_bits);
    let mut chain: Vec<u32> = Vec::new();
    while extra > 0 {
        let bits = extra.clamp(30, 60);
        chain.push(bits);
        extra = extra.saturating_sub(bits);
    }
    chain.extend_from_slice(base.chain_bits());
    Ok(builder.chain_bits(&chain).build()?)
}
