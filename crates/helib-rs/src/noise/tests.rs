//! The model's arithmetic: each fact adds up as the module docs say.

use super::*;

#[test]
fn product_chains_grow_by_a_ciphertext_product_per_further_product() {
    let one = product_chain_total_bits(1 << 15, 254.0, 1, 1);
    assert!((one - (2.0 * fresh_bits(1 << 15, 254.0) + 15.0 + 11.0)).abs() < 1e-9);
    let two = product_chain_total_bits(1 << 15, 254.0, 2, 4);
    let expected = one + 2.0 + fresh_bits(1 << 15, 254.0) + 15.0 + 2.0 + 1.0;
    assert!((two - expected).abs() < 1e-9);
    let t = BigUint::from(1u32) << 254u32;
    assert!(product_chain_bits(1 << 15, &t, 1, 1).iter().sum::<u32>() as f64 >= one);
}

#[test]
fn split_is_balanced_and_bounded() {
    for total in [1, 29, 30, 60, 61, 119, 120, 121, 548, 1000] {
        let parts = split_bits(total);
        let sum: u32 = parts.iter().sum();
        assert_eq!(sum, total.max(30), "total {total}");
        assert!(parts.iter().all(|&b| (30..=60).contains(&b)), "{parts:?}");
        let (min, max) = (parts.iter().min().unwrap(), parts.iter().max().unwrap());
        assert!(max - min <= 1, "{parts:?}");
        assert_eq!(parts.len() as u32, total.max(30).div_ceil(60));
    }
}

#[test]
fn uniform_primes_hold_the_bits_in_the_fewest_primes() {
    for bits in [1.0, 39.5, 60.0, 60.5, 121.5, 548.0, 1500.0] {
        let primes = uniform_primes(bits, 40);
        assert!(f64::from(primes.iter().sum::<u32>()) >= bits, "{primes:?}");
        assert_eq!(primes.len(), ((bits / 60.0).ceil() as usize).max(1));
        assert!(primes
            .iter()
            .all(|&b| (40..=60).contains(&b) && b == primes[0]));
    }
}

#[test]
fn fresh_noise_matches_the_formula() {
    // N = 2^15, t ≈ 2^254: 8·3.2·(2·√21845.33 + 1) + 0.5 ≈ 7593.5, log2 ≈ 12.89.
    let bits = fresh_bits(1 << 15, 254.0);
    let expansion = 2.0 * (2.0 * 32768.0f64 / 3.0).sqrt() + 1.0;
    let formula = 254.0 + (NOISE_TAIL * ERROR_STD_DEV * expansion + 0.5).log2();
    assert!((bits - formula).abs() < 1e-9, "{bits}");
    assert!((bits - (254.0 + 12.89)).abs() < 0.01, "{bits}");
    assert_eq!(plain_product_bits(1 << 15, 254.0), 269.0);
    assert_eq!(scalar_product_bits(40, 254.0), 40.0);
    assert_eq!(scalar_product_bits(40, 17.0), 17.0);
    assert_eq!(addition_bits(1), 0.0);
    assert_eq!(addition_bits(256), 8.0);
}

#[test]
fn depth_adds_one_product_each() {
    let one = chain_total_bits(4096, 17.0, 1);
    let three = chain_total_bits(4096, 17.0, 3);
    assert!((three - one - 2.0 * (17.0 + 12.0)).abs() < 1e-9);
    let chain = chain_bits_for_depth(4096, 17.0, 3);
    assert!(chain.iter().sum::<u32>() as f64 >= three);
}

#[test]
fn transform_levels_and_chains_are_inverse() {
    // A chain sized for k levels affords exactly k (the margin is below a level).
    for (n, log_t) in [(1 << 12, 17.0), (1 << 16, 254.0), (1 << 17, 254.0)] {
        for levels in 0..8 {
            let bits = transform_chain_bits(n, log_t, levels);
            assert_eq!(affordable_transform_levels(bits, n, log_t), levels);
            let q: u32 = uniform_primes(bits, 40).iter().sum();
            assert_eq!(affordable_transform_levels(f64::from(q), n, log_t), levels);
        }
    }
    assert_eq!(affordable_transform_levels(0.0, 1 << 12, 17.0), 0);
}

#[test]
fn special_modulus_covers_the_largest_digit() {
    let chain = [55, 55, 55, 55, 55, 55, 55, 55, 54, 54];
    // 10 primes in 3 digits: groups of 4, 4 and 2 primes, the largest 220 bits.
    let special = special_bits_for_digits(&chain, 3);
    assert_eq!(special.iter().sum::<u32>(), 224);
    assert_eq!(special_bits_for_digits(&chain, 100).iter().sum::<u32>(), 59);
    assert!(special_bits_for_digits(&chain, 0).is_empty());
}

#[test]
fn smudging_room_counts_security_ring_and_parties() {
    assert_eq!(
        smudging_bits(1024, 3, 40).unwrap(),
        40 + 10 + 2 + 2 + SMUDGING_CHECK_BITS
    );
    assert_eq!(
        smudging_bits(1 << 15, 1, 80).unwrap(),
        80 + 15 + 2 + SMUDGING_CHECK_BITS
    );
    assert_eq!(SMUDGING_CHECK_BITS, 2);
    assert_eq!(MAX_PARTIES, 4096);
    // The engine checks the ranges.
    for (parties, lambda) in [(0, 40), (MAX_PARTIES + 1, 40), (3, 0), (3, 129)] {
        assert!(matches!(
            smudging_bits(1024, parties, lambda),
            Err(crate::Error::InvalidArgument(_))
        ));
    }
}
