//! Products of polynomials spread over ciphertexts (block convolutions),
//! monomial products and operand alignment, against ark-poly and a plaintext model.

mod common;

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField, UniformRand, Zero};
use ark_poly::univariate::DensePolynomial;
use ark_poly::DenseUVPolynomial;
use common::{Keyed, F65537};
use helib_rs::{
    Ciphertext, EncodedPlaintext, Error, FieldCoefficientEncoder, Parameters, Plaintext, SecretKey,
};
use proptest::prelude::*;
use rand::{rngs::StdRng, SeedableRng};

/// Splits `coefficients` into blocks of `stride` and encrypts each.
fn encrypt_blocks<F: PrimeField>(
    keyed: &Keyed,
    encoder: &FieldCoefficientEncoder<F>,
    coefficients: &[F],
    stride: usize,
) -> Vec<Ciphertext> {
    coefficients
        .chunks(stride)
        .map(|block| keyed.pk.encrypt(&encoder.encode(block).unwrap()).unwrap())
        .collect()
}

/// Decrypts blocks D_k and overlap-adds them: Σ D_k X^(k·stride).
fn decrypt_blocks<F: PrimeField>(
    sk: &SecretKey,
    encoder: &FieldCoefficientEncoder<F>,
    blocks: &[Ciphertext],
    stride: usize,
    first: usize,
) -> Vec<F> {
    let n = encoder.context().ring_degree();
    let mut out = vec![F::zero(); (first + blocks.len()) * stride + n];
    for (k, block) in blocks.iter().enumerate() {
        let values = encoder.decode(&sk.decrypt(block).unwrap()).unwrap();
        for (j, v) in values.into_iter().enumerate() {
            out[(first + k) * stride + j] += v;
        }
    }
    out
}

fn random<F: PrimeField>(count: usize, rng: &mut StdRng) -> Vec<F> {
    (0..count).map(|_| F::rand(rng)).collect()
}

/// The product by ark-poly, zero-padded to `len`.
fn reference<F: PrimeField + FftField>(a: &[F], b: &[F], len: usize) -> Vec<F> {
    let product =
        &DensePolynomial::from_coefficients_slice(a) * &DensePolynomial::from_coefficients_slice(b);
    let mut c = product.coeffs;
    c.resize(len, F::zero());
    c
}

fn check_product<F: PrimeField + FftField>(keyed: &Keyed, a_len: usize, b_len: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let encoder = FieldCoefficientEncoder::<F>::new(&keyed.context).unwrap();
    let stride = keyed.context.ring_degree() / 2;
    let a: Vec<F> = random(a_len, &mut rng);
    let b: Vec<F> = random(b_len, &mut rng);
    let ca = encrypt_blocks(keyed, &encoder, &a, stride);
    let cb = encrypt_blocks(keyed, &encoder, &b, stride);
    let total = ca.len() + cb.len() - 1;
    let d = Ciphertext::multiply_blocks(&ca, &cb, 0..total).unwrap();
    assert!(d.iter().all(|c| c.size() == 3));
    let got = decrypt_blocks(&keyed.sk, &encoder, &d, stride, 0);
    assert_eq!(
        got,
        reference(&a, &b, got.len()),
        "a_len {a_len}, b_len {b_len}"
    );
}

#[test]
fn block_products_match_ark_poly_for_bn254() {
    let keyed = Keyed::new(4096, &common::bn254(), 2);
    // One block each (no transform), uneven block counts, a power of two and not.
    for (a_len, b_len) in [
        (2048, 2048),
        (5000, 2048),
        (4096, 4096),
        (6000, 3000),
        (1, 9000),
    ] {
        check_product::<Fr>(&keyed, a_len, b_len, a_len as u64 * 31 + b_len as u64);
    }
}

#[test]
fn block_products_match_ark_poly_for_65537() {
    let keyed = Keyed::new(2048, &common::t65537(), 2);
    for (a_len, b_len) in [(1024, 1024), (8 * 1024, 5 * 1024 + 3)] {
        check_product::<F65537>(&keyed, a_len, b_len, a_len as u64 + 7);
    }
}

