//! Compact encodings: a public plaintext that is a polynomial in X^s is kept
//! as N / s words a prime (`EncodedPlaintext::stride`), one that may be
//! secret is encoded whole whatever it holds. Checked against the
//! num-bigint negacyclic model (products and sums with sparse polynomials),
//! against the slot model (periodic slot vectors, whose encodings are such
//! polynomials), and for the raw residue form caches store.

mod common;

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField, UniformRand, Zero};
use common::{model, random_poly, rng, Keyed, F65537};
use helib_rs::{BatchEncoder, Ciphertext, EncodedPlaintext, Error, Plaintext};
use num_bigint::BigUint;
use proptest::prelude::*;
use rand::Rng;
use std::sync::OnceLock;

/// N = 1024, t = BN254 Fr, depth 2.
fn bn254() -> &'static Keyed {
    common::bn254_1024()
}

/// N = 1024, t = BN254 Fr, depth 3: room for a product and a modulus
/// switch before the products under test.
fn bn254_deep() -> &'static Keyed {
    static KEYED: OnceLock<Keyed> = OnceLock::new();
    KEYED.get_or_init(|| Keyed::new(1024, &common::bn254(), 3))
}

/// N = 2048, t = 65537, depth 2.
fn small_t() -> &'static Keyed {
    static KEYED: OnceLock<Keyed> = OnceLock::new();
    KEYED.get_or_init(|| Keyed::new(2048, &common::t65537(), 2))
}

/// The stride the engine keeps for a polynomial in X^s (s a power of two):
/// s, at most N / 16.
fn expected_stride(n: usize, s: usize) -> usize {
    s.min(n / 16)
}

/// A random polynomial in X^s: `n / s` random coefficients at the multiples of s.
fn sparse_poly(keyed: &Keyed, s: usize, rng: &mut impl Rng) -> Vec<BigUint> {
    let n = keyed.n();
    let mut coefficients = vec![BigUint::zero(); n];
    for (k, c) in random_poly(rng, keyed.t(), n / s).into_iter().enumerate() {
        coefficients[k * s] = c;
    }
    coefficients
}

fn decrypt(keyed: &Keyed, ct: &Ciphertext) -> Vec<BigUint> {
    keyed.sk.decrypt(ct).unwrap().coefficients()
}

/// ct(a) · b, ct(a) + b and ct(a) − b for a polynomial b in X^s, at the top
/// level and, on a · b brought down by modulus switching, at a lower one
/// (where the chain has one: `lower_level`), against the negacyclic model;
/// the encoding's stride and size are the compact ones.
fn sparse_products(keyed: &Keyed, s: usize, seed: u64, lower_level: bool) {
    let mut rng = rng(seed);
    let (n, t) = (keyed.n(), keyed.t());
    let a = random_poly(&mut rng, t, n);
    let b = sparse_poly(keyed, s, &mut rng);
    let fresh = keyed.pk.encrypt(&keyed.plaintext(&a)).unwrap();
    let b_plain = keyed.plaintext(&b);
    let top = fresh.level();
    let times = EncodedPlaintext::public_for_multiplication(&b_plain, top).unwrap();
    // Plaintexts that may be secret are encoded whole, whatever they hold.
    assert_eq!(
        EncodedPlaintext::for_multiplication(&b_plain, top)
            .unwrap()
            .stride()
            .unwrap(),
        1
    );
    assert_eq!(
        EncodedPlaintext::for_linear_transform(&b_plain, top)
            .unwrap()
            .stride()
            .unwrap(),
        1
    );
    let lower = (&fresh * &times)
        .unwrap()
        .mod_switch_reduce_noise()
        .unwrap();
    assert_eq!(lower.level() < top, lower_level);
    let ab = model::mul(&a, &b, t);
    let mut cases = vec![(fresh, a)];
    if lower_level {
        cases.push((lower, ab));
    }
    for (ct, a) in cases {
        let level = ct.level();
        for extended in [false, true] {
            let times = if extended {
                EncodedPlaintext::public_for_linear_transform(&b_plain, level).unwrap()
            } else {
                EncodedPlaintext::public_for_multiplication(&b_plain, level).unwrap()
            };
            let stride = expected_stride(n, s);
            assert_eq!(times.stride().unwrap(), stride, "s = {s}");
            let primes = level
                + 1
                + if extended {
                    keyed.context.special_primes().len()
                } else {
                    0
                };
            assert_eq!(times.residue_words().unwrap(), primes * n / stride);
            let product = (&ct * &times).unwrap();
            assert_eq!(decrypt(keyed, &product), model::mul(&a, &b, t), "s = {s}");
        }
        let shift = EncodedPlaintext::for_addition_to(&b_plain, &ct).unwrap();
        assert_eq!(shift.stride().unwrap(), 1, "an addend may be secret");
        let sum = (&ct + &shift).unwrap();
        assert_eq!(decrypt(keyed, &sum), model::add(&a, &b, t), "s = {s}");
        let difference = (&ct - &shift).unwrap();
        assert_eq!(
            decrypt(keyed, &difference),
            model::sub(&a, &b, t),
            "s = {s}"
        );
    }
}

