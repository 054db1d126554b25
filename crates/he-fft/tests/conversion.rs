//! Conversions between slot form and coefficient form on ciphertexts, against
//! ark-poly: decrypted plaintext coefficients are the interpolant, products of
//! converted ciphertexts are polynomial products, and the way back returns
//! the values on H. Small (insecure) rings; t = BN254 Fr and t = 65537.

use ark_bn254::Fr;
use ark_ff::{Fp64, MontBackend, MontConfig, PrimeField};
use ark_poly::univariate::DensePolynomial;
use ark_poly::{DenseUVPolynomial, EvaluationDomain, Radix2EvaluationDomain};
use he_fft::{
    bit_reverse, Conversion, ConversionPlan, ConversionPlanBuilder, Error, FftPlan, KeyMode, Order,
    SlotForm, Strategy,
};
use helib_rs::{BatchEncoder, Ciphertext, Context, Parameters, Plaintext, PublicKey, SecretKey};
use num_bigint::BigUint;
use rand::SeedableRng;
use std::sync::OnceLock;

const LOG_N: u32 = 11;
const SLOTS: usize = 1 << LOG_N;
const ROW: usize = SLOTS / 2;

#[derive(MontConfig)]
#[modulus = "65537"]
#[generator = "3"]
struct F65537Config;
type F65537 = Fp64<MontBackend<F65537Config, 1>>;

struct Setup {
    context: Context,
    sk: SecretKey,
    pk: PublicKey,
}

fn keys_for(params: Parameters) -> Setup {
    let context = Context::new(&params).expect("context");
    let sk = SecretKey::generate(&context).expect("sk");
    let pk = sk.public_key().expect("pk");
    Setup { context, sk, pk }
}

/// BN254 Fr with room for three conversion levels and one product.
fn bn254() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        keys_for(
            Parameters::builder()
                .ring_degree(SLOTS)
                .plaintext_modulus_from_field::<Fr>()
                .chain_bits(&[60; 24])
                .allow_insecure()
                .build()
                .expect("parameters"),
        )
    })
}

fn t65537() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        keys_for(
            Parameters::builder()
                .ring_degree(SLOTS)
                .plaintext_modulus(BigUint::from(65537u32))
                .chain_bits(&[50; 8])
                .allow_insecure()
                .build()
                .expect("parameters"),
        )
    })
}

fn random<F: PrimeField>(n: usize, seed: u64) -> Vec<F> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| F::rand(&mut rng)).collect()
}

/// The slot vector holding `v` repeated along both rows (column c holds
/// entry c mod n, or entry bitrev(c mod n)).
fn row_packed<F: Copy>(v: &[F], order: Order) -> Vec<F> {
    let n = v.len();
    let bits = n.trailing_zeros();
    (0..SLOTS)
        .map(|p| {
            let position = (p % ROW) % n;
            match order {
                Order::Natural => v[position],
                Order::BitReversed => v[bit_reverse(position, bits)],
            }
        })
        .collect()
}

/// Encrypts the slot-side vector directly through the batch encoder.
fn encrypt_slots<F: PrimeField + ark_ff::FftField>(s: &Setup, v: &[F], order: Order) -> Ciphertext {
    let encoder = BatchEncoder::<F>::new(&s.context).unwrap();
    s.pk.encrypt(&encoder.encode(&row_packed(v, order)).unwrap())
        .unwrap()
}

/// All N coefficients of the decrypted plaintext polynomial.
fn decrypt_coefficients<F: PrimeField>(s: &Setup, ct: &Ciphertext) -> Vec<F> {
    s.sk.decrypt(ct)
        .unwrap()
        .coefficients()
        .into_iter()
        .map(F::from)
        .collect()
}

fn interpolant<F: PrimeField + ark_ff::FftField>(a: &[F]) -> Vec<F> {
    Radix2EvaluationDomain::<F>::new(a.len()).unwrap().ifft(a)
}

/// The coefficients `want` followed by zeros up to N.
fn padded<F: PrimeField>(want: &[F]) -> Vec<F> {
    let mut out = want.to_vec();
    out.resize(SLOTS, F::zero());
    out
}

fn run<F: PrimeField + ark_ff::FftField>(
    s: &Setup,
    builder: ConversionPlanBuilder<F>,
    input: &Ciphertext,
) -> (ConversionPlan<F>, Ciphertext) {
    let plan = builder.build().expect("plan");
    let keys = plan.generate_galois_keys(&s.sk).expect("keys");
    let out = plan.execute(input, &keys).expect("execute");
    (plan, out)
}