#[test]
fn a_range_of_outputs_equals_that_part_of_the_whole_product() {
    let keyed = Keyed::new(4096, &common::bn254(), 2);
    let encoder = FieldCoefficientEncoder::<Fr>::new(&keyed.context).unwrap();
    let mut rng = StdRng::seed_from_u64(3);
    let (a, b): (Vec<Fr>, Vec<Fr>) = (random(8192, &mut rng), random(8192, &mut rng));
    let ca = encrypt_blocks(&keyed, &encoder, &a, 2048);
    let cb = encrypt_blocks(&keyed, &encoder, &b, 2048);
    let all = Ciphertext::multiply_blocks(&ca, &cb, 0..7).unwrap();
    let upper = Ciphertext::multiply_blocks(&ca, &cb, 3..7).unwrap();
    for (x, y) in all[3..].iter().zip(&upper) {
        assert_eq!(keyed.sk.decrypt(x).unwrap(), keyed.sk.decrypt(y).unwrap());
        assert_eq!(x.noise_estimate_bits(), y.noise_estimate_bits());
    }
}

#[test]
fn block_products_cost_the_noise_of_one_product_plus_log2_of_the_terms() {
    let keyed = Keyed::new(4096, &common::bn254(), 2);
    let encoder = FieldCoefficientEncoder::<Fr>::new(&keyed.context).unwrap();
    let mut rng = StdRng::seed_from_u64(4);
    let a: Vec<Fr> = random(8192, &mut rng);
    let ca = encrypt_blocks(&keyed, &encoder, &a, 2048);
    let single = ca[0].multiply(&ca[1]).unwrap();
    let blocks = Ciphertext::multiply_blocks(&ca, &ca, 0..7).unwrap();
    for d in &blocks {
        // Four blocks each: at most four terms, two bits above one product.
        assert_eq!(d.noise_estimate_bits(), single.noise_estimate_bits() + 2.0);
        let exact = keyed.sk.noise_budget(d).unwrap();
        assert!(
            d.estimated_budget_bits() <= exact + 1.0,
            "estimate {} exact {exact}",
            d.estimated_budget_bits()
        );
    }
}

#[test]
fn plaintext_block_products_match_ark_poly() {
    let keyed = Keyed::new(4096, &common::bn254(), 2);
    let encoder = FieldCoefficientEncoder::<Fr>::new(&keyed.context).unwrap();
    let mut rng = StdRng::seed_from_u64(5);
    let (a, b): (Vec<Fr>, Vec<Fr>) = (random(6000, &mut rng), random(4500, &mut rng));
    let ca = encrypt_blocks(&keyed, &encoder, &a, 2048);
    let pb: Vec<EncodedPlaintext> = b
        .chunks(2048)
        .map(|block| {
            encoder
                .encode_for_multiplication(block, ca[0].level())
                .unwrap()
        })
        .collect();
    let d = Ciphertext::multiply_plain_blocks(&ca, &pb, 0..5).unwrap();
    assert!(d.iter().all(|c| c.size() == 2));
    let got = decrypt_blocks(&keyed.sk, &encoder, &d, 2048, 0);
    assert_eq!(got, reference(&a, &b, got.len()));
}