#[test]
fn products_and_sums_with_sparse_polynomials_match_the_model() {
    for log_s in 0..=10 {
        sparse_products(bn254_deep(), 1 << log_s, log_s as u64, true);
    }
    for log_s in [0, 1, 5, 7, 11] {
        sparse_products(small_t(), 1 << log_s, 100 + log_s as u64, false);
    }
}

/// The zero polynomial and constants are as compact as the engine goes,
/// and still multiply and add exactly.
#[test]
fn zero_and_constants_are_compact() {
    let keyed = bn254();
    let (n, t) = (keyed.n(), keyed.t());
    let mut rng = rng(7);
    let a = random_poly(&mut rng, t, n);
    let ct = keyed.pk.encrypt(&keyed.plaintext(&a)).unwrap();
    for constant in [0u64, 1, 5] {
        let plain = Plaintext::from_u64s(&keyed.context, &[constant]).unwrap();
        let encoded = EncodedPlaintext::public_for_multiplication(&plain, ct.level()).unwrap();
        assert_eq!(encoded.stride().unwrap(), n / 16);
        let k = BigUint::from(constant);
        let scaled = decrypt(keyed, &(&ct * &encoded).unwrap());
        assert_eq!(scaled, model::scale(&a, &k, t), "constant {constant}");
    }
}

/// Two rows of `row` random values repeating with period `period`.
fn periodic<F: UniformRand + Copy>(row: usize, period: usize, rng: &mut impl Rng) -> Vec<F> {
    let rows: [Vec<F>; 2] = [
        (0..period).map(|_| F::rand(rng)).collect(),
        (0..period).map(|_| F::rand(rng)).collect(),
    ];
    (0..2 * row)
        .map(|p| rows[p / row][p % row % period])
        .collect()
}

/// Slot vectors repeating with period P along each row are polynomials in
/// X^(N/2P): the transform to coefficients is inverted by the transform back
/// to slots and the coefficients off the multiples of N/2P are zero; the
/// evaluator's encodings, which take the size-2P route for them, equal the
/// encodings of the size-N route's plaintext, residue for residue; and
/// products with them are slot-wise products.
fn periodic_slots<F: PrimeField + FftField>(keyed: &Keyed, seed: u64) {
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    let layout = encoder.layout();
    let n = keyed.n();
    let row = n / 2;
    let mut rng = rng(seed);
    let x: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
    let ct = keyed.pk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    for log_p in 0..row.trailing_zeros() {
        let period = 1usize << log_p;
        let values: Vec<F> = periodic(row, period, &mut rng);
        let coefficients = layout.slots_to_coefficients(&values).unwrap();
        assert_eq!(layout.coefficients_to_slots(&coefficients).unwrap(), values);
        let s = n / (2 * period.max(2));
        assert!(
            coefficients
                .iter()
                .enumerate()
                .all(|(k, c)| k % s == 0 || c.is_zero()),
            "period {period}: a polynomial in X^{s}"
        );
        assert_eq!(
            encoder.encode(&values).unwrap().coefficients(),
            keyed
                .plaintext(
                    &coefficients
                        .iter()
                        .map(|c| c.into_bigint().into())
                        .collect::<Vec<BigUint>>()
                )
                .coefficients()
        );
        let times = encoder
            .encode_for_multiplication(&values, ct.level())
            .unwrap();
        assert!(
            times.stride().unwrap() >= expected_stride(n, s),
            "period {period}"
        );
        let full_route = EncodedPlaintext::public_for_multiplication(
            &encoder.encode(&values).unwrap(),
            ct.level(),
        )
        .unwrap();
        assert_eq!(times.residues().unwrap(), full_route.residues().unwrap());
        let product = encoder
            .decode(&keyed.sk.decrypt(&(&ct * &times).unwrap()).unwrap())
            .unwrap();
        let expected: Vec<F> = x.iter().zip(&values).map(|(a, b)| *a * b).collect();
        assert_eq!(product, expected, "period {period}");
    }
    // Rows that do not repeat: a full encoding.
    let mut values: Vec<F> = periodic(row, 4, &mut rng);
    values[row - 1] += F::one();
    assert_eq!(
        encoder
            .encode_for_multiplication(&values, 0)
            .unwrap()
            .stride()
            .unwrap(),
        1
    );
}

#[test]
fn periodic_slot_vectors_encode_compactly_and_multiply_slot_wise() {
    periodic_slots::<Fr>(bn254(), 1);
    periodic_slots::<F65537>(small_t(), 2);
}

