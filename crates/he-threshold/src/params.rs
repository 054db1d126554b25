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

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    #[test]
    fn the_smudging_room_is_added_at_the_bottom_of_the_chain() {
        let builder = Parameters::builder()
            .ring_degree(1024)
            .plaintext_modulus(BigUint::from(65537u32))
            .multiplicative_depth(1)
            .allow_insecure();
        let base = builder.clone().build().unwrap();
        let extra = smudging_extra_bits(1024, 3, 40);
        assert_eq!(extra, 40 + 10 + 2 + 2);
        let params = with_smudging_room(builder, 3, 40).unwrap();
        let (room, rest) = params
            .chain_bits()
            .split_at(params.chain_bits().len() - base.chain_bits().len());
        assert_eq!(rest, base.chain_bits());
        assert_eq!(room.iter().sum::<u32>(), extra);
        // More than one prime when the room exceeds 60 bits.
        let wide = with_smudging_room(
            Parameters::builder()
                .ring_degree(1024)
                .plaintext_modulus(BigUint::from(65537u32))
                .multiplicative_depth(1)
                .allow_insecure(),
            3,
            80,
        )
        .unwrap();
        assert_eq!(wide.chain_bits().len(), base.chain_bits().len() + 2);
    }
}
