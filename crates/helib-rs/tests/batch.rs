//! The batch encoder: round trips, the ring homomorphism checked against a
//! num-bigint negacyclic product, the documented slot layout under the Galois
//! automorphisms X ↦ X^3 and X ↦ X^(2N−1), and slot-wise encrypted arithmetic.

mod common;

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField, UniformRand};
use common::{bn254, model, t65537, Keyed, F65537};
use helib_rs::{BatchEncoder, Context, EncodedPlaintext, FieldCoefficientEncoder, Plaintext};
use num_bigint::BigUint;

fn random_slots<F: UniformRand>(n: usize, seed: u64) -> Vec<F> {
    let mut rng = common::rng(seed);
    (0..n).map(|_| F::rand(&mut rng)).collect()
}

fn context_for<F: PrimeField>(n: usize) -> Context {
    common::context(n, &F::MODULUS.into(), 1)
}

fn round_trips<F: PrimeField + FftField>(n: usize) {
    let context = context_for::<F>(n);
    let encoder = BatchEncoder::<F>::new(&context).unwrap();
    assert_eq!(encoder.slot_count(), n);
    let x: Vec<F> = random_slots(n, n as u64);
    assert_eq!(encoder.decode(&encoder.encode(&x).unwrap()).unwrap(), x);
    // Fewer values: the rest of the slots are zero.
    let mut short = x[..5].to_vec();
    let decoded = encoder.decode(&encoder.encode(&short).unwrap()).unwrap();
    short.resize(n, F::zero());
    assert_eq!(decoded, short);
    // The all-zero vector is the zero polynomial; a constant is a constant.
    assert!(encoder.encode(&[]).unwrap().is_zero());
    assert!(encoder.encode(&vec![F::zero(); n]).unwrap().is_zero());
    let seven = encoder.encode(&vec![F::from(7u64); n]).unwrap();
    let constant = Plaintext::from_u64s(&context, &[7]).unwrap();
    assert_eq!(seven, constant);
}

#[test]
fn decode_inverts_encode() {
    round_trips::<Fr>(1024);
    round_trips::<Fr>(4096);
    round_trips::<F65537>(1024);
    round_trips::<F65537>(2048);
}

#[test]
fn rows_are_the_two_halves() {
    let context = context_for::<F65537>(1024);
    let encoder = BatchEncoder::<F65537>::new(&context).unwrap();
    let row0: Vec<F65537> = random_slots(512, 1);
    let row1: Vec<F65537> = random_slots(300, 2);
    let plaintext = encoder.encode_rows(&row0, &row1).unwrap();
    let (back0, back1) = encoder.decode_rows(&plaintext).unwrap();
    assert_eq!(back0, row0);
    assert_eq!(back1[..300], row1[..]);
    assert!(back1[300..].iter().all(|v| *v == F65537::from(0u64)));
    let all = encoder.decode(&plaintext).unwrap();
    let layout = encoder.layout();
    assert_eq!(all[layout.slot_index(1, 7).unwrap()], row1[7]);
    assert_eq!(all[layout.slot_index(0, 511).unwrap()], row0[511]);
}

/// Slot-wise product and sum of encodings vs. the negacyclic product and sum
/// of their coefficient polynomials, computed independently with num-bigint.
fn ring_homomorphism<F: PrimeField + FftField>(n: usize) {
    let context = context_for::<F>(n);
    let t = context.plaintext_modulus();
    let encoder = BatchEncoder::<F>::new(&context).unwrap();
    let x: Vec<F> = random_slots(n, 10);
    let y: Vec<F> = random_slots(n, 11);
    let px = encoder.encode(&x).unwrap().coefficients();
    let py = encoder.encode(&y).unwrap().coefficients();

    let product = Plaintext::from_biguints(&context, &model::mul(&px, &py, t)).unwrap();
    let expected: Vec<F> = x.iter().zip(&y).map(|(a, b)| *a * b).collect();
    assert_eq!(encoder.decode(&product).unwrap(), expected);

    let sum = Plaintext::from_biguints(&context, &model::add(&px, &py, t)).unwrap();
    let expected: Vec<F> = x.iter().zip(&y).map(|(a, b)| *a + b).collect();
    assert_eq!(encoder.decode(&sum).unwrap(), expected);
}

#[test]
fn encoding_is_a_ring_homomorphism() {
    ring_homomorphism::<Fr>(1024);
    ring_homomorphism::<F65537>(1024);
}

/// X ↦ X^3 rotates both rows left by one; X ↦ X^(2N−1) swaps the rows.
fn galois_layout<F: PrimeField + FftField>(n: usize) {
    let context = context_for::<F>(n);
    let t = context.plaintext_modulus();
    let encoder = BatchEncoder::<F>::new(&context).unwrap();
    let half = n / 2;
    let x: Vec<F> = random_slots(n, 20);
    let coefficients = encoder.encode(&x).unwrap().coefficients();
    let apply = |k: usize| {
        let substituted = model::substitute(&coefficients, k, t);
        encoder
            .decode(&Plaintext::from_biguints(&context, &substituted).unwrap())
            .unwrap()
    };

    let rotated = apply(3);
    for j in 0..half {
        assert_eq!(rotated[j], x[(j + 1) % half], "row 0, column {j}");
        assert_eq!(
            rotated[half + j],
            x[half + (j + 1) % half],
            "row 1, column {j}"
        );
    }
    let rotated_by_five = apply(3usize.pow(5) % (2 * n));
    for j in 0..half {
        assert_eq!(rotated_by_five[j], x[(j + 5) % half]);
        assert_eq!(rotated_by_five[half + j], x[half + (j + 5) % half]);
    }
    let swapped = apply(2 * n - 1);
    assert_eq!(swapped[..half], x[half..]);
    assert_eq!(swapped[half..], x[..half]);
}