#[test]
fn evaluations_become_the_interpolant() {
    let s = bn254();
    for (n, levels) in [(ROW, Some(3)), (ROW / 2, None), (8, Some(1)), (2, Some(2))] {
        let a: Vec<Fr> = random(n, n as u64);
        let mut builder = ConversionPlan::<Fr>::slots_to_coefficients(&s.context, n);
        if let Some(k) = levels {
            builder = builder.levels(k);
        }
        let (plan, out) = run(s, builder, &encrypt_slots(s, &a, Order::Natural));
        let what = plan.describe();
        if let Some(k) = levels {
            assert_eq!(plan.depth(), k, "{what}");
        }
        let got = decrypt_coefficients::<Fr>(s, &out);
        assert!(got == padded(&interpolant(&a)), "{what}");
        assert_eq!(
            plan.decrypt(&s.sk, &out).unwrap(),
            interpolant(&a),
            "{what}"
        );
    }
}

#[test]
fn converted_ciphertexts_multiply_as_polynomials() {
    let s = bn254();
    for (n, levels) in [(ROW, 3), (ROW / 4, 1)] {
        let plan = ConversionPlan::<Fr>::slots_to_coefficients(&s.context, n)
            .levels(levels)
            .build()
            .unwrap();
        let keys = plan.generate_galois_keys(&s.sk).unwrap();
        let a: Vec<Fr> = random(n, 11);
        let b: Vec<Fr> = random(n, 12);
        let ca = plan
            .execute(&encrypt_slots(s, &a, Order::Natural), &keys)
            .unwrap();
        let cb = plan
            .execute(&plan.encrypt(&s.pk, &b).unwrap(), &keys)
            .unwrap();
        let product = ca.multiply(&cb).expect("product");
        assert_eq!(product.size(), 3);
        let want = &DensePolynomial::from_coefficients_vec(interpolant(&a))
            * &DensePolynomial::from_coefficients_vec(interpolant(&b));
        assert_eq!(want.coeffs().len(), 2 * n - 1);
        let got = decrypt_coefficients::<Fr>(s, &product);
        assert!(got == padded(want.coeffs()), "n={n} levels={levels}");
    }
}

#[test]
fn coefficients_come_back_as_values_on_h() {
    let s = bn254();
    for (n, levels) in [(ROW, 3), (ROW / 2, 4), (16, 1)] {
        let coefficients: Vec<Fr> = random(n, 100 + n as u64);
        let plan = ConversionPlan::<Fr>::coefficients_to_slots(&s.context, n)
            .levels(levels)
            .build()
            .unwrap();
        let keys = plan.generate_galois_keys(&s.sk).unwrap();
        let big: Vec<BigUint> = coefficients
            .iter()
            .map(|c| c.into_bigint().into())
            .collect();
        let ct =
            s.pk.encrypt(&Plaintext::from_biguints(&s.context, &big).unwrap())
                .unwrap();
        let out = plan.execute(&ct, &keys).unwrap();
        let values = Radix2EvaluationDomain::<Fr>::new(n)
            .unwrap()
            .fft(&coefficients);
        let encoder = BatchEncoder::<Fr>::new(&s.context).unwrap();
        let slots = encoder.decode(&s.sk.decrypt(&out).unwrap()).unwrap();
        assert!(
            slots == row_packed(&values, Order::Natural),
            "n={n} levels={levels}"
        );
        assert_eq!(plan.decrypt(&s.sk, &out).unwrap(), values);
    }
}

#[test]
fn slots_to_coefficients_and_back_round_trip() {
    let s = bn254();
    // log2(n) > log2(N/2) / 2: coefficients in natural order need bit swaps.
    let n = 64;
    for (form, order) in [
        (SlotForm::Evaluations, Order::BitReversed),
        (SlotForm::Coefficients, Order::Natural),
        (SlotForm::Coefficients, Order::BitReversed),
    ] {
        let v: Vec<Fr> = random(n, 7);
        let there = ConversionPlan::<Fr>::slots_to_coefficients(&s.context, n)
            .form(form)
            .order(order)
            .levels(2)
            .build()
            .unwrap();
        let mid = there
            .execute(
                &encrypt_slots(s, &v, order),
                &there.generate_galois_keys(&s.sk).unwrap(),
            )
            .unwrap();
        let want = match form {
            SlotForm::Evaluations => interpolant(&v),
            SlotForm::Coefficients => v.clone(),
        };
        assert!(
            decrypt_coefficients::<Fr>(s, &mid) == padded(&want),
            "{form:?} {order:?}"
        );
        let back = ConversionPlan::<Fr>::coefficients_to_slots(&s.context, n)
            .form(form)
            .order(order)
            .levels(1)
            .input_level(mid.level())
            .build()
            .unwrap();
        let out = back
            .execute(&mid, &back.generate_galois_keys(&s.sk).unwrap())
            .unwrap();
        let encoder = BatchEncoder::<Fr>::new(&s.context).unwrap();
        let slots = encoder.decode(&s.sk.decrypt(&out).unwrap()).unwrap();
        assert!(slots == row_packed(&v, order), "{form:?} {order:?}");
    }
}