#[test]
fn monomial_products_shift_and_negate_without_noise() {
    let keyed = Keyed::new(1024, &common::t65537(), 2);
    let n = 1024i64;
    let values: Vec<i64> = (0..n).map(|i| (i * 37 + 5) % 1000 - 500).collect();
    let ct = keyed
        .sk
        .encrypt(&Plaintext::from_i64s(&keyed.context, &values).unwrap())
        .unwrap();
    for exponent in [
        0,
        1,
        5,
        n - 1,
        n,
        n + 3,
        2 * n - 1,
        2 * n,
        -1,
        -n - 7,
        7 * n + 2,
    ] {
        let shifted = ct.mul_monomial(exponent).unwrap();
        // The model: X^e · m in Z[X]/(X^N + 1).
        let mut expected = vec![0i64; n as usize];
        for (i, &v) in values.iter().enumerate() {
            let e = (i as i64 + exponent).rem_euclid(2 * n);
            let (pos, sign) = if e < n { (e, 1) } else { (e - n, -1) };
            expected[pos as usize] = sign * v;
        }
        assert_eq!(
            keyed.sk.decrypt(&shifted).unwrap(),
            Plaintext::from_i64s(&keyed.context, &expected).unwrap(),
            "exponent {exponent}"
        );
        assert_eq!(shifted.noise_estimate_bits(), ct.noise_estimate_bits());
    }
    let mut in_place = ct.clone();
    in_place.mul_monomial_assign(3).unwrap();
    assert_eq!(
        keyed.sk.decrypt(&in_place).unwrap(),
        keyed.sk.decrypt(&ct.mul_monomial(3).unwrap()).unwrap()
    );
}

#[test]
fn align_brings_a_product_and_a_fresh_ciphertext_together() {
    let keyed = Keyed::new(4096, &common::bn254(), 2);
    let encoder = FieldCoefficientEncoder::<Fr>::new(&keyed.context).unwrap();
    let mut rng = StdRng::seed_from_u64(6);
    let (a, b, c): (Vec<Fr>, Vec<Fr>, Vec<Fr>) = (
        random(100, &mut rng),
        random(100, &mut rng),
        random(100, &mut rng),
    );
    let enc = |v: &[Fr]| keyed.pk.encrypt(&encoder.encode(v).unwrap()).unwrap();
    let product = enc(&a)
        .multiply(&enc(&b))
        .unwrap()
        .mod_switch_reduce_noise()
        .unwrap();
    let fresh = enc(&c);
    assert_ne!(product.correction_factor(), fresh.correction_factor());
    assert!(matches!(
        &product - &fresh,
        Err(Error::LevelMismatch { .. } | Error::CorrectionFactorMismatch)
    ));
    let (p, f) = Ciphertext::align(&product, &fresh).unwrap();
    assert_eq!(
        (p.level(), p.correction_factor()),
        (f.level(), f.correction_factor())
    );
    let difference = encoder
        .decode(&keyed.sk.decrypt(&(&p - &f).unwrap()).unwrap())
        .unwrap();
    let mut expected = reference(&a, &b, 4096);
    for (e, x) in expected.iter_mut().zip(&c) {
        *e -= x;
    }
    assert_eq!(difference, expected);
    // Aligned in either order, the same sum.
    let (f2, p2) = Ciphertext::align(&fresh, &product).unwrap();
    assert_eq!(
        keyed.sk.decrypt(&(&p2 - &f2).unwrap()).unwrap(),
        keyed.sk.decrypt(&(&p - &f).unwrap()).unwrap()
    );
}

#[test]
fn bad_block_operands_are_refused_before_any_work() {
    let keyed = Keyed::new(1024, &common::t65537(), 2);
    let other = Keyed::new(1024, &common::t65537(), 2);
    let one = Plaintext::from_u64s(&keyed.context, &[1]).unwrap();
    let ct = keyed.pk.encrypt(&one).unwrap();
    let low = ct.mod_switch().unwrap();
    let foreign = other
        .pk
        .encrypt(&Plaintext::from_u64s(&other.context, &[1]).unwrap())
        .unwrap();
    let square = ct.multiply(&ct).unwrap();
    let pair = [ct.clone(), ct.clone()];
    let invalid =
        |r: helib_rs::Result<Vec<Ciphertext>>| matches!(r, Err(Error::InvalidArgument(_)));
    assert!(invalid(Ciphertext::multiply_blocks(&[], &pair, 0..1)));
    assert!(invalid(Ciphertext::multiply_blocks(&pair, &pair, 0..4)));
    assert!(invalid(Ciphertext::multiply_blocks(&pair, &pair, 2..2)));
    assert!(matches!(
        Ciphertext::multiply_blocks(&[ct.clone(), low.clone()], &pair, 0..1),
        Err(Error::LevelMismatch { .. })
    ));
    assert!(matches!(
        Ciphertext::multiply_blocks(&pair, std::slice::from_ref(&low), 0..1),
        Err(Error::LevelMismatch { .. })
    ));
    assert!(matches!(
        Ciphertext::multiply_blocks(&pair, &[foreign], 0..1),
        Err(Error::ContextMismatch)
    ));
    assert!(matches!(
        Ciphertext::multiply_blocks(&[square], &pair, 0..1),
        Err(Error::InvalidCiphertextSize { .. })
    ));
    let relabelled = ct.with_correction_factor(&3u32.into()).unwrap();
    assert!(matches!(
        Ciphertext::multiply_blocks(&[ct.clone(), relabelled], &pair, 0..1),
        Err(Error::CorrectionFactorMismatch)
    ));
    // More product blocks than N.
    let many = vec![ct.clone(); 600];
    assert!(invalid(Ciphertext::multiply_blocks(&many, &many, 0..1)));
    assert!(invalid(Ciphertext::multiply_plain_blocks(&pair, &[], 0..1)));
}