/// Block products take compact plaintext blocks too.
#[test]
fn block_products_take_compact_blocks() {
    let keyed = bn254();
    let (n, t) = (keyed.n(), keyed.t());
    let mut rng = rng(9);
    let a: Vec<Vec<BigUint>> = (0..2).map(|_| random_poly(&mut rng, t, n)).collect();
    let b: Vec<Vec<BigUint>> = [1, 64]
        .iter()
        .map(|&s| sparse_poly(keyed, s, &mut rng))
        .collect();
    let cts: Vec<Ciphertext> = a
        .iter()
        .map(|p| keyed.pk.encrypt(&keyed.plaintext(p)).unwrap())
        .collect();
    let encoded: Vec<EncodedPlaintext> = b
        .iter()
        .map(|p| {
            EncodedPlaintext::public_for_multiplication(&keyed.plaintext(p), cts[0].level())
                .unwrap()
        })
        .collect();
    assert_eq!(encoded[1].stride().unwrap(), 64);
    let blocks = Ciphertext::multiply_plain_blocks(&cts, &encoded, 0..3).unwrap();
    // Block k of the product is Σ_{i+j=k} a_i·b_j, each product negacyclic.
    for (k, block) in blocks.iter().enumerate() {
        let mut want = vec![BigUint::zero(); n];
        for (i, a_i) in a.iter().enumerate() {
            if let Some(b_j) = k.checked_sub(i).and_then(|j| b.get(j)) {
                want = model::add(&want, &model::mul(a_i, b_j, t), t);
            }
        }
        assert_eq!(decrypt(keyed, block), want, "block {k}");
    }
}

/// The raw residue form carries the stride: it round-trips, and an import
/// whose stride is not a power of two from 1 to N/16, or whose word count
/// does not match its stride, is refused.
#[test]
fn compact_residues_round_trip_and_bad_strides_are_refused() {
    let keyed = bn254();
    let (n, level) = (keyed.n(), keyed.context.max_level());
    let mut rng = rng(11);
    let plain = keyed.plaintext(&sparse_poly(keyed, 8, &mut rng));
    let encoded = EncodedPlaintext::public_for_linear_transform(&plain, level).unwrap();
    let stride = encoded.stride().unwrap();
    assert_eq!(stride, 8);
    let mut words = vec![0u64; encoded.residue_words().unwrap()];
    let norms = encoded.export_residues(&mut words).unwrap();
    let one = BigUint::from(1u32);
    let load = |stride: usize, words: &[u64]| {
        EncodedPlaintext::from_residues(&keyed.context, level, true, stride, &one, words, norms)
    };
    let back = load(stride, &words).unwrap();
    assert_eq!(back.stride().unwrap(), stride);
    assert_eq!(back.residues().unwrap(), (&words[..], norms));
    // The reloaded encoding multiplies as the original.
    let a = random_poly(&mut rng, keyed.t(), n);
    let ct = keyed.pk.encrypt(&keyed.plaintext(&a)).unwrap();
    assert_eq!(
        decrypt(keyed, &(&ct * &back).unwrap()),
        decrypt(keyed, &(&ct * &encoded).unwrap())
    );
    for bad in [0, 3, 12, n / 8, n, 2 * n] {
        assert!(
            matches!(load(bad, &words), Err(Error::Malformed(_))),
            "stride {bad}"
        );
    }
    // The words of another stride.
    assert!(matches!(load(4, &words), Err(Error::Malformed(_))));
    assert!(matches!(load(16, &words), Err(Error::Malformed(_))));
    // Every stride the engine can hold, read back from words it wrote.
    for s in [1, 2, n / 16] {
        let plain = keyed.plaintext(&sparse_poly(keyed, s, &mut rng));
        let encoded = EncodedPlaintext::public_for_multiplication(&plain, level).unwrap();
        let mut words = vec![0u64; encoded.residue_words().unwrap()];
        let norms = encoded.export_residues(&mut words).unwrap();
        let back =
            EncodedPlaintext::from_residues(&keyed.context, level, false, s, &one, &words, norms)
                .unwrap();
        assert_eq!(back.residues().unwrap().0, &words[..]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Multiplying by a compact encoding is multiplying by the full
    /// polynomial: (ct · b) decrypts to a · b for b in X^s, any s.
    #[test]
    fn compact_products_are_negacyclic_products(seed: u64, log_s in 0u32..=7) {
        let keyed = small_t();
        let mut rng = rng(seed);
        let t = keyed.t();
        let a = random_poly(&mut rng, t, keyed.n());
        let b = sparse_poly(keyed, 1 << log_s, &mut rng);
        let ct = keyed.sk.encrypt(&keyed.plaintext(&a)).unwrap();
        let times =
            EncodedPlaintext::public_for_multiplication(&keyed.plaintext(&b), ct.level()).unwrap();
        prop_assert_eq!(decrypt(keyed, &(&ct * &times).unwrap()), model::mul(&a, &b, t));
    }
}