#[test]
fn small_plaintext_modulus() {
    let s = t65537();
    let n = ROW / 2;
    let plan = ConversionPlan::<F65537>::slots_to_coefficients(&s.context, n)
        .levels(3)
        .build()
        .unwrap();
    let keys = plan.generate_galois_keys(&s.sk).unwrap();
    let a: Vec<F65537> = random(n, 1);
    let b: Vec<F65537> = random(n, 2);
    let ca = plan
        .execute(&encrypt_slots(s, &a, Order::Natural), &keys)
        .unwrap();
    let cb = plan
        .execute(&encrypt_slots(s, &b, Order::Natural), &keys)
        .unwrap();
    assert!(decrypt_coefficients::<F65537>(s, &ca) == padded(&interpolant(&a)));
    let want = &DensePolynomial::from_coefficients_vec(interpolant(&a))
        * &DensePolynomial::from_coefficients_vec(interpolant(&b));
    let product = ca.multiply(&cb).unwrap();
    assert!(decrypt_coefficients::<F65537>(s, &product) == padded(want.coeffs()));
    // And back to the values on H.
    let back = ConversionPlan::<F65537>::coefficients_to_slots(&s.context, n)
        .levels(3)
        .input_level(ca.level())
        .build()
        .unwrap();
    let out = back
        .execute(&ca, &back.generate_galois_keys(&s.sk).unwrap())
        .unwrap();
    assert_eq!(back.decrypt(&s.sk, &out).unwrap(), a);
}

#[test]
fn minimal_keys_and_per_execution_encoding_agree() {
    let s = bn254();
    let n = 64;
    let a: Vec<Fr> = random(n, 5);
    let input = encrypt_slots(s, &a, Order::Natural);
    let want = padded(&interpolant(&a));
    let fast = ConversionPlan::<Fr>::slots_to_coefficients(&s.context, n).levels(3);
    let minimal = ConversionPlan::<Fr>::slots_to_coefficients(&s.context, n)
        .levels(3)
        .key_mode(KeyMode::MinimalKeys)
        .encode_per_execution();
    let fast_per_execution = ConversionPlan::<Fr>::slots_to_coefficients(&s.context, n)
        .levels(3)
        .encode_per_execution();
    let (fast_plan, fast_out) = run(s, fast, &input);
    let (minimal_plan, minimal_out) = run(s, minimal, &input);
    let (_, fast_per_execution_out) = run(s, fast_per_execution, &input);
    assert!(decrypt_coefficients::<Fr>(s, &fast_out) == want);
    assert!(decrypt_coefficients::<Fr>(s, &minimal_out) == want);
    assert!(decrypt_coefficients::<Fr>(s, &fast_per_execution_out) == want);
    assert_eq!(
        fast_plan.diagonals_per_level(),
        minimal_plan.diagonals_per_level()
    );
    assert!(
        minimal_plan.required_galois_elements().len() < fast_plan.required_galois_elements().len()
    );
    // Per-execution plans hold field elements, not encodings.
    assert!(minimal_plan.memory_estimate().plan_bytes < fast_plan.memory_estimate().plan_bytes);
    assert_eq!(
        fast_plan.cost().multiplications,
        fast_plan.diagonals_per_level().iter().sum()
    );
}

#[test]
fn the_estimate_before_building_is_the_plans() {
    let s = bn254();
    for (conversion, n, levels) in [
        (Conversion::SlotsToCoefficients, ROW, 3),
        (Conversion::CoefficientsToSlots, 32, 1),
        (Conversion::CoefficientsToSlots, ROW / 2, 4),
    ] {
        let builder = ConversionPlan::<Fr>::builder(&s.context, n, conversion).levels(levels);
        let before = builder.memory_estimate().unwrap();
        let plan = builder.build().unwrap();
        assert_eq!(plan.memory_estimate(), before);
        assert!(before.plan_bytes > 0 && before.galois_key_bytes > 0);
        let refused = ConversionPlan::<Fr>::builder(&s.context, n, conversion)
            .levels(levels)
            .memory_limit(before.peak_bytes() - 1)
            .build();
        assert!(matches!(refused, Err(Error::InsufficientMemory { .. })));
    }
}