#[test]
fn a_block_product_that_would_not_decrypt_is_refused() {
    // t = BN254 with a chain for one product: a product of products cannot fit.
    let params = Parameters::for_tests();
    let context = helib_rs::Context::new(&params).unwrap();
    let sk = SecretKey::generate(&context).unwrap();
    let rk = helib_rs::RelinKey::generate(&sk).unwrap();
    let x = sk
        .encrypt(&Plaintext::from_u64s(&context, &[2]).unwrap())
        .unwrap();
    let x2 = x.multiply(&x).unwrap().relinearize(&rk).unwrap();
    assert!(matches!(
        Ciphertext::multiply_blocks(std::slice::from_ref(&x2), std::slice::from_ref(&x2), 0..1),
        Err(Error::NoiseBudgetExhausted)
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn block_products_commute_and_match_the_model(
        a_blocks in 1usize..5, b_blocks in 1usize..5, seed in any::<u64>()
    ) {
        let keyed = Keyed::new(1024, &common::t65537(), 2);
        let encoder = FieldCoefficientEncoder::<F65537>::new(&keyed.context).unwrap();
        let mut rng = StdRng::seed_from_u64(seed);
        let a: Vec<F65537> = random(a_blocks * 512 - 3, &mut rng);
        let b: Vec<F65537> = random(b_blocks * 512, &mut rng);
        let ca = encrypt_blocks(&keyed, &encoder, &a, 512);
        let cb = encrypt_blocks(&keyed, &encoder, &b, 512);
        let total = a_blocks + b_blocks - 1;
        let ab = decrypt_blocks(&keyed.sk, &encoder, &Ciphertext::multiply_blocks(&ca, &cb, 0..total).unwrap(), 512, 0);
        let ba = decrypt_blocks(&keyed.sk, &encoder, &Ciphertext::multiply_blocks(&cb, &ca, 0..total).unwrap(), 512, 0);
        prop_assert_eq!(&ab, &ba);
        prop_assert_eq!(ab.clone(), reference(&a, &b, ab.len()));
    }
}

#[test]
fn field_coefficient_encoder_round_trips_and_checks_the_field() {
    let keyed = Keyed::new(1024, &common::t65537(), 2);
    assert!(matches!(
        FieldCoefficientEncoder::<Fr>::new(&keyed.context),
        Err(Error::InvalidArgument(_))
    ));
    let encoder = FieldCoefficientEncoder::<F65537>::new(&keyed.context).unwrap();
    let mut rng = StdRng::seed_from_u64(8);
    let values: Vec<F65537> = random(1000, &mut rng);
    let mut decoded = encoder.decode(&encoder.encode(&values).unwrap()).unwrap();
    assert!(decoded[1000..].iter().all(Zero::is_zero));
    decoded.truncate(1000);
    assert_eq!(decoded, values);
    assert!(matches!(
        encoder.encode(&vec![F65537::from(1u64); 1025]),
        Err(Error::InvalidPlaintext(_))
    ));
    let _ = Fr::rand(&mut rng);
}
