//! Parameters with room for the smudging noise of collective decryption.

use helib_rs::{noise, Parameters, ParametersBuilder};

use crate::error::Result;

/// Builds `builder`'s parameters with the chain extended at the bottom by
/// [`noise::smudging_bits`] bits of primes ([`noise::split_bits`]: at most 60
/// bits per prime, more primes when needed), so collective decryption fits at every level an ordinary
/// decryption fits at. The special primes are resized for the longer chain
/// unless set explicitly.
///
/// # Errors
/// The builder's errors (e.g. when the longer chain is below 128-bit
/// security and insecure parameters were not allowed), and the engine's
/// refusal of `parties` or `security_bits` out of range.
pub fn with_smudging_room(
    builder: ParametersBuilder,
    parties: u32,
    security_bits: u32,
) -> Result<Parameters> {
    let base = builder.clone().build()?;
    let extra = noise::smudging_bits(base.ring_degree(), parties, security_bits)?;
    let mut chain = noise::split_bits(extra);
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
        let extra = noise::smudging_bits(1024, 3, 40).unwrap();
        let params = with_smudging_room(builder, 3, 40).unwrap();
        let (room, rest) = params
            .chain_bits()
            .split_at(params.chain_bits().len() - base.chain_bits().len());
        assert_eq!(rest, base.chain_bits());
        assert_eq!(room.iter().sum::<u32>(), extra);
        // More than one prime when the room exceeds 60 bits, exactly the room.
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
        let wide_room = wide.chain_bits().len() - base.chain_bits().len();
        let room: u32 = wide.chain_bits()[..wide_room].iter().sum();
        assert_eq!(room, noise::smudging_bits(1024, 3, 80).unwrap());
    }
}