#[test]
fn bad_settings_and_inputs_are_typed_errors() {
    let s = bn254();
    let build = |n: usize| ConversionPlan::<Fr>::slots_to_coefficients(&s.context, n);
    assert!(matches!(build(0).build(), Err(Error::InvalidSize(0))));
    assert!(matches!(build(12).build(), Err(Error::InvalidSize(12))));
    assert!(matches!(
        build(SLOTS).build(),
        Err(Error::ConversionSize { n: SLOTS, max: ROW })
    ));
    assert!(matches!(
        build(8).levels(0).build(),
        Err(Error::InvalidConversionLevels { levels: 0, .. })
    ));
    assert!(matches!(
        build(8).levels(50).build(),
        Err(Error::InvalidConversionLevels { levels: 50, .. })
    ));
    assert!(matches!(
        build(8).max_baby_steps(0).build(),
        Err(Error::InvalidMaxBabySteps(0))
    ));
    assert!(matches!(
        build(8).executions(0).build(),
        Err(Error::InvalidExecutions(0))
    ));
    assert!(matches!(
        build(8).input_level(99).build(),
        Err(Error::InputLevelOutOfRange { level: 99, .. })
    ));
    assert!(matches!(
        build(ROW).levels(6).build(),
        Err(Error::InsufficientBudget { needed: 6, .. })
    ));
    assert!(matches!(
        ConversionPlan::<Fr>::coefficients_to_slots(&s.context, ROW)
            .levels(1)
            .build(),
        Err(Error::Unsupported(_))
    ));
    // A field other than the plaintext modulus.
    assert!(matches!(
        ConversionPlan::<F65537>::slots_to_coefficients(&s.context, 8).build(),
        Err(Error::He(_))
    ));

    let plan = build(8).levels(2).build().unwrap();
    let keys = plan.generate_galois_keys(&s.sk).unwrap();
    let a: Vec<Fr> = random(8, 3);
    let ct = plan.encrypt(&s.pk, &a).unwrap();
    assert!(matches!(
        plan.encrypt(&s.pk, &a[..4]),
        Err(Error::WrongLength {
            expected: 8,
            got: 4
        })
    ));
    let low = ct.mod_switch().unwrap();
    assert!(matches!(
        plan.execute(&low, &keys),
        Err(Error::WrongInputLevel { .. })
    ));
    let empty = helib_rs::GaloisKeys::new(&s.context).unwrap();
    assert!(matches!(
        plan.execute(&ct, &empty),
        Err(Error::MissingGaloisKey { .. })
    ));
    let square = ct.multiply(&ct).unwrap();
    assert!(matches!(
        plan.execute(&square, &keys),
        Err(Error::InputNotRelinearized { parts: 3 })
    ));
    let other = t65537();
    let foreign = helib_rs::GaloisKeys::new(&other.context).unwrap();
    assert!(matches!(
        plan.execute(&ct, &foreign),
        Err(Error::ContextMismatch)
    ));
    // Budget: refused at build for a level affording one level only, and
    // at execution for an input whose budget a product already spent.
    let top = s.context.max_level();
    let one = (0..=top)
        .find(|&l| he_fft::affordable_levels(&s.context, l) == 1)
        .unwrap();
    assert!(matches!(
        build(8).levels(2).input_level(one).build(),
        Err(Error::InsufficientBudget {
            needed: 2,
            available: 1
        })
    ));
    let two = (0..=top)
        .find(|&l| he_fft::affordable_levels(&s.context, l) == 2)
        .unwrap();
    let plan = build(8).levels(2).input_level(two).build().unwrap();
    let keys = plan.generate_galois_keys(&s.sk).unwrap();
    let encoder = BatchEncoder::<Fr>::new(&s.context).unwrap();
    let spent = plan
        .encrypt(&s.pk, &a)
        .unwrap()
        .mul_plain(
            &encoder
                .encode_for_multiplication(&random::<Fr>(SLOTS, 9), two)
                .unwrap(),
        )
        .unwrap();
    assert_eq!(spent.level(), two);
    assert!(matches!(
        plan.execute(&spent, &keys),
        Err(Error::InsufficientBudget { needed: 2, .. })
    ));
}