#[test]
fn galois_automorphisms_rotate_and_swap_rows() {
    galois_layout::<Fr>(1024);
    galois_layout::<F65537>(1024);
    galois_layout::<F65537>(4096);
}

#[test]
fn encrypted_slot_arithmetic() {
    encrypted_arithmetic::<Fr>(&Keyed::new(4096, &bn254(), 1));
    encrypted_arithmetic::<F65537>(&Keyed::new(1024, &t65537(), 2));
}

fn encrypted_arithmetic<F: PrimeField + FftField>(keyed: &Keyed) {
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    let n = keyed.n();
    let (x, y, z): (Vec<F>, Vec<F>, Vec<F>) = (
        random_slots(n, 30),
        random_slots(n, 31),
        random_slots(n, 32),
    );
    let cx = keyed.pk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    let cy = keyed.sk.encrypt(&encoder.encode(&y).unwrap()).unwrap();
    // (x − y) · z + z, with a modulus switch in between.
    let diff = (&cx - &cy).unwrap();
    let times = encoder.encode_for_multiplication(&z, diff.level()).unwrap();
    let product = (&diff * &times).unwrap().mod_switch_reduce_noise().unwrap();
    let plus = encoder.encode_for_addition_to(&z, &product).unwrap();
    let result = (&product + &plus).unwrap();
    let expected: Vec<F> = (0..n).map(|i| (x[i] - y[i]) * z[i] + z[i]).collect();
    assert_eq!(
        encoder.decode(&keyed.sk.decrypt(&result).unwrap()).unwrap(),
        expected
    );
}

#[test]
fn encoded_values_are_canonical_coefficients() {
    let context = context_for::<Fr>(1024);
    let encoder = BatchEncoder::<Fr>::new(&context).unwrap();
    let t = bn254();
    let x: Vec<Fr> = random_slots(1024, 40);
    let coefficients = encoder.encode(&x).unwrap().coefficients();
    assert!(coefficients.iter().all(|c| c < &t));
    assert!(
        coefficients.iter().any(|c| c.bits() > 200),
        "uniform slots give big coefficients"
    );
}

/// The residues and norms of an encoding, as the engine holds them.
fn residues(encoded: &EncodedPlaintext) -> (Vec<u64>, (f64, f64)) {
    let mut words = vec![0u64; encoded.residue_words().unwrap()];
    let norms = encoded.export_residues(&mut words).unwrap();
    (words, norms)
}

/// The direct encodings (`encode_for_linear_transform`,
/// `encode_for_multiplication`, and `encode`, from coefficient limbs) are
/// the ones made through field-element coefficients and a `Plaintext`; and
/// the engine's lift of a caller's full polynomial equals its lift of a
/// copied, scaled one.
fn direct_encodings_match<F: PrimeField + FftField>(n: usize, seed: u64) {
    let context = context_for::<F>(n);
    let encoder = BatchEncoder::<F>::new(&context).unwrap();
    let coefficient_encoder = FieldCoefficientEncoder::<F>::new(&context).unwrap();
    let full: Vec<F> = random_slots(n, seed);
    let short = full[..n / 3].to_vec();
    let three_inverse = F::from(3u64).inverse().unwrap();
    for values in [full, short, vec![F::zero(); n], vec![-F::one(); n]] {
        let coefficients = encoder.layout().slots_to_coefficients(&values).unwrap();
        let reference = coefficient_encoder.encode(&coefficients).unwrap();
        assert_eq!(encoder.encode(&values).unwrap(), reference);
        let scaled: Vec<F> = coefficients.iter().map(|&c| c * three_inverse).collect();
        let scaled = coefficient_encoder.encode(&scaled).unwrap();
        for level in [0, context.max_level()] {
            // The direct encodings take their values as public, as the
            // `public_for_*` encodings of a plaintext do.
            let want = EncodedPlaintext::public_for_linear_transform(&reference, level).unwrap();
            let got = encoder.encode_for_linear_transform(&values, level).unwrap();
            assert!(got.is_extended() && got.level() == level);
            assert_eq!(residues(&got), residues(&want), "extended, level {level}");
            let want = EncodedPlaintext::public_for_multiplication(&reference, level).unwrap();
            let got = encoder.encode_for_multiplication(&values, level).unwrap();
            assert!(!got.is_extended());
            assert_eq!(residues(&got), residues(&want), "level {level}");
            // With a factor (an encoding that may be secret: whole).
            let want = EncodedPlaintext::for_multiplication(&reference, level).unwrap();
            let three = BigUint::from(3u32);
            let copied = EncodedPlaintext::with_factor(&scaled, level, &three).unwrap();
            assert_eq!(
                residues(&copied),
                residues(&want),
                "factor 3, level {level}"
            );
        }
    }
}

#[test]
fn direct_encodings_equal_plaintext_encodings() {
    direct_encodings_match::<Fr>(1024, 11);
    direct_encodings_match::<Fr>(4096, 12);
    direct_encodings_match::<F65537>(1024, 13);
    direct_encodings_match::<F65537>(4096, 14);
}
