//! Parameters with room for the smudging noise of collective decryption.

use helib_rs::advice::Smudging;
use helib_rs::{Parameters, ParametersBuilder};

use crate::error::Result;

/// Builds `builder`'s parameters with the chain extended at the bottom by
/// [`noise::smudging_bits`](helib_rs::noise::smudging_bits) bits of primes
/// ([`noise::split_bits`](helib_rs::noise::split_bits): at most 60 bits per
/// prime, more primes when needed), so collective decryption fits at every
/// level an ordinary decryption fits at. The special primes are resized for
/// the longer chain unless set explicitly. This is the smudging room of
/// `helib-rs`'s parameter advice ([`Smudging::build`]), which
/// [`helib_rs::Workload::smudging`] adds to an advised chain the same way.
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
    Ok(Smudging::new(parties, security_bits).build(builder)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use helib_rs::advice::ChoiceLog;
    use helib_rs::noise;
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

    /// The parameters are those the function built before it called
    /// `helib_rs::advice::Smudging` (its own chain extension): the expected
    /// fingerprint is of the lines it printed for these builders, party
    /// counts and λ (in range and out of it).
    #[test]
    fn the_room_is_what_it_was_before_the_advisor() {
        let bn254: BigUint = <ark_bn254::Fr as ark_ff::PrimeField>::MODULUS.into();
        let t17 = || BigUint::from(65537u32);
        let builder = || Parameters::builder();
        let builders = [
            (
                "d1_1024_insecure",
                builder()
                    .ring_degree(1024)
                    .plaintext_modulus(t17())
                    .multiplicative_depth(1)
                    .allow_insecure(),
            ),
            (
                "d1_2^15_bn",
                builder()
                    .ring_degree(1 << 15)
                    .plaintext_modulus(bn254.clone())
                    .multiplicative_depth(1),
            ),
            (
                "chain_2^16_bn_ks2",
                builder()
                    .ring_degree(1 << 16)
                    .plaintext_modulus(bn254.clone())
                    .chain_bits(&[55; 11])
                    .key_switching_digits(2)
                    .threads(1),
            ),
            (
                "chain_2^16_bn_special",
                builder()
                    .ring_degree(1 << 16)
                    .plaintext_modulus(bn254.clone())
                    .chain_bits(&[55; 11])
                    .special_bits(&[60, 60]),
            ),
            (
                "d3_2^14_t17",
                builder()
                    .ring_degree(1 << 14)
                    .plaintext_modulus(t17())
                    .multiplicative_depth(3),
            ),
            (
                "d8_2^14_t17",
                builder()
                    .ring_degree(1 << 14)
                    .plaintext_modulus(t17())
                    .multiplicative_depth(8),
            ),
            (
                "nochain",
                builder().ring_degree(1 << 14).plaintext_modulus(t17()),
            ),
            (
                "d2_4096_ins",
                builder()
                    .ring_degree(4096)
                    .plaintext_modulus(bn254.clone())
                    .multiplicative_depth(2)
                    .allow_insecure(),
            ),
        ];
        let mut lines = ChoiceLog::new();
        for (name, b) in &builders {
            for parties in [0u32, 1, 2, 3, 5, 16, 4096, 4097] {
                for lambda in [0u32, 1, 40, 80, 128, 129] {
                    lines.record_parameters(
                        format_args!("threshold {name} smudge({parties},{lambda})"),
                        &with_smudging_room(b.clone(), parties, lambda),
                    );
                }
            }
        }
        for expected in [
            "threshold chain_2^16_bn_ks2 smudge(3,40) N=16 Q=31x2,55x11 P=57x5,56x1 th=1",
            "threshold chain_2^16_bn_special smudge(3,40) N=16 Q=31x2,55x11 P=60x2 th=0",
            "threshold d1_1024_insecure smudge(1,1) N=10 Q=30x1,32x2 P=36x1 th=0",
            "threshold nochain smudge(3,40) ERR Engine",
        ] {
            assert!(lines.contains(expected), "missing: {expected}");
        }
        assert_eq!(lines.len(), 384);
        assert_eq!(
            lines.fingerprint(),
            0x2523_c599_ca5e_5a12,
            "the parameters changed:\n{lines}"
        );
    }
}