/// A factored `ifft` leaves bit-reversed coefficients in the slots; a
/// coefficient-form conversion in that order takes them as they are.
#[test]
fn an_ifft_plans_output_converts_without_permutation() {
    let s = bn254();
    let n = 32;
    let ifft = FftPlan::<Fr>::builder(&s.context, n)
        .inverse()
        .strategy(Strategy::Factored { levels: Some(1) })
        .build()
        .unwrap();
    assert_eq!(ifft.output_order(), Order::BitReversed);
    let a: Vec<Fr> = random(n, 21);
    let coefficients = ifft
        .execute(
            &ifft.encrypt(&s.pk, &a).unwrap(),
            &ifft.generate_galois_keys(&s.sk).unwrap(),
        )
        .unwrap()
        .remove(0);
    let to_polynomial = ConversionPlan::<Fr>::slots_to_coefficients(&s.context, n)
        .form(SlotForm::Coefficients)
        .order(ifft.output_order())
        .levels(1)
        .input_level(coefficients.level())
        .build()
        .unwrap();
    let out = to_polynomial
        .execute(
            &coefficients,
            &to_polynomial.generate_galois_keys(&s.sk).unwrap(),
        )
        .unwrap();
    assert!(decrypt_coefficients::<Fr>(s, &out) == padded(&interpolant(&a)));
}

#[test]
fn parameter_helpers() {
    use he_fft::{conversion_levels, suggest_conversion_parameters, suggest_parameters_at_least};
    let to = Conversion::SlotsToCoefficients;
    let back = Conversion::CoefficientsToSlots;
    assert_eq!(conversion_levels::<Fr>(1 << 16, 256, to).unwrap(), 1);
    assert_eq!(conversion_levels::<Fr>(1 << 17, 1 << 16, to).unwrap(), 5);
    // One level cannot bring a full row back.
    assert!(conversion_levels::<Fr>(1 << 12, 1 << 11, back).unwrap() >= 2);
    assert!(matches!(
        conversion_levels::<Fr>(1 << 12, 12, to),
        Err(Error::InvalidSize(12))
    ));
    assert!(matches!(
        conversion_levels::<Fr>(1 << 12, 1 << 12, to),
        Err(Error::ConversionSize { .. })
    ));
    assert!(matches!(
        conversion_levels::<Fr>(1 << 12, 1 << 63, to),
        Err(Error::ConversionSize { .. })
    ));
    // n = 2^16 needs N = 2^17; the chain holds five levels and a product.
    let params = suggest_conversion_parameters::<Fr>(1 << 16, to, 1, 1).unwrap();
    assert_eq!(params.ring_degree(), 1 << 17);
    assert!(params.security_level().bits() >= 128);
    let chain: u32 = params.chain_bits().iter().sum();
    let levels = helib_rs::noise::transform_chain_bits(1 << 17, 254.0, 5)
        + helib_rs::noise::transformed_product_bits(1 << 17, 254.0);
    assert!(f64::from(chain) >= levels);
    for n in [1usize << 17, 1 << 63] {
        assert!(matches!(
            suggest_conversion_parameters::<Fr>(n, to, 1, 1),
            Err(Error::ConversionSize { .. })
        ));
    }
    assert!(matches!(
        suggest_parameters_at_least::<Fr>(usize::MAX, 1, |_| 0.0, 1),
        Err(Error::Unsupported(_))
    ));
    let at_least = suggest_parameters_at_least::<Fr>(1 << 15, 1, |_| 0.0, 1).unwrap();
    assert!(at_least.ring_degree() >= 1 << 15);
}

/// A plan whose diagonals alone would not fit is refused before any is
/// computed (one level at n = 2^15 would be 2^15 diagonals of 2^16 slots).
#[test]
fn oversized_plans_are_refused_before_computing_diagonals() {
    let params = Parameters::builder()
        .ring_degree(1 << 16)
        .plaintext_modulus_from_field::<Fr>()
        .chain_bits(&[60; 12])
        .allow_insecure()
        .build()
        .unwrap();
    let context = Context::new(&params).unwrap();
    let limit = 16usize << 30;
    let start = std::time::Instant::now();
    let builder = || {
        ConversionPlan::<Fr>::slots_to_coefficients(&context, 1 << 15)
            .levels(1)
            .memory_limit(limit)
    };
    for result in [
        builder().memory_estimate().map(|_| ()),
        builder().build().map(|_| ()),
    ] {
        match result {
            Err(Error::InsufficientMemory {
                estimated,
                limit: l,
            }) => {
                assert_eq!(l, limit);
                // 2^15 diagonals of 2^16 field elements of 32 bytes, and more.
                assert!(estimated >= (1usize << 15) * (1 << 16) * 32);
            }
            Err(other) => panic!("unexpected error {other}"),
            Ok(()) => panic!("an oversized plan was accepted"),
        }
    }
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}
